// The 3x3 depthwise convolution on AVX2 (DepthwiseAvx2Body.h): vpmaddwd, then vpaddd.
// Compiled with AVX2 flags: only called when the CPU has them.
#include "DepthwiseAvx2Body.h"

namespace nnemu::synap::kernels {
namespace {

struct MaddDot {
    static __m256i add(__m256i acc, __m256i values, __m256i weights) {
        return _mm256_add_epi32(acc, _mm256_madd_epi16(values, weights));
    }
};

}  // namespace

void depthwiseAvx2(const DepthwiseArgs& a) { depthwiseRows<MaddDot>(a); }

}  // namespace nnemu::synap::kernels
