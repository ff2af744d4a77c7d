// The quantized GEMM on AVX2 (GemmAvx2Body.h) with vpdpbusd emulated exactly: even and odd
// bytes widened to 16 bits, then vpmaddwd (no 16-bit saturation: 255 x 128 twice fits).
// Compiled with AVX2 flags: only called when the CPU has them.
#include "GemmAvx2Body.h"

namespace nnemu::synap::kernels {
namespace {

struct EmulatedDot {
    static constexpr bool kSplitRows = true;  // (then weights, values and add are the in-loop split's, for K > 2048)
    struct Weights {
        __m256i even, odd;
    };
    struct Values {
        __m256i even, odd;
    };
    static Weights weights(__m256i w) { return {_mm256_srai_epi16(_mm256_slli_epi16(w, 8), 8), _mm256_srai_epi16(w, 8)}; }
    static Values values(__m256i x) { return {_mm256_and_si256(x, _mm256_set1_epi16(0x00FF)), _mm256_srli_epi16(x, 8)}; }
    static __m256i add(__m256i acc, const Values& x, const Weights& w) {
        return _mm256_add_epi32(acc, _mm256_add_epi32(_mm256_madd_epi16(x.even, w.even), _mm256_madd_epi16(x.odd, w.odd)));
    }
};

}  // namespace

void gemmAvx2(const GemmArgs& a) { gemmRows<EmulatedDot>(a); }

}  // namespace nnemu::synap::kernels
