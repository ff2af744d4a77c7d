// The fixture of the operation API tests (Fl30OperationsApiTest.cpp, Fl67OperationsApiTest.cpp):
// builds a one-operation model operand by operand and runs it once over every device.
#pragma once

#include <android/NeuralNetworks.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "AddModel.h"

namespace nnemu::apitest {

class OperationModelTest : public ::testing::Test {
protected:
    void SetUp() override {
        model_ = newModel();
        ASSERT_NE(model_, nullptr);
    }

    uint32_t add(int32_t code, std::vector<uint32_t> dims, float scale = 0.0f, int32_t zeroPoint = 0) {
        const ANeuralNetworksOperandType type{code, static_cast<uint32_t>(dims.size()), dims.empty() ? nullptr : dims.data(),
                                              scale, zeroPoint};
        EXPECT_EQ(ANeuralNetworksModel_addOperand(model_.get(), &type), ANEURALNETWORKS_NO_ERROR);
        return next_++;
    }
    template <typename T>
    uint32_t constant(int32_t code, std::vector<uint32_t> dims, const std::vector<T>& values) {
        const uint32_t index = add(code, std::move(dims));
        EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model_.get(), index, values.data(), values.size() * sizeof(T)),
                  ANEURALNETWORKS_NO_ERROR);
        return index;
    }
    uint32_t flag(bool value) { return constant<uint8_t>(ANEURALNETWORKS_BOOL, {}, {static_cast<uint8_t>(value)}); }
    int operation(int32_t type, std::vector<uint32_t> in, uint32_t out) {
        return ANeuralNetworksModel_addOperation(model_.get(), type, static_cast<uint32_t>(in.size()), in.data(), 1, &out);
    }
    // Finishes the model with `ins` as its inputs and `out` as its output, runs it once on every
    // device (partitioned) and returns the result code of the computation.
    template <typename In, typename Out>
    int run(const std::vector<uint32_t>& ins, uint32_t out, const std::vector<std::vector<In>>& inputs,
            std::vector<Out>* output) {
        EXPECT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model_.get(), static_cast<uint32_t>(ins.size()),
                                                                ins.data(), 1, &out),
                  ANEURALNETWORKS_NO_ERROR);
        EXPECT_EQ(ANeuralNetworksModel_finish(model_.get()), ANEURALNETWORKS_NO_ERROR);
        auto compilation = compile(model_.get());
        if (compilation == nullptr) return ANEURALNETWORKS_BAD_STATE;
        auto execution = newExecution(compilation.get());
        for (size_t i = 0; i < inputs.size(); ++i) {
            EXPECT_EQ(ANeuralNetworksExecution_setInput(execution.get(), static_cast<int32_t>(i), nullptr,
                                                        inputs[i].data(), inputs[i].size() * sizeof(In)),
                      ANEURALNETWORKS_NO_ERROR);
        }
        EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution.get(), 0, nullptr, output->data(), output->size() * sizeof(Out)),
                  ANEURALNETWORKS_NO_ERROR);
        return ANeuralNetworksExecution_compute(execution.get());
    }
    // The same with one input, expecting success.
    template <typename In, typename Out>
    void runOne(uint32_t in, uint32_t out, const std::vector<In>& input, std::vector<Out>* output) {
        ASSERT_EQ(run({in}, out, std::vector<std::vector<In>>{input}, output), ANEURALNETWORKS_NO_ERROR);
    }

    ModelPtr model_;
    uint32_t next_ = 0;
};

}  // namespace nnemu::apitest
