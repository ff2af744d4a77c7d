// Builds a one-operation hal::Model and runs it on the reference executor: operands marked
// `input` are model inputs (their bytes passed in the request), the others constants; the
// operation's outputs are the model outputs. For tests of operations the runtime's level refuses.
#pragma once

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "nnemu/cpu/Executor.h"
#include "nnemu/base/Half.h"
#include "nnemu/hal/OperandTypes.h"
#include "nnemu/hal/Types.h"
#include "nnemu/hal/Validation.h"

namespace nnemu::testing {

struct TestOperand {
    hal::OperandType type = hal::OperandType::TENSOR_FLOAT32;
    std::vector<uint32_t> dims;
    std::vector<uint8_t> bytes;  // value (inputs and constants) or capacity (outputs)
    float scale = 0.0f;
    int32_t zeroPoint = 0;
    bool input = false;
    bool omitted = false;  // a NO_VALUE constant
};

template <typename T>
std::vector<uint8_t> bytesOf(const std::vector<T>& values) {
    std::vector<uint8_t> bytes(values.size() * sizeof(T));
    if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
}

inline std::vector<uint8_t> halfBytes(const std::vector<float>& values) {
    std::vector<uint16_t> halves;
    for (float v : values) halves.push_back(base::floatToHalf(v));
    return bytesOf(halves);
}

template <typename T>
TestOperand tensor(hal::OperandType type, std::vector<uint32_t> dims, const std::vector<T>& values,
                   bool input = true, float scale = 0.0f, int32_t zeroPoint = 0) {
    return {type, std::move(dims), bytesOf(values), scale, zeroPoint, input, false};
}

template <typename T>
TestOperand scalar(hal::OperandType type, T value) {
    return {type, {}, bytesOf(std::vector<T>{value}), 0.0f, 0, false, false};
}

// An omitted optional operand; its declared dims and scale still reach validation.
inline TestOperand omitted(hal::OperandType type, std::vector<uint32_t> dims = {}, float scale = 0.0f) {
    return {type, std::move(dims), {}, scale, 0, false, true};
}

// An output declared with `dims` (0 = unknown) and room for `bytes` bytes.
inline TestOperand output(hal::OperandType type, std::vector<uint32_t> dims, size_t bytes,
                          float scale = 0.0f, int32_t zeroPoint = 0) {
    return {type, std::move(dims), std::vector<uint8_t>(bytes), scale, zeroPoint, false, false};
}

// An output with known `dims` and room for exactly their bytes.
inline TestOperand sizedOutput(hal::OperandType type, std::vector<uint32_t> dims, float scale = 0.0f,
                               int32_t zeroPoint = 0) {
    const auto bytes = static_cast<size_t>(hal::byteSize(type, dims));
    return output(type, std::move(dims), bytes, scale, zeroPoint);
}

struct RunResult {
    bool valid = false;  // hal::validateModel accepted the model
    hal::ErrorStatus status = hal::ErrorStatus::GENERAL_FAILURE;
    std::vector<std::vector<uint32_t>> dims;
    std::vector<std::vector<uint8_t>> outputs;
    std::string why;

    // What a value or a relation between operands that Android checks at execution gives: the
    // model is valid and its execution fails.
    bool failsAtExecution() const { return valid && status == hal::ErrorStatus::GENERAL_FAILURE; }

    template <typename T>
    std::vector<T> values(size_t i = 0) const {
        std::vector<T> v(outputs[i].size() / sizeof(T));
        if (!v.empty()) std::memcpy(v.data(), outputs[i].data(), v.size() * sizeof(T));
        return v;
    }
    std::vector<float> halfValues(size_t i = 0) const {
        std::vector<float> v;
        for (uint16_t h : values<uint16_t>(i)) v.push_back(base::halfToFloat(h));
        return v;
    }
};

hal::Model singleOperationModel(hal::OperationType type, const std::vector<TestOperand>& inputs,
                                const std::vector<TestOperand>& outputs);
RunResult runSingleOperation(hal::OperationType type, const std::vector<TestOperand>& inputs,
                             const std::vector<TestOperand>& outputs);

// The same, kept as a value: for tests that build an operation in steps or alter its operands.
struct SingleOperation {
    hal::OperationType type;
    std::vector<TestOperand> inputs;
    std::vector<TestOperand> outputs;

    bool valid() const {
        return hal::validateModel(singleOperationModel(type, inputs, outputs)).isOk();
    }
    RunResult run() const { return runSingleOperation(type, inputs, outputs); }
};

}  // namespace nnemu::testing
