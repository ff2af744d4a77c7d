#include "FloatConv.h"

#include <algorithm>
#include <cstring>

namespace nnemu::synap::kernels {
namespace {

struct Layout {
    size_t depth, blockStride;
    const float* weights;
};

Layout layoutOf(const FloatImage& g, std::span<const uint8_t> packed) {
    const size_t depth = size_t{g.kernelHeight} * g.kernelWidth * g.inChannels;
    return {depth, kFloatGemmBlock * (depth + 1), reinterpret_cast<const float*>(packed.data() + kFloatGemmHeaderBytes)};
}

// The input row of kernel row ky for output row oy of batch b, or null outside the image.
const float* inputRow(const FloatImage& g, const float* input, size_t b, size_t oy, size_t ky) {
    const ptrdiff_t y =
        static_cast<ptrdiff_t>(oy * g.strideHeight + ky * g.dilationHeight) - static_cast<ptrdiff_t>(g.padTop);
    if (y < 0 || y >= static_cast<ptrdiff_t>(g.inHeight)) return nullptr;
    return input + (b * g.inHeight + static_cast<size_t>(y)) * g.inWidth * g.inChannels;
}

// Windows of output columns [oxBegin, oxEnd) of one output row unfolded into `to` (depth floats
// each, in (row, column, input channel) order, zeros where the window leaves the image).
void unfold(const FloatImage& g, const float* const* rows, size_t oxBegin, size_t oxEnd, float* to) {
    const size_t cin = g.inChannels;
    for (size_t ox = oxBegin; ox < oxEnd; ++ox) {
        const ptrdiff_t x0 = static_cast<ptrdiff_t>(ox * g.strideWidth) - static_cast<ptrdiff_t>(g.padLeft);
        for (size_t ky = 0; ky < g.kernelHeight; ++ky) {
            for (size_t kx = 0; kx < g.kernelWidth; ++kx, to += cin) {
                const ptrdiff_t x = x0 + static_cast<ptrdiff_t>(kx * g.dilationWidth);
                if (rows[ky] == nullptr || x < 0 || x >= static_cast<ptrdiff_t>(g.inWidth)) {
                    std::fill(to, to + cin, 0.0f);
                } else {
                    std::copy_n(rows[ky] + x * static_cast<ptrdiff_t>(cin), cin, to);
                }
            }
        }
    }
}

// The output columns whose whole window lies inside the row: x0 = ox * stride - padLeft >= 0 and
// x0 + (kernelWidth - 1) * dilationWidth < inWidth.
void insideColumns(const FloatImage& g, size_t* begin, size_t* end) {
    const size_t s = g.strideWidth, extent = size_t{g.kernelWidth - 1} * g.dilationWidth + 1;
    *begin = std::min<size_t>(g.outWidth, (g.padLeft + s - 1) / s);
    *end = g.inWidth + g.padLeft < extent ? *begin
                                          : std::clamp<size_t>((g.inWidth + g.padLeft - extent) / s + 1, *begin, g.outWidth);
}

}  // namespace

void floatConvPortable(const FloatConvArgs& a) {
    for (size_t b = 0; b < a.blocks; ++b) {
        const float* w = a.weights + b * a.blockStride;
        const size_t count = b + 1 == a.blocks ? a.lastCount : kFloatGemmBlock;
        for (size_t p = 0; p < a.pixels; ++p) {
            float acc[kFloatGemmBlock];
            std::copy(w, w + kFloatGemmBlock, acc);
            const float* wk = w + kFloatGemmBlock;
            for (size_t s = 0; s < a.segmentCount; ++s) {
                const float* in = a.segments[s] + (a.firstPixel + p) * a.pixelStride;
                for (size_t j = 0; j < a.segmentLength; ++j, wk += kFloatGemmBlock) {
                    for (size_t l = 0; l < kFloatGemmBlock; ++l) acc[l] += in[j] * wk[l];
                }
            }
            float* out = a.output + p * a.outputStride + b * kFloatGemmBlock;
            for (size_t l = 0; l < count; ++l) out[l] = std::min(std::max(acc[l], a.low), a.high);
        }
    }
}

FloatConvKernel floatConvKernel(Isa isa) {
    if (isa == Isa::Avx512Vnni) return {floatConvAvx512, 2};
    if (baseIsa(isa) == Isa::Avx2 && floatFmaSupported()) return {floatConvAvx2, 1};
    return {floatConvPortable, 1};
}

void selectChannels(const FloatConvKernel& kernel, const float* weights, size_t c, size_t end, FloatConvArgs* a) {
    const size_t last = std::min(end, c + kernel.blocksPerCall * kFloatGemmBlock);
    a->blocks = (last - c + kFloatGemmBlock - 1) / kFloatGemmBlock;
    a->lastCount = last - c - (a->blocks - 1) * kFloatGemmBlock;
    a->weights = weights + (c / kFloatGemmBlock) * a->blockStride;
}

void runFloatConvRows(Isa isa, const FloatImage& g, std::span<const uint8_t> packed, const float* input,
                      float* output, size_t rowBegin, size_t rowEnd, std::vector<float>* scratch,
                      size_t outRowFirst) {
    const FloatConvKernel kernel = floatConvKernel(isa);
    const Layout layout = layoutOf(g, packed);
    const size_t C = g.channels, cin = g.inChannels;
    // Without dilation a kernel row's taps are one run of the input row; with it, each pixel's.
    const bool runs = g.dilationWidth == 1;
    const size_t segmentCount = runs ? g.kernelHeight : size_t{g.kernelHeight} * g.kernelWidth;
    std::vector<const float*> rows(g.kernelHeight), segments(segmentCount);
    size_t insideBegin = 0, insideEnd = 0;
    insideColumns(g, &insideBegin, &insideEnd);
    FloatConvArgs a{};
    a.segments = segments.data();
    a.segmentCount = segmentCount;
    a.segmentLength = runs ? g.kernelWidth * cin : cin;
    a.pixelStride = g.strideWidth * cin;
    a.blockStride = layout.blockStride;
    a.outputStride = C;
    a.low = g.low;
    a.high = g.high;
    for (size_t row = rowBegin; row < rowEnd; ++row) {
        const size_t b = row / g.outHeight, oy = row % g.outHeight;
        bool whole = true;
        for (size_t ky = 0; ky < g.kernelHeight; ++ky) {
            rows[ky] = inputRow(g, input, b, oy, ky);
            whole = whole && rows[ky] != nullptr;
        }
        float* out = output + (row - outRowFirst) * g.outWidth * C;
        const size_t begin = whole ? insideBegin : g.outWidth, end = whole ? insideEnd : g.outWidth;
        // The columns whose window leaves the image, unfolded onto the float GEMM.
        for (const auto& [from, to] : {std::pair<size_t, size_t>{0, begin}, {end, g.outWidth}}) {
            if (from >= to) continue;
            scratch->resize((to - from) * layout.depth);
            unfold(g, rows.data(), from, to, scratch->data());
            runFloatGemmTile(isa, packed, scratch->data(), out + from * C, g.low, g.high, 0, to - from, 0, C);
        }
        // The pixels' windows from the first inside column on: each call's pixels follow.
        if (begin >= end) continue;
        const size_t x0 = begin * g.strideWidth - g.padLeft;
        for (size_t s = 0; s < segmentCount; ++s) {
            const size_t ky = runs ? s : s / g.kernelWidth, kx = runs ? 0 : s % g.kernelWidth;
            segments[s] = rows[ky] + (x0 + kx * g.dilationWidth) * cin;
        }
        for (size_t c = 0; c < C; c += kernel.blocksPerCall * kFloatGemmBlock) {
            selectChannels(kernel, layout.weights, c, C, &a);
            for (size_t ox = begin; ox < end; ox += kFloatConvPixels) {
                a.firstPixel = ox - begin;
                a.pixels = std::min(kFloatConvPixels, end - ox);
                a.output = out + ox * C + c;
                kernel.run(a);
            }
        }
    }
}

}  // namespace nnemu::synap::kernels
