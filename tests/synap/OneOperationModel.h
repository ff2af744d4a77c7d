// A model of one NNAPI operation, compiled for one device and run through the C API, so tests can
// compare what synap-npu computes with nnapi-reference on the same operands.
#pragma once

#include <android/NeuralNetworks.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "nnemu/base/Half.h"

#include "NnapiDevices.h"

namespace nnemu::test {

struct TestOperand {
    TestOperand(int32_t type, std::vector<uint32_t> dims, float scale = 0.0f, int32_t zeroPoint = 0,
                std::vector<uint8_t> value = {})
        : type(type), dims(std::move(dims)), scale(scale), zeroPoint(zeroPoint), value(std::move(value)) {}

    int32_t type;
    std::vector<uint32_t> dims;  // empty for scalars
    float scale = 0.0f;
    int32_t zeroPoint = 0;
    std::vector<uint8_t> value;  // constant bytes; empty for a model input (or the output)
};

template <typename T>
std::vector<uint8_t> bytesOf(const std::vector<T>& values) {
    std::vector<uint8_t> bytes(values.size() * sizeof(T));
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
}

inline TestOperand int32Scalar(int32_t value) { return {ANEURALNETWORKS_INT32, {}, 0.0f, 0, bytesOf<int32_t>({value})}; }

inline size_t elementSize(int32_t type) {
    switch (type) {
        case ANEURALNETWORKS_TENSOR_QUANT8_ASYMM:
        case ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED: return 1;
        case ANEURALNETWORKS_TENSOR_FLOAT16: return 2;
        default: return 4;
    }
}

inline size_t byteSize(const TestOperand& operand) {
    size_t bytes = elementSize(operand.type);
    for (uint32_t d : operand.dims) bytes *= d;
    return bytes;
}


// Random bytes for an operand: floats in [-4, 4] in steps of 1/8 (so ties and zeros occur),
// halves the same, any uint8, int32 in [-50, 50].
inline std::vector<uint8_t> randomData(const TestOperand& operand, std::mt19937& random) {
    const size_t count = byteSize(operand) / elementSize(operand.type);
    std::uniform_int_distribution<int> step(-32, 32), byte(0, 255), small(-50, 50);
    std::vector<uint8_t> bytes(byteSize(operand));
    for (size_t i = 0; i < count; ++i) {
        if (operand.type == ANEURALNETWORKS_TENSOR_FLOAT32) {
            const float value = static_cast<float>(step(random)) / 8.0f;
            std::memcpy(&bytes[i * 4], &value, 4);
        } else if (operand.type == ANEURALNETWORKS_TENSOR_FLOAT16) {
            const uint16_t half = base::floatToHalf(static_cast<float>(step(random)) / 8.0f);
            std::memcpy(&bytes[i * 2], &half, 2);
        } else if (operand.type == ANEURALNETWORKS_TENSOR_QUANT8_ASYMM) {
            bytes[i] = static_cast<uint8_t>(byte(random));
        } else {
            const int32_t value = small(random);
            std::memcpy(&bytes[i * 4], &value, 4);
        }
    }
    return bytes;
}

class OneOperationModel {
public:
    OneOperationModel(int32_t operation, std::vector<TestOperand> inputs, TestOperand output)
        : inputs_(std::move(inputs)), output_(std::move(output)) {
        EXPECT_EQ(ANeuralNetworksModel_create(&model_), ANEURALNETWORKS_NO_ERROR);
        std::vector<uint32_t> operationInputs, modelInputs;
        for (const TestOperand& operand : inputs_) {
            const uint32_t index = add(operand);
            operationInputs.push_back(index);
            if (operand.value.empty()) modelInputs.push_back(index);
        }
        const uint32_t out = add(output_);
        EXPECT_EQ(ANeuralNetworksModel_addOperation(model_, operation, static_cast<uint32_t>(operationInputs.size()),
                                                    operationInputs.data(), 1, &out),
                  ANEURALNETWORKS_NO_ERROR);
        EXPECT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model_, static_cast<uint32_t>(modelInputs.size()),
                                                                modelInputs.data(), 1, &out),
                  ANEURALNETWORKS_NO_ERROR);
        EXPECT_EQ(ANeuralNetworksModel_finish(model_), ANEURALNETWORKS_NO_ERROR);
    }
    ~OneOperationModel() { ANeuralNetworksModel_free(model_); }
    OneOperationModel(const OneOperationModel&) = delete;
    OneOperationModel& operator=(const OneOperationModel&) = delete;

    bool claimedBy(const char* deviceName) const {
        const ANeuralNetworksDevice* device[1] = {deviceNamed(deviceName)};
        bool supported[1] = {false};
        EXPECT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(model_, device, 1, supported),
                  ANEURALNETWORKS_NO_ERROR);
        return supported[0];
    }

    // Random data for every model input, the same for every device.
    std::vector<std::vector<uint8_t>> randomInputs(uint32_t seed) const {
        std::mt19937 random(seed);
        std::vector<std::vector<uint8_t>> data;
        for (const TestOperand& operand : inputs_) {
            if (operand.value.empty()) data.push_back(randomData(operand, random));
        }
        return data;
    }

    // Compiles for `deviceName` alone and runs once; the output's bytes, empty on failure.
    std::vector<uint8_t> run(const char* deviceName, const std::vector<std::vector<uint8_t>>& inputs) const {
        const ANeuralNetworksDevice* device[1] = {deviceNamed(deviceName)};
        ANeuralNetworksCompilation* compilation = nullptr;
        std::vector<uint8_t> output(byteSize(output_));
        if (ANeuralNetworksCompilation_createForDevices(model_, device, 1, &compilation) != 0) return {};
        ANeuralNetworksExecution* execution = nullptr;
        bool ok = ANeuralNetworksCompilation_finish(compilation) == 0 &&
                  ANeuralNetworksExecution_create(compilation, &execution) == 0;
        for (size_t i = 0; ok && i < inputs.size(); ++i) {
            ok = ANeuralNetworksExecution_setInput(execution, static_cast<int32_t>(i), nullptr, inputs[i].data(),
                                                   inputs[i].size()) == 0;
        }
        ok = ok && ANeuralNetworksExecution_setOutput(execution, 0, nullptr, output.data(), output.size()) == 0 &&
             ANeuralNetworksExecution_compute(execution) == 0;
        ANeuralNetworksExecution_free(execution);
        ANeuralNetworksCompilation_free(compilation);
        return ok ? output : std::vector<uint8_t>{};
    }

    int32_t outputType() const { return output_.type; }
    ANeuralNetworksModel* handle() const { return model_; }

private:
    uint32_t add(const TestOperand& operand) {
        const ANeuralNetworksOperandType type{operand.type, static_cast<uint32_t>(operand.dims.size()),
                                              operand.dims.empty() ? nullptr : operand.dims.data(), operand.scale,
                                              operand.zeroPoint};
        EXPECT_EQ(ANeuralNetworksModel_addOperand(model_, &type), ANEURALNETWORKS_NO_ERROR);
        const uint32_t index = count_++;
        if (!operand.value.empty()) {
            EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model_, index, operand.value.data(), operand.value.size()),
                      ANEURALNETWORKS_NO_ERROR);
        }
        return index;
    }

    std::vector<TestOperand> inputs_;
    TestOperand output_;
    ANeuralNetworksModel* model_ = nullptr;
    uint32_t count_ = 0;
};

}  // namespace nnemu::test
