// The quantized GEMM on AVX-512 VNNI: vpdpbusd multiplies 4 unsigned activation bytes by 4
// signed weight bytes per channel lane; 16 channels per vector, tiles of up to 4 rows x 64
// channels; integer requantization in vectors, bit-exact with QuantMath.h. Compiled with
// AVX-512 flags: only called when the CPU has them.
//
// Where nothing saturates (GemmArgs::fastBlocks) the accumulators start at bias + column term,
// the folded requantization scales them and a row's 4 blocks narrow together with saturating
// packs into one 64-byte store: the per-output work, not the multiplies, bounds the layers of
// small depth. Layers clamped at or above the output zero point (ReLU, ReLU6: MobileNets'
// expansions and first convolution) skip the negative nudge's compare and blend (scaled()).
#include <immintrin.h>

#include <cstring>

#include "GemmArgs.h"
// Its per-vector fast requantization is replaced here by scaled() and storeTile().
#pragma GCC diagnostic ignored "-Wunused-function"
#include "Avx512Requant.h"
#include "GemmAvx512Store.h"

namespace nnemu::synap::kernels {
namespace {

constexpr int kRows = 4;  // measured: 6 rows x 4 blocks (30 of the 32 registers) is slower
constexpr int kBlocks = 4;

// acc[i][j] += dot(group g of row i, group g of channel block j), int8 rows flipped to unsigned.
template <int R, int B, bool Flip>
[[gnu::always_inline]] inline void accumulateGroup(const GemmArgs& a, const uint8_t* rows, const int8_t* weights,
                                                   size_t g, __m512i (&acc)[R][B]) {
    __m512i w[B];
    #pragma GCC unroll 16
    for (int j = 0; j < B; ++j) w[j] = _mm512_loadu_si512(weights + (j * a.depthGroups + g) * 64);
    #pragma GCC unroll 16
    for (int i = 0; i < R; ++i) {
        int32_t bytes;
        std::memcpy(&bytes, rows + i * a.rowStride + g * 4, 4);
        __m512i x = _mm512_set1_epi32(bytes);
        if constexpr (Flip) x = _mm512_xor_si512(x, _mm512_set1_epi32(static_cast<int32_t>(0x80808080u)));
        #pragma GCC unroll 16
        for (int j = 0; j < B; ++j) acc[i][j] = _mm512_dpbusd_epi32(acc[i][j], x, w[j]);
    }
}

// sums[i][j] = start[j] + rowTerms[i] + dot(row `row` + i, channel block `block` + j), int8 rows
// flipped to unsigned; a null start or rowTerms counts as zeros. Every loop over rows and blocks
// unrolled; G != 0: the layer's depthGroups, known here, and the loop over them unrolled too.
template <int R, int B, bool Flip, size_t G = 0>
[[gnu::always_inline]] inline void accumulateInline(const GemmArgs& a, size_t row, size_t block, const int32_t* start,
                                                    const int32_t* rowTerms, __m512i (&sums)[R][B]) {
    __m512i acc[R][B];
    #pragma GCC unroll 16
    for (int j = 0; j < B; ++j) {
        const __m512i first = start == nullptr ? _mm512_setzero_si512() : _mm512_loadu_si512(start + j * kGemmBlock);
        #pragma GCC unroll 16
        for (int i = 0; i < R; ++i) {
            acc[i][j] = rowTerms == nullptr ? first : _mm512_add_epi32(first, _mm512_set1_epi32(rowTerms[i]));
        }
    }
    const uint8_t* rows = a.rows + row * a.rowStride;
    const int8_t* weights = a.weights + block * a.depthGroups * 64;
    if constexpr (G != 0) {
        #pragma GCC unroll 16
        for (size_t g = 0; g < G; ++g) accumulateGroup<R, B, Flip>(a, rows, weights, g, acc);
    } else {
        for (size_t g = 0; g < a.depthGroups; ++g) accumulateGroup<R, B, Flip>(a, rows, weights, g, acc);
    }
    #pragma GCC unroll 16
    for (int i = 0; i < R; ++i) {
        #pragma GCC unroll 16
        for (int j = 0; j < B; ++j) sums[i][j] = acc[i][j];
    }
}

// The sums come back through memory: for the deep layers' tiles of 2 to 4 blocks, where GCC,
// with the loop inlined into the tile, copied the accumulators around every vpdpbusd (level or
// 2-6 % slower, Zen 4).
template <int R, int B, bool Flip>
[[gnu::noinline]] void accumulateApart(const GemmArgs& a, size_t row, size_t block, const int32_t* start,
                                       const int32_t* rowTerms, __m512i (&sums)[R][B]) {
    accumulateInline<R, B, Flip>(a, row, block, start, rowTerms, sums);
}

// Tiles of one or two blocks inline the loop, which keeps their accumulators in registers
// (Gemm/12544/32/16: 73-81 -> 57-69 us, Zen 4; two blocks of depth <= 32, Zen 5: 12544x16x96
// 143 -> 121 us), and unroll it fully at the depths of MobileNets' shallow layers, 16, 24, 28 (the
// first convolution's 27) and 32: no copies of the accumulators left (Zen 5: 12544x16x96 121 ->
// 110 us, 3136x24x144 56 -> 50, 12544x32x64 115 -> 103, 12544x32x16 33 -> 28, the first
// convolution of MobileNet v2 94 -> 85).
template <int R, int B, bool Flip>
[[gnu::always_inline]] inline void accumulate(const GemmArgs& a, size_t row, size_t block, const int32_t* start,
                                              const int32_t* rowTerms, __m512i (&sums)[R][B]) {
    if constexpr (B <= 2) {
        switch (a.depthGroups) {
            case 4: return accumulateInline<R, B, Flip, 4>(a, row, block, start, rowTerms, sums);
            case 6: return accumulateInline<R, B, Flip, 6>(a, row, block, start, rowTerms, sums);
            case 7: return accumulateInline<R, B, Flip, 7>(a, row, block, start, rowTerms, sums);
            case 8: return accumulateInline<R, B, Flip, 8>(a, row, block, start, rowTerms, sums);
            default: break;
        }
        if (B == 1 || a.depthGroups <= 8) return accumulateInline<R, B, Flip>(a, row, block, start, rowTerms, sums);
    }
    accumulateApart<R, B, Flip>(a, row, block, start, rowTerms, sums);
}

// One function per shape: its registers are its own. High: every lane of the blocks shifts by 32
// or more (allHighShifts).
template <int R, int B, bool Flip, bool AboveZero, bool High>
[[gnu::noinline]] void fastTile(const GemmArgs& a, const Narrow& n, const int32_t* rowTerms, size_t row, size_t block) {
    __m512i acc[R][B];
    accumulate<R, B, Flip>(a, row, block, a.biasAndColTerms + block * kGemmBlock, rowTerms, acc);
    #pragma GCC unroll 16
    for (int j = 0; j < B; ++j) {
        const FastRequantBlock& f = a.fastBlocks[block + j];
        if constexpr (High) {
            __m512i shift32;
            highShifts(f, &shift32);
            #pragma GCC unroll 16
            for (int i = 0; i < R; ++i) {
                acc[i][j] = scaledHigh<AboveZero>(f, shift32, acc[i][j], _mm512_srli_epi64(acc[i][j], 32), nudgesOf(f));
            }
        } else {
            #pragma GCC unroll 16
            for (int i = 0; i < R; ++i) acc[i][j] = scaled<AboveZero>(f, acc[i][j], nudgesOf(f));
        }
    }
    const size_t first = block * kGemmBlock;
    const size_t count = a.channels - first;
    storeTile<R, B>(n, acc, a.output + row * a.outputStride + first, a.outputStride, count);
}

// Where a step may saturate: the reference's steps one by one, per vector.
template <int R, int B, bool Flip>
[[gnu::noinline]] void exactTile(const GemmArgs& a, const Narrow&, const int32_t* rowTerms, size_t row, size_t block) {
    __m512i acc[R][B];
    accumulate<R, B, Flip>(a, row, block, nullptr, nullptr, acc);
    #pragma GCC unroll 16
    for (int j = 0; j < B; ++j) {
        const size_t first = (block + j) * kGemmBlock;
        const size_t count = a.channels - first < kGemmBlock ? a.channels - first : kGemmBlock;
        const __mmask16 store = static_cast<__mmask16>((1u << count) - 1);
        const Requant q = requantOf(a, block + j);
        #pragma GCC unroll 16
        for (int i = 0; i < R; ++i) {
            const int32_t rowTerm = rowTerms == nullptr ? 0 : rowTerms[i];
            _mm512_mask_cvtepi32_storeu_epi8(a.output + (row + i) * a.outputStride + first, store,
                                             requantize(a, q, acc[i][j], rowTerm));
        }
    }
}

// How a layer requantizes: where a step may saturate, where none can, and where none can and
// the clamp starts at or above the output zero point; High: where none can and every channel
// shifts by 32 or more (multipliers below 0.5, as in real networks), scaledHigh's one 32-bit
// shift for the two 64-bit ones (3-4 % off the shallow layers on Zen 4, where every 512-bit
// instruction counts: the core issues two a cycle).
enum class Mode { Exact, Fast, FastAboveZero, FastHigh, FastAboveZeroHigh };

template <Mode M, int R, int B, bool Flip>
void tile(const GemmArgs& a, const Narrow& n, const int32_t* rowTerms, size_t row, size_t block) {
    if constexpr (M != Mode::Exact) {
        fastTile<R, B, Flip, M == Mode::FastAboveZero || M == Mode::FastAboveZeroHigh,
                 M == Mode::FastHigh || M == Mode::FastAboveZeroHigh>(a, n, rowTerms, row, block);
    } else {
        exactTile<R, B, Flip>(a, n, rowTerms, row, block);
    }
}

// The row terms (GemmArgs.h) of R rows; nullptr when they are all zero.
template <int R>
const int32_t* rowTermsOf(const GemmArgs& a, size_t row, int32_t (&terms)[R]) {
    if (a.rowTerms != nullptr) return a.rowTerms + row;
    if (a.rowFactor == 0) return nullptr;
    for (int i = 0; i < R; ++i) terms[i] = rowTerm(a, a.rows + (row + i) * a.rowStride);
    return terms;
}

template <Mode M, int R, bool Flip>
void rowTile(const GemmArgs& a, const Narrow& n, size_t row) {
    const size_t blocks = (a.channels + kGemmBlock - 1) / kGemmBlock;
    int32_t terms[R];
    const int32_t* rowTerms = rowTermsOf<R>(a, row, terms);
    size_t block = 0;
    if constexpr (R > 8) {  // one-block layers only
        return tile<M, R, 1, Flip>(a, n, rowTerms, row, block);
    }
    if constexpr (R <= kRows) {
        for (; block + kBlocks <= blocks; block += kBlocks) tile<M, R, kBlocks, Flip>(a, n, rowTerms, row, block);
        if (blocks - block == 3) return tile<M, R, 3, Flip>(a, n, rowTerms, row, block);
    }
    for (; block + 2 <= blocks; block += 2) tile<M, R, 2, Flip>(a, n, rowTerms, row, block);
    if (block < blocks) tile<M, R, 1, Flip>(a, n, rowTerms, row, block);
}

// Row tiles of at most MaxRows rows, as even as possible (7 x 7 = 49 rows: 10 x 4 + 3 x 3, not
// 12 x 4 + 1).
// (From row `first` on.)
template <Mode M, bool Flip, int MaxRows>
void rows(const GemmArgs& a, const Narrow& n, size_t first = 0) {
    const size_t tiles = (a.rowCount - first + MaxRows - 1) / MaxRows;
    size_t row = first;
    for (size_t t = 0; t < tiles; ++t) {
        const size_t count = (a.rowCount - row + (tiles - t) - 1) / (tiles - t);
        switch (count) {
            case 8: if constexpr (MaxRows == 8) rowTile<M, 8, Flip>(a, n, row); break;
            case 7: if constexpr (MaxRows == 8) rowTile<M, 7, Flip>(a, n, row); break;
            case 6: if constexpr (MaxRows == 8) rowTile<M, 6, Flip>(a, n, row); break;
            case 5: if constexpr (MaxRows == 8) rowTile<M, 5, Flip>(a, n, row); break;
            case 4: rowTile<M, 4, Flip>(a, n, row); break;
            case 3: rowTile<M, 3, Flip>(a, n, row); break;
            case 2: rowTile<M, 2, Flip>(a, n, row); break;
            default: rowTile<M, 1, Flip>(a, n, row); break;
        }
        row += count;
    }
}

// One-block layers take 16-row tiles (16 accumulators; 12544x32x16 -13 % against 8-row ones);
// layers of two blocks, and shallow ones (depth <= 32, where a tile's fixed costs weigh most:
// 12544x16x96 -14 %, 3136x24x144 -8 %), 8-row tiles of up to 2 blocks (at most 16 accumulators
// and 2 weight vectors); the others 4-row tiles of up to 4 blocks.
template <Mode M, bool Flip>
void run(const GemmArgs& a) {
    const Narrow n(a);
    if (a.channels <= kGemmBlock) {  // one block: 16-row tiles (16 accumulators), the rest as below
        size_t row = 0;
        for (; row + 16 <= a.rowCount; row += 16) rowTile<M, 16, Flip>(a, n, row);
        return rows<M, Flip, 8>(a, n, row);
    }
    if ((a.channels + kGemmBlock - 1) / kGemmBlock <= 2 || a.depthGroups <= 8) return rows<M, Flip, 8>(a, n);
    rows<M, Flip, kRows>(a, n);
}

// Whether every lane of every block shifts by 32 or more (highShifts: scaledHigh applies).
bool allHighShifts(const GemmArgs& a) {
    __m512i shift32;
    for (size_t b = 0; b < (a.channels + kGemmBlock - 1) / kGemmBlock; ++b) {
        if (!highShifts(a.fastBlocks[b], &shift32)) return false;
    }
    return true;
}

template <bool Flip>
void runFlipped(const GemmArgs& a) {
    if (a.fastBlocks == nullptr) return run<Mode::Exact, Flip>(a);
    const bool high = allHighShifts(a);
    if (a.low >= a.outputZeroPoint) return high ? run<Mode::FastAboveZeroHigh, Flip>(a) : run<Mode::FastAboveZero, Flip>(a);
    high ? run<Mode::FastHigh, Flip>(a) : run<Mode::Fast, Flip>(a);
}

}  // namespace

void gemmAvx512Vnni(const GemmArgs& a) { a.signedValues ? runFlipped<true>(a) : runFlipped<false>(a); }

}  // namespace nnemu::synap::kernels
