// Reference kernels for DEQUANTIZE and QUANTIZE.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "QuantValue.h"
#include "nnemu/kernels/QuantMath.h"
#include "nnemu/cpu/Kernels.h"
#include "KernelList.h"

namespace nnemu::cpu {
namespace {

void storeFloat(hal::OperandView& output, uint64_t i, float value) {
    if (output.type == OperandType::TENSOR_FLOAT32) {
        output.as<float>()[i] = value;
    } else {
        output.as<uint16_t>()[i] = base::floatToHalf(value);
    }
}

// Q8 (T = uint8_t) or Q8S (T = int8_t): (q - zeroPoint) * scale.
template <typename T>
bool dequantizeAsymm(const hal::OperandView& input, hal::OperandView& output) {
    const T* in = input.as<T>();
    const uint64_t n = input.elements();
    for (uint64_t i = 0; i < n; ++i) {
        storeFloat(output, i, (static_cast<int32_t>(in[i]) - input.zeroPoint) * input.scale);
    }
    return true;
}

// q = zeroPoint + round(x / scale) (halves away from zero), saturated to T's range (T = uint8_t
// for Q8, int8_t for Q8S); NaN gives the zero point. The quotient is a float, as NNAPI computes it.
template <typename T>
T quantizeValue(float x, float scale, int32_t zeroPoint) {
    return static_cast<T>(quant::quantizeSaturated(static_cast<double>(x / scale), zeroPoint, kQuantMin<T>, kQuantMax<T>));
}

template <typename T>
bool quantizeInto(const hal::OperandView& input, hal::OperandView& output) {
    const uint64_t n = input.elements();
    T* out = output.as<T>();
    switch (input.type) {
        case OperandType::TENSOR_FLOAT32: {
            const float* in = input.as<float>();
            for (uint64_t i = 0; i < n; ++i) out[i] = quantizeValue<T>(in[i], output.scale, output.zeroPoint);
            return true;
        }
        case OperandType::TENSOR_FLOAT16: {
            const uint16_t* in = input.as<uint16_t>();
            for (uint64_t i = 0; i < n; ++i) {
                out[i] = quantizeValue<T>(base::halfToFloat(in[i]), output.scale, output.zeroPoint);
            }
            return true;
        }
        default:
            return false;
    }
}

}  // namespace

bool kernels::dequantizeKernel(OperationContext& context) {
    const hal::OperandView& input = context.input(0);
    hal::OperandView& output = context.output(0);
    if (output.type != OperandType::TENSOR_FLOAT32 && output.type != OperandType::TENSOR_FLOAT16) {
        return false;
    }
    const uint64_t n = input.elements();
    switch (input.type) {
        case OperandType::TENSOR_QUANT8_ASYMM:
            return dequantizeAsymm<uint8_t>(input, output);
        case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
            return dequantizeAsymm<int8_t>(input, output);
        case OperandType::TENSOR_QUANT8_SYMM: {
            const int8_t* in = input.as<int8_t>();
            for (uint64_t i = 0; i < n; ++i) storeFloat(output, i, in[i] * input.scale);
            return true;
        }
        case OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL: {
            if (input.channelQuant == nullptr) return false;
            const uint32_t channelDim = input.channelQuant->channelDim;
            if (channelDim >= input.rank()) return false;
            const uint32_t channels = input.dim(channelDim);
            if (channels != input.channelQuant->scales.size()) return false;
            uint64_t inner = 1;
            for (uint32_t d = channelDim + 1; d < input.rank(); ++d) inner *= input.dim(d);
            const int8_t* in = input.as<int8_t>();
            for (uint64_t i = 0; i < n; ++i) {
                const uint64_t channel = (i / inner) % channels;
                storeFloat(output, i, in[i] * input.channelQuant->scales[channel]);
            }
            return true;
        }
        default:
            return false;
    }
}

bool kernels::quantizeKernel(OperationContext& context) {
    const hal::OperandView& input = context.input(0);
    hal::OperandView& output = context.output(0);
    switch (output.type) {
        case OperandType::TENSOR_QUANT8_ASYMM:
            return quantizeInto<uint8_t>(input, output);
        case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
            return quantizeInto<int8_t>(input, output);
        default:
            return false;
    }
}

}  // namespace nnemu::cpu
