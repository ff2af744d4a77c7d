// Reference kernels of RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR with TFLite's coordinate
// mapping. Feature level 30 adds two optional flags (inputs 4 and 5): align_corners maps the
// corner pixels onto each other (scale (in - 1) / (out - 1)), half_pixel_centers samples at pixel
// centres ((d + 0.5) * scale - 0.5 for bilinear). Without them (API 29) output pixel d samples
// input coordinate d * in / out.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "nnemu/base/Clones.h"
#include "QuantValue.h"
#include "nnemu/cpu/Kernels.h"
#include "nnemu/hal/ShapeUtils.h"
#include "KernelList.h"

namespace nnemu::cpu {
namespace {

using hal::Image4;

struct Sampling {
    bool alignCorners = false;
    bool halfPixelCenters = false;
};

Sampling samplingOf(const OperationContext& context) {
    Sampling s;
    s.alignCorners = context.numInputs() > 4 && context.scalar<bool>(4);
    s.halfPixelCenters = context.numInputs() > 5 && context.scalar<bool>(5);
    return s;
}

float axisScale(uint32_t in, uint32_t out, const Sampling& s) {
    if (s.alignCorners && out > 1) return static_cast<float>(in - 1) / static_cast<float>(out - 1);
    return static_cast<float>(in) / static_cast<float>(out);
}

// The two input rows (or columns) output coordinate d reads and the weight of the second.
struct Taps {
    uint32_t low = 0, high = 0;
    float fraction = 0.0f;
};

Taps bilinearTaps(uint32_t d, float scale, uint32_t inSize, const Sampling& s) {
    const float at = s.halfPixelCenters ? (static_cast<float>(d) + 0.5f) * scale - 0.5f
                                        : static_cast<float>(d) * scale;
    Taps t;
    const float lowered = std::floor(at);
    t.low = static_cast<uint32_t>(std::clamp(lowered, 0.0f, static_cast<float>(inSize - 1)));
    t.high = static_cast<uint32_t>(std::clamp(std::ceil(at), 0.0f, static_cast<float>(inSize - 1)));
    t.fraction = at - static_cast<float>(t.low);
    return t;
}

uint32_t nearestIndex(uint32_t d, float scale, uint32_t inSize, const Sampling& s) {
    const float offset = s.halfPixelCenters ? 0.5f : 0.0f;
    const float at = (static_cast<float>(d) + offset) * scale;
    // align_corners rounds half away from zero; otherwise the coordinate is floored.
    const float index = s.alignCorners ? std::round(at) : std::floor(at);
    return static_cast<uint32_t>(std::clamp(index, 0.0f, static_cast<float>(inSize - 1)));
}

// Bilinear interpolation over float values; `load(i)` reads input element i as float and
// `store(i, v)` writes output element i. The taps of every output row and column are computed
// once, and each output pixel's channels are contiguous runs in NHWC, so the innermost loop walks
// four input runs and one output run (the arithmetic per element is the same in either layout).
template <typename Load, typename Store>
void bilinear(const Image4& in, const Image4& out, const Sampling& s, Load load, Store store) {
    const float heightScale = axisScale(in.height, out.height, s);
    const float widthScale = axisScale(in.width, out.width, s);
    std::vector<Taps> columns(out.width);
    for (uint32_t x = 0; x < out.width; ++x) columns[x] = bilinearTaps(x, widthScale, in.width, s);
    const size_t channelStep = in.nchw ? static_cast<size_t>(in.height) * in.width : 1;
    const size_t outChannelStep = out.nchw ? static_cast<size_t>(out.height) * out.width : 1;
    for (uint32_t b = 0; b < out.batches; ++b) {
        for (uint32_t y = 0; y < out.height; ++y) {
            const Taps ty = bilinearTaps(y, heightScale, in.height, s);
            const float dy = ty.fraction;
            for (uint32_t x = 0; x < out.width; ++x) {
                const Taps& tx = columns[x];
                const float dx = tx.fraction;
                const size_t i00 = in.at(b, ty.low, tx.low, 0), i10 = in.at(b, ty.high, tx.low, 0);
                const size_t i01 = in.at(b, ty.low, tx.high, 0), i11 = in.at(b, ty.high, tx.high, 0);
                const size_t o = out.at(b, y, x, 0);
                for (size_t c = 0; c < out.channels; ++c) {
                    const size_t k = c * channelStep;
                    const float value = load(i00 + k) * (1 - dy) * (1 - dx) + load(i10 + k) * dy * (1 - dx) +
                                        load(i01 + k) * (1 - dy) * dx + load(i11 + k) * dy * dx;
                    store(o + c * outChannelStep, value);
                }
            }
        }
    }
}

// Q8 (T = uint8_t) or Q8S (T = int8_t): interpolates the quantized values directly (input and
// output share their quantization) and truncates toward zero, as TFLite's reference kernel does.
template <typename T>
void bilinearQuant8(const Image4& in, const Image4& out, const Sampling& s, const T* input, T* output) {
    bilinear(in, out, s, [&](size_t i) { return static_cast<float>(input[i]); },
             [&](size_t i, float v) {
                 output[i] = static_cast<T>(std::clamp(v, static_cast<float>(kQuantMin<T>),
                                                       static_cast<float>(kQuantMax<T>)));
             });
}

// One build per vector unit, chosen once at load (flatten: the loops inlined into each build).
// The file is compiled without FMA contraction (driver/cpu/CMakeLists.txt): every build rounds
// each product and sum as the baseline does, so the results (and the 8-bit ones) do not move.
#define NNEMU_RESIZE_CLONES NNEMU_FLATTEN_CLONES

NNEMU_RESIZE_CLONES void bilinearFloat32(const Image4& in, const Image4& out, const Sampling& s, const float* input,
                                         float* output) {
    bilinear(in, out, s, [&](size_t i) { return input[i]; }, [&](size_t i, float v) { output[i] = v; });
}
NNEMU_RESIZE_CLONES void bilinearUint8(const Image4& in, const Image4& out, const Sampling& s, const uint8_t* input,
                                       uint8_t* output) {
    bilinearQuant8(in, out, s, input, output);
}
NNEMU_RESIZE_CLONES void bilinearInt8(const Image4& in, const Image4& out, const Sampling& s, const int8_t* input,
                                      int8_t* output) {
    bilinearQuant8(in, out, s, input, output);
}

}  // namespace

bool kernels::resizeBilinear(OperationContext& context) {
    const bool nchw = hal::layoutIsNchw(context, 3);
    const Image4 in = hal::makeImage4(context.input(0).dims, nchw);
    const Image4 out = hal::makeImage4(context.output(0).dims, nchw);
    if (out.height == 0 || out.width == 0) return true;
    if ((in.height == 0 || in.width == 0) && out.batches * out.channels != 0) return false;
    switch (context.inputType(0)) {
        case OperandType::TENSOR_FLOAT32:
            bilinearFloat32(in, out, samplingOf(context), context.input(0).as<float>(), context.output(0).as<float>());
            return true;
        case OperandType::TENSOR_FLOAT16: {
            const uint16_t* input = context.input(0).as<uint16_t>();
            uint16_t* output = context.output(0).as<uint16_t>();
            bilinear(in, out, samplingOf(context), [&](size_t i) { return base::halfToFloat(input[i]); },
                     [&](size_t i, float v) { output[i] = base::floatToHalf(v); });
            return true;
        }
        case OperandType::TENSOR_QUANT8_ASYMM:
            bilinearUint8(in, out, samplingOf(context), context.input(0).as<uint8_t>(), context.output(0).as<uint8_t>());
            return true;
        case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
            bilinearInt8(in, out, samplingOf(context), context.input(0).as<int8_t>(), context.output(0).as<int8_t>());
            return true;
        default:
            return false;
    }
}

bool kernels::resizeNearestNeighbor(OperationContext& context) {
    const OperandType type = context.inputType(0);
    if (type != OperandType::TENSOR_FLOAT32 && type != OperandType::TENSOR_FLOAT16 && !hal::isQuant8Asymm(type)) {
        return false;
    }
    const bool nchw = hal::layoutIsNchw(context, 3);
    const Image4 in = hal::makeImage4(context.input(0).dims, nchw);
    const Image4 out = hal::makeImage4(context.output(0).dims, nchw);
    if (out.height == 0 || out.width == 0) return true;
    if ((in.height == 0 || in.width == 0) && out.batches * out.channels != 0) return false;
    const Sampling s = samplingOf(context);
    const float heightScale = axisScale(in.height, out.height, s);
    const float widthScale = axisScale(in.width, out.width, s);
    const size_t size = hal::elementSize(type);
    const uint8_t* input = context.input(0).data;
    uint8_t* output = context.output(0).data;
    std::vector<uint32_t> columns(out.width);
    for (uint32_t x = 0; x < out.width; ++x) columns[x] = nearestIndex(x, widthScale, in.width, s);
    for (uint32_t b = 0; b < out.batches; ++b) {
        for (uint32_t y = 0; y < out.height; ++y) {
            const uint32_t inY = nearestIndex(y, heightScale, in.height, s);
            // An NHWC output row that samples the same input row as the one above is its copy
            // (an upscale repeats every row: one copy of the row instead of one per pixel).
            if (!nchw && y > 0 && inY == nearestIndex(y - 1, heightScale, in.height, s)) {
                std::memcpy(output + out.at(b, y, 0, 0) * size, output + out.at(b, y - 1, 0, 0) * size,
                            size_t{out.width} * out.channels * size);
                continue;
            }
            for (uint32_t x = 0; x < out.width; ++x) {
                const uint32_t inX = columns[x];
                if (!nchw) {  // one pixel's channels are one contiguous run
                    std::memcpy(output + out.at(b, y, x, 0) * size, input + in.at(b, inY, inX, 0) * size,
                                out.channels * size);
                    continue;
                }
                for (uint32_t c = 0; c < out.channels; ++c) {
                    std::memcpy(output + out.at(b, y, x, c) * size, input + in.at(b, inY, inX, c) * size, size);
                }
            }
        }
    }
    return true;
}

}  // namespace nnemu::cpu
