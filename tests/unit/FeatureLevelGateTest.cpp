// The runtime's feature-level gate (nnapi-fl30plus.md §2.4): libneuralnetworks.so implements
// feature level 30, so it takes TENSOR_QUANT8_ASYMM_SIGNED and the level-30 operations, and refuses
// the operations of later levels at ANeuralNetworksModel_addOperation, however well-formed.
#include <android/NeuralNetworks.h>
#include <gtest/gtest.h>

#include "FeatureLevel.h"
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

TEST_F(FeatureLevelGate, RuntimeImplementsFeatureLevel5) {
    EXPECT_EQ(runtime::kRuntimeFeatureLevel, 31);
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

TEST_F(FeatureLevelGate, AddOperationRefusesLaterOperations) {
    EXPECT_EQ(hal::operationFeatureLevel(hal::OperationType::RESIZE_NEAREST_NEIGHBOR), 29);
    EXPECT_EQ(hal::operationFeatureLevel(hal::OperationType::HARD_SWISH), 30);
    EXPECT_EQ(hal::operationFeatureLevel(hal::OperationType::PACK), 1000006);
    EXPECT_EQ(hal::operationFeatureLevel(hal::OperationType::REVERSE), 1000007);
    ASSERT_EQ(addOperand(ANEURALNETWORKS_TENSOR_FLOAT32, 0.0f, 0), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(addOperand(ANEURALNETWORKS_TENSOR_FLOAT32, 0.0f, 0), ANEURALNETWORKS_NO_ERROR);
    const uint32_t in[1] = {0}, out[1] = {1};
    const uint32_t packIn[2] = {0, 0};
    EXPECT_EQ(ANeuralNetworksModel_addOperation(model_, ANEURALNETWORKS_PACK, 2, packIn, 1, out),
              ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksModel_addOperation(model_, 106, 1, in, 1, out), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksModel_addOperation(model_, ANEURALNETWORKS_HARD_SWISH, 1, in, 1, out),
              ANEURALNETWORKS_NO_ERROR);
}

}  // namespace
}  // namespace nnemu
