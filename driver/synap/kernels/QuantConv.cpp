// The general convolution as im2col + quantized GEMM, always on the GEMM's uint8 path. int8
// activations are flipped (+128) with their zero point. Weights are stored recentred, as
// (w - zw) + 128 with filter zero point 128, wherever w - zw fits in int8 (always for int8
// weights, whose zw is 0): sum (a - za)(w - zw) is unchanged and the GEMM needs no per-row term
// (sum of the row's activations); other uint8 weights keep their zero point and the row terms.
// The kernels store the requantized values as bytes, whatever their sign. Padding positions
// hold the (flipped) input zero point, so they add nothing, and so do the depth's padding bytes
// (weight = the GEMM's filter zero point).
#include "QuantConv.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace nnemu::synap::kernels {
namespace {

// Bytes the word writes may pass a slice's rows by.
constexpr size_t kSlack = 16;
// Pixels per GEMM call: enough that preparing the GEMM costs little, few enough to stay in L1.
constexpr size_t kPixelsPerChunk = 128;

uint64_t repeated(uint8_t byte) { return 0x0101010101010101ull * byte; }

// Writes dst[0, n) 8 bytes at a time and up to 7 bytes past dst + n: every write of a row goes
// in ascending order, so a later write replaces what an earlier one spilled.
inline void fillWords(uint8_t* dst, size_t n, uint64_t word) {
    for (size_t i = 0; i < n; i += 8) std::memcpy(dst + i, &word, 8);
}

// dst[0, n) = src[0, n) ^ flip, reading up to 7 bytes past src + n where the input has them.
inline void copyFlipped(uint8_t* dst, const uint8_t* src, size_t n, uint64_t flip, const uint8_t* inputEnd) {
    if (static_cast<size_t>(inputEnd - src) >= (n + 7) / 8 * 8) {
        for (size_t i = 0; i < n; i += 8) {
            uint64_t word;
            std::memcpy(&word, src + i, 8);
            word ^= flip;
            std::memcpy(dst + i, &word, 8);
        }
        return;
    }
    for (size_t i = 0; i < n; ++i) dst[i] = src[i] ^ static_cast<uint8_t>(flip);
}

// The GEMM row of output pixel ox of the row whose window rows start at `lines` (nullptr
// where a window row is padding): the window's input values in (ky, kx, c) order, then the
// depth's padding.
void unfoldPixel(const PackedQuantConv& p, const uint8_t* const* lines, const uint8_t* inputEnd, size_t ox,
                 uint8_t* dst) {
    const QuantConvSpec& g = p.geometry;
    const size_t cin = g.inChannels, segment = size_t{g.kernelWidth} * cin;
    const uint64_t fill = repeated(p.fill), flip = repeated(p.flip);
    const int64_t x0 = static_cast<int64_t>(ox * g.strideWidth) - g.padLeft;
    const bool inside = g.dilationWidth == 1 && x0 >= 0 && x0 + g.kernelWidth <= g.inWidth;
    uint8_t* out = dst;
    for (size_t ky = 0; ky < g.kernelHeight; ++ky, out += segment) {
        if (lines[ky] == nullptr) {
            fillWords(out, segment, fill);
        } else if (inside) {
            copyFlipped(out, lines[ky] + static_cast<size_t>(x0) * cin, segment, flip, inputEnd);
        } else {
            for (size_t kx = 0; kx < g.kernelWidth; ++kx) {
                const int64_t x = x0 + static_cast<int64_t>(kx * g.dilationWidth);
                if (x < 0 || x >= g.inWidth) {
                    fillWords(out + kx * cin, cin, fill);
                } else {
                    copyFlipped(out + kx * cin, lines[ky] + static_cast<size_t>(x) * cin, cin, flip, inputEnd);
                }
            }
        }
    }
    const size_t window = g.kernelHeight * segment;
    if (p.depth > window) fillWords(dst + window, p.depth - window, fill);
}

using Bytes16 = uint8_t __attribute__((vector_size(16)));

// Pixels [begin, end) whose window is inside the input, its rows readable in whole 16-byte
// pieces: 16-byte copies.
// `Pieces`: 16-byte pieces per window row, 0 for any number (1 for the MobileNets' first layer).
template <size_t Pieces>
void unfoldInterior(const PackedQuantConv& p, const uint8_t* const* lines, size_t begin, size_t end, uint8_t* dst) {
    const QuantConvSpec& g = p.geometry;
    const size_t segment = size_t{g.kernelWidth} * g.inChannels, window = g.kernelHeight * segment;
    const size_t pieces = Pieces != 0 ? Pieces : (segment + 15) / 16;
    Bytes16 flip, fill;
    std::memset(&flip, p.flip, 16);
    std::memset(&fill, p.fill, 16);
    for (size_t ox = begin; ox < end; ++ox, dst += p.depth) {
        const size_t offset = (ox * g.strideWidth - g.padLeft) * g.inChannels;
        for (size_t ky = 0; ky < g.kernelHeight; ++ky) {
            for (size_t i = 0; i < pieces * 16; i += 16) {
                Bytes16 bytes;
                std::memcpy(&bytes, lines[ky] + offset + i, 16);
                bytes ^= flip;
                std::memcpy(dst + ky * segment + i, &bytes, 16);
            }
        }
        std::memcpy(dst + window, &fill, 16);
    }
}

constexpr size_t kMaxWindowRows = 16;

// The GEMM rows of pixels [xBegin, xEnd) of output row `row` (of batches * outHeight).
void unfoldRow(const PackedQuantConv& p, const uint8_t* input, const uint8_t* inputEnd, size_t row, size_t xBegin,
               size_t xEnd, uint8_t* dst) {
    const QuantConvSpec& g = p.geometry;
    const size_t b = row / g.outHeight, oy = row % g.outHeight, cin = g.inChannels;
    const uint8_t* lines[kMaxWindowRows];
    std::vector<const uint8_t*> manyLines(g.kernelHeight > kMaxWindowRows ? g.kernelHeight : 0);
    const uint8_t** line = manyLines.empty() ? lines : manyLines.data();
    bool allLines = true;
    for (size_t ky = 0; ky < g.kernelHeight; ++ky) {
        const int64_t y = static_cast<int64_t>(oy * g.strideHeight + ky * g.dilationHeight) - g.padTop;
        const bool inside = y >= 0 && y < g.inHeight;
        line[ky] = inside ? input + ((b * g.inHeight + static_cast<size_t>(y)) * g.inWidth) * cin : nullptr;
        allLines = allLines && inside;
    }
    // The interior: pixels whose window starts at or after column 0, ends inside the row and
    // whose last 16-byte piece stays inside the input.
    size_t begin = g.outWidth, end = g.outWidth;
    const size_t segment = size_t{g.kernelWidth} * cin;
    const size_t pieces = (segment + 15) / 16 * 16;
    if (allLines && g.dilationWidth == 1 && g.kernelWidth <= g.inWidth) {
        begin = std::min<size_t>(g.outWidth, (g.padLeft + g.strideWidth - 1) / g.strideWidth);
        const size_t lastStart = g.inWidth - g.kernelWidth;  // the last column a window may start at
        const size_t lastRow = static_cast<size_t>(inputEnd - line[g.kernelHeight - 1]);  // bytes readable
        const size_t readable = lastRow < pieces ? 0 : (lastRow - pieces) / cin + 1;  // starts that can read them
        const size_t limit = std::min(lastStart + 1, readable) + g.padLeft;   // x0 + padLeft < limit
        end = std::clamp<size_t>((limit + g.strideWidth - 1) / g.strideWidth, begin, g.outWidth);
    }
    begin = std::clamp(begin, xBegin, xEnd);
    end = std::clamp(end, begin, xEnd);
    dst -= xBegin * p.depth;  // indexed by ox from here
    for (size_t ox = xBegin; ox < begin; ++ox) unfoldPixel(p, line, inputEnd, ox, dst + ox * p.depth);
    if (segment <= 16) {
        unfoldInterior<1>(p, line, begin, end, dst + begin * p.depth);
    } else {
        unfoldInterior<0>(p, line, begin, end, dst + begin * p.depth);
    }
    for (size_t ox = end; ox < xEnd; ++ox) unfoldPixel(p, line, inputEnd, ox, dst + ox * p.depth);
}

}  // namespace

bool quantConvGeometry(const QuantConvSpec& s, PackedQuantConv* packed) {
    const uint64_t window = uint64_t{s.kernelHeight} * s.kernelWidth * s.inChannels;
    if (window == 0 || window > UINT32_MAX - 3 || s.channels == 0 || s.outWidth == 0 || s.strideHeight == 0 ||
        s.strideWidth == 0 || s.dilationHeight == 0 || s.dilationWidth == 0 || (s.signedValues && s.filterZeroPoint != 0)) {
        return false;
    }
    packed->geometry = s;
    packed->geometry.weights = nullptr;
    packed->geometry.bias = nullptr;
    packed->geometry.filterScales = {};
    packed->depth = static_cast<uint32_t>((window + 3) / 4 * 4);
    packed->flip = s.signedValues ? 0x80 : 0;
    packed->fill = static_cast<uint8_t>(s.inputZeroPoint + packed->flip);
    return true;
}

bool packQuantConv(const QuantConvSpec& s, PackedQuantConv* packed) {
    if (s.weights == nullptr || !quantConvGeometry(s, packed)) return false;
    const size_t window = size_t{s.kernelHeight} * s.kernelWidth * s.inChannels;
    const uint8_t* end = s.weights + size_t{s.channels} * window;
    const bool recentred = s.signedValues || std::all_of(s.weights, end, [&](uint8_t w) {
        return w - s.filterZeroPoint >= -128 && w - s.filterZeroPoint <= 127;
    });
    QuantGemmSpec gemm;
    static_cast<QuantLayerSpec&>(gemm) = s;
    gemm.signedValues = false;
    gemm.inputZeroPoint = s.inputZeroPoint + packed->flip;
    gemm.filterZeroPoint = recentred ? 128 : s.filterZeroPoint;
    gemm.depth = packed->depth;
    gemm.channels = s.channels;
    std::vector<uint8_t> weights(size_t{gemm.channels} * gemm.depth, static_cast<uint8_t>(gemm.filterZeroPoint));
    for (size_t c = 0; c < s.channels; ++c) {
        for (size_t k = 0; k < window; ++k) {
            const uint8_t w = s.weights[c * window + k];
            weights[c * gemm.depth + k] = !recentred ? w : s.signedValues ? w ^ 0x80 : w - s.filterZeroPoint + 128;
        }
    }
    gemm.weights = weights.data();
    return packQuantGemm(gemm, &packed->gemm);
}

bool runQuantConvRows(Isa isa, const PackedQuantConv& p, const uint8_t* input, uint8_t* output, size_t rowBegin,
                      size_t rowEnd, QuantConvScratch* scratch) {
    return runQuantConvRowsInto(isa, p, input, output, 0, rowBegin, rowEnd, scratch);
}

bool runQuantConvRowsInto(Isa isa, const PackedQuantConv& p, const uint8_t* input, uint8_t* output,
                          size_t outputFirstRow, size_t rowBegin, size_t rowEnd, QuantConvScratch* scratch) {
    const QuantConvSpec& g = p.geometry;
    const size_t width = g.outWidth;
    const uint8_t* inputEnd = input + size_t{g.batches} * g.inHeight * g.inWidth * g.inChannels;
    // A chunk is several whole output rows (contiguous in the output) or part of one wide row.
    const size_t rowsPerChunk = std::max<size_t>(1, kPixelsPerChunk / width);
    const size_t span = std::min(width, kPixelsPerChunk);
    scratch->rows.resize(rowsPerChunk * span * p.depth + kSlack);
    rowEnd = std::min(rowEnd, size_t{g.batches} * g.outHeight);
    for (size_t row = rowBegin; row < rowEnd; row += rowsPerChunk) {
        const size_t rows = std::min(rowsPerChunk, rowEnd - row);
        for (size_t x = 0; x < width; x += span) {
            const size_t xEnd = std::min(width, x + span), pixels = rows * (xEnd - x);
            for (size_t r = 0; r < rows; ++r) {
                unfoldRow(p, input, inputEnd, row + r, x, xEnd, scratch->rows.data() + r * (xEnd - x) * p.depth);
            }
            QuantGemmJob job;
            if (!prepareQuantGemm(isa, p.stored.empty() ? std::span<const uint8_t>(p.gemm) : p.stored, scratch->rows.data(),
                                  pixels, output + ((row - outputFirstRow) * width + x) * g.channels,
                                  &scratch->gemm, &job)) {
                return false;
            }
            runQuantGemmRows(job, 0, pixels);
        }
    }
    return true;
}

}  // namespace nnemu::synap::kernels
