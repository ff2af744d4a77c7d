// The AVX-512 GEMM kernels' shared epilogue (GemmAvx512Vnni.cpp, GemmAmxInt8.cpp): the folded
// requantization of 16 channels' accumulators and the narrowing of a tile of them into output
// bytes, and the row terms of uint8 rows. For the AVX-512 kernel files only (compiled with
// AVX-512 flags; everything here is internal to each of them).
#pragma once

#include <immintrin.h>

#include "GemmArgs.h"

namespace nnemu::synap::kernels {
namespace {

// The nudges of a block's folded requantization ([0] even channels, [1] odd): the product t
// takes `negative` where t < threshold, else `positive`. A block's own (nudgesOf) have the
// threshold -2^30; a caller that leaves a term s out of x (x = x' + s) gives t' = x' * m the
// nudges plus s * m and the threshold -2^30 - s * m: the same sums t' + nudge, the same values
// (GemmAmxInt8.cpp leaves out its accumulators' start so).
struct Nudges {
    const int64_t (*positive)[8];
    const int64_t (*negative)[8];
    const int64_t (*threshold)[8];
};

alignas(64) constexpr int64_t kNudgeThreshold[2][8] = {
        {-(int64_t{1} << 30), -(int64_t{1} << 30), -(int64_t{1} << 30), -(int64_t{1} << 30), -(int64_t{1} << 30),
         -(int64_t{1} << 30), -(int64_t{1} << 30), -(int64_t{1} << 30)},
        {-(int64_t{1} << 30), -(int64_t{1} << 30), -(int64_t{1} << 30), -(int64_t{1} << 30), -(int64_t{1} << 30),
         -(int64_t{1} << 30), -(int64_t{1} << 30), -(int64_t{1} << 30)}};

inline Nudges nudgesOf(const FastRequantBlock& f) { return {f.positive, f.negative, kNudgeThreshold}; }

// The folded requantization (GemmArgs.h) of x = accumulator + bias + column term, without the
// output zero point: even channels, then odd, merged back in place. AboveZero: the layer's clamp
// starts at or above the output zero point (ReLU, ReLU6), so a negative x, whose value is at
// most 0, ends at the clamp's lower bound whichever nudge it takes: the positive one for all,
// no compare and blend. (Its value stays at most 0 and the narrowing is monotonic.)
// The even (p = 0) or odd (p = 1) channels times the multiplier, plus the rounding nudge: `lanes`
// holds them in the low halves of its 64-bit lanes (x itself for the even ones; for the odd ones
// x shifted down, or x loaded from one value further on; the high halves are not read).
template <bool AboveZero>
[[gnu::always_inline]] inline __m512i nudged(const FastRequantBlock& f, __m512i lanes, const Nudges& n, int p) {
    const __m512i t = _mm512_mul_epi32(lanes, _mm512_loadu_si512(f.multiplier[p]));
    __m512i nudge = _mm512_loadu_si512(n.positive[p]);
    if constexpr (!AboveZero) {
        nudge = _mm512_mask_blend_epi64(_mm512_cmplt_epi64_mask(t, _mm512_loadu_si512(n.threshold[p])), nudge,
                                        _mm512_loadu_si512(n.negative[p]));
    }
    return _mm512_add_epi64(t, nudge);
}

// `odd`: the odd channels in the low halves (nudged).
template <bool AboveZero>
[[gnu::always_inline]] inline __m512i scaled(const FastRequantBlock& f, __m512i x, __m512i odd, const Nudges& n) {
    const __m512i z[2] = {_mm512_srav_epi64(nudged<AboveZero>(f, x, n, 0), _mm512_loadu_si512(f.shift[0])),
                          _mm512_srav_epi64(nudged<AboveZero>(f, odd, n, 1), _mm512_loadu_si512(f.shift[1]))};
    return _mm512_mask_shuffle_epi32(z[0], 0xAAAA, z[1], _MM_PERM_CDAB);
}

template <bool AboveZero>
__m512i scaled(const FastRequantBlock& f, __m512i x, const Nudges& n) {
    return scaled<AboveZero>(f, x, _mm512_srli_epi64(x, 32), n);
}

// scaled() for a block whose every lane shifts by S >= 32: the high dwords
// of the 64-bit sums t + nudge merged, then one 32-bit arithmetic shift by S - 32, where
// scaled() shifts both 64-bit halves by S and merges the low dwords. The same value for any
// sum: floor(u / 2^S) = floor(floor(u / 2^32) / 2^(S - 32)), and it fits 32 bits (|u| < 2^63).
// One vector instruction less per 16 outputs: the AMX kernel's requantization 3-6 % faster on
// its requantization-bound shapes; the VNNI kernel's shallow tiles 3-4 % on Zen 4 (first
// measured within noise there).
// `odd` as in scaled().
template <bool AboveZero>
[[gnu::always_inline]] inline __m512i scaledHigh(const FastRequantBlock& f, __m512i shift32, __m512i x, __m512i odd,
                                                 const Nudges& n) {
    const __m512i u[2] = {nudged<AboveZero>(f, x, n, 0), nudged<AboveZero>(f, odd, n, 1)};
    return _mm512_srav_epi32(_mm512_mask_shuffle_epi32(u[1], 0x5555, u[0], _MM_PERM_CDAB), shift32);
}

// Narrowing of scaled values: + zero point and the clamp, with saturating packs to 16 then 8
// bits (exact: the clamp bounds lie inside every saturation bound). uint8 values (a clamp
// reaching above 127) travel as value - 128 and flip back at the end; a clamp inside [0, 127]
// gives the same bytes either way.
struct Narrow {
    __m512i zeroPoint16, low8, high8, flip8, order;
    explicit Narrow(const GemmArgs& a) {
        const int32_t offset = a.high > 127 ? 128 : 0;
        zeroPoint16 = _mm512_set1_epi16(static_cast<int16_t>(a.outputZeroPoint - offset));
        low8 = _mm512_set1_epi8(static_cast<char>(a.low - offset));
        high8 = _mm512_set1_epi8(static_cast<char>(a.high - offset));
        flip8 = _mm512_set1_epi8(static_cast<char>(offset));
        // The packs interleave 4-channel pieces of the 4 blocks per 128-bit lane: put each
        // block's 16 channels back together.
        order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    }
};

// Four vectors of scaled values as output bytes: v0's 16 values, then v1's, v2's, v3's.
[[gnu::always_inline]] inline __m512i narrow(const Narrow& n, __m512i v0, __m512i v1, __m512i v2, __m512i v3) {
    const __m512i low = _mm512_adds_epi16(_mm512_packs_epi32(v0, v1), n.zeroPoint16);
    const __m512i high = _mm512_adds_epi16(_mm512_packs_epi32(v2, v3), n.zeroPoint16);
    const __m512i bytes = _mm512_min_epi8(_mm512_max_epi8(_mm512_packs_epi16(low, high), n.low8), n.high8);
    return _mm512_permutexvar_epi32(n.order, _mm512_xor_si512(bytes, n.flip8));
}

__mmask64 prefix(size_t count) { return count >= 64 ? ~__mmask64{0} : (__mmask64{1} << count) - 1; }

// A tile's scaled values stored, `count` of the tile's channels: rows of 3 or 4 blocks one
// 64-byte vector each; rows of 1 or 2 blocks 4 or 2 rows per vector, so that narrowing works
// on full vectors.
// Always inlined: GCC 12 kept storeTile<4, 2> out of line in the AMX kernel, its 8 vectors passed
// through the stack (10 % of the generated int8 MobileNet v2's profile in that one function).
template <int R, int B>
[[gnu::always_inline]] inline void storeTile(const Narrow& n, const __m512i (&y)[R][B], uint8_t* out, size_t stride,
                                             size_t count) {
    const __m512i zero = _mm512_setzero_si512();
    int i = 0;
    if constexpr (B == 1) {
        for (; i + 4 <= R; i += 4) {
            const __m512i bytes = narrow(n, y[i][0], y[i + 1][0], y[i + 2][0], y[i + 3][0]);
            const __mmask16 mask = static_cast<__mmask16>(prefix(count));
            _mm_mask_storeu_epi8(out + i * stride, mask, _mm512_castsi512_si128(bytes));
            _mm_mask_storeu_epi8(out + (i + 1) * stride, mask, _mm512_extracti32x4_epi32(bytes, 1));
            _mm_mask_storeu_epi8(out + (i + 2) * stride, mask, _mm512_extracti32x4_epi32(bytes, 2));
            _mm_mask_storeu_epi8(out + (i + 3) * stride, mask, _mm512_extracti32x4_epi32(bytes, 3));
        }
    }
    if constexpr (B == 2) {
        for (; i + 2 <= R; i += 2) {
            const __m512i bytes = narrow(n, y[i][0], y[i][1], y[i + 1][0], y[i + 1][1]);
            const __mmask32 mask = static_cast<__mmask32>(prefix(count));
            _mm256_mask_storeu_epi8(out + i * stride, mask, _mm512_castsi512_si256(bytes));
            _mm256_mask_storeu_epi8(out + (i + 1) * stride, mask, _mm512_extracti64x4_epi64(bytes, 1));
        }
    }
    for (; i < R; ++i) {
        __m512i v[4] = {zero, zero, zero, zero};
        #pragma GCC unroll 16
        for (int j = 0; j < B; ++j) v[j] = y[i][j];
        _mm512_mask_storeu_epi8(out + i * stride, prefix(count), narrow(n, v[0], v[1], v[2], v[3]));
    }
}

// The row term (GemmArgs.h) of one row: rowFactor * the sum of its 4 * depthGroups bytes.
int32_t rowTerm(const GemmArgs& a, const uint8_t* bytes) {
    const size_t depth = a.depthGroups * 4;
    __m512i sums = _mm512_setzero_si512();
    for (size_t k = 0; k < depth; k += 64) {
        const __m512i chunk = _mm512_maskz_loadu_epi8(prefix(depth - k), bytes + k);
        sums = _mm512_add_epi64(sums, _mm512_sad_epu8(chunk, _mm512_setzero_si512()));
    }
    const auto sum = static_cast<uint32_t>(_mm512_reduce_add_epi64(sums));
    return static_cast<int32_t>(sum * static_cast<uint32_t>(a.rowFactor));
}

}  // namespace
}  // namespace nnemu::synap::kernels
