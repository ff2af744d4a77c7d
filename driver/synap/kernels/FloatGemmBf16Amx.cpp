// The relaxed float GEMM on AMX-BF16 tiles: TDPBF16PS multiplies a 16-row x 16-pair tile of bf16
// inputs by a 16-pair x 16-channel tile of bf16 weights into 16 x 16 float32 sums. A packed
// block's pairs (FloatGemmBf16.h: 16 channels x 2 bf16 = 64 bytes per pair) are such weight tiles
// row for row, so the weights are read where they lie; the inputs are rounded into tile order
// (16 rows x 16 pairs, 1 KB contiguous) once per chunk of rows. Each call covers up to 32 rows x
// 32 channels with four sum tiles (tmm0-3), two input tiles (tmm4-5) and two weight tiles
// (tmm6-7); the sums start from the biases (a 64-byte row loaded with stride 0). A depth whose
// pairs do not fill the last 16 reads that group of weights from a zero-padded copy, so no tile
// reads past its block. The calling thread loads this file's tile configuration at each entry
// and releases the tiles at exit: nothing is assumed about another kernel's configuration.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "AmxTiles.h"
#include "FloatGemmBf16.h"

namespace nnemu::synap::kernels {
namespace {

constexpr size_t kTileRows = 16;    // rows of inputs and sums per tile
constexpr size_t kGroupPairs = 16;  // pairs of input channels per tile (64 bytes a row)
constexpr size_t kTileBytes = 1024;
constexpr size_t kUnitBytes = 64;

using amx::memoryBarrier;
using amx::TileConfig;

// Loads the configuration at construction, releases the tiles (back to their initial state) at
// destruction.
struct Tiles {
    Tiles() {
        TileConfig config;
        for (size_t t = 0; t < 8; ++t) {
            config.columnBytes[t] = kUnitBytes;
            config.rows[t] = kTileRows;
        }
        memoryBarrier();  // GCC 12's _tile_loadconfig tells the compiler it reads 8 bytes only
        _tile_loadconfig(&config);
    }
    ~Tiles() { _tile_release(); }
    Tiles(const Tiles&) = delete;
    Tiles& operator=(const Tiles&) = delete;
};

// Rows [0, count) of `depth` floats rounded to bf16 in tile order: row r's group g of 16 pairs at
// ((r / 16) * groups + g) KB + (r % 16) * 64 bytes; pairs past the depth are zeros.
void toBf16Tiles(const float* input, size_t depth, size_t count, size_t groups, uint8_t* tiles) {
    for (size_t r = 0; r < count; ++r) {
        const float* in = input + r * depth;
        uint8_t* row = tiles + (r / kTileRows) * groups * kTileBytes + (r % kTileRows) * kUnitBytes;
        for (size_t g = 0; g < groups; ++g) {
            const size_t k = g * 2 * kGroupPairs, left = depth - k;  // left >= 1
            const auto mask = [](size_t n) {
                return n >= 16 ? __mmask16(0xffff) : static_cast<__mmask16>((1u << n) - 1);
            };
            const __m512 low = _mm512_maskz_loadu_ps(mask(left), in + k);
            const __m512 high = _mm512_maskz_loadu_ps(left > 16 ? mask(left - 16) : __mmask16(0), in + k + 16);
            _mm512_storeu_si512(row + g * kTileBytes, reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(high, low)));
        }
    }
}

// One call: H halves of 16 rows (1 or 2) x B blocks of 16 channels (1 or 2).
struct TileCall {
    const uint8_t* input;   // the first row tile of the rows, `groups` tiles per 16 rows
    size_t groups, fullGroups;
    const uint8_t* block;   // the first block (its biases)
    size_t blockStride;
    const uint8_t* tail;    // the blocks' last groups zero-padded (1 KB each), when fullGroups < groups
    float* output;
    size_t outputStride, rows, lastCount;
    float low, high;
};

template <size_t H, size_t B>
void tileCall(const TileCall& c) {
    const uint8_t* w0 = c.block;
    const uint8_t* w1 = c.block + c.blockStride;
    // Sums (h, b) in tmm(2h + b), from the biases.
    _tile_loadd(0, w0, 0);
    if constexpr (B == 2) _tile_loadd(1, w1, 0);
    if constexpr (H == 2) {
        _tile_loadd(2, w0, 0);
        if constexpr (B == 2) _tile_loadd(3, w1, 0);
    }
    const uint8_t* a1 = c.input + c.groups * kTileBytes;
    for (size_t g = 0; g < c.groups; ++g) {
        const bool full = g < c.fullGroups;
        _tile_loadd(4, c.input + g * kTileBytes, kUnitBytes);
        _tile_loadd(6, full ? w0 + kUnitBytes + g * kTileBytes : c.tail, kUnitBytes);
        _tile_dpbf16ps(0, 4, 6);
        if constexpr (B == 2) {
            _tile_loadd(7, full ? w1 + kUnitBytes + g * kTileBytes : c.tail + kTileBytes, kUnitBytes);
            _tile_dpbf16ps(1, 4, 7);
        }
        if constexpr (H == 2) {
            _tile_loadd(5, a1 + g * kTileBytes, kUnitBytes);
            _tile_dpbf16ps(2, 5, 6);
            if constexpr (B == 2) _tile_dpbf16ps(3, 5, 7);
        }
    }
    alignas(64) float sums[4][kTileRows][16];
    _tile_stored(0, sums[0], kUnitBytes);
    if constexpr (B == 2) _tile_stored(1, sums[1], kUnitBytes);
    if constexpr (H == 2) {
        _tile_stored(2, sums[2], kUnitBytes);
        if constexpr (B == 2) _tile_stored(3, sums[3], kUnitBytes);
    }
    const __m512 low = _mm512_set1_ps(c.low), high = _mm512_set1_ps(c.high);
    const __mmask16 last = static_cast<__mmask16>((1u << c.lastCount) - 1);
    for (size_t r = 0; r < c.rows; ++r) {
        float* out = c.output + r * c.outputStride;
        const size_t h = r / kTileRows;
        for (size_t b = 0; b < B; ++b) {
            const __m512 v = _mm512_min_ps(_mm512_max_ps(_mm512_load_ps(sums[2 * h + b][r % kTileRows]), low), high);
            _mm512_mask_storeu_ps(out + b * 16, b + 1 == B ? last : __mmask16(0xffff), v);
        }
    }
}

void runTileCall(size_t halves, size_t blocks, const TileCall& c) {
    if (halves == 2) return blocks == 2 ? tileCall<2, 2>(c) : tileCall<2, 1>(c);
    return blocks == 2 ? tileCall<1, 2>(c) : tileCall<1, 1>(c);
}

// Rows converted at a time: about 256 KB of them, whole calls of 32 rows.
size_t rowsPerChunk(size_t groups) {
    return std::max<size_t>(2 * kTileRows, (256 * 1024 / (groups * 4 * kTileRows)) / (2 * kTileRows) * (2 * kTileRows));
}

uint8_t* aligned64(uint32_t* p) {
    return reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(p) + 63) & ~uintptr_t{63});
}

}  // namespace

void runFloatGemmBf16TileAmx(const uint8_t* blocks, size_t depth, size_t channels, const float* input, float* output,
                             float low, float high, size_t rowBegin, size_t rowEnd, size_t channelBegin,
                             size_t channelEnd, std::vector<uint32_t>* scratch) {
    const size_t pairs = (depth + 1) / 2;
    const size_t groups = (pairs + kGroupPairs - 1) / kGroupPairs, fullGroups = pairs / kGroupPairs;
    const size_t blockStride = kUnitBytes * (1 + pairs);
    const size_t firstBlock = channelBegin / kFloatGemmBlock;
    const size_t blockCount = (channelEnd - firstBlock * kFloatGemmBlock + kFloatGemmBlock - 1) / kFloatGemmBlock;
    // Weights of a few KB (shallow layers of many rows) stay in L1 while each 32 rows are
    // converted and run on every block: the output is written row after row. Deeper ones keep
    // two blocks in L1 over a chunk of rows converted once.
    const bool rowsOuter = blockCount * blockStride <= 32 * 1024;
    const size_t chunk = rowsOuter ? 2 * kTileRows : rowsPerChunk(groups);
    // The converted rows (a chunk, rounded up to whole row tiles), then the blocks' zero-padded
    // last groups of weights; 64-byte aligned.
    const size_t inputBytes = chunk * groups * 4 * kGroupPairs;
    const size_t tailBytes = fullGroups < groups ? blockCount * kTileBytes : 0;
    const size_t words = (inputBytes + tailBytes + 64) / sizeof(uint32_t);
    if (scratch->size() < words) scratch->resize(words);
    uint8_t* tiles = aligned64(scratch->data());
    uint8_t* tails = tiles + inputBytes;
    if (tailBytes != 0) {
        std::memset(tails, 0, tailBytes);
        const size_t tailPairs = pairs - fullGroups * kGroupPairs;
        for (size_t b = 0; b < blockCount; ++b) {
            std::memcpy(tails + b * kTileBytes,
                        blocks + (firstBlock + b) * blockStride + kUnitBytes * (1 + fullGroups * kGroupPairs),
                        tailPairs * kUnitBytes);
        }
    }

    const Tiles configured;
    TileCall c{};
    c.groups = groups;
    c.fullGroups = fullGroups;
    c.blockStride = blockStride;
    c.outputStride = channels;
    c.low = low;
    c.high = high;
    // Rows [r, r + 32) of the chunk from `first` (converted) times blocks [ch, ch + 32).
    const auto call = [&](size_t first, size_t count, size_t r, size_t ch) {
        const size_t end = std::min(channelEnd, ch + 2 * kFloatGemmBlock);
        const size_t callBlocks = (end - ch + kFloatGemmBlock - 1) / kFloatGemmBlock;
        c.lastCount = end - ch - (callBlocks - 1) * kFloatGemmBlock;
        c.block = blocks + (ch / kFloatGemmBlock) * blockStride;
        c.tail = tails + (ch / kFloatGemmBlock - firstBlock) * kTileBytes;
        c.rows = std::min(2 * kTileRows, count - r);
        c.input = tiles + (r / kTileRows) * groups * kTileBytes;
        c.output = output + (first + r) * channels + ch;
        runTileCall(c.rows > kTileRows ? 2 : 1, callBlocks, c);
    };
    for (size_t first = rowBegin; first < rowEnd; first += chunk) {
        const size_t count = std::min(rowEnd, first + chunk) - first;
        toBf16Tiles(input + first * depth, depth, count, groups, tiles);
        memoryBarrier();
        if (rowsOuter) {
            for (size_t r = 0; r < count; r += 2 * kTileRows) {
                for (size_t ch = channelBegin; ch < channelEnd; ch += 2 * kFloatGemmBlock) call(first, count, r, ch);
            }
        } else {
            for (size_t ch = channelBegin; ch < channelEnd; ch += 2 * kFloatGemmBlock) {
                for (size_t r = 0; r < count; r += 2 * kTileRows) call(first, count, r, ch);
            }
        }
    }
}

}  // namespace nnemu::synap::kernels
