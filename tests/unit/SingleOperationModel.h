// A HAL model of one operation for tests that run the reference executor directly
// (cpu::executeModel): constant operands hold their values, omitted ones have no value, the
// first tensor is the model's only input and the outputs are model outputs.
#pragma once

#include <algorithm>
#include <cstring>
#include <string>
#include <memory>
#include <vector>

#include "nnemu/cpu/Executor.h"
#include "nnemu/hal/OperandTypes.h"
#include "nnemu/hal/Validation.h"

namespace nnemu::test {

class SingleOperationModel {
public:
    explicit SingleOperationModel(hal::OperationType type) { model_.operations.push_back({type, {}, {}}); }

    // The model input (its value is passed to run()).
    void input(hal::OperandType type, std::vector<uint32_t> dims, float scale = 0.0f, int32_t zeroPoint = 0) {
        model_.inputIndexes.push_back(add(type, std::move(dims), scale, zeroPoint, hal::OperandLifeTime::MODEL_INPUT));
    }
    template <typename T>
    void constant(hal::OperandType type, std::vector<uint32_t> dims, const std::vector<T>& values,
                  float scale = 0.0f, int32_t zeroPoint = 0) {
        const uint32_t index = add(type, std::move(dims), scale, zeroPoint, hal::OperandLifeTime::CONSTANT_COPY);
        const size_t offset = (model_.operandValues.size() + 7) / 8 * 8;
        const size_t length = values.size() * sizeof(T);
        model_.operandValues.resize(offset + length);
        if (length > 0) std::memcpy(model_.operandValues.data() + offset, values.data(), length);
        model_.operands[index].location = {0, static_cast<uint32_t>(offset), static_cast<uint32_t>(length)};
    }
    template <typename T>
    void scalar(hal::OperandType type, T value) {
        constant(type, {}, std::vector<T>{value});
    }
    void omitted(hal::OperandType type, std::vector<uint32_t> dims = {}, float scale = 0.0f) {
        add(type, std::move(dims), scale, 0, hal::OperandLifeTime::NO_VALUE);
    }
    void output(hal::OperandType type, std::vector<uint32_t> dims, float scale = 0.0f, int32_t zeroPoint = 0) {
        const uint32_t index = add(type, std::move(dims), scale, zeroPoint, hal::OperandLifeTime::MODEL_OUTPUT, true);
        model_.outputIndexes.push_back(index);
    }

    hal::Model& model() { return model_; }
    bool valid() const {
        std::string why;
        return hal::validateModel(model_, &why);
    }

    // Runs with the input's bytes; on success *outputs holds each output's bytes (sized from
    // its declared dims and element size) and the status is NONE.
    hal::ErrorStatus run(const std::vector<uint8_t>& inputBytes, std::vector<std::vector<uint8_t>>* outputs,
                         std::vector<std::vector<uint32_t>>* shapes = nullptr) const {
        size_t total = inputBytes.size();
        std::vector<size_t> sizes;
        for (uint32_t index : model_.outputIndexes) {
            const hal::Operand& operand = model_.operands[index];
            sizes.push_back(hal::byteSize(operand.type, operand.dimensions));
            total += sizes.back();
        }
        auto pool = std::make_shared<hal::HeapPool>(std::max<size_t>(total, 1));
        std::memcpy(pool->data(), inputBytes.data(), inputBytes.size());
        hal::Request request;
        request.pools.push_back(pool);
        request.inputs.push_back({false, {0, 0, static_cast<uint32_t>(inputBytes.size())}, {}});
        size_t offset = inputBytes.size();
        for (size_t size : sizes) {
            request.outputs.push_back({false, {0, static_cast<uint32_t>(offset), static_cast<uint32_t>(size)}, {}});
            offset += size;
        }
        const auto [status, outputShapes] = cpu::executeModel(model_, request);
        if (status != hal::ErrorStatus::NONE) return status;
        outputs->clear();
        for (size_t i = 0; i < sizes.size(); ++i) {
            const uint8_t* from = pool->data() + request.outputs[i].location.offset;
            outputs->emplace_back(from, from + sizes[i]);
            if (shapes != nullptr) shapes->push_back(outputShapes[i].dimensions);
        }
        return status;
    }

private:
    uint32_t add(hal::OperandType type, std::vector<uint32_t> dims, float scale, int32_t zeroPoint,
                 hal::OperandLifeTime lifetime, bool isOutput = false) {
        hal::Operand operand;
        operand.type = type;
        operand.dimensions = std::move(dims);
        operand.scale = scale;
        operand.zeroPoint = zeroPoint;
        operand.lifetime = lifetime;
        const auto index = static_cast<uint32_t>(model_.operands.size());
        model_.operands.push_back(std::move(operand));
        auto& operation = model_.operations.front();
        (isOutput ? operation.outputs : operation.inputs).push_back(index);
        return index;
    }

    hal::Model model_;
};

template <typename T>
std::vector<T> valuesOf(const std::vector<uint8_t>& bytes) {
    std::vector<T> values(bytes.size() / sizeof(T));
    std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
    return values;
}

template <typename T>
std::vector<uint8_t> bytesOf(const std::vector<T>& values) {
    std::vector<uint8_t> bytes(values.size() * sizeof(T));
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
}

}  // namespace nnemu::test
