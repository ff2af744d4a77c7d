// The AMX GEMM's epilogue where a block's outputs are known to fit 16 bits (GemmAmxInt8.cpp).
// GemmAvx512Store.h takes each output as 32 bits: per 16 outputs it merges the even and odd
// channels' 64-bit nudged products and shifts them, then packs 32 outputs to 16 bits and adds
// the zero point. Here vpmultishiftqb (AVX512-VBMI) takes each output's 16 bits straight out of
// its nudged product at the channel's own shift S, into one of the 4 word slots of the product's
// 64-bit lane, and the output zero point is in the nudges (+ zero point * 2^S): per 32 outputs
// 4 multishifts where that takes 2 merges, 2 shifts, a pack and an add, and no flip of uint8
// values (their own pack and clamp). For the AMX kernel file only (compiled with AVX512-VBMI,
// which every CPU with AMX has and amxInt8Usable() asks for, Isa.cpp).
#pragma once

#include <immintrin.h>

#include <climits>
#include <cstdint>
#include <cstdlib>

#include "GemmArgs.h"

namespace nnemu::synap::kernels {
namespace {

// Whether every channel of a block (padding lanes aside) can take the fields: its output before
// the clamp, v + zero point with v = floor((x * m + nudge) / 2^S), stays within int16 for every
// accumulator x the call can make, and S <= 48. x is start (the accumulator of rows of zero
// bytes, GemmArgs::biasAndColTerms) plus a dot product of unsigned bytes and the channel's
// weights, so |x| <= |start| + 255 * sum(|weights|) (`magnitudes`, per channel; nullptr: not
// known, K * 128), below 2^32; and |v| <= (|x| * m) / 2^S + 2 (the nudge is below 2^S). The
// field's 16 bits then hold the value exactly: the 64-bit sum lies within 2^(S + 15) of zero.
// (m <= INT32_MAX: checked where the blocks are made, soundRequant.)
bool fieldsFit(const GemmArgs& a, size_t block, const int32_t* magnitudes) {
    const FastRequantBlock& f = a.fastBlocks[block];
    const size_t channels = a.channels - block * kGemmBlock;
    const __m512i starts = _mm512_loadu_si512(a.biasAndColTerms + block * kGemmBlock);
    const __m512i sums = magnitudes == nullptr ? _mm512_set1_epi32(static_cast<int32_t>(a.depthGroups * 4 * 128))
                                               : _mm512_loadu_si512(magnitudes + block * kGemmBlock);
    const __m512i limit = _mm512_set1_epi64(32765 - std::llabs(int64_t{a.outputZeroPoint}));
    __mmask8 unfit = 0;
    for (int p = 0; p < 2; ++p) {
        const __m512i shift = _mm512_loadu_si512(f.shift[p]);
        const __m512i own = p == 0 ? _mm512_srai_epi64(_mm512_slli_epi64(starts, 32), 32) : _mm512_srai_epi64(starts, 32);
        const __m512i terms = _mm512_mul_epu32(p == 0 ? sums : _mm512_srli_epi64(sums, 32), _mm512_set1_epi64(255));
        const __m512i largest = _mm512_add_epi64(_mm512_abs_epi64(own), terms);
        const __m512i scaled = _mm512_srlv_epi64(_mm512_mul_epu32(largest, _mm512_loadu_si512(f.multiplier[p])), shift);
        __mmask8 fits = _mm512_cmplt_epu64_mask(largest, _mm512_set1_epi64(int64_t{1} << 32));
        fits &= _mm512_cmple_epu64_mask(shift, _mm512_set1_epi64(48));
        fits &= _mm512_cmple_epu64_mask(scaled, limit);
        // Lanes of channels past the layer's (padding) do not count.
        const size_t lanes = channels >= kGemmBlock ? 8 : (channels + 1 - p) / 2;
        unfit |= static_cast<__mmask8>(~fits & ((1u << lanes) - 1));
    }
    return unfit == 0;
}

// Adds zero point * 2^S to a block's nudges (positive, then negative, each [2][8]; wrapping
// 64-bit sums, as the kernel adds them).
void foldZeroPoint(const GemmArgs& a, size_t block, int64_t* nudges) {
    const FastRequantBlock& f = a.fastBlocks[block];
    const __m512i zero = _mm512_set1_epi64(a.outputZeroPoint);
    for (int p = 0; p < 2; ++p) {
        const __m512i add = _mm512_sllv_epi64(zero, _mm512_loadu_si512(f.shift[p]));
        for (int n = 0; n < 2; ++n) {
            int64_t* at = nudges + n * 16 + p * 8;
            _mm512_storeu_si512(at, _mm512_add_epi64(_mm512_loadu_si512(at), add));
        }
    }
}

// The multishift controls of a block's even (p = 0) or odd channels: per qword S, S + 8 in
// every word slot.
[[gnu::always_inline]] inline __m512i fieldControl(const FastRequantBlock& f, int p) {
    const __m512i spread = _mm512_broadcast_i32x4(_mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 8, 8, 8, 8, 8, 8, 8, 8));
    return _mm512_add_epi8(_mm512_shuffle_epi8(_mm512_loadu_si512(f.shift[p]), spread), _mm512_set1_epi16(0x0800));
}

// Where each output byte of 4 pairs of 16 channels (pair k's channel c at byte 16k + c) lies
// after the pack of two word vectors: pairs 0 and 1 in the first, 2 and 3 in the second, pair
// 2k' or 2k'+1 in word slots 0-1 or 2-3 of each qword, slot parity = channel parity, qword =
// channel / 2; the pack takes per 128-bit lane 8 words of the first vector, then 8 of the second.
struct FieldOrder {
    alignas(64) uint8_t index[64];
};

constexpr FieldOrder fieldOrder() {
    FieldOrder order{};
    for (int at = 0; at < 64; ++at) {
        const int lane = at / 16, second = at % 16 / 8, word = lane * 8 + at % 8;
        const int qword = word / 4, slot = word % 4;
        order.index[(second * 2 + slot / 2) * 16 + 2 * qword + slot % 2] = static_cast<uint8_t>(at);
    }
    return order;
}

constexpr FieldOrder kFieldOrder = fieldOrder();

// The narrowing's constants: the clamp as bytes (unsigned where it starts at 0 or above).
struct FieldNarrow {
    __m512i low8, high8;
    bool unsignedBytes;
    explicit FieldNarrow(const GemmArgs& a)
        : low8(_mm512_set1_epi8(static_cast<char>(a.low))),
          high8(_mm512_set1_epi8(static_cast<char>(a.high))),
          unsignedBytes(a.low >= 0) {}
};

// Two word vectors (4 pairs of 16 outputs, zero point included) as 64 clamped bytes, pair k's
// channels at bytes 16k to 16k + 15: exact, the clamp lies inside the pack's saturation bounds.
template <bool UnsignedBytes>
[[gnu::always_inline]] inline __m512i narrowFields(const FieldNarrow& n, __m512i order,
                                                                             __m512i w0, __m512i w1) {
    __m512i bytes;
    if constexpr (UnsignedBytes) {
        bytes = _mm512_min_epu8(_mm512_max_epu8(_mm512_packus_epi16(w0, w1), n.low8), n.high8);
    } else {
        bytes = _mm512_min_epi8(_mm512_max_epi8(_mm512_packs_epi16(w0, w1), n.low8), n.high8);
    }
    return _mm512_permutexvar_epi8(order, bytes);
}

}  // namespace
}  // namespace nnemu::synap::kernels
