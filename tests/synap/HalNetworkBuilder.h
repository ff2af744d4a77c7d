// Builds a HAL model operation by operation, for tests and benches that need operand types the
// FL29 C API refuses (TENSOR_QUANT8_ASYMM_SIGNED): constants are copied into operandValues.
#pragma once

#include <cstring>
#include <random>
#include <vector>

#include "nnemu/hal/Types.h"

namespace nnemu::test {

// `count` values drawn uniformly from [low, high], each cast to T (so 8-bit types wrap).
template <typename T>
std::vector<T> randomValues(size_t count, std::mt19937& random, int low, int high) {
    std::uniform_int_distribution<int> value(low, high);
    std::vector<T> values(count);
    for (auto& v : values) v = static_cast<T>(value(random));
    return values;
}

class HalNetworkBuilder {
public:
    uint32_t tensor(hal::OperandType type, std::vector<uint32_t> dims, float scale = 0.0f, int32_t zeroPoint = 0) {
        hal::Operand operand;
        operand.type = type;
        operand.dimensions = std::move(dims);
        operand.scale = scale;
        operand.zeroPoint = zeroPoint;
        model_.operands.push_back(std::move(operand));
        return static_cast<uint32_t>(model_.operands.size() - 1);
    }

    template <typename T>
    uint32_t constant(hal::OperandType type, std::vector<uint32_t> dims, const std::vector<T>& values, float scale = 0.0f,
                      int32_t zeroPoint = 0) {
        const uint32_t index = tensor(type, std::move(dims), scale, zeroPoint);
        const size_t offset = (model_.operandValues.size() + 7) / 8 * 8;
        const size_t length = values.size() * sizeof(T);
        model_.operandValues.resize(offset + length);
        std::memcpy(model_.operandValues.data() + offset, values.data(), length);
        auto& operand = model_.operands[index];
        operand.lifetime = hal::OperandLifeTime::CONSTANT_COPY;
        operand.location = {0, static_cast<uint32_t>(offset), static_cast<uint32_t>(length)};
        return index;
    }

    uint32_t scalar(int32_t value) { return constant(hal::OperandType::INT32, {}, std::vector<int32_t>{value}); }

    void operation(hal::OperationType type, std::vector<uint32_t> inputs, uint32_t output) {
        for (uint32_t input : inputs) ++model_.operands[input].numberOfConsumers;
        model_.operations.push_back({type, std::move(inputs), {output}});
    }

    hal::Model finish(uint32_t input, uint32_t output) {
        model_.operands[input].lifetime = hal::OperandLifeTime::MODEL_INPUT;
        model_.operands[output].lifetime = hal::OperandLifeTime::MODEL_OUTPUT;
        model_.inputIndexes = {input};
        model_.outputIndexes = {output};
        return model_;
    }

    hal::Operand& operand(uint32_t index) { return model_.operands[index]; }

private:
    hal::Model model_;
};

// float [1, side, side, channels] -> 3x3 DEPTHWISE_CONV_2D, SAME padding, RELU6, the weights in
// steps of 1/8 (every sum exact in float).
inline hal::Model floatDepthwise3x3(uint32_t side, uint32_t channels) {
    std::vector<float> filter(9 * channels), bias(channels);
    for (size_t i = 0; i < filter.size(); ++i) filter[i] = static_cast<float>(static_cast<int>(i % 17) - 8) / 8.0f;
    for (size_t i = 0; i < bias.size(); ++i) bias[i] = static_cast<float>(i % 5) / 8.0f;
    HalNetworkBuilder b;
    const uint32_t input = b.tensor(hal::OperandType::TENSOR_FLOAT32, {1, side, side, channels});
    const uint32_t output = b.tensor(hal::OperandType::TENSOR_FLOAT32, {1, side, side, channels});
    constexpr int32_t kSame = 1, kRelu6 = 3;  // ANEURALNETWORKS_PADDING_SAME, ANEURALNETWORKS_FUSED_RELU6
    b.operation(hal::OperationType::DEPTHWISE_CONV_2D,
                {input, b.constant(hal::OperandType::TENSOR_FLOAT32, {1, 3, 3, channels}, filter),
                 b.constant(hal::OperandType::TENSOR_FLOAT32, {channels}, bias), b.scalar(kSame), b.scalar(1),
                 b.scalar(1), b.scalar(1), b.scalar(kRelu6)},
                output);
    return b.finish(input, output);
}

}  // namespace nnemu::test
