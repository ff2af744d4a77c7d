// The quantized GEMM on 256-bit vectors, for the AVX2 kernel files only (GemmAvx2.cpp,
// GemmAvxVnni.cpp: each compiles it with its own flags, everything here internal to it). The
// VNNI kernel's layout and arithmetic, 8 channels per vector, tiles of up to 4 rows x 16
// channels; `Dot` adds the 4-byte dot products of unsigned activations and signed weights to
// each 32-bit lane, exactly (wrapping like vpdpbusd):
//   Dot::Weights Dot::weights(__m256i w);   32 weight bytes, once per depth group
//   Dot::Values Dot::values(__m256i x);     4 activation bytes broadcast, once per row and group
//   __m256i Dot::add(__m256i acc, const Dot::Values&, const Dot::Weights&);
// A Dot with kSplitRows (the AVX2 one, whose values are the 16-bit even and odd bytes) has the
// tile's rows split once per tile instead (splitRows): the inner loop then broadcasts each row's
// pair of 16-bit values from memory and needs no register for the split's constants, which the
// 4 x 16 tile's 8 accumulators and 4 weight vectors leave none for (the in-loop split spilled 6
// accumulators to the stack on every depth group).
// Where nothing saturates (a.fastBlocks), the folded requantization (Avx2Requant.h) and its 16-value
// store, else the saturating one.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstring>

#include "Avx2Requant.h"

namespace nnemu::synap::kernels {
namespace {

constexpr int kGemmRows = 4;

// The row term of row r (GemmArgs.h).
int32_t rowTermOf(const GemmArgs& a, size_t r) {
    if (a.rowTerms != nullptr) return a.rowTerms[r];
    uint32_t sum = 0;
    for (size_t k = 0; k < a.depthGroups * 4; ++k) sum += a.rows[r * a.rowStride + k];
    return static_cast<int32_t>(sum * static_cast<uint32_t>(a.rowFactor));
}

// Requantizes and stores the R x 16 tile of accumulators at (row, block).
template <Mode kMode, int R>
__attribute__((always_inline)) inline void storeTile(const GemmArgs& a, __m256i (&acc)[R][2], const int32_t* rowTerms, size_t row, size_t block) {
    if constexpr (kMode == Mode::Saturating) {
        for (int j = 0; j < 2; ++j) {
            const size_t first = block * kGemmBlock + j * 8;
            if (first >= a.channels) break;
            const size_t count = a.channels - first < 8 ? a.channels - first : 8;
            const Requant q = requantOf(a, first);
            for (int i = 0; i < R; ++i) {
                storeBytes(requantize(a, q, acc[i][j], rowTerms[i]), a.output + (row + i) * a.outputStride + first, count);
            }
        }
    } else {
        const size_t first = block * kGemmBlock;
        const size_t count = a.channels - first < kGemmBlock ? a.channels - first : kGemmBlock;
        const FoldedRequant q0 = foldedGemmOf(a, block, 0), q1 = foldedGemmOf(a, block, 1);
        const __m128i low = _mm_set1_epi8(static_cast<char>(a.low)), high = _mm_set1_epi8(static_cast<char>(a.high));
        for (int i = 0; i < R; ++i) {
            const __m256i term = _mm256_set1_epi32(rowTerms[i]);
            const __m256i y[2] = {scaleFolded<kMode == Mode::FoldedAboveZero>(q0, _mm256_add_epi32(acc[i][0], term)),
                                  scaleFolded<kMode == Mode::FoldedAboveZero>(q1, _mm256_add_epi32(acc[i][1], term))};
            uint8_t* out = a.output + (row + i) * a.outputStride + first;
            // (signed bytes where the clamp reaches below 0: the output type's range)
            if (a.low < 0) {
                count == kGemmBlock ? store16<true, true>(y, low, high, out, count) : store16<true, false>(y, low, high, out, count);
            } else {
                count == kGemmBlock ? store16<false, true>(y, low, high, out, count) : store16<false, false>(y, low, high, out, count);
            }
        }
    }
}

template <class Dot, Mode kMode, int R>
void gemmTile(const GemmArgs& a, const int32_t* rowTerms, size_t row, size_t block) {
    __m256i acc[R][2];
    for (int i = 0; i < R; ++i) acc[i][0] = acc[i][1] = _mm256_setzero_si256();
    const __m256i flip = _mm256_set1_epi8(a.signedValues ? static_cast<char>(0x80) : 0);
    const int8_t* weights = a.weights + block * a.depthGroups * 64;
    if constexpr (R == kGemmRows && requires { &Dot::groups4; }) {  // (the depth loop in asm)
        Dot::groups4(a.rows + row * a.rowStride, a.rowStride, weights, a.depthGroups, flip, acc);
        return storeTile<kMode, R>(a, acc, rowTerms, row, block);
    }
    for (size_t g = 0; g < a.depthGroups; ++g) {
        typename Dot::Weights w[2];
        for (int j = 0; j < 2; ++j) {
            w[j] = Dot::weights(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(weights + g * 64 + j * 32)));
        }
        for (int i = 0; i < R; ++i) {
            int32_t group;
            std::memcpy(&group, a.rows + (row + i) * a.rowStride + g * 4, 4);
            const typename Dot::Values x = Dot::values(_mm256_xor_si256(_mm256_set1_epi32(group), flip));
            for (int j = 0; j < 2; ++j) acc[i][j] = Dot::add(acc[i][j], x, w[j]);
        }
    }
    storeTile<kMode, R>(a, acc, rowTerms, row, block);
}

template <class Dot, Mode kMode, int R>
void gemmRowTile(const GemmArgs& a, size_t row) {
    const size_t blocks = (a.channels + kGemmBlock - 1) / kGemmBlock;
    int32_t rowTerms[R];
    for (int i = 0; i < R; ++i) rowTerms[i] = rowTermOf(a, row + i);
    for (size_t block = 0; block < blocks; ++block) gemmTile<Dot, kMode, R>(a, rowTerms, row, block);
}

// Depth groups a tile's split rows hold on the stack (K <= 2048, 16 KB); deeper layers split in
// the loop.
constexpr size_t kSplitGroups = 512;

// A tile's rows as the emulated dot reads them: per row and depth group, bytes 0 and 2 (`even`)
// and bytes 1 and 3 (`odd`) as two 16-bit values each, int8 rows flipped to unsigned.
struct SplitRows {
    alignas(32) uint32_t even[kGemmRows][kSplitGroups];
    alignas(32) uint32_t odd[kGemmRows][kSplitGroups];
    int32_t rowTerms[kGemmRows];
};

// Splits rows [row, row + R) into `s`, and their row terms (with a.rows' bytes summed here when
// a.rowTerms is null, as rowTermOf does).
template <int R>
void splitRows(const GemmArgs& a, size_t row, SplitRows* s) {
    const size_t bytes = a.depthGroups * 4;
    const __m256i flip = _mm256_set1_epi8(a.signedValues ? static_cast<char>(0x80) : 0);
    const __m256i low = _mm256_set1_epi16(0x00FF);
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i tailMask = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(bytes % 32 / 4)), lanes);
    const bool sumsRows = a.rowTerms == nullptr && a.rowFactor != 0;  // (int8 filters: no row term)
    for (int i = 0; i < R; ++i) {
        const uint8_t* p = a.rows + (row + i) * a.rowStride;
        __m256i sums = _mm256_setzero_si256();
        const auto split = [&](__m256i v, size_t k) {
            if (sumsRows) sums = _mm256_add_epi64(sums, _mm256_sad_epu8(v, _mm256_setzero_si256()));
            v = _mm256_xor_si256(v, flip);
            _mm256_store_si256(reinterpret_cast<__m256i*>(s->even[i] + k / 4), _mm256_and_si256(v, low));
            _mm256_store_si256(reinterpret_cast<__m256i*>(s->odd[i] + k / 4), _mm256_srli_epi16(v, 8));
        };
        size_t k = 0;
        for (; k + 32 <= bytes; k += 32) split(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + k)), k);
        if (k < bytes) {  // the last groups, zero-padded to 8 (kSplitGroups is a multiple of 8)
            split(_mm256_maskload_epi32(reinterpret_cast<const int*>(p + k), tailMask), k);
        }
        if (a.rowTerms != nullptr) {
            s->rowTerms[i] = a.rowTerms[row + i];
        } else if (!sumsRows) {
            s->rowTerms[i] = 0;
        } else {
            const __m128i sum2 = _mm_add_epi64(_mm256_castsi256_si128(sums), _mm256_extracti128_si256(sums, 1));
            const auto sum = static_cast<uint32_t>(_mm_cvtsi128_si64(_mm_add_epi64(sum2, _mm_unpackhi_epi64(sum2, sum2))));
            s->rowTerms[i] = static_cast<int32_t>(sum * static_cast<uint32_t>(a.rowFactor));
        }
    }
}

// splitTile's depth loop for 4 rows, as one asm statement per depth group: its 8 accumulators,
// 4 widened weight vectors, 2 broadcast pairs and 2 products take the 16 vector registers
// exactly, which GCC 12's allocation of the same intrinsics did not manage (it spilled 4
// accumulators to the stack and back on every group: 62 instructions for 16 vpmaddwd).
#define NNEMU_SPLIT_ROW(i, even, odd)                 \
    "vpbroadcastd " even "(%[x]), %[xe]\n\t"          \
    "vpbroadcastd " odd "(%[x]), %[xo]\n\t"           \
    "vpmaddwd %[we0], %[xe], %[t0]\n\t"               \
    "vpmaddwd %[wo0], %[xo], %[t1]\n\t"               \
    "vpaddd %[t0], %[a" #i "0], %[a" #i "0]\n\t"      \
    "vpaddd %[t1], %[a" #i "0], %[a" #i "0]\n\t"      \
    "vpmaddwd %[we1], %[xe], %[t0]\n\t"               \
    "vpmaddwd %[wo1], %[xo], %[t1]\n\t"               \
    "vpaddd %[t0], %[a" #i "1], %[a" #i "1]\n\t"      \
    "vpaddd %[t1], %[a" #i "1], %[a" #i "1]\n\t"

// (the byte offsets the asm reads each row's pairs at, from even[0][g])
static_assert(sizeof(SplitRows::even[0]) == 2048 && offsetof(SplitRows, odd) == 8192);

inline void splitGroups4(const int8_t* weights, const SplitRows& s, size_t groups, __m256i (&acc)[4][2]) {
    __m256i a00 = acc[0][0], a01 = acc[0][1], a10 = acc[1][0], a11 = acc[1][1];
    __m256i a20 = acc[2][0], a21 = acc[2][1], a30 = acc[3][0], a31 = acc[3][1];
    for (size_t g = 0; g < groups; ++g) {
        __m256i we0, wo0, we1, wo1, xe, xo, t0, t1;
        asm("vmovdqu (%[w]), %[t0]\n\t"
            "vpsllw $8, %[t0], %[we0]\n\t"
            "vpsraw $8, %[we0], %[we0]\n\t"
            "vpsraw $8, %[t0], %[wo0]\n\t"
            "vmovdqu 32(%[w]), %[t1]\n\t"
            "vpsllw $8, %[t1], %[we1]\n\t"
            "vpsraw $8, %[we1], %[we1]\n\t"
            "vpsraw $8, %[t1], %[wo1]\n\t"
            NNEMU_SPLIT_ROW(0, "0", "8192") NNEMU_SPLIT_ROW(1, "2048", "10240")
            NNEMU_SPLIT_ROW(2, "4096", "12288") NNEMU_SPLIT_ROW(3, "6144", "14336")
            : [a00] "+x"(a00), [a01] "+x"(a01), [a10] "+x"(a10), [a11] "+x"(a11), [a20] "+x"(a20), [a21] "+x"(a21),
              [a30] "+x"(a30), [a31] "+x"(a31), [we0] "=&x"(we0), [wo0] "=&x"(wo0), [we1] "=&x"(we1), [wo1] "=&x"(wo1),
              [xe] "=&x"(xe), [xo] "=&x"(xo), [t0] "=&x"(t0), [t1] "=&x"(t1)
            : [w] "r"(weights + g * 64), [x] "r"(&s.even[0][g]), "m"(*(const char(*)[64])(weights + g * 64)), "m"(s));
    }
    acc[0][0] = a00, acc[0][1] = a01, acc[1][0] = a10, acc[1][1] = a11;
    acc[2][0] = a20, acc[2][1] = a21, acc[3][0] = a30, acc[3][1] = a31;
}
#undef NNEMU_SPLIT_ROW

// The emulated dot's R x 16 tile on split rows: even and odd weight bytes widened once per depth
// group, each row's pairs broadcast from `s` (kHalf: a last block of at most 8 channels, whose
// upper half is neither computed nor stored).
template <Mode kMode, int R, bool kHalf>
void splitTile(const GemmArgs& a, const SplitRows& s, size_t row, size_t block) {
    __m256i acc[R][2];
    for (int i = 0; i < R; ++i) acc[i][0] = acc[i][1] = _mm256_setzero_si256();
    const int8_t* weights = a.weights + block * a.depthGroups * 64;
    if constexpr (R == 4 && !kHalf) {
        splitGroups4(weights, s, a.depthGroups, acc);
        storeTile<kMode, R>(a, acc, s.rowTerms, row, block);
        return;
    }
    constexpr int kHalves = kHalf ? 1 : 2;
    for (size_t g = 0; g < a.depthGroups; ++g) {
        __m256i even[kHalves], odd[kHalves];
        for (int j = 0; j < kHalves; ++j) {
            const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(weights + g * 64 + j * 32));
            even[j] = _mm256_srai_epi16(_mm256_slli_epi16(w, 8), 8);
            odd[j] = _mm256_srai_epi16(w, 8);
        }
        for (int i = 0; i < R; ++i) {
            const __m256i xe = _mm256_set1_epi32(static_cast<int32_t>(s.even[i][g]));
            const __m256i xo = _mm256_set1_epi32(static_cast<int32_t>(s.odd[i][g]));
            for (int j = 0; j < kHalves; ++j) {
                acc[i][j] = _mm256_add_epi32(acc[i][j], _mm256_madd_epi16(xe, even[j]));
                acc[i][j] = _mm256_add_epi32(acc[i][j], _mm256_madd_epi16(xo, odd[j]));
            }
        }
    }
    storeTile<kMode, R>(a, acc, s.rowTerms, row, block);
}

template <Mode kMode, int R>
void splitRowTile(const GemmArgs& a, SplitRows* s, size_t row) {
    const size_t blocks = (a.channels + kGemmBlock - 1) / kGemmBlock;
    splitRows<R>(a, row, s);
    const bool half = a.channels % kGemmBlock != 0 && a.channels % kGemmBlock <= 8;
    for (size_t block = 0; block + (half ? 1 : 0) < blocks; ++block) splitTile<kMode, R, false>(a, *s, row, block);
    if (half) splitTile<kMode, R, true>(a, *s, row, blocks - 1);
}

template <class Dot, Mode kMode>
void gemmRowsIn(const GemmArgs& a) {
    size_t row = 0;
    if constexpr (Dot::kSplitRows) {
        if (a.depthGroups <= kSplitGroups) {
            SplitRows s;
            for (; row + kGemmRows <= a.rowCount; row += kGemmRows) splitRowTile<kMode, kGemmRows>(a, &s, row);
            switch (a.rowCount - row) {
                case 3: splitRowTile<kMode, 3>(a, &s, row); break;
                case 2: splitRowTile<kMode, 2>(a, &s, row); break;
                case 1: splitRowTile<kMode, 1>(a, &s, row); break;
                default: break;
            }
            return;
        }
    }
    for (; row + kGemmRows <= a.rowCount; row += kGemmRows) gemmRowTile<Dot, kMode, kGemmRows>(a, row);
    switch (a.rowCount - row) {
        case 3: gemmRowTile<Dot, kMode, 3>(a, row); break;
        case 2: gemmRowTile<Dot, kMode, 2>(a, row); break;
        case 1: gemmRowTile<Dot, kMode, 1>(a, row); break;
        default: break;
    }
}

template <class Dot>
void gemmRows(const GemmArgs& a) {
    if (a.fastBlocks == nullptr || a.biasAndColTerms == nullptr) return gemmRowsIn<Dot, Mode::Saturating>(a);
    if (a.low >= a.outputZeroPoint) return gemmRowsIn<Dot, Mode::FoldedAboveZero>(a);
    gemmRowsIn<Dot, Mode::Folded>(a);
}

}  // namespace
}  // namespace nnemu::synap::kernels
