// The 3x3 depthwise convolution on AVX-VNNI (DepthwiseAvx2Body.h): the AVX2 kernel and layout
// with vpdpwssd, the multiply-add and the sum in one instruction (exact: vpmaddwd's pairs fit
// in int32 here, and vpdpwssd wraps as vpaddd does). Compiled with AVX2 and AVX-VNNI flags: only
// called when the CPU has them.
#include "DepthwiseAvx2Body.h"

namespace nnemu::synap::kernels {
namespace {

struct VnniDot {
    static __m256i add(__m256i acc, __m256i values, __m256i weights) {
        return _mm256_dpwssd_avx_epi32(acc, values, weights);
    }
};

}  // namespace

void depthwiseAvxVnni(const DepthwiseArgs& a) { depthwiseRows<VnniDot>(a); }

}  // namespace nnemu::synap::kernels
