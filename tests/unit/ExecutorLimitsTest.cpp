// The reference executor sizes temporaries from shapes that a model's data chooses at run time.
// An absurd size must fail that execution cleanly, and the compilation must stay usable.
#include <android/NeuralNetworks.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "nnemu/hal/OperandTypes.h"

namespace {

// input [1] float, multiples [1] int32 (both model inputs) -> TILE -> temporary -> RELU -> output.
ANeuralNetworksCompilation* tileThenRelu(ANeuralNetworksModel** model) {
    EXPECT_EQ(ANeuralNetworksModel_create(model), ANEURALNETWORKS_NO_ERROR);
    const uint32_t one[1] = {1}, unknown[1] = {0};
    const ANeuralNetworksOperandType input{ANEURALNETWORKS_TENSOR_FLOAT32, 1, one, 0.0f, 0};
    const ANeuralNetworksOperandType multiples{ANEURALNETWORKS_TENSOR_INT32, 1, one, 0.0f, 0};
    const ANeuralNetworksOperandType tiled{ANEURALNETWORKS_TENSOR_FLOAT32, 1, unknown, 0.0f, 0};
    for (const auto* type : {&input, &multiples, &tiled, &tiled}) {
        EXPECT_EQ(ANeuralNetworksModel_addOperand(*model, type), ANEURALNETWORKS_NO_ERROR);
    }
    const uint32_t tileIn[2] = {0, 1}, tileOut[1] = {2}, reluIn[1] = {2}, reluOut[1] = {3};
    EXPECT_EQ(ANeuralNetworksModel_addOperation(*model, ANEURALNETWORKS_TILE, 2, tileIn, 1, tileOut), 0);
    EXPECT_EQ(ANeuralNetworksModel_addOperation(*model, ANEURALNETWORKS_RELU, 1, reluIn, 1, reluOut), 0);
    EXPECT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(*model, 2, tileIn, 1, reluOut), 0);
    EXPECT_EQ(ANeuralNetworksModel_finish(*model), 0);
    ANeuralNetworksCompilation* compilation = nullptr;
    EXPECT_EQ(ANeuralNetworksCompilation_create(*model, &compilation), 0);
    EXPECT_EQ(ANeuralNetworksCompilation_finish(compilation), 0);
    return compilation;
}

int runTile(ANeuralNetworksCompilation* compilation, int32_t times, std::vector<float>* out) {
    ANeuralNetworksExecution* execution = nullptr;
    EXPECT_EQ(ANeuralNetworksExecution_create(compilation, &execution), 0);
    const float value = -2.5f;
    ANeuralNetworksExecution_setInput(execution, 0, nullptr, &value, sizeof value);
    ANeuralNetworksExecution_setInput(execution, 1, nullptr, &times, sizeof times);
    ANeuralNetworksExecution_setOutput(execution, 0, nullptr, out->data(), out->size() * sizeof(float));
    const int status = ANeuralNetworksExecution_compute(execution);
    ANeuralNetworksExecution_free(execution);
    return status;
}

TEST(ExecutorLimits, ATemporaryLargerThanAnOperandCanBeFailsTheExecution) {
    ANeuralNetworksModel* model = nullptr;
    ANeuralNetworksCompilation* compilation = tileThenRelu(&model);
    std::vector<float> out(4, 7.0f);
    EXPECT_EQ(runTile(compilation, std::numeric_limits<int32_t>::max(), &out), ANEURALNETWORKS_OP_FAILED);
    EXPECT_EQ(runTile(compilation, 4, &out), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(out, std::vector<float>(4, 0.0f));
    ANeuralNetworksCompilation_free(compilation);
    ANeuralNetworksModel_free(model);
}

TEST(ExecutorLimits, ElementCountsSaturateInsteadOfWrapping) {
    const std::vector<uint32_t> huge(5, std::numeric_limits<uint32_t>::max());
    EXPECT_EQ(nnemu::hal::elementCount(huge), std::numeric_limits<uint64_t>::max());
    EXPECT_EQ(nnemu::hal::byteSize(nnemu::hal::OperandType::TENSOR_FLOAT32, huge),
              std::numeric_limits<uint64_t>::max());
    EXPECT_EQ(nnemu::hal::elementCount({7, 0, std::numeric_limits<uint32_t>::max()}), 0u);
    EXPECT_EQ(nnemu::hal::elementCount({1u << 20, 1u << 20}), uint64_t{1} << 40);
}

TEST(ExecutorLimits, AnOperandLargerThanFourGibibytesIsBadData) {
    ANeuralNetworksModel* model = nullptr;
    ASSERT_EQ(ANeuralNetworksModel_create(&model), ANEURALNETWORKS_NO_ERROR);
    const uint32_t huge[3] = {65536, 65536, 2}, fits[3] = {65536, 16383, 1};
    const ANeuralNetworksOperandType tooLarge{ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, 3, huge, 1.0f, 0};
    const ANeuralNetworksOperandType largest{ANEURALNETWORKS_TENSOR_FLOAT32, 3, fits, 0.0f, 0};
    EXPECT_EQ(ANeuralNetworksModel_addOperand(model, &tooLarge), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksModel_addOperand(model, &largest), ANEURALNETWORKS_NO_ERROR);
    ANeuralNetworksModel_free(model);
}

}  // namespace
