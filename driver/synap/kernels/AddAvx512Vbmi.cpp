// The quantized ADD with AVX-512 VBMI, 64 values at a time, exactly the reference's arithmetic:
// each input's rescaled term (QuantAdd.h AddInput::term, one per byte value) is looked up as its
// 4 bytes, each from a 256-byte plane with two vpermi2b (bit 7 picks the half), and the planes
// interleaved into 32-bit lanes by unpacks; the output step is the folded requantization
// (GemmArgs.h: one 64-bit product and one rounding shift), narrowed by saturating packs (which
// undo the unpacks' order; exact: the clamp lies inside every saturation bound). The tail of a
// row goes to the plain AVX-512 kernel. Where the layer has word tables (QuantAddWords.cpp), the
// kernel looks up one 16-bit word per input instead (two byte planes each) and the output is the
// high byte of their saturating sum, clamped, formed in bytes (addWords): no 32-bit terms and no
// requantization; where it has only the 32-bit words, they take the terms' place and a shift the
// requantization's. Compiled with AVX-512 VBMI flags: only called when the CPU has them.
#include <immintrin.h>

#include "QuantAdd.h"

namespace nnemu::synap::kernels {
namespace {

// plane[x] for the 64 bytes x (`upper`: their bit 7).
__m512i lookup(const uint8_t (&plane)[256], __m512i x, __mmask64 upper) {
    const __m512i lower = _mm512_permutex2var_epi8(_mm512_loadu_si512(plane), x, _mm512_loadu_si512(plane + 64));
    const __m512i higher = _mm512_permutex2var_epi8(_mm512_loadu_si512(plane + 128), x, _mm512_loadu_si512(plane + 192));
    return _mm512_mask_blend_epi8(upper, lower, higher);
}

// The terms (or 32-bit words) of the 64 bytes `x` as 16-lane vectors: out[j] holds values
// 4j..4j+3 of each 128-bit lane.
void terms(const uint8_t (&planes)[4][256], __m512i x, __m512i (&out)[4]) {
    const __mmask64 upper = _mm512_movepi8_mask(x);
    __m512i b[4];
    for (int k = 0; k < 4; ++k) b[k] = lookup(planes[k], x, upper);
    const __m512i low01 = _mm512_unpacklo_epi8(b[0], b[1]), high01 = _mm512_unpackhi_epi8(b[0], b[1]);
    const __m512i low23 = _mm512_unpacklo_epi8(b[2], b[3]), high23 = _mm512_unpackhi_epi8(b[2], b[3]);
    out[0] = _mm512_unpacklo_epi16(low01, low23);
    out[1] = _mm512_unpackhi_epi16(low01, low23);
    out[2] = _mm512_unpacklo_epi16(high01, high23);
    out[3] = _mm512_unpackhi_epi16(high01, high23);
}

// The output step's constants: the folded form of the multiply and rounding shift by R.
struct Output {
    __m512i multiplier, positive, negative, threshold, zeroPoint16, low8, high8;
    __m128i shift;
    explicit Output(const QuantAddParams& p, bool zeroPointInWords = false) {
        const int32_t r = p.outputRightShift;
        const int64_t half = r > 0 ? int64_t{1} << (r - 1) : 0;
        multiplier = _mm512_set1_epi64(p.outputMultiplier);
        positive = _mm512_set1_epi64((int64_t{1} << 30) + (half << 31));
        negative = _mm512_set1_epi64((int64_t{1} << 30) + ((r > 0 ? half - 1 : 0) << 31));
        threshold = _mm512_set1_epi64(-(int64_t{1} << 30));
        shift = _mm_cvtsi32_si128(31 + r);
        zeroPoint16 = _mm512_set1_epi16(static_cast<int16_t>(zeroPointInWords ? 0 : p.outputZeroPoint));
        low8 = _mm512_set1_epi8(static_cast<char>(p.low));
        high8 = _mm512_set1_epi8(static_cast<char>(p.high));
    }
};

__m512i scaled(const Output& o, __m512i sum) {
    __m512i z[2];
    for (int p = 0; p < 2; ++p) {
        const __m512i t = _mm512_mul_epi32(p == 0 ? sum : _mm512_srli_epi64(sum, 32), o.multiplier);
        const __m512i nudge = _mm512_mask_blend_epi64(_mm512_cmplt_epi64_mask(t, o.threshold), o.positive, o.negative);
        z[p] = _mm512_sra_epi64(_mm512_add_epi64(t, nudge), o.shift);
    }
    return _mm512_mask_shuffle_epi32(z[0], 0xAAAA, z[1], _MM_PERM_CDAB);
}

template <bool Signed>
__m512i outputBytes(const Output& o, const __m512i (&y)[4]) {
    const __m512i w0 = _mm512_adds_epi16(_mm512_packs_epi32(y[0], y[1]), o.zeroPoint16);
    const __m512i w1 = _mm512_adds_epi16(_mm512_packs_epi32(y[2], y[3]), o.zeroPoint16);
    if constexpr (Signed) return _mm512_min_epi8(_mm512_max_epi8(_mm512_packs_epi16(w0, w1), o.low8), o.high8);
    return _mm512_min_epu8(_mm512_max_epu8(_mm512_packus_epi16(w0, w1), o.low8), o.high8);
}

// Wide: the 32-bit words (QuantAdd.h wideWords) in place of the terms, their sum shifted by 8
// in place of the requantization (their zero point is in the words).
template <bool Signed, bool Wide>
size_t addRows(const QuantAddParams& p, const uint8_t* a, size_t aStep, const uint8_t* b, size_t bStep, uint8_t* out,
               size_t count) {
    const Output o(p, Wide);
    auto planes = [&](int input) -> const uint8_t(&)[4][256] {
        return Wide ? p.wideBytes[input] : p.inputs[input].termBytes;
    };
    auto value = [&](int input, uint8_t v) {
        const uint8_t(&bytes)[4][256] = planes(input);
        return static_cast<int32_t>(bytes[0][v] | bytes[1][v] << 8 | bytes[2][v] << 16 | uint32_t{bytes[3][v]} << 24);
    };
    __m512i ta[4], tb[4];
    for (int j = 0; j < 4; ++j) {  // a broadcast input is one term for the whole row
        ta[j] = _mm512_set1_epi32(value(0, a[0]));
        tb[j] = _mm512_set1_epi32(value(1, b[0]));
    }
    size_t i = 0;
    for (; i + 64 <= count; i += 64) {
        if (aStep) terms(planes(0), _mm512_loadu_si512(a + i), ta);
        if (bStep) terms(planes(1), _mm512_loadu_si512(b + i), tb);
        __m512i y[4];
        for (int j = 0; j < 4; ++j) {
            const __m512i sum = _mm512_add_epi32(ta[j], tb[j]);
            y[j] = Wide ? _mm512_srai_epi32(sum, 8) : scaled(o, sum);
        }
        _mm512_storeu_si512(out + i, outputBytes<Signed>(o, y));
    }
    return i;
}

// Output = clamp(high byte of the saturated sum of the two words) (+ 128 for uint8), in bytes:
// the words' high bytes plus the carry out of their low bytes (bit 7 of (a & b) | ((a | b) &
// ~(a + b))), added to a's high byte first, which cannot overflow (QuantAddWords.cpp keeps it
// at most 126 where its low byte is not 0, and a low byte of 0 carries nothing), then b's with
// signed saturation: exact, as the 16-bit saturating sum's high byte.
template <bool Signed>
void addWords(const QuantAddParams& p, const uint8_t* a, size_t aStep, const uint8_t* b, size_t bStep, uint8_t* out,
              size_t count) {
    const int bias = Signed ? 0 : 128;
    const __m512i low8 = _mm512_set1_epi8(static_cast<char>(p.low - bias));
    const __m512i high8 = _mm512_set1_epi8(static_cast<char>(p.high - bias));
    const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
    const __m512i minusOne = _mm512_set1_epi8(-1);
    __m512i wa[2], wb[2];  // low and high bytes; a broadcast input is one word for the whole row
    for (int k = 0; k < 2; ++k) {
        wa[k] = _mm512_set1_epi8(static_cast<char>(p.wordBytes[0][k][a[0]]));
        wb[k] = _mm512_set1_epi8(static_cast<char>(p.wordBytes[1][k][b[0]]));
    }
    auto words = [](const uint8_t(&planes)[2][256], __m512i x, __m512i (&w)[2]) {
        const __mmask64 upper = _mm512_movepi8_mask(x);
        for (int k = 0; k < 2; ++k) w[k] = lookup(planes[k], x, upper);
    };
    // Rows of `n` values from offset i (a whole vector: n = 64; the tail's loads are masked).
    auto run = [&](size_t i, size_t n) {
        const __mmask64 mask = n == 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
        if (aStep) words(p.wordBytes[0], _mm512_maskz_loadu_epi8(mask, a + i), wa);
        if (bStep) words(p.wordBytes[1], _mm512_maskz_loadu_epi8(mask, b + i), wb);
        const __m512i lowSum = _mm512_add_epi8(wa[0], wb[0]);
        const __mmask64 carry = _mm512_movepi8_mask(_mm512_ternarylogic_epi32(wa[0], wb[0], lowSum, 0xD4));
        __m512i y = _mm512_adds_epi8(_mm512_mask_sub_epi8(wa[1], carry, wa[1], minusOne), wb[1]);
        y = _mm512_min_epi8(_mm512_max_epi8(y, low8), high8);
        if constexpr (!Signed) y = _mm512_xor_si512(y, flip);
        _mm512_mask_storeu_epi8(out + i, mask, y);
    };
    size_t i = 0;
    for (; i + 64 <= count; i += 64) run(i, 64);
    if (i < count) run(i, count - i);
}

}  // namespace

void addRowAvx512Vbmi(const QuantAddParams& p, const uint8_t* a, size_t aStep, const uint8_t* b, size_t bStep,
                      uint8_t* out, size_t count) {
    if (p.wordTables) {
        return p.signedValues ? addWords<true>(p, a, aStep, b, bStep, out, count)
                              : addWords<false>(p, a, aStep, b, bStep, out, count);
    }
    size_t done;
    if (p.wideWords) {
        done = p.signedValues ? addRows<true, true>(p, a, aStep, b, bStep, out, count)
                              : addRows<false, true>(p, a, aStep, b, bStep, out, count);
    } else {
        done = p.signedValues ? addRows<true, false>(p, a, aStep, b, bStep, out, count)
                              : addRows<false, false>(p, a, aStep, b, bStep, out, count);
    }
    if (done < count) addRowAvx512(p, a + done * aStep, aStep, b + done * bStep, bStep, out + done, count - done);
}

}  // namespace nnemu::synap::kernels
