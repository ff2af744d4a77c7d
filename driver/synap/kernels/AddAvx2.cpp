// The quantized ADD on 8 int32 lanes (AVX2), the arithmetic of AddAvx512.cpp.
#include <immintrin.h>

#include "QuantAdd.h"

namespace nnemu::synap::kernels {
namespace {

__m256i roundingShift(__m256i x, int32_t exponent) {
    const __m256i mask = _mm256_set1_epi32(static_cast<int32_t>((int64_t{1} << exponent) - 1));
    const __m256i remainder = _mm256_and_si256(x, mask);
    const __m256i threshold = _mm256_add_epi32(_mm256_srai_epi32(mask, 1), _mm256_srli_epi32(x, 31));
    const __m256i shifted = _mm256_sra_epi32(x, _mm_cvtsi32_si128(exponent));
    return _mm256_sub_epi32(shifted, _mm256_cmpgt_epi32(remainder, threshold));  // true is -1
}

struct InputConstants {
    __m256i zeroPoint, high, low, nudge;
    int32_t shift;
    explicit InputConstants(const AddInput& in)
        : zeroPoint(_mm256_set1_epi32(in.zeroPoint)), high(_mm256_set1_epi32(in.multiplierHigh)),
          low(_mm256_set1_epi32(in.multiplierLow)), nudge(_mm256_set1_epi32(1 << 10)), shift(in.rightShift) {}
};

__m256i inputTerm(const uint8_t* bytes, bool isSigned, const InputConstants& c) {
    const __m128i loaded = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(bytes));
    __m256i d = isSigned ? _mm256_cvtepi8_epi32(loaded) : _mm256_cvtepu8_epi32(loaded);
    d = _mm256_sub_epi32(d, c.zeroPoint);
    const __m256i high = _mm256_slli_epi32(_mm256_mullo_epi32(d, c.high), 5);
    const __m256i low = _mm256_srai_epi32(_mm256_add_epi32(_mm256_mullo_epi32(d, c.low), c.nudge), 11);
    return roundingShift(_mm256_add_epi32(high, low), c.shift);
}

void storeOutput(__m256i sum, const QuantAddParams& p, uint8_t* out) {
    const __m256i multiplier = _mm256_set1_epi32(p.outputMultiplier);
    const __m256i nudge = _mm256_set1_epi64x(int64_t{1} << 30);
    const __m256i even = _mm256_add_epi64(_mm256_mul_epi32(sum, multiplier), nudge);
    const __m256i odd = _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(sum, 32), multiplier), nudge);
    const __m256i scaled = _mm256_blend_epi32(_mm256_srli_epi64(even, 31), _mm256_slli_epi64(odd, 1), 0xAA);
    __m256i q = _mm256_add_epi32(roundingShift(scaled, p.outputRightShift), _mm256_set1_epi32(p.outputZeroPoint));
    q = _mm256_min_epi32(_mm256_max_epi32(q, _mm256_set1_epi32(p.low)), _mm256_set1_epi32(p.high));
    // The low byte of each lane, gathered into the low 8 bytes.
    const __m256i bytes = _mm256_shuffle_epi8(
            q, _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12, -1, -1, -1,
                                -1, -1, -1, -1, -1, -1, -1, -1, -1));
    const __m256i packed = _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 1, 1, 1, 1, 1));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out), _mm256_castsi256_si128(packed));
}

}  // namespace

void addRowAvx2(const QuantAddParams& p, const uint8_t* a, size_t aStep, const uint8_t* b, size_t bStep,
                uint8_t* out, size_t count) {
    const InputConstants ca(p.inputs[0]), cb(p.inputs[1]);
    const __m256i aFixed = _mm256_set1_epi32(p.inputs[0].term[a[0]]);
    const __m256i bFixed = _mm256_set1_epi32(p.inputs[1].term[b[0]]);
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        const __m256i ta = aStep ? inputTerm(a + i, p.signedValues, ca) : aFixed;
        const __m256i tb = bStep ? inputTerm(b + i, p.signedValues, cb) : bFixed;
        storeOutput(_mm256_add_epi32(ta, tb), p, out + i);
    }
    addRowPortable(p, a + i * aStep, aStep, b + i * bStep, bStep, out + i, count - i);
}

}  // namespace nnemu::synap::kernels
