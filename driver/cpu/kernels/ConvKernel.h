// The operand-type half of the convolution-like reference kernels (CONV_2D, DEPTHWISE_CONV_2D,
// GROUPED_CONV_2D, TRANSPOSE_CONV_2D). Each kernel supplies a loop object that walks its
// output:
//   loop.template run<Acc>(tap, store)
// calls tap(inputIndex, filterIndex) for every product of one output element, sums them in an
// Acc and hands the sum to store(outputIndex, outChannel, sum). This file supplies tap and
// store for F32, F16 (computed in float) and Q8 or Q8S with a filter of the input's type or a
// per-channel one.
#pragma once

#include <cstdint>
#include <vector>

#include "ConvPoolUtils.h"
#include "nnemu/kernels/QuantMath.h"
#include "nnemu/hal/Operations.h"

namespace nnemu::cpu::convpool {

template <typename Loop>
void convolveFloat(const Loop& loop, int32_t activation, const float* input, const float* filter,
                   const float* bias, float* output) {
    float low, high;
    quant::floatActivationRange(activation, &low, &high);
    loop.template run<float>([&](size_t i, size_t f) { return input[i] * filter[f]; },
                             [&](size_t o, uint32_t oc, float acc) {
                                 output[o] = clampFloat(acc + bias[oc], low, high);
                             });
}

// What turns a quantized convolution's sums into its output.
template <typename T>
struct QuantOutput {
    const Requantizer<T>& requantize;
    const int32_t* bias;
    T* output;
};

// T is the element type of input and output: uint8_t (Q8) or int8_t (Q8S).
template <typename T, typename Loop>
bool convolveQuant8(const Loop& loop, const hal::OperationContext& context, int32_t activation,
                    uint32_t outChannels, hal::OperandView& outputView) {
    const hal::OperandView& inputView = context.input(0);
    const hal::OperandView& filterView = context.input(1);
    NN_RET_CHECK(filterView.type == inputView.type ||
                 filterView.type == hal::OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL);
    NN_RET_CHECK(context.input(2).type == hal::OperandType::TENSOR_INT32);
    NN_RET_CHECK(fits(outputView, outputView.elements(), sizeof(T)));
    Requantizer<T> requantize;
    NN_RET_CHECK(requantize.init(inputView, filterView, outputView, activation, outChannels));
    const T* input = inputView.as<T>();
    const int32_t* bias = context.input(2).as<int32_t>();
    const int32_t inputZeroPoint = inputView.zeroPoint;
    T* output = outputView.as<T>();
    auto store = [&](size_t o, uint32_t oc, int32_t acc) { output[o] = requantize(acc, bias[oc], oc); };
    // A loop with a quantized fast path (runQuant) computes the same integer sums its own way
    // (and may requantize them itself, with the same requantizer, bias and output).
    constexpr bool kHasQuantPath = requires { &Loop::template runQuant<T, T, decltype(store)>; };
    if constexpr (kHasQuantPath) {
        const QuantOutput<T> out{requantize, bias, output};
        if (filterView.type == hal::OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
            return loop.template runQuant<T, int8_t>(input, inputZeroPoint, filterView.as<int8_t>(), 0, store, out);
        }
        return loop.template runQuant<T, T>(input, inputZeroPoint, filterView.as<T>(), filterView.zeroPoint, store, out);
    }
    if (filterView.type == hal::OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
        const int8_t* filter = filterView.as<int8_t>();
        loop.template run<int32_t>(
                [&](size_t i, size_t f) {
                    return (static_cast<int32_t>(input[i]) - inputZeroPoint) * static_cast<int32_t>(filter[f]);
                },
                store);
    } else {
        const T* filter = filterView.as<T>();
        const int32_t filterZeroPoint = filterView.zeroPoint;
        loop.template run<int32_t>(
                [&](size_t i, size_t f) {
                    return (static_cast<int32_t>(input[i]) - inputZeroPoint) *
                           (static_cast<int32_t>(filter[f]) - filterZeroPoint);
                },
                store);
    }
    return true;
}

// Checks the operand types and buffer sizes, then runs `loop` for the input's type. The loop
// must already have checked that every index it produces lies inside the operands' dims.
template <typename Loop>
bool convolve(hal::OperationContext& context, int32_t activation, uint32_t outChannels,
              const Loop& loop) {
    using hal::OperandType;
    const hal::OperandView& input = context.input(0);
    const hal::OperandView& filter = context.input(1);
    const hal::OperandView& bias = context.input(2);
    hal::OperandView& output = context.output(0);
    const uint64_t outCount = output.elements();
    NN_RET_CHECK(bias.elements() == outChannels);
    switch (input.type) {
        case OperandType::TENSOR_FLOAT32:
            NN_RET_CHECK(filter.type == input.type && bias.type == input.type);
            NN_RET_CHECK(fits(output, outCount, sizeof(float)));
            convolveFloat(loop, activation, input.as<float>(), filter.as<float>(), bias.as<float>(),
                          output.as<float>());
            return true;
        case OperandType::TENSOR_FLOAT16: {
            NN_RET_CHECK(filter.type == input.type && bias.type == input.type);
            NN_RET_CHECK(fits(output, outCount, sizeof(uint16_t)));
            const std::vector<float> in = halfToFloatVector(input);
            const std::vector<float> f = halfToFloatVector(filter);
            const std::vector<float> b = halfToFloatVector(bias);
            std::vector<float> out(static_cast<size_t>(outCount));
            convolveFloat(loop, activation, in.data(), f.data(), b.data(), out.data());
            storeAsHalf(out, output);
            return true;
        }
        case OperandType::TENSOR_QUANT8_ASYMM:
            return convolveQuant8<uint8_t>(loop, context, activation, outChannels, output);
        case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
            return convolveQuant8<int8_t>(loop, context, activation, outChannels, output);
        default:
            return false;
    }
}

}  // namespace nnemu::cpu::convpool
