// The 3x3 depthwise convolution on AVX-VNNI (DepthwiseAvx2Body.h): the AVX2 kernel and layout
// with vpdpwssd, the multiply-add and the sum in one instruction (exact: vpmaddwd's pairs fit
// in int32 here, and vpdpwssd wraps as vpaddd does). Compiled with AVX2 and AVX-VNNI flags: only
// called when the CPU has them.
#include "DepthwiseAvx2Body.h"

namespace nnemu::synap::kernels {
namespace {

// Two chains (rows 0-1, row 2), each from a plain vpmaddwd.
struct VnniDot {
    static __m256i sum(const __m256i (&v)[3][2], const __m256i (&w)[3][2]) {
        __m256i chain[2];
        for (int k = 0; k < 2; ++k) {
            chain[k] = _mm256_madd_epi16(v[0][k], w[0][k]);
            for (int kx = 1; kx < 3; ++kx) chain[k] = _mm256_dpwssd_avx_epi32(chain[k], v[kx][k], w[kx][k]);
        }
        return _mm256_add_epi32(chain[0], chain[1]);
    }
};

}  // namespace

void depthwiseAvxVnni(const DepthwiseArgs& a) { depthwiseRows<VnniDot>(a); }

}  // namespace nnemu::synap::kernels
