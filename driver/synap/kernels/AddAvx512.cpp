// The quantized ADD on 16 int32 lanes (AVX-512F/BW/VL), exactly the reference's arithmetic:
// an input's Q31 multiply of (q - zp) << 20 is floor(((q - zp) * m + 2^10) / 2^11), computed as
// (q - zp) * (m >> 16) * 32 + floor(((q - zp) * (m & 0xFFFF) + 2^10) / 2^11) in 32 bits; the
// output's is floor((sum * m + 2^30) / 2^31) in 64 bits.
#include <immintrin.h>

#include "QuantAdd.h"

namespace nnemu::synap::kernels {
namespace {

// x / 2^exponent rounded half away from zero (QuantMath.h roundingDivideByPOT).
__m512i roundingShift(__m512i x, int32_t exponent) {
    const __m512i mask = _mm512_set1_epi32(static_cast<int32_t>((int64_t{1} << exponent) - 1));
    const __m512i remainder = _mm512_and_si512(x, mask);
    const __m512i threshold = _mm512_add_epi32(_mm512_srai_epi32(mask, 1), _mm512_srli_epi32(x, 31));
    const __m512i shifted = _mm512_sra_epi32(x, _mm_cvtsi32_si128(exponent));
    return _mm512_mask_add_epi32(shifted, _mm512_cmpgt_epi32_mask(remainder, threshold), shifted,
                                 _mm512_set1_epi32(1));
}

struct InputConstants {
    __m512i zeroPoint, high, low, nudge;
    int32_t shift;
    explicit InputConstants(const AddInput& in)
        : zeroPoint(_mm512_set1_epi32(in.zeroPoint)), high(_mm512_set1_epi32(in.multiplierHigh)),
          low(_mm512_set1_epi32(in.multiplierLow)), nudge(_mm512_set1_epi32(1 << 10)), shift(in.rightShift) {}
};

__m512i inputTerm(__m128i bytes, bool isSigned, const InputConstants& c) {
    __m512i d = isSigned ? _mm512_cvtepi8_epi32(bytes) : _mm512_cvtepu8_epi32(bytes);
    d = _mm512_sub_epi32(d, c.zeroPoint);
    const __m512i high = _mm512_slli_epi32(_mm512_mullo_epi32(d, c.high), 5);
    const __m512i low = _mm512_srai_epi32(_mm512_add_epi32(_mm512_mullo_epi32(d, c.low), c.nudge), 11);
    return roundingShift(_mm512_add_epi32(high, low), c.shift);
}

__m128i outputBytes(__m512i sum, const QuantAddParams& p) {
    const __m512i multiplier = _mm512_set1_epi32(p.outputMultiplier);
    const __m512i nudge = _mm512_set1_epi64(int64_t{1} << 30);
    const __m512i even = _mm512_add_epi64(_mm512_mul_epi32(sum, multiplier), nudge);
    const __m512i odd = _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(sum, 32), multiplier), nudge);
    // Bits 31..62 of each product: in the low half of the even lanes, the high half of the odd.
    const __m512i scaled = _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(even, 31), _mm512_slli_epi64(odd, 1));
    __m512i q = _mm512_add_epi32(roundingShift(scaled, p.outputRightShift), _mm512_set1_epi32(p.outputZeroPoint));
    q = _mm512_min_epi32(_mm512_max_epi32(q, _mm512_set1_epi32(p.low)), _mm512_set1_epi32(p.high));
    return _mm512_cvtepi32_epi8(q);
}

}  // namespace

void addRowAvx512(const QuantAddParams& p, const uint8_t* a, size_t aStep, const uint8_t* b, size_t bStep,
                  uint8_t* out, size_t count) {
    const InputConstants ca(p.inputs[0]), cb(p.inputs[1]);
    // A broadcast input is one term for the whole row.
    const __m512i aFixed = _mm512_set1_epi32(p.inputs[0].term[a[0]]);
    const __m512i bFixed = _mm512_set1_epi32(p.inputs[1].term[b[0]]);
    for (size_t i = 0; i < count; i += 16) {
        const size_t n = count - i < 16 ? count - i : 16;
        const __mmask16 mask = static_cast<__mmask16>((1u << n) - 1);
        const __m512i ta = aStep ? inputTerm(_mm_maskz_loadu_epi8(mask, a + i), p.signedValues, ca) : aFixed;
        const __m512i tb = bStep ? inputTerm(_mm_maskz_loadu_epi8(mask, b + i), p.signedValues, cb) : bFixed;
        _mm_mask_storeu_epi8(out + i, mask, outputBytes(_mm512_add_epi32(ta, tb), p));
    }
}

}  // namespace nnemu::synap::kernels
