// The AVX-512 requantization of 16 int32 accumulators (one per channel of a 16-channel
// block) into output values, bit-exact with QuantMath.h: for the AVX-512 kernel files only
// (they are compiled with AVX-512 flags; everything here is internal to each of them).
#pragma once

#include <immintrin.h>

#include "GemmArgs.h"

namespace nnemu::synap::kernels {
namespace {

struct Requant {
    __m512i col, bias, multiplier, left, right;
};

Requant requantOf(const GemmArgs& a, size_t block) {
    const size_t c = block * kGemmBlock;
    return {_mm512_loadu_si512(a.colTerms + c), _mm512_loadu_si512(a.bias + c), _mm512_loadu_si512(a.multipliers + c),
            _mm512_loadu_si512(a.leftShifts + c), _mm512_loadu_si512(a.rightShifts + c)};
}

// a + b, saturating at the int32 bounds.
__m512i saturatingAdd(__m512i a, __m512i b) {
    const __m512i sum = _mm512_add_epi32(a, b);
    const __mmask16 overflow =
            _mm512_movepi32_mask(_mm512_and_si512(_mm512_xor_si512(a, sum), _mm512_xor_si512(b, sum)));
    const __m512i bound = _mm512_xor_si512(_mm512_srai_epi32(a, 31), _mm512_set1_epi32(INT32_MAX));
    return _mm512_mask_mov_epi32(sum, overflow, bound);
}

// (x * m * 2 + 2^31) >> 32 rounded as the reference rounds: for m >= 0 that is floor((x*m + 2^30) / 2^31).
__m512i roundingDoublingHighMul(__m512i x, __m512i m) {
    const __m512i half = _mm512_set1_epi64(int64_t{1} << 30);
    const __m512i even = _mm512_add_epi64(_mm512_mul_epi32(x, m), half);
    const __m512i odd = _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(x, 32), _mm512_srli_epi64(m, 32)), half);
    return _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(even, 31), _mm512_slli_epi64(_mm512_srli_epi64(odd, 31), 32));
}

// x / 2^e rounding half away from zero, per lane.
__m512i roundingDivide(__m512i x, __m512i e) {
    const __m512i one = _mm512_set1_epi32(1);
    const __m512i mask = _mm512_sub_epi32(_mm512_sllv_epi32(one, e), one);
    const __m512i remainder = _mm512_and_si512(x, mask);
    const __m512i threshold = _mm512_sub_epi32(_mm512_srli_epi32(mask, 1), _mm512_srai_epi32(x, 31));
    const __mmask16 up = _mm512_cmpgt_epi32_mask(remainder, threshold);
    return _mm512_mask_add_epi32(_mm512_srav_epi32(x, e), up, _mm512_srav_epi32(x, e), one);
}

__m512i requantize(const GemmArgs& a, const Requant& q, __m512i acc, int32_t rowTerm) {
    acc = _mm512_add_epi32(_mm512_add_epi32(acc, q.col), _mm512_set1_epi32(rowTerm));
    __m512i x = saturatingAdd(acc, q.bias);
    // A left shift (multipliers above 1) saturates where it overflows.
    const __m512i shifted = _mm512_sllv_epi32(x, q.left);
    const __mmask16 overflow = _mm512_cmpneq_epi32_mask(_mm512_srav_epi32(shifted, q.left), x);
    const __m512i bound = _mm512_xor_si512(_mm512_srai_epi32(x, 31), _mm512_set1_epi32(INT32_MAX));
    x = _mm512_mask_mov_epi32(shifted, overflow, bound);
    x = roundingDivide(roundingDoublingHighMul(x, q.multiplier), q.right);
    x = _mm512_max_epi32(x, _mm512_set1_epi32(a.low - a.outputZeroPoint));
    x = _mm512_min_epi32(x, _mm512_set1_epi32(a.high - a.outputZeroPoint));
    return _mm512_add_epi32(x, _mm512_set1_epi32(a.outputZeroPoint));
}

// The folded requantization (GemmArgs.h) where nothing saturates: one 64-bit product and one
// rounding shift per lane, even and odd channels in turn.
struct FastRequant {
    __m512i biasAndCol, multiplier[2], positive[2], negative[2], shift[2];
};

// `biasAndCol`: the block's 16 per-channel terms.
FastRequant fastRequantOf(const FastRequantBlock& f, const int32_t* biasAndCol) {
    FastRequant q;
    q.biasAndCol = _mm512_loadu_si512(biasAndCol);
    for (int p = 0; p < 2; ++p) {
        q.multiplier[p] = _mm512_loadu_si512(f.multiplier[p]);
        q.positive[p] = _mm512_loadu_si512(f.positive[p]);
        q.negative[p] = _mm512_loadu_si512(f.negative[p]);
        q.shift[p] = _mm512_loadu_si512(f.shift[p]);
    }
    return q;
}

FastRequant fastRequantOf(const GemmArgs& a, size_t block) {
    return fastRequantOf(a.fastBlocks[block], a.biasAndColTerms + block * kGemmBlock);
}

// The folded product and shift of 16 values, neither clamped nor offset. AboveZero: for a clamp
// that starts at or above the output zero point, where a negative x's value (at most 0) ends at
// the clamp's lower bound whichever nudge it takes: the positive one for all, no compare and
// blend (the clamp after must be monotonic, as saturating packs and min/max are).
// The even (p = 0) or odd (p = 1) lanes' 64-bit product plus its nudge (scaleFast).
template <bool AboveZero>
__m512i nudgedFast(const FastRequant& q, __m512i x, int p) {
    const __m512i t = _mm512_mul_epi32(p == 0 ? x : _mm512_srli_epi64(x, 32), q.multiplier[p]);
    __m512i nudge = q.positive[p];
    if constexpr (!AboveZero) {
        nudge = _mm512_mask_blend_epi64(_mm512_cmplt_epi64_mask(t, _mm512_set1_epi64(-(int64_t{1} << 30))), nudge,
                                        q.negative[p]);
    }
    return _mm512_add_epi64(t, nudge);
}

template <bool AboveZero = false>
__m512i scaleFast(const FastRequant& q, __m512i x) {
    const __m512i z[2] = {_mm512_srav_epi64(nudgedFast<AboveZero>(q, x, 0), q.shift[0]),
                          _mm512_srav_epi64(nudgedFast<AboveZero>(q, x, 1), q.shift[1])};
    return _mm512_mask_shuffle_epi32(z[0], 0xAAAA, z[1], _MM_PERM_CDAB);  // odd channels' low halves up
}

// scaleFast for a block whose every lane shifts by S >= 32 (`shift32`: S - 32 per channel,
// highShifts): the sums' high halves merged, then one 32-bit shift, the same
// values (GemmAvx512Store.h scaledHigh): one vector instruction less per 16 values.
template <bool AboveZero = false>
__m512i scaleFastHigh(const FastRequant& q, __m512i shift32, __m512i x) {
    return _mm512_srav_epi32(
            _mm512_mask_shuffle_epi32(nudgedFast<AboveZero>(q, x, 1), 0x5555, nudgedFast<AboveZero>(q, x, 0), _MM_PERM_CDAB),
            shift32);
}

// The block's S - 32 per channel, in channel order; false when a lane (a padding one included)
// shifts by less than 32 (a multiplier of 0.5 or more).
inline bool highShifts(const FastRequantBlock& f, __m512i* shift32) {
    const __m512i shifts = _mm512_mask_shuffle_epi32(_mm512_loadu_si512(f.shift[0]), 0xAAAA,
                                                     _mm512_loadu_si512(f.shift[1]), _MM_PERM_CDAB);
    *shift32 = _mm512_sub_epi32(shifts, _mm512_set1_epi32(32));
    return _mm512_cmplt_epi32_mask(shifts, _mm512_set1_epi32(32)) == 0;
}

__m512i requantizeFast(const GemmArgs& a, const FastRequant& q, __m512i acc, int32_t rowTerm) {
    const __m512i x = _mm512_add_epi32(_mm512_add_epi32(acc, q.biasAndCol), _mm512_set1_epi32(rowTerm));
    __m512i y = scaleFast(q, x);
    y = _mm512_max_epi32(y, _mm512_set1_epi32(a.low - a.outputZeroPoint));
    y = _mm512_min_epi32(y, _mm512_set1_epi32(a.high - a.outputZeroPoint));
    return _mm512_add_epi32(y, _mm512_set1_epi32(a.outputZeroPoint));
}

}  // namespace
}  // namespace nnemu::synap::kernels
