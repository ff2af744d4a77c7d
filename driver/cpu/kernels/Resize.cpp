// Reference kernels of RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR with the legacy TFLite
// coordinate mapping NNAPI uses at API 29 (no align_corners, no half-pixel centres): with
// scale = inputSize / outputSize, output pixel d samples input coordinate d * scale.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "QuantValue.h"
#include "nnemu/cpu/Kernels.h"
#include "nnemu/hal/ShapeUtils.h"

namespace nnemu::cpu {
namespace {

using hal::Image4;
using hal::OperandType;
using hal::OperationContext;

// Bilinear interpolation over float values; `load(i)` reads input element i as float and
// `store(i, v)` writes output element i.
template <typename Load, typename Store>
void bilinear(const Image4& in, const Image4& out, Load load, Store store) {
    const float heightScale = static_cast<float>(in.height) / static_cast<float>(out.height);
    const float widthScale = static_cast<float>(in.width) / static_cast<float>(out.width);
    for (uint32_t b = 0; b < out.batches; ++b) {
        for (uint32_t y = 0; y < out.height; ++y) {
            const float inY = static_cast<float>(y) * heightScale;
            const auto y0 = static_cast<uint32_t>(std::floor(inY));
            const uint32_t y1 = std::min(y0 + 1, in.height - 1);
            const float dy = inY - static_cast<float>(y0);
            for (uint32_t x = 0; x < out.width; ++x) {
                const float inX = static_cast<float>(x) * widthScale;
                const auto x0 = static_cast<uint32_t>(std::floor(inX));
                const uint32_t x1 = std::min(x0 + 1, in.width - 1);
                const float dx = inX - static_cast<float>(x0);
                for (uint32_t c = 0; c < out.channels; ++c) {
                    const float value = load(in.at(b, y0, x0, c)) * (1 - dy) * (1 - dx) +
                                        load(in.at(b, y1, x0, c)) * dy * (1 - dx) +
                                        load(in.at(b, y0, x1, c)) * (1 - dy) * dx +
                                        load(in.at(b, y1, x1, c)) * dy * dx;
                    store(out.at(b, y, x, c), value);
                }
            }
        }
    }
}

// Q8 (T = uint8_t) or Q8S (T = int8_t): interpolates the quantized values directly (input and
// output share their quantization) and truncates toward zero, as TFLite's reference kernel does.
template <typename T>
void bilinearQuant8(OperationContext& context, const Image4& in, const Image4& out) {
    const T* input = context.input(0).as<T>();
    T* output = context.output(0).as<T>();
    bilinear(in, out, [&](size_t i) { return static_cast<float>(input[i]); },
             [&](size_t i, float v) {
                 output[i] = static_cast<T>(std::clamp(v, static_cast<float>(kQuantMin<T>),
                                                       static_cast<float>(kQuantMax<T>)));
             });
}

bool resizeBilinear(OperationContext& context) {
    const bool nchw = hal::layoutIsNchw(context, 3);
    const Image4 in = hal::makeImage4(context.input(0).dims, nchw);
    const Image4 out = hal::makeImage4(context.output(0).dims, nchw);
    if (out.height == 0 || out.width == 0) return true;
    if ((in.height == 0 || in.width == 0) && out.batches * out.channels != 0) return false;
    switch (context.inputType(0)) {
        case OperandType::TENSOR_FLOAT32: {
            const float* input = context.input(0).as<float>();
            float* output = context.output(0).as<float>();
            bilinear(in, out, [&](size_t i) { return input[i]; },
                     [&](size_t i, float v) { output[i] = v; });
            return true;
        }
        case OperandType::TENSOR_FLOAT16: {
            const uint16_t* input = context.input(0).as<uint16_t>();
            uint16_t* output = context.output(0).as<uint16_t>();
            bilinear(in, out, [&](size_t i) { return hal::halfToFloat(input[i]); },
                     [&](size_t i, float v) { output[i] = hal::floatToHalf(v); });
            return true;
        }
        case OperandType::TENSOR_QUANT8_ASYMM:
            bilinearQuant8<uint8_t>(context, in, out);
            return true;
        case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
            bilinearQuant8<int8_t>(context, in, out);
            return true;
        default:
            return false;
    }
}

bool resizeNearestNeighbor(OperationContext& context) {
    const OperandType type = context.inputType(0);
    if (type != OperandType::TENSOR_FLOAT32 && type != OperandType::TENSOR_FLOAT16 && !hal::isQuant8Asymm(type)) {
        return false;
    }
    const bool nchw = hal::layoutIsNchw(context, 3);
    const Image4 in = hal::makeImage4(context.input(0).dims, nchw);
    const Image4 out = hal::makeImage4(context.output(0).dims, nchw);
    if (out.height == 0 || out.width == 0) return true;
    if ((in.height == 0 || in.width == 0) && out.batches * out.channels != 0) return false;
    const float heightScale = static_cast<float>(in.height) / static_cast<float>(out.height);
    const float widthScale = static_cast<float>(in.width) / static_cast<float>(out.width);
    const size_t size = hal::elementSize(type);
    for (uint32_t b = 0; b < out.batches; ++b) {
        for (uint32_t y = 0; y < out.height; ++y) {
            const uint32_t inY = std::min(
                    static_cast<uint32_t>(std::floor(static_cast<float>(y) * heightScale)), in.height - 1);
            for (uint32_t x = 0; x < out.width; ++x) {
                const uint32_t inX = std::min(
                        static_cast<uint32_t>(std::floor(static_cast<float>(x) * widthScale)), in.width - 1);
                for (uint32_t c = 0; c < out.channels; ++c) {
                    std::memcpy(context.output(0).data + out.at(b, y, x, c) * size,
                                context.input(0).data + in.at(b, inY, inX, c) * size, size);
                }
            }
        }
    }
    return true;
}

}  // namespace

NN_REGISTER_KERNEL(RESIZE_BILINEAR, resizeBilinear);
NN_REGISTER_KERNEL(RESIZE_NEAREST_NEIGHBOR, resizeNearestNeighbor);

}  // namespace nnemu::cpu
