// RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR with TFLite's align_corners and half_pixel_centers
// (NNAPI has them only from feature level 30). NHWC; the size comes from the output tensor and,
// when given, must agree with the size input. Quantized tensors interpolate their stored values
// (input and output share quantization). Each type follows the kernel TFLite's builtin resolver
// runs for it, so outputs are TFLite's bit for bit; one exception: TFLite's uint8 kernel has a
// special path for an exact 8x half-pixel upsampling of a depth divisible by 8
// (ResizeBilinear888Uint8), which this file does not reproduce (the generic uint8 path runs).
#include <algorithm>
#include <cmath>

#include "CpuKernelList.h"
#include "nnemu/base/Clones.h"

namespace nnemu::tflite {
namespace kernels::resize {

struct ResizeOptions {
    bool alignCorners = false;
    bool halfPixelCenters = false;
};

ResizeOptions bilinearOptions(const CpuKernelCall& call) {
    const auto* o = call.params<TfLiteResizeBilinearParams>();
    return o ? ResizeOptions{o->align_corners, o->half_pixel_centers} : ResizeOptions{};
}

ResizeOptions nearestOptions(const CpuKernelCall& call) {
    const auto* o = call.params<TfLiteResizeNearestNeighborParams>();
    return o ? ResizeOptions{o->align_corners, o->half_pixel_centers} : ResizeOptions{};
}

bool prepareResize(const CpuKernelCall& call) {
    if (!call.expectCounts(1, 2, 1)) return false;
    const CpuOperand& input = call.in(0);
    if (!call.expectType(input, {ElementType::FLOAT32, ElementType::UINT8, ElementType::INT8, ElementType::INT16},
                         "input")) {
        return false;
    }
    if (call.out(0).type() != input.type()) return call.fail("output type differs from the input's");
    if (input.rank() != 4 || call.out(0).rank() != 4) return call.fail("input and output must have rank 4");
    const std::vector<int32_t>& out = call.out(0).shape();
    // Every output pixel reads input pixels: an empty image has none to read.
    if (input.shape()[1] <= 0 || input.shape()[2] <= 0 || out[1] <= 0 || out[2] <= 0) {
        return call.fail("input and output height and width must be positive");
    }
    if (call.inputs.size() > 1 && call.in(1).present()) {
        std::vector<int64_t> size;
        bool known = false;
        if (!call.ints(1, &size, &known)) return false;
        if (known && (size.size() != 2 || size[0] != out[1] || size[1] != out[2])) {
            return call.fail("the size input does not match the output shape");
        }
    }
    return call.expectOutputShape(0, {input.shape()[0], out[1], out[2], input.shape()[3]});
}

float scaleOf(int32_t in, int32_t out, bool alignCorners) {
    if (alignCorners && out > 1) return static_cast<float>(in - 1) / static_cast<float>(out - 1);
    return static_cast<float>(in) / static_cast<float>(out);
}

// Source coordinate of output position `o` and its two neighbours, as TFLite computes them
// (ComputeInterpolationValues): the fraction is taken from the lower neighbour, which is clamped
// at 0 only, so half-pixel centres extrapolate slightly at the first row and column.
struct Neighbours {
    int32_t low, high;
    float source;
};

Neighbours bilinearSource(int32_t o, float scale, int32_t in, bool halfPixel) {
    const float source = halfPixel ? (static_cast<float>(o) + 0.5f) * scale - 0.5f : static_cast<float>(o) * scale;
    const auto low = std::max(static_cast<int32_t>(std::floor(source)), 0);
    const auto high = std::min(static_cast<int32_t>(std::ceil(source)), in - 1);
    return {low, high, source};
}

// The same in TFLite's 10-bit fixed point (ComputeInterpolationValuesInteger), for int8 and int16.
struct FixedNeighbours {
    int32_t low, high, source;
};

FixedNeighbours fixedSource(int32_t o, int32_t scale10, int32_t in, bool halfPixel) {
    const int32_t source = halfPixel ? o * scale10 + scale10 / 2 - (1 << 9) : o * scale10;
    return {std::max(source / (1 << 10), 0), std::min((source + (1 << 10) - 1) / (1 << 10), in - 1), source};
}

int32_t fixedScale(int32_t in, int32_t out, bool alignCorners) {
    if (alignCorners && out > 1) return ((1 << 10) * (in - 1) + (out - 1) / 2) / (out - 1);
    return ((1 << 10) * in + out / 2) / out;
}

int32_t nearestSource(int32_t o, float scale, int32_t in, ResizeOptions options) {
    const float offset = options.halfPixelCenters ? 0.5f : 0.0f;
    const float source = (static_cast<float>(o) + offset) * scale;
    auto index = static_cast<int32_t>(options.alignCorners ? std::round(source) : std::floor(source));
    return std::clamp(index, 0, in - 1);
}

struct ImageShape {
    int32_t batches, inH, inW, channels, outH, outW;
    size_t in(int32_t b, int32_t y, int32_t x) const {
        return ((static_cast<size_t>(b) * inH + y) * inW + x) * channels;
    }
    size_t out(int32_t b, int32_t y, int32_t x) const {
        return ((static_cast<size_t>(b) * outH + y) * outW + x) * channels;
    }
};

ImageShape imageShape(const CpuKernelCall& call) {
    const std::vector<int32_t>& in = call.in(0).shape();
    const std::vector<int32_t>& out = call.out(0).shape();
    return {in[0], in[1], in[2], in[3], out[1], out[2]};
}

// Float: TFLite's optimized kernel. An exact 2x upsampling without align_corners or half-pixel
// centres averages neighbours (ResizeBilinear2x2); every other size accumulates the four corners,
// each times its weight, onto 0 (ResizeBilinearGeneric). The order of the additions
// is TFLite's, so the results are bit for bit its own.
void bilinearFloat(const CpuKernelCall& call, const ImageShape& s, const ResizeOptions& options) {
    const CpuOperand& input = call.in(0);
    const CpuOperand& output = call.out(0);
    if (!options.alignCorners && !options.halfPixelCenters && s.outH == 2 * s.inH && s.outW == 2 * s.inW) {
        for (int32_t b = 0; b < s.batches; ++b) {
            for (int32_t y0 = 0; y0 < s.inH; ++y0) {
                const int32_t y1 = std::min(y0 + 1, s.inH - 1);
                for (int32_t x0 = 0; x0 < s.inW; ++x0) {
                    const int32_t x1 = std::min(x0 + 1, s.inW - 1);
                    const size_t i00 = s.in(b, y0, x0), i01 = s.in(b, y0, x1), i10 = s.in(b, y1, x0), i11 = s.in(b, y1, x1);
                    const size_t topLeft = s.out(b, 2 * y0, 2 * x0), bottomLeft = s.out(b, 2 * y0 + 1, 2 * x0);
                    for (int32_t c = 0; c < s.channels; ++c) {
                        const float v00 = input.at<float>(i00 + c), v01 = input.at<float>(i01 + c);
                        const float v10 = input.at<float>(i10 + c), v11 = input.at<float>(i11 + c);
                        const float left = (v00 + v10) / 2;
                        output.set<float>(topLeft + c, v00);
                        output.set<float>(topLeft + s.channels + c, (v00 + v01) / 2);
                        output.set<float>(bottomLeft + c, left);
                        output.set<float>(bottomLeft + s.channels + c, (left + (v01 + v11) / 2) / 2);
                    }
                }
            }
        }
        return;
    }
    const float scaleH = scaleOf(s.inH, s.outH, options.alignCorners), scaleW = scaleOf(s.inW, s.outW, options.alignCorners);
    std::vector<Neighbours> columns(static_cast<size_t>(s.outW));
    for (int32_t x = 0; x < s.outW; ++x) columns[x] = bilinearSource(x, scaleW, s.inW, options.halfPixelCenters);
    for (int32_t b = 0; b < s.batches; ++b) {
        for (int32_t y = 0; y < s.outH; ++y) {
            const Neighbours ny = bilinearSource(y, scaleH, s.inH, options.halfPixelCenters);
            const float dy = ny.source - static_cast<float>(ny.low);
            for (int32_t x = 0; x < s.outW; ++x) {
                const Neighbours& nx = columns[x];
                const float dx = nx.source - static_cast<float>(nx.low);
                const size_t corners[4] = {s.in(b, ny.low, nx.low), s.in(b, ny.low, nx.high), s.in(b, ny.high, nx.low),
                                           s.in(b, ny.high, nx.high)};
                const float weights[4] = {(1 - dy) * (1 - dx), (1 - dy) * dx, dy * (1 - dx), dy * dx};
                const size_t o = s.out(b, y, x);
                for (int32_t c = 0; c < s.channels; ++c) {
                    float value = 0.0f;
                    for (int k = 0; k < 4; ++k) value += input.at<float>(corners[k] + c) * weights[k];
                    output.set<float>(o + c, value);
                }
            }
        }
    }
}

// uint8: TFLite's optimized kernel (ResizeBilinearGenericSmallChannel): the four weighted corners
// summed in float, plus 0.5, truncated. One output row at a time, the columns' neighbours found
// once per image and the channel loop built per vector unit (the same operations in the same
// order in every build, so the bytes do not depend on it).
struct Uint8Column {
    size_t low, high;   // input pixel offsets (in elements) of the two neighbours
    float dx;
};

NNEMU_CLONES void bilinearUint8Row(const uint8_t* top, const uint8_t* bottom, const Uint8Column* columns, int32_t width,
                                   int32_t channels, float dy, uint8_t* out) {
    for (int32_t x = 0; x < width; ++x) {
        const Uint8Column& column = columns[x];
        const float dx = column.dx;
        const float w00 = (1 - dy) * (1 - dx), w01 = (1 - dy) * dx, w10 = dy * (1 - dx), w11 = dy * dx;
        const uint8_t *p00 = top + column.low, *p01 = top + column.high;
        const uint8_t *p10 = bottom + column.low, *p11 = bottom + column.high;
        uint8_t* o = out + static_cast<size_t>(x) * channels;
        for (int32_t c = 0; c < channels; ++c) {
            const float value = static_cast<float>(p00[c]) * w00 + static_cast<float>(p01[c]) * w01 +
                                static_cast<float>(p10[c]) * w10 + static_cast<float>(p11[c]) * w11 + 0.5f;
            o[c] = static_cast<uint8_t>(static_cast<int32_t>(value));
        }
    }
}

void bilinearUint8(const CpuKernelCall& call, const ImageShape& s, const ResizeOptions& options) {
    const uint8_t* input = call.in(0).data;
    uint8_t* output = call.out(0).out;
    const float scaleH = scaleOf(s.inH, s.outH, options.alignCorners), scaleW = scaleOf(s.inW, s.outW, options.alignCorners);
    std::vector<Uint8Column> columns(static_cast<size_t>(s.outW));
    for (int32_t x = 0; x < s.outW; ++x) {
        const Neighbours nx = bilinearSource(x, scaleW, s.inW, options.halfPixelCenters);
        columns[x] = {static_cast<size_t>(nx.low) * s.channels, static_cast<size_t>(nx.high) * s.channels,
                      nx.source - static_cast<float>(nx.low)};
    }
    for (int32_t b = 0; b < s.batches; ++b) {
        for (int32_t y = 0; y < s.outH; ++y) {
            const Neighbours ny = bilinearSource(y, scaleH, s.inH, options.halfPixelCenters);
            bilinearUint8Row(input + s.in(b, ny.low, 0), input + s.in(b, ny.high, 0), columns.data(), s.outW,
                             s.channels, ny.source - static_cast<float>(ny.low), output + s.out(b, y, 0));
        }
    }
}

// int8 and int16: TFLite's integer kernel (ResizeBilinearInteger): 10-bit coordinates, the
// 20-bit weighted sum rounded half away from zero (TFLite's default double rounding).
template <typename T>
void bilinearInteger(const CpuKernelCall& call, const ImageShape& s, const ResizeOptions& options) {
    const CpuOperand& input = call.in(0);
    const CpuOperand& output = call.out(0);
    const int32_t scaleH = fixedScale(s.inH, s.outH, options.alignCorners);
    const int32_t scaleW = fixedScale(s.inW, s.outW, options.alignCorners);
    for (int32_t b = 0; b < s.batches; ++b) {
        for (int32_t y = 0; y < s.outH; ++y) {
            const FixedNeighbours ny = fixedSource(y, scaleH, s.inH, options.halfPixelCenters);
            const int64_t dy = ny.source - (1 << 10) * ny.low;
            for (int32_t x = 0; x < s.outW; ++x) {
                const FixedNeighbours nx = fixedSource(x, scaleW, s.inW, options.halfPixelCenters);
                const int64_t dx = nx.source - (1 << 10) * nx.low;
                const size_t i00 = s.in(b, ny.low, nx.low), i01 = s.in(b, ny.low, nx.high);
                const size_t i10 = s.in(b, ny.high, nx.low), i11 = s.in(b, ny.high, nx.high);
                const size_t o = s.out(b, y, x);
                for (int32_t c = 0; c < s.channels; ++c) {
                    const int64_t sum = input.at<T>(i00 + c) * ((1 << 10) - dy) * ((1 << 10) - dx) +
                                        input.at<T>(i10 + c) * dy * ((1 << 10) - dx) +
                                        input.at<T>(i01 + c) * ((1 << 10) - dy) * dx + input.at<T>(i11 + c) * dy * dx;
                    const int64_t round = sum > 0 ? (1 << 19) : -(1 << 19);
                    output.set<T>(o + c, static_cast<T>((sum + round) / (1 << 20)));
                }
            }
        }
    }
}

bool runBilinear(const CpuKernelCall& call) {
    if (!prepareResize(call)) return false;
    const ResizeOptions options = bilinearOptions(call);
    const ImageShape s = imageShape(call);
    switch (call.in(0).type()) {
        case ElementType::FLOAT32: bilinearFloat(call, s, options); break;
        case ElementType::UINT8: bilinearUint8(call, s, options); break;
        case ElementType::INT8: bilinearInteger<int8_t>(call, s, options); break;
        default: bilinearInteger<int16_t>(call, s, options); break;
    }
    return true;
}

// Nearest neighbour copies each output pixel's channels from one input pixel.
bool runNearest(const CpuKernelCall& call) {
    if (!prepareResize(call)) return false;
    const ResizeOptions options = nearestOptions(call);
    const ImageShape s = imageShape(call);
    const float scaleH = scaleOf(s.inH, s.outH, options.alignCorners), scaleW = scaleOf(s.inW, s.outW, options.alignCorners);
    const size_t pixelBytes = static_cast<size_t>(s.channels) * elementSize(call.in(0).type());
    std::vector<int32_t> columns(static_cast<size_t>(s.outW));
    for (int32_t x = 0; x < s.outW; ++x) columns[x] = nearestSource(x, scaleW, s.inW, options);
    for (int32_t b = 0; b < s.batches; ++b) {
        for (int32_t y = 0; y < s.outH; ++y) {
            const int32_t inY = nearestSource(y, scaleH, s.inH, options);
            for (int32_t x = 0; x < s.outW; ++x) {
                const size_t outPixel = (static_cast<size_t>(b) * s.outH + y) * s.outW + x;
                const size_t inPixel = (static_cast<size_t>(b) * s.inH + inY) * s.inW + columns[x];
                std::memcpy(call.out(0).out + outPixel * pixelBytes, call.in(0).data + inPixel * pixelBytes, pixelBytes);
            }
        }
    }
    return true;
}

}  // namespace kernels::resize

}  // namespace nnemu::tflite
