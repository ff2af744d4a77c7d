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

namespace nnemu::synap::kernels {
namespace {

constexpr int kRows = 4;  // measured: 6 rows x 4 blocks (30 of the 32 registers) is slower
constexpr int kBlocks = 4;

// sums[i][j] = start[j] + rowTerms[i] + dot(row `row` + i, channel block `block` + j), int8 rows
// flipped to unsigned; a null start or rowTerms counts as zeros. A function of its own, every
// loop over rows and blocks unrolled: GCC keeps the accumulators in registers only then (in the
// tile's function it copies them around every vpdpbusd).
template <int R, int B, bool Flip>
[[gnu::noinline]] void accumulate(const GemmArgs& a, size_t row, size_t block, const int32_t* start,
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
    const __m512i flip = _mm512_set1_epi32(static_cast<int32_t>(0x80808080u));
    for (size_t g = 0; g < a.depthGroups; ++g) {
        __m512i w[B];
        #pragma GCC unroll 16
        for (int j = 0; j < B; ++j) w[j] = _mm512_loadu_si512(weights + (j * a.depthGroups + g) * 64);
        #pragma GCC unroll 16
        for (int i = 0; i < R; ++i) {
            int32_t group;
            std::memcpy(&group, rows + i * a.rowStride + g * 4, 4);
            __m512i x = _mm512_set1_epi32(group);
            if constexpr (Flip) x = _mm512_xor_si512(x, flip);
            #pragma GCC unroll 16
            for (int j = 0; j < B; ++j) acc[i][j] = _mm512_dpbusd_epi32(acc[i][j], x, w[j]);
        }
    }
    #pragma GCC unroll 16
    for (int i = 0; i < R; ++i) {
        #pragma GCC unroll 16
        for (int j = 0; j < B; ++j) sums[i][j] = acc[i][j];
    }
}

// The folded requantization (GemmArgs.h) of x = accumulator + bias + column term, without the
// output zero point: even channels, then odd, merged back in place. AboveZero: the layer's clamp
// starts at or above the output zero point (ReLU, ReLU6), so a negative x, whose value is at
// most 0, ends at the clamp's lower bound whichever nudge it takes: the positive one for all,
// no compare and blend. (Its value stays at most 0 and the narrowing is monotonic.)
template <bool AboveZero>
__m512i scaled(const FastRequantBlock& f, __m512i x) {
    const __m512i threshold = _mm512_set1_epi64(-(int64_t{1} << 30));
    __m512i z[2];
    #pragma GCC unroll 16
    for (int p = 0; p < 2; ++p) {
        const __m512i t = _mm512_mul_epi32(p == 0 ? x : _mm512_srli_epi64(x, 32), _mm512_loadu_si512(f.multiplier[p]));
        __m512i nudge = _mm512_loadu_si512(f.positive[p]);
        if constexpr (!AboveZero) {
            nudge = _mm512_mask_blend_epi64(_mm512_cmplt_epi64_mask(t, threshold), nudge,
                                            _mm512_loadu_si512(f.negative[p]));
        }
        z[p] = _mm512_srav_epi64(_mm512_add_epi64(t, nudge), _mm512_loadu_si512(f.shift[p]));
    }
    return _mm512_mask_shuffle_epi32(z[0], 0xAAAA, z[1], _MM_PERM_CDAB);
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
__m512i narrow(const Narrow& n, __m512i v0, __m512i v1, __m512i v2, __m512i v3) {
    const __m512i low = _mm512_adds_epi16(_mm512_packs_epi32(v0, v1), n.zeroPoint16);
    const __m512i high = _mm512_adds_epi16(_mm512_packs_epi32(v2, v3), n.zeroPoint16);
    const __m512i bytes = _mm512_min_epi8(_mm512_max_epi8(_mm512_packs_epi16(low, high), n.low8), n.high8);
    return _mm512_permutexvar_epi32(n.order, _mm512_xor_si512(bytes, n.flip8));
}

__mmask64 prefix(size_t count) { return count >= 64 ? ~__mmask64{0} : (__mmask64{1} << count) - 1; }

// A tile's scaled values stored, `count` of the tile's channels: rows of 3 or 4 blocks one
// 64-byte vector each; rows of 1 or 2 blocks 4 or 2 rows per vector, so that narrowing works
// on full vectors.
template <int R, int B>
void storeTile(const Narrow& n, const __m512i (&y)[R][B], uint8_t* out, size_t stride, size_t count) {
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

// One function per shape: its registers are its own.
template <int R, int B, bool Flip, bool AboveZero>
[[gnu::noinline]] void fastTile(const GemmArgs& a, const Narrow& n, const int32_t* rowTerms, size_t row, size_t block) {
    __m512i acc[R][B];
    accumulate<R, B, Flip>(a, row, block, a.biasAndColTerms + block * kGemmBlock, rowTerms, acc);
    #pragma GCC unroll 16
    for (int j = 0; j < B; ++j) {
        const FastRequantBlock& f = a.fastBlocks[block + j];
        #pragma GCC unroll 16
        for (int i = 0; i < R; ++i) acc[i][j] = scaled<AboveZero>(f, acc[i][j]);
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
// the clamp starts at or above the output zero point.
enum class Mode { Exact, Fast, FastAboveZero };

template <Mode M, int R, int B, bool Flip>
void tile(const GemmArgs& a, const Narrow& n, const int32_t* rowTerms, size_t row, size_t block) {
    if constexpr (M != Mode::Exact) {
        fastTile<R, B, Flip, M == Mode::FastAboveZero>(a, n, rowTerms, row, block);
    } else {
        exactTile<R, B, Flip>(a, n, rowTerms, row, block);
    }
}

// The row terms (GemmArgs.h) of R rows; nullptr when they are all zero.
template <int R>
const int32_t* rowTermsOf(const GemmArgs& a, size_t row, int32_t (&terms)[R]) {
    if (a.rowTerms != nullptr) return a.rowTerms + row;
    if (a.rowFactor == 0) return nullptr;
    const size_t depth = a.depthGroups * 4;
    for (int i = 0; i < R; ++i) {
        const uint8_t* bytes = a.rows + (row + i) * a.rowStride;
        __m512i sums = _mm512_setzero_si512();
        for (size_t k = 0; k < depth; k += 64) {
            const __m512i chunk = _mm512_maskz_loadu_epi8(prefix(depth - k), bytes + k);
            sums = _mm512_add_epi64(sums, _mm512_sad_epu8(chunk, _mm512_setzero_si512()));
        }
        terms[i] = static_cast<int32_t>(static_cast<uint32_t>(_mm512_reduce_add_epi64(sums)) *
                                        static_cast<uint32_t>(a.rowFactor));
    }
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

template <bool Flip>
void runFlipped(const GemmArgs& a) {
    if (a.fastBlocks == nullptr) return run<Mode::Exact, Flip>(a);
    if (a.low >= a.outputZeroPoint) return run<Mode::FastAboveZero, Flip>(a);
    run<Mode::Fast, Flip>(a);
}

}  // namespace

void gemmAvx512Vnni(const GemmArgs& a) { a.signedValues ? runFlipped<true>(a) : runFlipped<false>(a); }

}  // namespace nnemu::synap::kernels
