// Feature levels per use (nnapi-fl30plus.md §2.4): an operation's level can depend on its operands
// (INT32 arithmetic, RESIZE flags, RESHAPE of int32, quantized RSQRT...). The signatures state it,
// and a runtime refuses a model with a later use than its level at Model_finish.
#include <android/NeuralNetworks.h>
#include <gtest/gtest.h>

#include <vector>

#include "FeatureLevel.h"
#include "ModelBuilder.h"
#include "SingleOperation.h"
#include "nnemu/hal/OperandTypes.h"

namespace nnemu {
namespace {

using hal::OperandType;
using hal::OperationType;
using testing::output;
using testing::scalar;
using testing::tensor;

int64_t useLevel(OperationType type, const std::vector<testing::TestOperand>& inputs,
                 const std::vector<testing::TestOperand>& outputs) {
    const hal::Model model = testing::singleOperationModel(type, inputs, outputs);
    const hal::OperationContext context = hal::makeOperationContext(
            model.operations[0], model.operands, [&](uint32_t i) { return hal::constantData(model, model.operands[i]); });
    return hal::operationUseFeatureLevel(context);
}

constexpr OperandType kF32 = OperandType::TENSOR_FLOAT32;
constexpr OperandType kI32 = OperandType::TENSOR_INT32;

TEST(UseFeatureLevel, DependsOnTheOperands) {
    const auto f = tensor<float>(kF32, {1}, {1});
    const auto i = tensor<int32_t>(kI32, {1}, {1});
    const auto none = scalar(OperandType::INT32, 0);
    EXPECT_EQ(useLevel(OperationType::ADD, {f, f, none}, {output(kF32, {1}, 4)}), 27);
    EXPECT_EQ(useLevel(OperationType::ADD, {i, i, none}, {output(kI32, {1}, 4)}), hal::kFeatureLevel30);
    EXPECT_EQ(useLevel(OperationType::DIV, {f, f, none}, {output(kF32, {1}, 4)}), 28);
    EXPECT_EQ(useLevel(OperationType::DIV, {i, i, none}, {output(kI32, {1}, 4)}), hal::kFeatureLevel30);
    EXPECT_EQ(useLevel(OperationType::ABS, {i}, {output(kI32, {1}, 4)}), hal::kFeatureLevel30);
    EXPECT_EQ(useLevel(OperationType::ABS, {f}, {output(kF32, {1}, 4)}), 29);
    const auto shape = tensor<int32_t>(kI32, {1}, {1}, false);
    EXPECT_EQ(useLevel(OperationType::RESHAPE, {f, shape}, {output(kF32, {1}, 4)}), 27);
    EXPECT_EQ(useLevel(OperationType::RESHAPE, {i, shape}, {output(kI32, {1}, 4)}), hal::kFeatureLevel6);
    const auto q = tensor<uint8_t>(OperandType::TENSOR_QUANT8_ASYMM, {1}, {1}, true, 1.0f, 0);
    EXPECT_EQ(useLevel(OperationType::RSQRT, {q}, {output(OperandType::TENSOR_QUANT8_ASYMM, {1}, 1, 1.0f, 0)}),
              hal::kFeatureLevel7);
    EXPECT_EQ(useLevel(OperationType::CAST, {i}, {output(kI32, {1}, 4)}), 29);
    const auto q16 = tensor<int16_t>(OperandType::TENSOR_QUANT16_SYMM, {1}, {1}, true, 1.0f, 0);
    EXPECT_EQ(useLevel(OperationType::CAST, {q16}, {output(OperandType::TENSOR_QUANT16_SYMM, {1}, 2, 1.0f, 0)}),
              hal::kFeatureLevel30);
    EXPECT_EQ(useLevel(OperationType::PACK, {scalar(OperandType::INT32, 0), f}, {output(kF32, {1, 1}, 4)}), hal::kFeatureLevel6);
    const auto image = tensor<float>(kF32, {1, 1, 1, 1}, {1});
    std::vector<testing::TestOperand> resize = {image, scalar(OperandType::INT32, 1), scalar(OperandType::INT32, 1),
                                                scalar(OperandType::BOOL, uint8_t{0})};
    EXPECT_EQ(useLevel(OperationType::RESIZE_BILINEAR, resize, {output(kF32, {1, 1, 1, 1}, 4)}), 29);
    resize.push_back(scalar(OperandType::BOOL, uint8_t{0}));
    EXPECT_EQ(useLevel(OperationType::RESIZE_BILINEAR, resize, {output(kF32, {1, 1, 1, 1}, 4)}), hal::kFeatureLevel30);
}

TEST(UseFeatureLevel, SequenceStateOutputs) {
    const auto f = [](std::vector<uint32_t> dims) {
        return tensor<float>(kF32, dims, std::vector<float>(hal::elementCount(dims), 0.0f));
    };
    const std::vector<testing::TestOperand> inputs = {f({2, 1, 3}), f({4, 3}), f({4, 4}), f({4}), f({1, 4}),
                                                      scalar(OperandType::INT32, 1), scalar(OperandType::INT32, 1)};
    EXPECT_EQ(useLevel(OperationType::UNIDIRECTIONAL_SEQUENCE_RNN, inputs, {output(kF32, {2, 1, 4}, 32)}), 29);
    EXPECT_EQ(useLevel(OperationType::UNIDIRECTIONAL_SEQUENCE_RNN, inputs,
                       {output(kF32, {2, 1, 4}, 32), output(kF32, {1, 4}, 16)}),
              hal::kFeatureLevel30);
}

// Through the C API with the runtime held at feature level 30 (ModelBuilder's test hook): its own
// uses finish, a later use (INT32 RESHAPE, FL6) makes the model BAD_DATA at finish.
class Fl30UseGate : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_EQ(ANeuralNetworksModel_create(&model_), ANEURALNETWORKS_NO_ERROR);
        reinterpret_cast<runtime::ModelBuilder*>(model_)->setRuntimeLevelForTesting(30);
    }
    void TearDown() override { ANeuralNetworksModel_free(model_); }

    uint32_t add(int32_t code, std::vector<uint32_t> dims) {
        const ANeuralNetworksOperandType type{code, static_cast<uint32_t>(dims.size()), dims.empty() ? nullptr : dims.data(),
                                              0.0f, 0};
        EXPECT_EQ(ANeuralNetworksModel_addOperand(model_, &type), ANEURALNETWORKS_NO_ERROR);
        return next_++;
    }
    template <typename T>
    uint32_t constant(int32_t code, T value) {
        const uint32_t index = add(code, {});
        EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model_, index, &value, sizeof value), ANEURALNETWORKS_NO_ERROR);
        return index;
    }
    int operation(int32_t type, std::vector<uint32_t> in, uint32_t out) {
        return ANeuralNetworksModel_addOperation(model_, type, static_cast<uint32_t>(in.size()), in.data(), 1, &out);
    }
    int finishReshape(int32_t code);
    int finish(uint32_t in, uint32_t out) {
        EXPECT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model_, 1, &in, 1, &out), ANEURALNETWORKS_NO_ERROR);
        return ANeuralNetworksModel_finish(model_);
    }

    ANeuralNetworksModel* model_ = nullptr;
    uint32_t next_ = 0;
};

TEST_F(Fl30UseGate, AcceptsItsOwnUses) {
    const uint32_t a = add(ANEURALNETWORKS_TENSOR_INT32, {2});
    const uint32_t fuse = constant(ANEURALNETWORKS_INT32, int32_t{0});
    const uint32_t sum = add(ANEURALNETWORKS_TENSOR_INT32, {2});
    const uint32_t quotient = add(ANEURALNETWORKS_TENSOR_INT32, {2});
    EXPECT_EQ(operation(ANEURALNETWORKS_ADD, {a, a, fuse}, sum), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(operation(ANEURALNETWORKS_DIV, {sum, a, fuse}, quotient), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(finish(a, quotient), ANEURALNETWORKS_NO_ERROR);
}

// RESHAPE of a 4-element tensor of `code` to the constant shape {4}: what finish returns.
int Fl30UseGate::finishReshape(int32_t code) {
    const uint32_t in = add(code, {4});
    const uint32_t shape = add(ANEURALNETWORKS_TENSOR_INT32, {1});
    const int32_t four = 4;
    EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model_, shape, &four, sizeof four), ANEURALNETWORKS_NO_ERROR);
    const uint32_t out = add(code, {4});
    EXPECT_EQ(operation(ANEURALNETWORKS_RESHAPE, {in, shape}, out), ANEURALNETWORKS_NO_ERROR);
    return finish(in, out);
}

TEST_F(Fl30UseGate, RefusesLaterUsesAtFinish) {
    EXPECT_EQ(finishReshape(ANEURALNETWORKS_TENSOR_INT32), ANEURALNETWORKS_BAD_DATA);  // FL6
}

TEST_F(Fl30UseGate, AFloatReshapeFinishes) {
    EXPECT_EQ(finishReshape(ANEURALNETWORKS_TENSOR_FLOAT32), ANEURALNETWORKS_NO_ERROR);
}

}  // namespace
}  // namespace nnemu
