// The quantized GEMM on AVX-VNNI (GemmAvx2Body.h): the AVX2 kernel and layout with the real
// VEX-encoded vpdpbusd. Compiled with AVX2 and AVX-VNNI flags: only called when the CPU has them.
#include "GemmAvx2Body.h"

namespace nnemu::synap::kernels {
namespace {

struct VnniDot {
    static constexpr bool kSplitRows = false;
    using Weights = __m256i;
    using Values = __m256i;
    static Weights weights(__m256i w) { return w; }
    static Values values(__m256i x) { return x; }
    static __m256i add(__m256i acc, __m256i x, __m256i w) { return _mm256_dpbusd_avx_epi32(acc, x, w); }
};

}  // namespace

void gemmAvxVnni(const GemmArgs& a) { gemmRows<VnniDot>(a); }

}  // namespace nnemu::synap::kernels
