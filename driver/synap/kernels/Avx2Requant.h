// The AVX2 requantization of 8 int32 accumulators (one per channel) into output values,
// bit-exact with QuantMath.h, and storing their low bytes: for the AVX2 kernel files only (they
// are compiled with -mavx2; everything here is internal to each of them).
#pragma once

#include <immintrin.h>

#include <cstring>

#include "GemmArgs.h"

namespace nnemu::synap::kernels {
namespace {

struct Requant {
    __m256i col, bias, multiplier, left, right;
};

inline Requant requantOf(const GemmArgs& a, size_t channel) {
    auto load = [&](const int32_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + channel)); };
    return {load(a.colTerms), load(a.bias), load(a.multipliers), load(a.leftShifts), load(a.rightShifts)};
}

// The int32 bound on x's side: INT32_MIN for negative lanes, INT32_MAX for the others.
inline __m256i boundOf(__m256i x) { return _mm256_xor_si256(_mm256_srai_epi32(x, 31), _mm256_set1_epi32(INT32_MAX)); }

inline __m256i saturatingAdd(__m256i a, __m256i b) {
    const __m256i sum = _mm256_add_epi32(a, b);
    const __m256i overflow =
            _mm256_srai_epi32(_mm256_and_si256(_mm256_xor_si256(a, sum), _mm256_xor_si256(b, sum)), 31);
    return _mm256_blendv_epi8(sum, boundOf(a), overflow);
}

// floor((x * m + 2^30) / 2^31) per lane, m >= 0: the reference's rounding doubling high multiply.
inline __m256i roundingDoublingHighMul(__m256i x, __m256i m) {
    const __m256i half = _mm256_set1_epi64x(int64_t{1} << 30);
    const __m256i even = _mm256_add_epi64(_mm256_mul_epi32(x, m), half);
    const __m256i odd = _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(x, 32), _mm256_srli_epi64(m, 32)), half);
    return _mm256_blend_epi32(_mm256_srli_epi64(even, 31), _mm256_slli_epi64(_mm256_srli_epi64(odd, 31), 32), 0xAA);
}

inline __m256i roundingDivide(__m256i x, __m256i e) {
    const __m256i one = _mm256_set1_epi32(1);
    const __m256i mask = _mm256_sub_epi32(_mm256_sllv_epi32(one, e), one);
    const __m256i remainder = _mm256_and_si256(x, mask);
    const __m256i threshold = _mm256_sub_epi32(_mm256_srli_epi32(mask, 1), _mm256_srai_epi32(x, 31));
    return _mm256_sub_epi32(_mm256_srav_epi32(x, e), _mm256_cmpgt_epi32(remainder, threshold));
}

inline __m256i requantize(const GemmArgs& a, const Requant& q, __m256i acc, int32_t rowTerm) {
    acc = _mm256_add_epi32(_mm256_add_epi32(acc, q.col), _mm256_set1_epi32(rowTerm));
    __m256i x = saturatingAdd(acc, q.bias);
    const __m256i shifted = _mm256_sllv_epi32(x, q.left);
    const __m256i kept = _mm256_cmpeq_epi32(_mm256_srav_epi32(shifted, q.left), x);
    x = _mm256_blendv_epi8(boundOf(x), shifted, kept);
    x = roundingDivide(roundingDoublingHighMul(x, q.multiplier), q.right);
    x = _mm256_max_epi32(x, _mm256_set1_epi32(a.low - a.outputZeroPoint));
    x = _mm256_min_epi32(x, _mm256_set1_epi32(a.high - a.outputZeroPoint));
    return _mm256_add_epi32(x, _mm256_set1_epi32(a.outputZeroPoint));
}

// The low byte of each of 8 lanes, stored; `count` < 8 stores a prefix.
inline void storeBytes(__m256i value, uint8_t* out, size_t count) {
    const __m256i pick = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12,
                                          -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    const __m256i bytes = _mm256_shuffle_epi8(value, pick);
    const __m128i packed =
            _mm_unpacklo_epi32(_mm256_castsi256_si128(bytes), _mm256_extracti128_si256(bytes, 1));
    if (count == 8) {
        _mm_storel_epi64(reinterpret_cast<__m128i*>(out), packed);
    } else {
        uint8_t all[16];
        _mm_storeu_si128(reinterpret_cast<__m128i*>(all), packed);
        std::memcpy(out, all, count);
    }
}

// The folded requantization (GemmArgs.h) of 8 channels, half `h` of a FastRequantBlock, where
// nothing saturates. AVX2 has no 64-bit arithmetic shift: the nudges also hold 2^63, making
// t + nudge non-negative, so a logical shift gives the floor plus 2^(63 - shift); `post` takes
// that back off (modulo 2^32) and adds the output zero point. See DepthwiseAvx2Layout.
struct FoldedRequant {
    __m256i initial, multiplier[2], positive[2], negative[2], shift[2], post;
};

inline FoldedRequant foldedRequantOf(const FastRequantBlock& f, const int32_t* initial, const int32_t* post, int h) {
    const auto load = [](const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); };
    FoldedRequant q;
    q.initial = load(initial);
    q.post = load(post);
    for (int p = 0; p < 2; ++p) {
        q.multiplier[p] = load(f.multiplier[p] + 4 * h);
        q.positive[p] = load(f.positive[p] + 4 * h);
        q.negative[p] = load(f.negative[p] + 4 * h);
        q.shift[p] = load(f.shift[p] + 4 * h);
    }
    return q;
}

// The folded requantization of channels [8h, 8h + 8) of GEMM block `block` (GemmArgs.h:
// a.fastBlocks and a.biasAndColTerms set), from the block's plain constants: the nudges plus 2^63
// (a flip of the sign bit) and `post` built here, as packDepthwiseAvx2 stores them for the
// depthwise layers (the GEMM's packed layout is shared with the other ISAs).
inline FoldedRequant foldedGemmOf(const GemmArgs& a, size_t block, int h) {
    const auto load = [](const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); };
    const FastRequantBlock& f = a.fastBlocks[block];
    const __m256i sign = _mm256_set1_epi64x(INT64_MIN);
    FoldedRequant q;
    q.initial = load(a.biasAndColTerms + block * kGemmBlock + 8 * h);
    __m256i offset[2];
    for (int p = 0; p < 2; ++p) {
        q.multiplier[p] = load(f.multiplier[p] + 4 * h);
        q.positive[p] = _mm256_xor_si256(load(f.positive[p] + 4 * h), sign);
        q.negative[p] = _mm256_xor_si256(load(f.negative[p] + 4 * h), sign);
        q.shift[p] = load(f.shift[p] + 4 * h);
        offset[p] = _mm256_srlv_epi64(sign, q.shift[p]);  // 2^(63 - shift): its low half is what post takes off
    }
    q.post = _mm256_sub_epi32(_mm256_set1_epi32(a.outputZeroPoint),
                              _mm256_blend_epi32(offset[0], _mm256_slli_epi64(offset[1], 32), 0xAA));
    return q;
}

// The output values of 8 accumulators (before the initial terms), not clamped. kClampsBelowZero:
// the caller clamps every value <= the output zero point to it (ReLU's lower bound), so the
// negative nudge is not needed: with the positive one, t < 0 still gives a value <= 0.
template <bool kClampsBelowZero = false>
inline __m256i scaleFolded(const FoldedRequant& q, __m256i acc) {
    const __m256i x = _mm256_add_epi32(acc, q.initial);
    const __m256i threshold = _mm256_set1_epi64x(-(int64_t{1} << 30));
    __m256i z[2];
    for (int p = 0; p < 2; ++p) {
        const __m256i t = _mm256_mul_epi32(p == 0 ? x : _mm256_srli_epi64(x, 32), q.multiplier[p]);
        const __m256i nudge =
                kClampsBelowZero ? q.positive[p]
                                 : _mm256_blendv_epi8(q.positive[p], q.negative[p], _mm256_cmpgt_epi64(threshold, t));
        z[p] = _mm256_srlv_epi64(_mm256_add_epi64(t, nudge), q.shift[p]);
    }
    return _mm256_add_epi32(_mm256_blend_epi32(z[0], _mm256_slli_epi64(z[1], 32), 0xAA), q.post);
}

// Clamps 16 output values (two vectors of 8, zero point included) and stores their bytes (kFull:
// kLanes of them, 16 or the first 8; else `count`); the saturating packs are exact inside the clamp.
template <bool kSigned, bool kFull, int kLanes = 16>
void store16(const __m256i y[2], __m128i low, __m128i high, uint8_t* out, size_t count) {
    const __m256i words = _mm256_packs_epi32(y[0], y[1]);  // lanes: 0-3 8-11 | 4-7 12-15
    const __m256i bytes = kSigned ? _mm256_packs_epi16(words, words) : _mm256_packus_epi16(words, words);
    __m128i v = _mm_unpacklo_epi32(_mm256_castsi256_si128(bytes), _mm256_extracti128_si256(bytes, 1));
    v = kSigned ? _mm_min_epi8(_mm_max_epi8(v, low), high) : _mm_min_epu8(_mm_max_epu8(v, low), high);
    if constexpr (kFull && kLanes == 8) {
        _mm_storel_epi64(reinterpret_cast<__m128i*>(out), v);
    } else if constexpr (kFull) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out), v);
    } else {
        alignas(16) uint8_t bytesOut[16];
        _mm_store_si128(reinterpret_cast<__m128i*>(bytesOut), v);
        std::memcpy(out, bytesOut, count);
    }
}

// Saturating: GemmArgs' requantization; Folded: the folded one; FoldedAboveZero: the folded one
// where the clamp's lower bound is at least the output zero point.
enum class Mode { Saturating, Folded, FoldedAboveZero };

}  // namespace
}  // namespace nnemu::synap::kernels
