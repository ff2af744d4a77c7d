// The quantized GEMM on AMX-INT8 tiles (Sapphire Rapids and later), run inside the AVX-512 VNNI
// kernel choice where amxInt8Usable() (gemmAvx512Amx: the shapes where it measures faster):
// tdpbusd multiplies a 16-row x 4*kc-byte tile of unsigned activations by a kc-row tile of the
// packed weights, whose 16-channel x 4-byte rows are exactly AMX's B-tile rows: the packed layout
// is Avx512Vnni's. The int32 sums are exact and the requantization and narrowing are the AVX-512
// kernel's (GemmAvx512Store.h), so the bytes are the same.
//
// int8 rows: the column terms expect them flipped (a + 128). Calls of many rows read them as
// they are with tdpbssd and start every channel at 128 * sum(weights) (one AVX-512 pass over the
// weights per call); calls of fewer rows than channels copy them flipped instead (one pass over
// the rows), whichever reads less.
//
// Tiles: 0-3 accumulate 32 rows x 32 channels (two row tiles x two channel blocks), 4 and 5 hold
// the two row tiles' activations, 6 and 7 the two blocks' weights. The depth goes in chunks of kc
// 4-byte groups, kc the largest divisor of the depth's groups up to 16, so every tile of a call
// has one shape: each call makes sure its thread's tiles hold that configuration (loading it
// when they hold another) and leaves it there for the next call. A row group of fewer rows
// than its tiles read is copied into a zero-padded scratch.
#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

#include "AmxTiles.h"
#include "GemmArgs.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "Avx512Requant.h"
#include "GemmAvx512Store.h"
#include "GemmAvx512Fields.h"

namespace nnemu::synap::kernels {
namespace {

constexpr size_t kTileRows = 16;
constexpr size_t kGroupRows = 2 * kTileRows;  // rows per row group: two row tiles
constexpr size_t kAccStride = 2 * kGemmBlock;  // int32 values per row of the accumulator buffer
constexpr size_t kNudgeValues = 3 * kGemmBlock;  // per block: positive, negative, threshold (Call::nudges)

using amx::TileConfig;

// 4-byte groups per depth chunk: the depth's groups split evenly into chunks of at most 16.
size_t chunkGroups(size_t groups) {
    if (groups <= kTileRows) return groups;
    for (size_t n = (groups + kTileRows - 1) / kTileRows;; ++n) {
        if (groups % n == 0) return groups / n;
    }
}

// acc[32][32] = dot(rows, weights) of up to two row tiles (a0 rows 0-15, a1 rows 16-31; stride
// bytes from row to row) and up to two channel blocks (the second `blockBytes` after the first).
template <bool Signed, bool TwoRows, bool TwoBlocks>
void multiply(const uint8_t* a0, const uint8_t* a1, size_t stride, const int8_t* b, size_t blockBytes, size_t kc,
              size_t chunks, int32_t* acc) {
    _tile_zero(0);
    if constexpr (TwoBlocks) _tile_zero(1);
    if constexpr (TwoRows) _tile_zero(2);
    if constexpr (TwoRows && TwoBlocks) _tile_zero(3);
    const size_t rowStep = kc * 4, weightStep = kc * 64;
    for (size_t k = 0; k < chunks; ++k) {
        _tile_loadd(4, a0 + k * rowStep, stride);
        _tile_loadd(6, b + k * weightStep, 64);
        if constexpr (TwoBlocks) _tile_loadd(7, b + blockBytes + k * weightStep, 64);
        if constexpr (TwoRows) _tile_loadd(5, a1 + k * rowStep, stride);
        if constexpr (Signed) {
            _tile_dpbssd(0, 4, 6);
            if constexpr (TwoBlocks) _tile_dpbssd(1, 4, 7);
            if constexpr (TwoRows) _tile_dpbssd(2, 5, 6);
            if constexpr (TwoRows && TwoBlocks) _tile_dpbssd(3, 5, 7);
        } else {
            _tile_dpbusd(0, 4, 6);
            if constexpr (TwoBlocks) _tile_dpbusd(1, 4, 7);
            if constexpr (TwoRows) _tile_dpbusd(2, 5, 6);
            if constexpr (TwoRows && TwoBlocks) _tile_dpbusd(3, 5, 7);
        }
    }
    constexpr size_t bytes = kAccStride * sizeof(int32_t);
    _tile_stored(0, acc, bytes);
    if constexpr (TwoBlocks) _tile_stored(1, acc + kGemmBlock, bytes);
    if constexpr (TwoRows) _tile_stored(2, acc + kTileRows * kAccStride, bytes);
    if constexpr (TwoRows && TwoBlocks) _tile_stored(3, acc + kTileRows * kAccStride + kGemmBlock, bytes);
}

enum class Mode { Exact, Fast, FastAboveZero };

// How rows are read: unsigned ones in place; int8 ones in place (tdpbssd, the start terms add
// 128 * sum(weights)) or copied flipped to unsigned.
enum class Rows { Unsigned, SignedInPlace, SignedFlipped };

// What one call shares across its row groups.
struct Call {
    const GemmArgs& a;
    Narrow narrow;
    size_t kc, chunks, blocks;
    // Per channel: what the accumulators start from: int8 rows' 128 * sum(weights) (flipped
    // rows' sums, GemmArgs.h), plus in the fast modes the bias and column term; nullptr: zeros.
    const int32_t* start;
    // The fast modes without row terms: per block, the nudges with `start` taken out of x
    // (GemmAvx512Store.h Nudges: positive, negative and threshold, each [2][8]), so that the
    // accumulators enter the product as the tiles leave them, without adding `start` (one
    // instruction less per 16 outputs); nullptr otherwise.
    const int64_t* nudges = nullptr;
    // With `nudges`: per block, whether it and the block it is stored with (the pair from an even
    // block on) take the 16-bit fields (GemmAvx512Fields.h), their nudges then with the output
    // zero point folded in; nullptr: none does.
    const uint8_t* fields = nullptr;
    FieldNarrow fieldNarrow;
};

// The fast modes' requantization and narrowing of rows [0, count) of the accumulators' blocks.
// Loaded: the sums are the accumulators as they are (no start or row terms to add), so the odd
// channels come into the low halves of the 64-bit lanes by a load from one value further on (the
// buffer has a spare vector after its last row) instead of a shift: one vector instruction less
// per 16 outputs, the same values (the high halves are not read).
template <int B, bool High, bool AboveZero, bool Loaded, typename Sums = std::nullptr_t>
[[gnu::always_inline]] inline void scaleAndStore(const Call& c, const int32_t* acc, size_t count, size_t block,
                                                 uint8_t* out, const __m512i (&shift32)[B], const Nudges (&nudges)[B],
                                                 Sums sums = nullptr) {
    const GemmArgs& a = c.a;
    const size_t channels = a.channels - block * kGemmBlock;
    const Narrow narrow = c.narrow;  // in registers: the output's stores could alias the call's copy
    auto scale = [&](size_t i, int j) {
        const FastRequantBlock& f = a.fastBlocks[block + j];
        __m512i x, odd;
        if constexpr (Loaded) {
            const int32_t* at = acc + i * kAccStride + j * kGemmBlock;
            x = _mm512_loadu_si512(at);
            odd = _mm512_loadu_si512(at + 1);
        } else {
            x = sums(i, j);
            odd = _mm512_srli_epi64(x, 32);
        }
        if constexpr (High) return scaledHigh<AboveZero>(f, shift32[j], x, odd, nudges[j]);
        return scaled<AboveZero>(f, x, odd, nudges[j]);
    };
    size_t i = 0;
    for (; i + 4 <= count; i += 4) {
        __m512i y[4][B];
        #pragma GCC unroll 8
        for (int r = 0; r < 4; ++r) {
            #pragma GCC unroll 2
            for (int j = 0; j < B; ++j) y[r][j] = scale(i + r, j);
        }
        storeTile<4, B>(narrow, y, out + i * a.outputStride, a.outputStride, channels);
    }
    for (; i < count; ++i) {
        __m512i y[1][B];
        #pragma GCC unroll 2
        for (int j = 0; j < B; ++j) y[0][j] = scale(i, j);
        storeTile<1, B>(narrow, y, out + i * a.outputStride, a.outputStride, channels);
    }
}

// scaleAndStore() by 16-bit fields (GemmAvx512Fields.h), for blocks that take them (the
// accumulators as the tiles leave them, Call::fields): the rows' pairs (row, block) of 16 channels
// four at a time, as 64 bytes (4 rows of one block or 2 rows of two). The blocks' constants in
// registers, everything the loop reads in locals (the output's stores could alias the call's
// memory).
template <int B, bool AboveZero, bool UnsignedBytes>
void storeFields(const Call& c, const int32_t* acc, size_t count, size_t block, uint8_t* out) {
    const GemmArgs& a = c.a;
    const size_t stride = a.outputStride;
    const __mmask64 stored = prefix(a.channels - block * kGemmBlock);
    const FieldNarrow narrow = c.fieldNarrow;
    const __m512i order = _mm512_load_si512(kFieldOrder.index);
    __m512i multiplier[B][2], positive[B][2], negative[B][2], threshold[B][2], control[B][2];
    for (int j = 0; j < B; ++j) {
        const FastRequantBlock& f = a.fastBlocks[block + j];
        const int64_t* nudges = c.nudges + (block + j) * kNudgeValues;
        for (int p = 0; p < 2; ++p) {
            multiplier[j][p] = _mm512_loadu_si512(f.multiplier[p]);
            positive[j][p] = _mm512_loadu_si512(nudges + p * 8);
            negative[j][p] = _mm512_loadu_si512(nudges + 16 + p * 8);
            threshold[j][p] = _mm512_loadu_si512(nudges + 32 + p * 8);
            control[j][p] = fieldControl(f, p);
        }
    }
    // The nudged product of block j's even (p = 0) or odd channels (`lanes` as in nudged()).
    auto product = [&](__m512i lanes, int j, int p) __attribute__((always_inline)) {
        const __m512i t = _mm512_mul_epi32(lanes, multiplier[j][p]);
        __m512i nudge = positive[j][p];
        if constexpr (!AboveZero) {
            nudge = _mm512_mask_blend_epi64(_mm512_cmplt_epi64_mask(t, threshold[j][p]), nudge, negative[j][p]);
        }
        return _mm512_add_epi64(t, nudge);
    };
    // Pair k (row i + k / B, block k % B) into the word slots of w; the odd channels by a load
    // from one value further on (scaleAndStore()).
    auto words = [&](size_t i, int k, __m512i w) __attribute__((always_inline)) {
        const int j = k % B;
        const int32_t* at = acc + (i + k / B) * kAccStride + j * kGemmBlock;
        const __mmask64 slot = 0x0303030303030303ull << (4 * (k % 2));
        w = _mm512_mask_multishift_epi64_epi8(w, slot, control[j][0], product(_mm512_loadu_si512(at), j, 0));
        return _mm512_mask_multishift_epi64_epi8(w, slot << 2, control[j][1], product(_mm512_loadu_si512(at + 1), j, 1));
    };
    // `rows` rows from row i: 4 / B of them fill the 4 pairs.
    auto quad = [&](size_t i, size_t rows) __attribute__((always_inline)) {
        const __m512i zero = _mm512_setzero_si512();
        __m512i w0 = words(i, 0, zero), w1 = zero;
        if (B == 2 || rows > 1) w0 = words(i, 1, w0);
        if (rows > 2 / B) {
            w1 = words(i, 2, zero);
            if (B == 2 || rows > 3) w1 = words(i, 3, w1);
        }
        const __m512i bytes = narrowFields<UnsignedBytes>(narrow, order, w0, w1);
        uint8_t* to = out + i * stride;
        if constexpr (B == 2) {
            const auto mask = static_cast<__mmask32>(stored);
            _mm256_mask_storeu_epi8(to, mask, _mm512_castsi512_si256(bytes));
            if (rows > 1) _mm256_mask_storeu_epi8(to + stride, mask, _mm512_extracti64x4_epi64(bytes, 1));
        } else {
            const auto mask = static_cast<__mmask16>(stored);
            _mm_mask_storeu_epi8(to, mask, _mm512_castsi512_si128(bytes));
            if (rows > 1) _mm_mask_storeu_epi8(to + stride, mask, _mm512_extracti32x4_epi32(bytes, 1));
            if (rows > 2) _mm_mask_storeu_epi8(to + 2 * stride, mask, _mm512_extracti32x4_epi32(bytes, 2));
            if (rows > 3) _mm_mask_storeu_epi8(to + 3 * stride, mask, _mm512_extracti32x4_epi32(bytes, 3));
        }
    };
    constexpr size_t kQuadRows = 4 / B;
    size_t i = 0;
    for (; i + 2 * kQuadRows <= count; i += 2 * kQuadRows) {
        quad(i, kQuadRows);
        quad(i + kQuadRows, kQuadRows);
    }
    for (; i + kQuadRows <= count; i += kQuadRows) quad(i, kQuadRows);
    if (i < count) quad(i, count - i);
}

// Rows [0, count) of a row group's accumulators (`acc`, channel blocks `block` and, B = 2, the
// next) requantized into the output from row `row` on; `terms` their row terms or nullptr.
// Fast modes: High, every lane of the blocks shifts by 32 or more (scaledHigh).
template <Mode M, int B, bool High = false>
void store(const Call& c, const int32_t* acc, size_t row, size_t count, size_t block, const int32_t* terms) {
    const GemmArgs& a = c.a;
    const size_t first = block * kGemmBlock, channels = a.channels - first;
    uint8_t* out = a.output + row * a.outputStride + first;
    auto sums = [&](size_t i, int j) {
        __m512i x = _mm512_loadu_si512(acc + i * kAccStride + j * kGemmBlock);
        if (c.start != nullptr && c.nudges == nullptr) {
            x = _mm512_add_epi32(x, _mm512_loadu_si512(c.start + first + j * kGemmBlock));
        }
        if (terms != nullptr) x = _mm512_add_epi32(x, _mm512_set1_epi32(terms[i]));
        return x;
    };
    if constexpr (M == Mode::Exact) {
        for (int j = 0; j < B; ++j) {
            const size_t n = std::min(channels - j * kGemmBlock, kGemmBlock);
            const __mmask16 mask = static_cast<__mmask16>((1u << n) - 1);
            const Requant q = requantOf(a, block + j);
            for (size_t i = 0; i < count; ++i) {
                _mm512_mask_cvtepi32_storeu_epi8(out + i * a.outputStride + j * kGemmBlock, mask,
                                                 requantize(a, q, sums(i, j), 0));
            }
        }
    } else {
        constexpr bool aboveZero = M == Mode::FastAboveZero;
        if constexpr (!High) {
            if (c.fields != nullptr && c.fields[block] != 0) {
                if (c.fieldNarrow.unsignedBytes) return storeFields<B, aboveZero, true>(c, acc, count, block, out);
                return storeFields<B, aboveZero, false>(c, acc, count, block, out);
            }
            __m512i shift32[B];
            bool high = true;
            for (int j = 0; j < B; ++j) high = highShifts(a.fastBlocks[block + j], &shift32[j]) && high;
            if (high) return store<M, B, true>(c, acc, row, count, block, terms);
        }
        __m512i shift32[B] = {};
        if constexpr (High) {
            for (int j = 0; j < B; ++j) highShifts(a.fastBlocks[block + j], &shift32[j]);
        }
        // The call's nudges, with `start` folded in, or the blocks' own.
        Nudges nudges[B];
        for (int j = 0; j < B; ++j) {
            nudges[j] = nudgesOf(a.fastBlocks[block + j]);
            if (c.nudges == nullptr) continue;
            const auto* folded = reinterpret_cast<const int64_t(*)[8]>(c.nudges + (block + j) * kNudgeValues);
            nudges[j] = {folded, folded + 2, folded + 4};
        }
        if (terms == nullptr && (c.start == nullptr || c.nudges != nullptr)) {
            return scaleAndStore<B, High, aboveZero, true>(c, acc, count, block, out, shift32, nudges);
        }
        scaleAndStore<B, High, aboveZero, false>(c, acc, count, block, out, shift32, nudges, sums);
    }
}

// A tile product whose requantization is still to come: its accumulators and place.
struct Pending {
    const int32_t* acc = nullptr;
    size_t row = 0, count = 0, block = 0;
    const int32_t* terms = nullptr;
    bool twoBlocks = false;
};

template <Mode M>
void finish(const Call& c, const Pending& p) {
    if (p.acc == nullptr) return;
    if (p.twoBlocks) return store<M, 2>(c, p.acc, p.row, p.count, p.block, p.terms);
    store<M, 1>(c, p.acc, p.row, p.count, p.block, p.terms);
}

// Per-thread working memory: a row group's rows, two sets of accumulators, the start terms.
struct Scratch {
    std::vector<uint8_t> rows;
    // A spare vector after each set: the odd channels' load of the last row reads one value past
    // it (scaleAndStore); zeros, never written.
    alignas(64) int32_t acc[2][kGroupRows * kAccStride + kGemmBlock] = {};
    std::vector<int32_t> start, magnitudes;
    std::vector<int64_t> nudges;
    std::vector<uint8_t> fields;
};

// One row group: `count` rows from `row` on, read from `rows` (stride a.rowStride, 32 rows
// readable when count > 16, else 16), through every channel block. Each product's
// requantization comes after the next product's tile instructions, in the other accumulator
// set: the vector units requantize while the tile unit multiplies.
template <Mode M, bool Signed>
void rowGroup(const Call& c, const uint8_t* rows, size_t row, size_t count, const int32_t* terms, Scratch& scratch,
              Pending* pending) {
    const GemmArgs& a = c.a;
    const size_t blockBytes = a.depthGroups * 64, stride = a.rowStride;
    const uint8_t* a1 = count > kTileRows ? rows + kTileRows * stride : rows;
    for (size_t block = 0; block < c.blocks; block += 2) {
        const int8_t* b = a.weights + block * blockBytes;
        const bool twoBlocks = block + 1 < c.blocks;
        int32_t* acc = scratch.acc[pending->acc == scratch.acc[0] ? 1 : 0];
        if (count > kTileRows) {
            if (twoBlocks) {
                multiply<Signed, true, true>(rows, a1, stride, b, blockBytes, c.kc, c.chunks, acc);
            } else {
                multiply<Signed, true, false>(rows, a1, stride, b, blockBytes, c.kc, c.chunks, acc);
            }
        } else if (twoBlocks) {
            multiply<Signed, false, true>(rows, a1, stride, b, blockBytes, c.kc, c.chunks, acc);
        } else {
            multiply<Signed, false, false>(rows, a1, stride, b, blockBytes, c.kc, c.chunks, acc);
        }
        finish<M>(c, *pending);
        *pending = {acc, row, count, block, terms, twoBlocks};
    }
}

// The thread's scratch, one for every mode and row kind (a thread runs one call at a time): one
// per instantiation, as before, meant a first run faulting in each one's pages in turn.
Scratch& threadScratch() {
    thread_local Scratch scratch;
    return scratch;
}

template <Mode M, Rows R>
void run(const GemmArgs& a) {
    Scratch& scratch = threadScratch();
    const size_t blocks = (a.channels + kGemmBlock - 1) / kGemmBlock, padded = blocks * kGemmBlock;
    const int32_t* start = M == Mode::Exact ? nullptr : a.biasAndColTerms;
    const int32_t* magnitudes = nullptr;  // per channel sum(|weights|), where known
    if constexpr (R == Rows::SignedInPlace) {
        // 128 * sum(weights) per channel: what flipping the rows would have added; in the fast
        // modes also sum(|weights|), for the 16-bit fields' bound (fieldsFit).
        scratch.start.resize(padded);
        scratch.magnitudes.resize(padded);
        const __m512i flip = _mm512_set1_epi32(static_cast<int32_t>(0x80808080u)), one = _mm512_set1_epi8(1);
        for (size_t block = 0; block < blocks; ++block) {
            const int8_t* w = a.weights + block * a.depthGroups * 64;
            __m512i sum = M == Mode::Exact ? _mm512_setzero_si512() : _mm512_loadu_si512(start + block * kGemmBlock);
            __m512i magnitude = _mm512_setzero_si512();
            for (size_t g = 0; g < a.depthGroups; ++g) {
                const __m512i weights = _mm512_loadu_si512(w + g * 64);
                sum = _mm512_dpbusd_epi32(sum, flip, weights);
                if constexpr (M != Mode::Exact) magnitude = _mm512_dpbusd_epi32(magnitude, _mm512_abs_epi8(weights), one);
            }
            _mm512_storeu_si512(scratch.start.data() + block * kGemmBlock, sum);
            _mm512_storeu_si512(scratch.magnitudes.data() + block * kGemmBlock, magnitude);
        }
        start = scratch.start.data();
        magnitudes = scratch.magnitudes.data();
    }
    const size_t kc = chunkGroups(a.depthGroups);
    Call c{a, Narrow(a), kc, a.depthGroups / kc, blocks, start, nullptr, nullptr, FieldNarrow(a)};
    if (M != Mode::Exact && a.rowTerms == nullptr && a.rowFactor == 0) {
        // x * m + nudge = accumulator * m + (start * m + nudge), the same 64-bit sum, and
        // x * m < -2^30 exactly where accumulator * m < -2^30 - start * m: `start` is x for
        // rows of all zero bytes and the accumulator what the rows add to it, both within
        // int32 by the fast requantization's condition (|x| <= the largest sum + |bias| for
        // any rows), so x = accumulator + start without wrapping; every product is below 2^62
        // in magnitude, the nudges too, and 64-bit adds wrap, so the order of the terms does
        // not change the sum.
        scratch.nudges.resize(blocks * kNudgeValues);
        for (size_t block = 0; block < blocks; ++block) {
            const FastRequantBlock& f = a.fastBlocks[block];
            const __m512i s = _mm512_loadu_si512(start + block * kGemmBlock);
            int64_t* to = scratch.nudges.data() + block * kNudgeValues;
            for (int p = 0; p < 2; ++p) {
                const __m512i t = _mm512_mul_epi32(p == 0 ? s : _mm512_srli_epi64(s, 32), _mm512_loadu_si512(f.multiplier[p]));
                _mm512_storeu_si512(to + p * 8, _mm512_add_epi64(t, _mm512_loadu_si512(f.positive[p])));
                _mm512_storeu_si512(to + 16 + p * 8, _mm512_add_epi64(t, _mm512_loadu_si512(f.negative[p])));
                _mm512_storeu_si512(to + 32 + p * 8, _mm512_sub_epi64(_mm512_set1_epi64(-(int64_t{1} << 30)), t));
            }
        }
        c.nudges = scratch.nudges.data();
        // The blocks that take the 16-bit fields, by pairs as rowGroup() stores them.
        scratch.fields.resize(blocks);
        for (size_t block = 0; block < blocks; block += 2) {
            const bool fit = fieldsFit(a, block, magnitudes) && (block + 1 == blocks || fieldsFit(a, block + 1, magnitudes));
            for (size_t b = block; b < blocks && b < block + 2; ++b) {
                scratch.fields[b] = fit;
                if (fit) foldZeroPoint(a, b, scratch.nudges.data() + b * kNudgeValues);
            }
        }
        c.fields = scratch.fields.data();
    }
    TileConfig config;
    for (int t = 0; t < 4; ++t) {
        config.rows[t] = kTileRows;
        config.columnBytes[t] = kGemmBlock * sizeof(int32_t);
    }
    for (int t = 4; t < 6; ++t) {
        config.rows[t] = kTileRows;
        config.columnBytes[t] = static_cast<uint16_t>(kc * 4);
    }
    for (int t = 6; t < 8; ++t) {
        config.rows[t] = static_cast<uint8_t>(kc);
        config.columnBytes[t] = 64;
    }
    // The thread's tiles keep the configuration between calls (calls of a few hundred rows, as
    // the unfolded convolutions and the row bands make, lost 20 % to loading it and releasing the
    // tiles each time); another kernel on this thread may have loaded its own since.
    // (GCC 12's _tile_storeconfig and _tile_loadconfig tell the compiler they write and read 8
    // bytes only: compiler barriers keep all 64 bytes of both in memory, read after the store.)
    TileConfig current;
    _tile_storeconfig(&current);
    amx::memoryBarrier();
    if (std::memcmp(&current, &config, sizeof(config)) != 0) {
        amx::memoryBarrier();
        _tile_loadconfig(&config);
    }
    const size_t stride = a.rowStride;
    int32_t terms[2][kGroupRows];  // of this row group and of the previous one (pending)
    Pending pending;
    for (size_t row = 0; row < a.rowCount; row += kGroupRows) {
        const size_t count = std::min(kGroupRows, a.rowCount - row);
        const uint8_t* rows = a.rows + row * stride;
        // A row group read in place needs all the rows its tiles read.
        const size_t tiles = count > kTileRows ? 2 : 1;
        if (R == Rows::SignedFlipped || count < tiles * kTileRows) {
            // From a 64-byte boundary: tile rows split across cache lines took up to 2x as long.
            scratch.rows.resize(kGroupRows * stride + 64);
            uint8_t* copy = scratch.rows.data() + (64 - reinterpret_cast<uintptr_t>(scratch.rows.data()) % 64) % 64;
            for (size_t i = 0; i < count; ++i) {
                const uint8_t* from = rows + i * stride;
                uint8_t* to = copy + i * stride;
                for (size_t k = 0; k < stride; k += 64) {
                    const __mmask64 mask = prefix(stride - k);
                    __m512i bytes = _mm512_maskz_loadu_epi8(mask, from + k);
                    if constexpr (R == Rows::SignedFlipped) {
                        bytes = _mm512_xor_si512(bytes, _mm512_set1_epi8(static_cast<char>(0x80)));
                    }
                    _mm512_mask_storeu_epi8(to + k, mask, bytes);
                }
            }
            std::memset(copy + count * stride, 0, (tiles * kTileRows - count) * stride);
            rows = copy;
        }
        // The caller's row terms, or the rows' sums times rowFactor (GemmArgs.h).
        const int32_t* rowTerms = a.rowTerms != nullptr ? a.rowTerms + row : nullptr;
        if (rowTerms == nullptr && a.rowFactor != 0) {
            int32_t* sums = terms[row / kGroupRows % 2];
            for (size_t i = 0; i < count; ++i) sums[i] = rowTerm(a, a.rows + (row + i) * stride);
            rowTerms = sums;
        }
        rowGroup<M, R == Rows::SignedInPlace>(c, rows, row, count, rowTerms, scratch, &pending);
    }
    finish<M>(c, pending);
}

template <Rows R>
void runRows(const GemmArgs& a) {
    if (a.fastBlocks == nullptr) return run<Mode::Exact, R>(a);
    if (a.low >= a.outputZeroPoint) return run<Mode::FastAboveZero, R>(a);
    run<Mode::Fast, R>(a);
}

}  // namespace

void gemmAmxInt8(const GemmArgs& a) {
    if (a.rowCount == 0 || a.channels == 0) return;
    if (!a.signedValues) return runRows<Rows::Unsigned>(a);
    // Whichever pass reads less: the weights (once per call) or the rows.
    if (a.rowCount < a.channels) return runRows<Rows::SignedFlipped>(a);
    runRows<Rows::SignedInPlace>(a);
}

// Measured (BENCHMARKS.md, "AMX-INT8 in the GEMM"): a call of fewer rows than a tile fills
// wastes most of each tile product, slower than VNNI (a classifier's 1 row: 1.5x the time).
// With depth chunks of 16 bytes (4 groups) the requantization, the same in both kernels, is
// nearly all the work: uint8 rows are level (12544x16x96: AMX 1.00x VNNI's time), int8 rows gain
// what VNNI spends flipping each broadcast (0.87-0.91x); shorter chunks (depths below 16, or
// groups that split only into short chunks, e.g. 17 groups: 17 chunks of 1) stay on VNNI. From
// chunks of 24 bytes on AMX wins (3136x24x144 0.81-0.91x, 3136x144x24 0.38-0.57x, 196x512x512
// 0.23-0.26x).
bool amxInt8Suits(const GemmArgs& a) {
    const size_t kc = chunkGroups(a.depthGroups);
    return a.rowCount >= kTileRows && (kc > 4 || (kc == 4 && a.signedValues));
}

void gemmAvx512Amx(const GemmArgs& a) { amxInt8Suits(a) ? gemmAmxInt8(a) : gemmAvx512Vnni(a); }

void prepareAmxGemmScratch() {
    // Sized for GEMMs up to 1280 deep and 1280 channels wide (MobileNets' widest); a larger one
    // grows it in its first call, as every call did before.
    constexpr size_t kDepth = 1280, kChannels = 1280, kBlocks = kChannels / kGemmBlock;
    Scratch& scratch = threadScratch();
    std::memset(scratch.acc, 0, sizeof scratch.acc);
    if (scratch.rows.size() < kGroupRows * kDepth + 64) scratch.rows.resize(kGroupRows * kDepth + 64);
    if (scratch.start.size() < kChannels) scratch.start.resize(kChannels);
    if (scratch.magnitudes.size() < kChannels) scratch.magnitudes.resize(kChannels);
    if (scratch.nudges.size() < kBlocks * kNudgeValues) scratch.nudges.resize(kBlocks * kNudgeValues);
    if (scratch.fields.size() < kBlocks) scratch.fields.resize(kBlocks);
}

}  // namespace nnemu::synap::kernels
