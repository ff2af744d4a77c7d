// The runtime's feature-level gate (nnapi-fl30plus.md §2.4): a model needing a later level than the
// runtime implements is refused at ANeuralNetworksModel_finish (BAD_DATA), however well-formed.
#include <android/NeuralNetworks.h>
#include <gtest/gtest.h>

#include "FeatureLevel.h"
#include "ModelBuilder.h"
#include "nnemu/hal/OperandTypes.h"
#include "nnemu/hal/Validation.h"

namespace nnemu {
namespace {

class FeatureLevelGate : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_EQ(ANeuralNetworksModel_create(&model_), ANEURALNETWORKS_NO_ERROR); }
    void TearDown() override { ANeuralNetworksModel_free(model_); }

    int addOperand(int32_t code, float scale, int32_t zeroPoint) {
        const ANeuralNetworksOperandType type{code, 2, kDims, scale, zeroPoint};
        return ANeuralNetworksModel_addOperand(model_, &type);
    }

    static constexpr uint32_t kDims[2] = {2, 3};
    ANeuralNetworksModel* model_ = nullptr;
};

TEST_F(FeatureLevelGate, RuntimeImplementsEveryOperationLevel) {
    EXPECT_EQ(runtime::kRuntimeFeatureLevel, ANeuralNetworks_getRuntimeFeatureLevel());
    EXPECT_GE(runtime::kRuntimeFeatureLevel, ANEURALNETWORKS_FEATURE_LEVEL_7);
    EXPECT_EQ(ANeuralNetworks_getMaximumLoopTimeout(), 15'000'000'000u);
    EXPECT_EQ(hal::operandTypeFeatureLevel(hal::OperandType::TENSOR_QUANT8_ASYMM_SIGNED), 30);
    EXPECT_EQ(hal::operandTypeFeatureLevel(hal::OperandType::TENSOR_QUANT8_ASYMM), 27);
    EXPECT_EQ(hal::operandTypeFeatureLevel(hal::OperandType::TENSOR_QUANT8_SYMM), 29);
}

TEST_F(FeatureLevelGate, AddOperandTakesTheSignedType) {
    EXPECT_EQ(addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED, 0.5f, -128), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED, 1.0f, 127), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED, 0.5f, 128), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED, 0.0f, 0), ANEURALNETWORKS_BAD_DATA);
}

TEST_F(FeatureLevelGate, RefusalLeavesTheModelUsable) {
    ASSERT_EQ(addOperand(16, 0.0f, 0), ANEURALNETWORKS_BAD_DATA);  // no such type at any level
    // The refused operand took no index: the next one is operand 0, still modifiable.
    ASSERT_EQ(addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, 0.5f, 128), ANEURALNETWORKS_NO_ERROR);
    const uint8_t values[6] = {1, 2, 3, 4, 5, 6};
    EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model_, 0, values, sizeof values),
              ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model_, 1, values, sizeof values),
              ANEURALNETWORKS_BAD_DATA);
}

TEST_F(FeatureLevelGate, OperationLevels) {
    EXPECT_EQ(hal::operationFeatureLevel(hal::OperationType::RESIZE_NEAREST_NEIGHBOR), 29);
    EXPECT_EQ(hal::operationFeatureLevel(hal::OperationType::HARD_SWISH), 30);
    EXPECT_EQ(hal::operationFeatureLevel(hal::OperationType::PACK), 1000006);
    EXPECT_EQ(hal::operationFeatureLevel(hal::OperationType::REVERSE), 1000007);
}

// A PACK model ([2] floats packed with themselves) finished by a runtime of `level`.
int finishPackModel(ANeuralNetworksModel* model, int64_t level) {
    reinterpret_cast<runtime::ModelBuilder*>(model)->setRuntimeLevelForTesting(level);
    const uint32_t dims[1] = {2}, packed[2] = {2, 2};
    const ANeuralNetworksOperandType axis{ANEURALNETWORKS_INT32, 0, nullptr, 0.0f, 0};
    const ANeuralNetworksOperandType in{ANEURALNETWORKS_TENSOR_FLOAT32, 1, dims, 0.0f, 0};
    const ANeuralNetworksOperandType out{ANEURALNETWORKS_TENSOR_FLOAT32, 2, packed, 0.0f, 0};
    EXPECT_EQ(ANeuralNetworksModel_addOperand(model, &axis), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksModel_addOperand(model, &in), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksModel_addOperand(model, &out), ANEURALNETWORKS_NO_ERROR);
    const int32_t zero = 0;
    EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model, 0, &zero, sizeof zero), ANEURALNETWORKS_NO_ERROR);
    const uint32_t input[1] = {1}, output[1] = {2};
    const uint32_t packIn[3] = {0, 1, 1};
    // Accepted when added (the operation is well-formed); the level is the model's, checked at finish.
    EXPECT_EQ(ANeuralNetworksModel_addOperation(model, ANEURALNETWORKS_PACK, 3, packIn, 1, output),
              ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model, 1, input, 1, output), ANEURALNETWORKS_NO_ERROR);
    return ANeuralNetworksModel_finish(model);
}

// nnapi-fl30plus.md §2.4: a model whose minimum level exceeds the runtime's is BAD_DATA at finish
// and stays invalid. The shipped runtime implements every level, so the rule is shown with a
// runtime level lowered for the test.
TEST_F(FeatureLevelGate, AModelAboveTheRuntimeLevelIsRefusedAtFinish) {
    EXPECT_EQ(finishPackModel(model_, 30), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksModel_finish(model_), ANEURALNETWORKS_BAD_STATE);
    ANeuralNetworksCompilation* compilation = nullptr;
    EXPECT_EQ(ANeuralNetworksCompilation_create(model_, &compilation), ANEURALNETWORKS_BAD_STATE);
    ANeuralNetworksModel* atLevel6 = nullptr;
    ASSERT_EQ(ANeuralNetworksModel_create(&atLevel6), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(finishPackModel(atLevel6, 1000006), ANEURALNETWORKS_NO_ERROR);
    ANeuralNetworksModel_free(atLevel6);
}

TEST_F(FeatureLevelGate, SignedOperandsNeedFeatureLevel30) {
    reinterpret_cast<runtime::ModelBuilder*>(model_)->setRuntimeLevelForTesting(29);
    ASSERT_EQ(addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED, 0.5f, 0), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(addOperand(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED, 0.5f, 0), ANEURALNETWORKS_NO_ERROR);
    const uint32_t in[1] = {0}, out[1] = {1};
    ASSERT_EQ(ANeuralNetworksModel_addOperation(model_, ANEURALNETWORKS_RELU, 1, in, 1, out), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model_, 1, in, 1, out), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksModel_finish(model_), ANEURALNETWORKS_BAD_DATA);
}

}  // namespace
}  // namespace nnemu
