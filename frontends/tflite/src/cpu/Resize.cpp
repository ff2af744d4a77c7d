// RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR with TFLite's align_corners and half_pixel_centers
// (NNAPI has them only from feature level 30). NHWC; the size comes from the output tensor and,
// when given, must agree with the size input. Quantized tensors interpolate their stored values
// (input and output share quantization) and round to nearest.
#include <algorithm>
#include <cmath>

#include "CpuKernel.h"

namespace nnemu::tflite {
namespace {

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

void storeValue(const CpuOperand& out, size_t i, double value) {
    switch (out.type()) {
        case ElementType::FLOAT32: out.set<float>(i, static_cast<float>(value)); break;
        case ElementType::UINT8: out.set<uint8_t>(i, static_cast<uint8_t>(std::clamp(std::round(value), 0.0, 255.0))); break;
        case ElementType::INT8: out.set<int8_t>(i, static_cast<int8_t>(std::clamp(std::round(value), -128.0, 127.0))); break;
        default: out.set<int16_t>(i, static_cast<int16_t>(std::clamp(std::round(value), -32768.0, 32767.0))); break;
    }
}

// Source coordinate of output position `o` and its two neighbours.
struct Neighbours {
    int32_t low, high;
    float fraction;
};

Neighbours bilinearSource(int32_t o, float scale, int32_t in, bool halfPixel) {
    const float source = halfPixel ? (static_cast<float>(o) + 0.5f) * scale - 0.5f : static_cast<float>(o) * scale;
    const float floored = std::floor(source);
    const auto low = static_cast<int32_t>(std::max(floored, 0.0f));
    const auto high = static_cast<int32_t>(std::min(std::ceil(source), static_cast<float>(in - 1)));
    return {std::min(low, in - 1), high, source - static_cast<float>(low)};
}

int32_t nearestSource(int32_t o, float scale, int32_t in, ResizeOptions options) {
    const float offset = options.halfPixelCenters ? 0.5f : 0.0f;
    const float source = (static_cast<float>(o) + offset) * scale;
    auto index = static_cast<int32_t>(options.alignCorners ? std::round(source) : std::floor(source));
    return std::clamp(index, 0, in - 1);
}

template <bool kBilinear>
bool runResize(const CpuKernelCall& call) {
    if (!prepareResize(call)) return false;
    const ResizeOptions options = kBilinear ? bilinearOptions(call) : nearestOptions(call);
    const CpuOperand& input = call.in(0);
    const std::vector<int32_t>& in = input.shape();
    const std::vector<int32_t>& out = call.out(0).shape();
    const int32_t batches = in[0], inH = in[1], inW = in[2], channels = in[3], outH = out[1], outW = out[2];
    const float scaleH = scaleOf(inH, outH, options.alignCorners), scaleW = scaleOf(inW, outW, options.alignCorners);
    const auto at = [&](int32_t b, int32_t y, int32_t x, int32_t c) {
        return numberAt(input, ((static_cast<size_t>(b) * inH + y) * inW + x) * channels + c);
    };
    size_t o = 0;
    for (int32_t b = 0; b < batches; ++b) {
        for (int32_t y = 0; y < outH; ++y) {
            for (int32_t x = 0; x < outW; ++x) {
                for (int32_t c = 0; c < channels; ++c, ++o) {
                    if constexpr (kBilinear) {
                        const Neighbours ny = bilinearSource(y, scaleH, inH, options.halfPixelCenters);
                        const Neighbours nx = bilinearSource(x, scaleW, inW, options.halfPixelCenters);
                        const double dy = ny.fraction, dx = nx.fraction;
                        const double value = at(b, ny.low, nx.low, c) * (1 - dy) * (1 - dx) +
                                             at(b, ny.high, nx.low, c) * dy * (1 - dx) +
                                             at(b, ny.low, nx.high, c) * (1 - dy) * dx +
                                             at(b, ny.high, nx.high, c) * dy * dx;
                        storeValue(call.out(0), o, value);
                    } else {
                        storeValue(call.out(0), o,
                                   at(b, nearestSource(y, scaleH, inH, options), nearestSource(x, scaleW, inW, options), c));
                    }
                }
            }
        }
    }
    return true;
}

}  // namespace

void addResizeKernels(CpuKernelTable& table) {
    table.add(fb::BuiltinOperator_RESIZE_BILINEAR, {prepareResize, runResize<true>});
    table.add(fb::BuiltinOperator_RESIZE_NEAREST_NEIGHBOR, {prepareResize, runResize<false>});
}

}  // namespace nnemu::tflite
