// The 3x3 depthwise convolution on AVX2 (DepthwiseAvx2Body.h): vpmaddwd, then vpaddd.
// Compiled with AVX2 flags: only called when the CPU has them.
#include "DepthwiseAvx2Body.h"

namespace nnemu::synap::kernels {
namespace {

struct MaddDot {
    static __m256i sum(const __m256i (&v)[3][2], const __m256i (&w)[3][2]) {
        const auto taps = [&](int kx) {
            return _mm256_add_epi32(_mm256_madd_epi16(v[kx][0], w[kx][0]), _mm256_madd_epi16(v[kx][1], w[kx][1]));
        };
        return _mm256_add_epi32(_mm256_add_epi32(taps(0), taps(1)), taps(2));
    }
};

}  // namespace

void depthwiseAvx2(const DepthwiseArgs& a) { depthwiseRows<MaddDot>(a); }

}  // namespace nnemu::synap::kernels
