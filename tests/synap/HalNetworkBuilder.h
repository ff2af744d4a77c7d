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

}  // namespace nnemu::test
