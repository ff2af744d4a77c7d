// Reference kernels for the one-input element-wise operations (activations and math functions).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "FloatMath.h"
#include "MapFloat.h"
#include "QuantValue.h"
#include "nnemu/cpu/Kernels.h"
#include "nnemu/kernels/QuantMath.h"
#include "KernelList.h"

namespace nnemu::cpu {
namespace {

// One element in float with the C library's functions (LOGISTIC and TANH: only the quantized
// kernels, whose integer results must not move; float tensors take FloatMath.h).
float applyFloat(OperationType op, float x) {
    switch (op) {
        case OperationType::RELU:
            return quant::activationClamp(x, 0.0f, std::numeric_limits<float>::infinity());
        case OperationType::RELU1:
            return quant::activationClamp(x, -1.0f, 1.0f);
        case OperationType::RELU6:
            return quant::activationClamp(x, 0.0f, 6.0f);
        case OperationType::LOGISTIC:
            return 1.0f / (1.0f + std::exp(-x));
        case OperationType::TANH:
            return std::tanh(x);
        case OperationType::FLOOR:
            return std::floor(x);
        case OperationType::ABS:
            return std::fabs(x);
        case OperationType::EXP:
            return std::exp(x);
        case OperationType::LOG:
            return std::log(x);
        case OperationType::RSQRT:
            return 1.0f / std::sqrt(x);
        case OperationType::SIN:
            return std::sin(x);
        case OperationType::SQRT:
            return std::sqrt(x);
        case OperationType::NEG:
            return -x;
        default:
            return x;
    }
}

// NEG and ABS on int32.
bool unaryInt32(OperationContext& context) {
    const int32_t* in = context.input(0).as<int32_t>();
    int32_t* out = context.output(0).as<int32_t>();
    const uint64_t n = context.output(0).elements();
    const bool abs = context.type == OperationType::ABS;
    for (uint64_t i = 0; i < n; ++i) {
        // Two's complement negation without signed overflow (INT32_MIN stays INT32_MIN).
        const bool negate = !abs || in[i] < 0;
        out[i] = negate ? static_cast<int32_t>(0u - static_cast<uint32_t>(in[i])) : in[i];
    }
    return true;
}

// RELU family on quant8 (T = uint8_t or int8_t): a clamp in the quantized domain (output
// quantization == input's).
template <typename T>
bool reluQuant8(OperationContext& context) {
    const hal::OperandView& input = context.input(0);
    int32_t fuse = 1;
    if (context.type == OperationType::RELU1) fuse = 2;
    if (context.type == OperationType::RELU6) fuse = 3;
    int32_t low, high;
    quant::quantizedActivationRange(fuse, input.scale, input.zeroPoint, kQuantMin<T>, kQuantMax<T>, &low, &high);
    const T* in = input.as<T>();
    T* out = context.output(0).as<T>();
    const uint64_t n = context.output(0).elements();
    for (uint64_t i = 0; i < n; ++i) {
        out[i] = static_cast<T>(std::clamp(static_cast<int32_t>(in[i]), low, high));
    }
    return true;
}

// Quant8 through real values: the input dequantized to Real, f applied, the result requantized
// with the output's quantization (half away from zero, saturated; NaN gives the zero point).
template <typename T, typename Real, typename F>
bool mapQuant8ThroughReal(OperationContext& context, F f) {
    const hal::OperandView& input = context.input(0);
    const hal::OperandView& output = context.output(0);
    const T* in = input.as<T>();
    T* out = context.output(0).as<T>();
    const uint64_t n = output.elements();
    for (uint64_t i = 0; i < n; ++i) {
        const Real x = (static_cast<int32_t>(in[i]) - input.zeroPoint) * static_cast<Real>(input.scale);
        const Real y = f(x);
        out[i] = static_cast<T>(quant::quantizeSaturated(y / static_cast<Real>(output.scale), output.zeroPoint,
                                                  kQuantMin<T>, kQuantMax<T>));
    }
    return true;
}

template <typename T>
bool unaryQuant8(OperationContext& context) {
    switch (context.type) {
        case OperationType::RELU:
        case OperationType::RELU1:
        case OperationType::RELU6:
            return reluQuant8<T>(context);
        case OperationType::LOGISTIC:
        case OperationType::TANH:  // in float, into the fixed output quantization
            return mapQuant8ThroughReal<T, float>(context, [&](float x) { return applyFloat(context.type, x); });
        case OperationType::RSQRT:  // feature level 7: in double; a negative input (NaN) gives the zero point
            return mapQuant8ThroughReal<T, double>(context, [](double x) { return 1.0 / std::sqrt(x); });
        default:
            return false;
    }
}

// TANH and LOGISTIC on float tensors: the vectorized functions of FloatMath.h (F16 through
// the same function per element).
bool floatMathKernel(OperationContext& context) {
    const bool isTanh = context.type == OperationType::TANH;
    if (context.inputType(0) == OperandType::TENSOR_FLOAT32) {
        const uint64_t n = context.output(0).elements();
        NN_RET_CHECK(context.input(0).elements() == n);
        const float* in = context.input(0).as<float>();
        float* out = context.output(0).as<float>();
        isTanh ? floatmath::tanh(in, out, n) : floatmath::logistic(in, out, n);
        return true;
    }
    return mapFloat(context, [isTanh](float x) { return isTanh ? floatmath::tanh(x) : floatmath::logistic(x); });
}

}  // namespace

bool kernels::unaryKernel(OperationContext& context) {
    switch (context.inputType(0)) {
        case OperandType::TENSOR_FLOAT32:
        case OperandType::TENSOR_FLOAT16:
            if (context.type == OperationType::TANH || context.type == OperationType::LOGISTIC) {
                return floatMathKernel(context);
            }
            return mapFloat(context, [&](float x) { return applyFloat(context.type, x); });
        case OperandType::TENSOR_INT32:
            return (context.type == OperationType::NEG || context.type == OperationType::ABS) &&
                   unaryInt32(context);
        case OperandType::TENSOR_QUANT8_ASYMM:
            return unaryQuant8<uint8_t>(context);
        case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
            return unaryQuant8<int8_t>(context);
        default:
            return false;
    }
}

}  // namespace nnemu::cpu
