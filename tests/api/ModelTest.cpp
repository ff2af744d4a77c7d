// ANeuralNetworksModel_*: null arguments, invalid operands and operations, frozen and invalid
// models, and how constant values are captured.
#include <android/NeuralNetworksExtensions.h>
#include <android/NeuralNetworksOEM.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "AddModel.h"

namespace nnemu::apitest {
namespace {

const std::vector<uint32_t> kDims2{2};

class ModelTest : public ::testing::Test {
protected:
    void SetUp() override {
        model_ = newModel();
        ASSERT_NE(model_, nullptr);
    }
    ANeuralNetworksModel* model() { return model_.get(); }
    int addOperand(const ANeuralNetworksOperandType& type) { return ANeuralNetworksModel_addOperand(model(), &type); }
    int addFloatTensor(const std::vector<uint32_t>& dims = kDims2) {
        return addOperand(tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, dims));
    }

    ModelPtr model_;
};

// Runs a finished ADD-shaped model (two [2] inputs, one [2] output) and returns the output.
std::vector<float> runTwoInputs(ANeuralNetworksModel* model, const std::vector<float>& a,
                                const std::vector<float>& b, size_t outputCount = 2) {
    CompilationPtr compilation = compile(model);
    if (compilation == nullptr) return {};
    ExecutionPtr execution = newExecution(compilation.get());
    std::vector<float> out(outputCount, -1.0f);
    EXPECT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 0, nullptr, a.data(), a.size() * sizeof(float)),
              ANEURALNETWORKS_NO_ERROR);
    if (!b.empty()) {
        EXPECT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 1, nullptr, b.data(), b.size() * sizeof(float)),
                  ANEURALNETWORKS_NO_ERROR);
    }
    EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution.get(), 0, nullptr, out.data(), out.size() * sizeof(float)),
              ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksExecution_compute(execution.get()), ANEURALNETWORKS_NO_ERROR);
    return out;
}

// ---- create / free / finish --------------------------------------------------------------------

TEST(ModelLifecycleTest, CreateRejectsNull) {
    EXPECT_EQ(ANeuralNetworksModel_create(nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
}

TEST(ModelLifecycleTest, FreeAcceptsNull) { ANeuralNetworksModel_free(nullptr); }

TEST(ModelLifecycleTest, FreeUnfinishedModel) {
    ModelPtr model = makeAddModel({.finish = false});
    ASSERT_NE(model, nullptr);
    model.reset();  // no finish needed before free
}

TEST(ModelLifecycleTest, FinishRejectsNull) {
    EXPECT_EQ(ANeuralNetworksModel_finish(nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
}

TEST_F(ModelTest, FinishTwiceIsBadState) {
    ASSERT_EQ(buildAddModel(model()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksModel_finish(model()), ANEURALNETWORKS_BAD_STATE);
}

TEST_F(ModelTest, FinishEmptyModelIsBadData) {
    EXPECT_EQ(ANeuralNetworksModel_finish(model()), ANEURALNETWORKS_BAD_DATA);
}

TEST_F(ModelTest, FinishWithoutOperationIsBadData) {
    ASSERT_EQ(addFloatTensor(), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(addFloatTensor(), ANEURALNETWORKS_NO_ERROR);
    const uint32_t in[] = {0}, out[] = {1};
    ASSERT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model(), 1, in, 1, out), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksModel_finish(model()), ANEURALNETWORKS_BAD_DATA);
}

// Everything that modifies a model is refused once it is finished.
TEST_F(ModelTest, FinishedModelIsFrozen) {
    ASSERT_EQ(buildAddModel(model()), ANEURALNETWORKS_NO_ERROR);
    const ANeuralNetworksOperandType tensor = tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, kDims2);
    EXPECT_EQ(ANeuralNetworksModel_addOperand(model(), &tensor), ANEURALNETWORKS_BAD_STATE);
    const int32_t none = ANEURALNETWORKS_FUSED_NONE;
    EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model(), kActivation, &none, sizeof(none)),
              ANEURALNETWORKS_BAD_STATE);
    const uint32_t inputs[] = {kInput0, kInput1, kActivation};
    const uint32_t outputs[] = {kOutput};
    EXPECT_EQ(ANeuralNetworksModel_addOperation(model(), ANEURALNETWORKS_ADD, 3, inputs, 1, outputs),
              ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model(), 2, inputs, 1, outputs),
              ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(ANeuralNetworksModel_relaxComputationFloat32toFloat16(model(), true), ANEURALNETWORKS_BAD_STATE);

    const Fd fd(makeSharedMemoryFd(64));
    ASSERT_GE(fd.get(), 0);
    MemoryPtr memory = memoryFromFd(fd.get(), 64);
    ASSERT_NE(memory, nullptr);
    EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromMemory(model(), kActivation, memory.get(), 0, sizeof(int32_t)),
              ANEURALNETWORKS_BAD_STATE);
}

TEST_F(ModelTest, SetPerChannelParamsAfterFinishIsBadState) {
    const std::vector<uint32_t> dims{2, 2};
    ASSERT_EQ(addOperand(tensorType(ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL, dims)), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(addOperand(tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, dims)), ANEURALNETWORKS_NO_ERROR);
    const float scales[] = {0.5f, 0.25f};
    const ANeuralNetworksSymmPerChannelQuantParams params{0, 2, scales};
    ASSERT_EQ(ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(model(), 0, &params), ANEURALNETWORKS_NO_ERROR);
    const uint32_t in[] = {0}, out[] = {1};
    ASSERT_EQ(ANeuralNetworksModel_addOperation(model(), ANEURALNETWORKS_DEQUANTIZE, 1, in, 1, out),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model(), 1, in, 1, out), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksModel_finish(model()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(model(), 0, &params),
              ANEURALNETWORKS_BAD_STATE);
}

// ---- addOperand --------------------------------------------------------------------------------

TEST_F(ModelTest, AddOperandRejectsNull) {
    const ANeuralNetworksOperandType tensor = tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, kDims2);
    EXPECT_EQ(ANeuralNetworksModel_addOperand(nullptr, &tensor), ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksModel_addOperand(model(), nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
}

TEST_F(ModelTest, AddOperandRejectsUnknownTypeCodes) {
    for (int32_t code : {-1, 14, 100, 9999, 10002, 0x10000, 0x10003}) {
        EXPECT_EQ(addOperand(scalarType(code)), ANEURALNETWORKS_BAD_DATA) << "scalar code " << code;
        EXPECT_EQ(addOperand(tensorType(code, kDims2)), ANEURALNETWORKS_BAD_DATA) << "tensor code " << code;
    }
}

TEST_F(ModelTest, AddOperandAcceptsEveryValidType) {
    EXPECT_EQ(addOperand(scalarType(ANEURALNETWORKS_FLOAT32)), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(addOperand(scalarType(ANEURALNETWORKS_INT32)), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(addOperand(scalarType(ANEURALNETWORKS_UINT32)), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(addOperand(scalarType(ANEURALNETWORKS_BOOL)), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(addOperand(scalarType(ANEURALNETWORKS_FLOAT16)), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(addOperand(tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, kDims2)), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(addOperand(tensorType(ANEURALNETWORKS_TENSOR_INT32, kDims2)), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(addOperand(tensorType(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, kDims2, 0.5f, 255)), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(addOperand(tensorType(ANEURALNETWORKS_TENSOR_QUANT16_SYMM, kDims2, 0.5f, 0)), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(addOperand(tensorType(ANEURALNETWORKS_TENSOR_FLOAT16, kDims2)), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(addOperand(tensorType(ANEURALNETWORKS_TENSOR_BOOL8, kDims2)), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(addOperand(tensorType(ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL, kDims2)), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(addOperand(tensorType(ANEURALNETWORKS_TENSOR_QUANT16_ASYMM, kDims2, 0.5f, 65535)),
              ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(addOperand(tensorType(ANEURALNETWORKS_TENSOR_QUANT8_SYMM, kDims2, 0.5f, 0)), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(addOperand(scalarType(ANEURALNETWORKS_OEM_SCALAR)), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(addOperand(tensorType(ANEURALNETWORKS_TENSOR_OEM_BYTE, kDims2)), ANEURALNETWORKS_NO_ERROR);
}

TEST_F(ModelTest, AddOperandAcceptsUnknownDimsAndRank) {
    EXPECT_EQ(addFloatTensor({0}), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(addFloatTensor({3, 0, 2}), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(addFloatTensor({}), ANEURALNETWORKS_NO_ERROR);  // unknown rank (API 29)
}

TEST_F(ModelTest, AddOperandRejectsScalarWithDimensions) {
    const uint32_t dims[] = {1};
    const ANeuralNetworksOperandType scalar{ANEURALNETWORKS_INT32, 1, dims, 0.0f, 0};
    EXPECT_EQ(addOperand(scalar), ANEURALNETWORKS_BAD_DATA);
}

TEST_F(ModelTest, AddOperandRejectsDimensionCountWithoutDimensions) {
    const ANeuralNetworksOperandType tensor{ANEURALNETWORKS_TENSOR_FLOAT32, 2, nullptr, 0.0f, 0};
    EXPECT_EQ(addOperand(tensor), ANEURALNETWORKS_BAD_DATA);
}

// An array with a zero count is as inconsistent as a count without an array: BAD_DATA (a bad
// value of the struct, not a null argument), for tensors and scalars alike.
TEST_F(ModelTest, AddOperandRejectsDimensionsWithoutDimensionCount) {
    const uint32_t dims[] = {2};
    const ANeuralNetworksOperandType tensor{ANEURALNETWORKS_TENSOR_FLOAT32, 0, dims, 0.0f, 0};
    const ANeuralNetworksOperandType scalar{ANEURALNETWORKS_INT32, 0, dims, 0.0f, 0};
    EXPECT_EQ(addOperand(tensor), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(addOperand(scalar), ANEURALNETWORKS_BAD_DATA);
}

TEST_F(ModelTest, AddOperandRejectsBadQuantizationParameters) {
    // Non-quantized types need scale 0 and zeroPoint 0.
    EXPECT_EQ(addOperand(tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, kDims2, 1.0f, 0)), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(addOperand(tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, kDims2, 0.0f, 1)), ANEURALNETWORKS_BAD_DATA);
    ANeuralNetworksOperandType scalar = scalarType(ANEURALNETWORKS_FLOAT32);
    scalar.scale = 0.5f;
    EXPECT_EQ(addOperand(scalar), ANEURALNETWORKS_BAD_DATA);
    scalar = scalarType(ANEURALNETWORKS_INT32);
    scalar.zeroPoint = 3;
    EXPECT_EQ(addOperand(scalar), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(addOperand(tensorType(ANEURALNETWORKS_TENSOR_BOOL8, kDims2, 1.0f, 0)), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(addOperand(tensorType(ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL, kDims2, 1.0f, 0)),
              ANEURALNETWORKS_BAD_DATA);
    // QUANT8_ASYMM: scale > 0, zeroPoint in [0, 255].
    EXPECT_EQ(addOperand(tensorType(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, kDims2, 0.0f, 0)), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(addOperand(tensorType(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, kDims2, -1.0f, 0)), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(addOperand(tensorType(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, kDims2, 1.0f, 256)), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(addOperand(tensorType(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, kDims2, 1.0f, -1)), ANEURALNETWORKS_BAD_DATA);
    // Symmetric types: scale > 0, zeroPoint 0.
    EXPECT_EQ(addOperand(tensorType(ANEURALNETWORKS_TENSOR_QUANT8_SYMM, kDims2, 1.0f, 1)), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(addOperand(tensorType(ANEURALNETWORKS_TENSOR_QUANT8_SYMM, kDims2, 0.0f, 0)), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(addOperand(tensorType(ANEURALNETWORKS_TENSOR_QUANT16_SYMM, kDims2, 1.0f, 1)), ANEURALNETWORKS_BAD_DATA);
    // QUANT16_ASYMM: zeroPoint in [0, 65535].
    EXPECT_EQ(addOperand(tensorType(ANEURALNETWORKS_TENSOR_QUANT16_ASYMM, kDims2, 1.0f, 65536)),
              ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(addOperand(tensorType(ANEURALNETWORKS_TENSOR_QUANT16_ASYMM, kDims2, 0.0f, 0)), ANEURALNETWORKS_BAD_DATA);
    // TENSOR_INT32: scale >= 0 and zeroPoint 0.
    EXPECT_EQ(addOperand(tensorType(ANEURALNETWORKS_TENSOR_INT32, kDims2, -1.0f, 0)), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(addOperand(tensorType(ANEURALNETWORKS_TENSOR_INT32, kDims2, 0.5f, 0)), ANEURALNETWORKS_NO_ERROR);
}

// Failed calls add nothing: the indexes of later operands are unaffected.
TEST_F(ModelTest, RejectedOperandTakesNoIndex) {
    ASSERT_EQ(addOperand(scalarType(-1)), ANEURALNETWORKS_BAD_DATA);
    ASSERT_EQ(buildAddModel(model()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(runTwoInputs(model(), {1, 2}, {3, 4}), (std::vector<float>{4, 6}));
}

// ---- setOperandValue ---------------------------------------------------------------------------

TEST_F(ModelTest, SetOperandValueRejectsNull) {
    ASSERT_EQ(addOperand(scalarType(ANEURALNETWORKS_INT32)), ANEURALNETWORKS_NO_ERROR);
    const int32_t value = 0;
    EXPECT_EQ(ANeuralNetworksModel_setOperandValue(nullptr, 0, &value, sizeof(value)),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model(), 0, nullptr, sizeof(value)),
              ANEURALNETWORKS_UNEXPECTED_NULL);
}

TEST_F(ModelTest, SetOperandValueRejectsBadIndex) {
    ASSERT_EQ(addOperand(scalarType(ANEURALNETWORKS_INT32)), ANEURALNETWORKS_NO_ERROR);
    const int32_t value = 0;
    EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model(), -1, &value, sizeof(value)), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model(), 1, &value, sizeof(value)), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model(), 0, &value, sizeof(value)), ANEURALNETWORKS_NO_ERROR);
}

TEST_F(ModelTest, SetOperandValueRejectsWrongLength) {
    ASSERT_EQ(addOperand(scalarType(ANEURALNETWORKS_INT32)), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(addFloatTensor({3}), ANEURALNETWORKS_NO_ERROR);
    const float values[64] = {};
    EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model(), 0, values, 2), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model(), 0, values, 8), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model(), 1, values, 2 * sizeof(float)), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model(), 1, values, 4 * sizeof(float)), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model(), 1, values, sizeof(values)), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model(), 1, values, 3 * sizeof(float)), ANEURALNETWORKS_NO_ERROR);
}

TEST_F(ModelTest, SetOperandValueRejectsLengthAbove32Bits) {
    ASSERT_EQ(addFloatTensor(), ANEURALNETWORKS_NO_ERROR);
    const float values[2] = {};
    EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model(), 0, values, size_t{1} << 33), ANEURALNETWORKS_BAD_DATA);
}

// The size of an OEM scalar is unknown to the runtime: any length is accepted.
TEST_F(ModelTest, SetOperandValueOfOemScalarTakesAnyLength) {
    ASSERT_EQ(addOperand(scalarType(ANEURALNETWORKS_OEM_SCALAR)), ANEURALNETWORKS_NO_ERROR);
    const uint8_t bytes[3] = {1, 2, 3};
    EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model(), 0, bytes, sizeof(bytes)), ANEURALNETWORKS_NO_ERROR);
}

TEST_F(ModelTest, SetOperandValueRejectsPartialShapes) {
    ASSERT_EQ(addFloatTensor({0}), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(addFloatTensor({}), ANEURALNETWORKS_NO_ERROR);
    const float values[2] = {};
    EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model(), 0, values, sizeof(values)), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model(), 1, values, sizeof(values)), ANEURALNETWORKS_BAD_DATA);
}

TEST_F(ModelTest, SetOperandValueNullAndZeroMarksOmittedOperand) {
    ASSERT_EQ(addFloatTensor(), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model(), 0, nullptr, 0), ANEURALNETWORKS_NO_ERROR);
}

// Values of at most 128 bytes are copied by the call itself.
TEST_F(ModelTest, SmallConstantIsCopiedImmediately) {
    std::vector<float> constant{100.0f, 200.0f};  // 8 bytes
    ASSERT_EQ(addFloatTensor(), ANEURALNETWORKS_NO_ERROR);  // 0: input
    ASSERT_EQ(addFloatTensor(), ANEURALNETWORKS_NO_ERROR);  // 1: constant
    ASSERT_EQ(addOperand(scalarType(ANEURALNETWORKS_INT32)), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(addFloatTensor(), ANEURALNETWORKS_NO_ERROR);  // 3: output
    const int32_t none = ANEURALNETWORKS_FUSED_NONE;
    ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model(), 2, &none, sizeof(none)), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model(), 1, constant.data(), 2 * sizeof(float)),
              ANEURALNETWORKS_NO_ERROR);
    constant = {-5.0f, -5.0f};
    const uint32_t in[] = {0, 1, 2}, out[] = {3};
    ASSERT_EQ(ANeuralNetworksModel_addOperation(model(), ANEURALNETWORKS_ADD, 3, in, 1, out), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model(), 1, in, 1, out), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksModel_finish(model()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(runTwoInputs(model(), {1, 2}, {}), (std::vector<float>{101, 202}));
}

// Values above 128 bytes are referenced until finish: the buffer's content at finish counts, and
// changes after finish do not reach the model.
TEST_F(ModelTest, LargeConstantIsReadAtFinish) {
    constexpr uint32_t kCount = 40;  // 160 bytes
    static_assert(kCount * sizeof(float) > ANEURALNETWORKS_MAX_SIZE_OF_IMMEDIATELY_COPIED_VALUES);
    std::vector<float> constant(kCount, 1.0f);
    const std::vector<uint32_t> dims{kCount};
    ASSERT_EQ(addFloatTensor(dims), ANEURALNETWORKS_NO_ERROR);  // 0: input
    ASSERT_EQ(addFloatTensor(dims), ANEURALNETWORKS_NO_ERROR);  // 1: constant
    ASSERT_EQ(addOperand(scalarType(ANEURALNETWORKS_INT32)), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(addFloatTensor(dims), ANEURALNETWORKS_NO_ERROR);  // 3: output
    const int32_t none = ANEURALNETWORKS_FUSED_NONE;
    ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model(), 2, &none, sizeof(none)), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model(), 1, constant.data(), kCount * sizeof(float)),
              ANEURALNETWORKS_NO_ERROR);
    const uint32_t in[] = {0, 1, 2}, out[] = {3};
    ASSERT_EQ(ANeuralNetworksModel_addOperation(model(), ANEURALNETWORKS_ADD, 3, in, 1, out), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model(), 1, in, 1, out), ANEURALNETWORKS_NO_ERROR);
    for (uint32_t i = 0; i < kCount; ++i) constant[i] = static_cast<float>(i) * 10.0f;  // before finish
    ASSERT_EQ(ANeuralNetworksModel_finish(model()), ANEURALNETWORKS_NO_ERROR);
    std::fill(constant.begin(), constant.end(), -1000.0f);  // after finish

    std::vector<float> input(kCount);
    for (uint32_t i = 0; i < kCount; ++i) input[i] = static_cast<float>(i);
    const std::vector<float> output = runTwoInputs(model(), input, {}, kCount);
    ASSERT_EQ(output.size(), kCount);
    for (uint32_t i = 0; i < kCount; ++i) EXPECT_EQ(output[i], static_cast<float>(i) * 11.0f) << "element " << i;
}

// ---- setOperandValueFromMemory (argument checks; runs are in MemoryTest) -----------------------

TEST_F(ModelTest, SetOperandValueFromMemoryRejectsBadArguments) {
    ASSERT_EQ(addFloatTensor(), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(addFloatTensor({0}), ANEURALNETWORKS_NO_ERROR);
    const Fd fd(makeSharedMemoryFd(16));
    ASSERT_GE(fd.get(), 0);
    MemoryPtr memory = memoryFromFd(fd.get(), 16);
    ASSERT_NE(memory, nullptr);
    EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromMemory(nullptr, 0, memory.get(), 0, 8),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromMemory(model(), 0, nullptr, 0, 8),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromMemory(model(), -1, memory.get(), 0, 8),
              ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromMemory(model(), 2, memory.get(), 0, 8),
              ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromMemory(model(), 0, memory.get(), 0, 4),
              ANEURALNETWORKS_BAD_DATA);  // length is not the operand's size
    EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromMemory(model(), 1, memory.get(), 0, 8),
              ANEURALNETWORKS_BAD_DATA);  // not fully specified
    EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromMemory(model(), 0, memory.get(), 12, 8),
              ANEURALNETWORKS_BAD_DATA);  // past the end
    EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromMemory(model(), 0, memory.get(), 16, 8),
              ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromMemory(model(), 0, memory.get(), SIZE_MAX - 3, 8),
              ANEURALNETWORKS_BAD_DATA);  // offset + length wraps around
    EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromMemory(model(), 0, memory.get(), 8, 8), ANEURALNETWORKS_NO_ERROR);
}

// ---- setOperandSymmPerChannelQuantParams -------------------------------------------------------

class PerChannelTest : public ModelTest {
protected:
    void SetUp() override {
        ModelTest::SetUp();
        ASSERT_EQ(addOperand(tensorType(ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL, {3, 2})),
                  ANEURALNETWORKS_NO_ERROR);  // 0
        ASSERT_EQ(addOperand(tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, {3, 2})), ANEURALNETWORKS_NO_ERROR);  // 1
        ASSERT_EQ(addOperand(tensorType(ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL, {0, 2})),
                  ANEURALNETWORKS_NO_ERROR);  // 2
    }
    int set(int32_t index, uint32_t channelDim, uint32_t scaleCount, const float* scales) {
        const ANeuralNetworksSymmPerChannelQuantParams params{channelDim, scaleCount, scales};
        return ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(model(), index, &params);
    }
    const float scales_[3] = {0.5f, 1.0f, 2.0f};
};

TEST_F(PerChannelTest, RejectsNull) {
    const ANeuralNetworksSymmPerChannelQuantParams params{0, 3, scales_};
    EXPECT_EQ(ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(nullptr, 0, &params),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(model(), 0, nullptr),
              ANEURALNETWORKS_UNEXPECTED_NULL);
}

TEST_F(PerChannelTest, RejectsBadIndexAndType) {
    EXPECT_EQ(set(-1, 0, 3, scales_), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(set(3, 0, 3, scales_), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(set(1, 0, 3, scales_), ANEURALNETWORKS_BAD_DATA);  // a float tensor
}

TEST_F(PerChannelTest, RejectsParametersThatDoNotMatchTheShape) {
    EXPECT_EQ(set(0, 2, 3, scales_), ANEURALNETWORKS_BAD_DATA);  // channelDim >= rank
    EXPECT_EQ(set(0, 0, 2, scales_), ANEURALNETWORKS_BAD_DATA);  // scaleCount != dims[0]
    EXPECT_EQ(set(0, 1, 3, scales_), ANEURALNETWORKS_BAD_DATA);  // scaleCount != dims[1]
    EXPECT_EQ(set(2, 0, 0, scales_), ANEURALNETWORKS_BAD_DATA);  // dims[channelDim] == 0
}

TEST_F(PerChannelTest, RejectsNonPositiveScales) {
    const float zero[3] = {0.5f, 0.0f, 2.0f};
    const float negative[3] = {0.5f, 1.0f, -2.0f};
    EXPECT_EQ(set(0, 0, 3, zero), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(set(0, 0, 3, negative), ANEURALNETWORKS_BAD_DATA);
}

// As in Android, a null scales array is a bad value of the parameters, not a null argument.
TEST_F(PerChannelTest, NullScalesAreBadData) {
    EXPECT_EQ(set(0, 0, 3, nullptr), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(set(2, 0, 0, nullptr), ANEURALNETWORKS_BAD_DATA);
}

TEST_F(PerChannelTest, AcceptsMatchingParameters) {
    EXPECT_EQ(set(0, 0, 3, scales_), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(set(0, 1, 2, scales_), ANEURALNETWORKS_NO_ERROR);
}

// The runtime keeps its own copy of the scales (the application may reuse or free its array
// right after the call), and a compilation keeps the finished model it shares alive after the
// application freed its handle: every scale still reaches the device bit for bit.
TEST(PerChannelScalesTest, ArriveExactlyAfterTheApplicationsArrayAndModelAreGone) {
    const float expected[3] = {0.1f, 3.0e-7f, 1234.5f};
    for (const ANeuralNetworksDevice* device : {referenceDevice(), findDevice("synap-npu")}) {
        if (device == nullptr) continue;
        ANeuralNetworksModel* raw = nullptr;
        ASSERT_EQ(ANeuralNetworksModel_create(&raw), ANEURALNETWORKS_NO_ERROR);
        ModelPtr model(raw);
        const uint32_t dims[] = {3, 2};
        const ANeuralNetworksOperandType input{ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL, 2, dims, 0.0f, 0};
        const ANeuralNetworksOperandType output{ANEURALNETWORKS_TENSOR_FLOAT32, 2, dims, 0.0f, 0};
        ASSERT_EQ(ANeuralNetworksModel_addOperand(raw, &input), ANEURALNETWORKS_NO_ERROR);
        ASSERT_EQ(ANeuralNetworksModel_addOperand(raw, &output), ANEURALNETWORKS_NO_ERROR);
        auto scales = std::make_unique<float[]>(3);
        std::copy(expected, expected + 3, scales.get());
        const ANeuralNetworksSymmPerChannelQuantParams params{0, 3, scales.get()};
        ASSERT_EQ(ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(raw, 0, &params), ANEURALNETWORKS_NO_ERROR);
        std::fill(scales.get(), scales.get() + 3, -1.0f);
        scales.reset();
        const uint32_t in[] = {0}, out[] = {1};
        ASSERT_EQ(ANeuralNetworksModel_addOperation(raw, ANEURALNETWORKS_DEQUANTIZE, 1, in, 1, out),
                  ANEURALNETWORKS_NO_ERROR);
        ASSERT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(raw, 1, in, 1, out), ANEURALNETWORKS_NO_ERROR);
        ASSERT_EQ(ANeuralNetworksModel_finish(raw), ANEURALNETWORKS_NO_ERROR);
        bool supported = false;
        ASSERT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(raw, &device, 1, &supported),
                  ANEURALNETWORKS_NO_ERROR);
        if (!supported) {  // the NPU may leave a per-channel DEQUANTIZE to the CPU
            EXPECT_NE(device, referenceDevice());
            continue;
        }
        CompilationPtr compilation = compileFor(raw, {device});
        ASSERT_NE(compilation, nullptr);
        model.reset();
        ExecutionPtr execution = newExecution(compilation.get());
        ASSERT_NE(execution, nullptr);
        const int8_t values[6] = {-127, -1, 0, 1, 5, 127};
        float result[6] = {};
        ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 0, nullptr, values, sizeof(values)),
                  ANEURALNETWORKS_NO_ERROR);
        ASSERT_EQ(ANeuralNetworksExecution_setOutput(execution.get(), 0, nullptr, result, sizeof(result)),
                  ANEURALNETWORKS_NO_ERROR);
        ASSERT_EQ(ANeuralNetworksExecution_compute(execution.get()), ANEURALNETWORKS_NO_ERROR);
        for (size_t i = 0; i < 6; ++i) EXPECT_EQ(result[i], static_cast<float>(values[i]) * expected[i / 2]) << i;
    }
}

// A per-channel operand without its parameters makes the model invalid at finish.
TEST_F(ModelTest, PerChannelOperandWithoutParametersFailsFinish) {
    const std::vector<uint32_t> dims{2, 2};
    ASSERT_EQ(addOperand(tensorType(ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL, dims)), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(addOperand(tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, dims)), ANEURALNETWORKS_NO_ERROR);
    const uint32_t in[] = {0}, out[] = {1};
    const int added = ANeuralNetworksModel_addOperation(model(), ANEURALNETWORKS_DEQUANTIZE, 1, in, 1, out);
    if (added == ANEURALNETWORKS_NO_ERROR) {
        ASSERT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model(), 1, in, 1, out), ANEURALNETWORKS_NO_ERROR);
        EXPECT_EQ(ANeuralNetworksModel_finish(model()), ANEURALNETWORKS_BAD_DATA);
    } else {
        EXPECT_EQ(added, ANEURALNETWORKS_BAD_DATA);
    }
}

// ---- addOperation ------------------------------------------------------------------------------

class AddOperationTest : public ModelTest {
protected:
    void SetUp() override {
        ModelTest::SetUp();
        ASSERT_EQ(addFloatTensor(), ANEURALNETWORKS_NO_ERROR);                        // 0
        ASSERT_EQ(addFloatTensor(), ANEURALNETWORKS_NO_ERROR);                        // 1
        ASSERT_EQ(addOperand(scalarType(ANEURALNETWORKS_INT32)), ANEURALNETWORKS_NO_ERROR);  // 2
        ASSERT_EQ(addFloatTensor(), ANEURALNETWORKS_NO_ERROR);                        // 3
        ASSERT_EQ(addOperand(tensorType(ANEURALNETWORKS_TENSOR_INT32, kDims2)), ANEURALNETWORKS_NO_ERROR);  // 4
        ASSERT_EQ(addOperand(tensorType(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, kDims2, 0.5f, 0)),
                  ANEURALNETWORKS_NO_ERROR);  // 5
        const int32_t none = ANEURALNETWORKS_FUSED_NONE;
        ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model(), 2, &none, sizeof(none)), ANEURALNETWORKS_NO_ERROR);
    }
    int add(int32_t type, std::vector<uint32_t> in, std::vector<uint32_t> out) {
        return ANeuralNetworksModel_addOperation(model(), type, static_cast<uint32_t>(in.size()), listOf(in),
                                                 static_cast<uint32_t>(out.size()), listOf(out));
    }
};

TEST_F(AddOperationTest, RejectsNull) {
    const uint32_t in[] = {0, 1, 2}, out[] = {3};
    EXPECT_EQ(ANeuralNetworksModel_addOperation(nullptr, ANEURALNETWORKS_ADD, 3, in, 1, out),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksModel_addOperation(model(), ANEURALNETWORKS_ADD, 3, nullptr, 1, out),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksModel_addOperation(model(), ANEURALNETWORKS_ADD, 3, in, 1, nullptr),
              ANEURALNETWORKS_UNEXPECTED_NULL);
}

// A null list is refused even when its count is zero.
TEST_F(AddOperationTest, NullListWithZeroCountIsUnexpectedNull) {
    const uint32_t in[] = {0, 1, 2}, out[] = {3};
    EXPECT_EQ(ANeuralNetworksModel_addOperation(model(), ANEURALNETWORKS_ADD, 0, nullptr, 1, out),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksModel_addOperation(model(), ANEURALNETWORKS_ADD, 3, in, 0, nullptr),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksModel_addOperation(model(), ANEURALNETWORKS_OEM_OPERATION, 0, nullptr, 0, nullptr),
              ANEURALNETWORKS_UNEXPECTED_NULL);
}

// The null list is refused before the counts and the operation code are looked at.
TEST_F(AddOperationTest, NullListBeforeCountsAndCode) {
    const uint32_t in[] = {0, 1, 2}, out[] = {3};
    EXPECT_EQ(ANeuralNetworksModel_addOperation(model(), ANEURALNETWORKS_ADD, 0xFFFFFFFFu, nullptr, 1, out),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksModel_addOperation(model(), ANEURALNETWORKS_ADD, 3, in, 7, nullptr),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksModel_addOperation(model(), -1, 3, nullptr, 1, out), ANEURALNETWORKS_UNEXPECTED_NULL);
}

TEST_F(AddOperationTest, RejectsUnknownOperationCodes) {
    for (int32_t code : {-1, 95, 1000, 9999, 10001, 0x10000}) {
        EXPECT_EQ(add(code, {0, 1, 2}, {3}), ANEURALNETWORKS_BAD_DATA) << "operation code " << code;
    }
}

TEST_F(AddOperationTest, RejectsOperandIndexOutOfRange) {
    EXPECT_EQ(add(ANEURALNETWORKS_ADD, {0, 6, 2}, {3}), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(add(ANEURALNETWORKS_ADD, {0, 1, 2}, {6}), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(add(ANEURALNETWORKS_ADD, {0, 1, 0xFFFFFFFFu}, {3}), ANEURALNETWORKS_BAD_DATA);
}

TEST_F(AddOperationTest, RejectsWrongOperandCounts) {
    EXPECT_EQ(add(ANEURALNETWORKS_ADD, {0, 1}, {3}), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(add(ANEURALNETWORKS_ADD, {0, 1, 2, 2}, {3}), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(add(ANEURALNETWORKS_ADD, {0, 1, 2}, {}), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(add(ANEURALNETWORKS_ADD, {0, 1, 2}, {3, 1}), ANEURALNETWORKS_BAD_DATA);
}

TEST_F(AddOperationTest, RejectsWrongOperandTypes) {
    EXPECT_EQ(add(ANEURALNETWORKS_ADD, {0, 4, 2}, {3}), ANEURALNETWORKS_BAD_DATA);  // mixed float / int32
    EXPECT_EQ(add(ANEURALNETWORKS_ADD, {0, 5, 2}, {3}), ANEURALNETWORKS_BAD_DATA);  // mixed float / quant8
    EXPECT_EQ(add(ANEURALNETWORKS_ADD, {0, 1, 0}, {3}), ANEURALNETWORKS_BAD_DATA);  // activation not INT32
    EXPECT_EQ(add(ANEURALNETWORKS_ADD, {0, 1, 2}, {5}), ANEURALNETWORKS_BAD_DATA);  // output type differs
}

TEST_F(AddOperationTest, AcceptsAValidOperation) {
    EXPECT_EQ(add(ANEURALNETWORKS_ADD, {0, 1, 2}, {3}), ANEURALNETWORKS_NO_ERROR);
}

// ---- identifyInputsAndOutputs ------------------------------------------------------------------

class IdentifyTest : public ModelTest {
protected:
    void SetUp() override {
        ModelTest::SetUp();
        // The ADD model without its inputs and outputs.
        ASSERT_EQ(addFloatTensor(), ANEURALNETWORKS_NO_ERROR);
        ASSERT_EQ(addFloatTensor(), ANEURALNETWORKS_NO_ERROR);
        ASSERT_EQ(addOperand(scalarType(ANEURALNETWORKS_INT32)), ANEURALNETWORKS_NO_ERROR);
        ASSERT_EQ(addFloatTensor(), ANEURALNETWORKS_NO_ERROR);
        const int32_t none = ANEURALNETWORKS_FUSED_NONE;
        ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model(), kActivation, &none, sizeof(none)),
                  ANEURALNETWORKS_NO_ERROR);
        const uint32_t in[] = {kInput0, kInput1, kActivation}, out[] = {kOutput};
        ASSERT_EQ(ANeuralNetworksModel_addOperation(model(), ANEURALNETWORKS_ADD, 3, in, 1, out),
                  ANEURALNETWORKS_NO_ERROR);
    }
    int identify(std::vector<uint32_t> in, std::vector<uint32_t> out) {
        return ANeuralNetworksModel_identifyInputsAndOutputs(model(), static_cast<uint32_t>(in.size()), listOf(in),
                                                             static_cast<uint32_t>(out.size()), listOf(out));
    }
};

TEST_F(IdentifyTest, RejectsNull) {
    const uint32_t in[] = {kInput0, kInput1}, out[] = {kOutput};
    EXPECT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(nullptr, 2, in, 1, out), ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model(), 2, nullptr, 1, out),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model(), 2, in, 1, nullptr),
              ANEURALNETWORKS_UNEXPECTED_NULL);
}

// A null list is refused even when its count is zero.
TEST_F(IdentifyTest, NullListWithZeroCountIsUnexpectedNull) {
    const uint32_t in[] = {kInput0, kInput1}, out[] = {kOutput};
    EXPECT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model(), 0, nullptr, 1, out),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model(), 2, in, 0, nullptr),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    // Nothing was declared by the refused calls.
    EXPECT_EQ(identify({kInput0, kInput1}, {kOutput}), ANEURALNETWORKS_NO_ERROR);
}

// The null list is refused before the counts are looked at.
TEST_F(IdentifyTest, NullListBeforeCounts) {
    const uint32_t out[] = {kOutput};
    EXPECT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model(), 0xFFFFFFFFu, nullptr, 1, out),
              ANEURALNETWORKS_UNEXPECTED_NULL);
}

TEST_F(IdentifyTest, RejectsIndexOutOfRange) {
    EXPECT_EQ(identify({kInput0, 4}, {kOutput}), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(identify({kInput0, kInput1}, {17}), ANEURALNETWORKS_BAD_DATA);
}

TEST_F(IdentifyTest, RejectsConstants) {
    EXPECT_EQ(identify({kInput0, kInput1, kActivation}, {kOutput}), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(identify({kInput0, kInput1}, {kActivation}), ANEURALNETWORKS_BAD_DATA);
}

TEST_F(IdentifyTest, RejectsRepeatedOperands) {
    EXPECT_EQ(identify({kInput0, kInput0}, {kOutput}), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(identify({kInput0, kInput1}, {kOutput, kOutput}), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(identify({kInput0, kInput1}, {kInput0}), ANEURALNETWORKS_BAD_DATA);  // both input and output
}

// A refused declaration changes nothing: the earlier one still holds.
TEST_F(IdentifyTest, RefusedSecondDeclarationKeepsTheFirst) {
    ASSERT_EQ(identify({kInput0, kInput1}, {kOutput}), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(identify({kInput0, kInput1}, {kOutput}), ANEURALNETWORKS_BAD_DATA);  // already inputs/outputs
    ASSERT_EQ(ANeuralNetworksModel_finish(model()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(runTwoInputs(model(), {1, 2}, {3, 4}), (std::vector<float>{4, 6}));
}

// A declaration refused at its outputs leaves its inputs as they were (not inputs).
TEST_F(IdentifyTest, RefusedAtOutputsReleasesItsInputs) {
    EXPECT_EQ(identify({kInput0, kInput1}, {kOutput, 9}), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(identify({kInput1, kInput0}, {kInput0}), ANEURALNETWORKS_BAD_DATA);
    ASSERT_EQ(identify({kInput0, kInput1}, {kOutput}), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksModel_finish(model()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(runTwoInputs(model(), {1, 2}, {3, 4}), (std::vector<float>{4, 6}));
}

// A second declaration that drops operands the first one declared leaves an inconsistent model,
// whatever the second call answers.
TEST_F(IdentifyTest, DeclarationDroppingEarlierOperandsFailsFinish) {
    ASSERT_EQ(identify({kInput0, kInput1}, {kOutput}), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(addFloatTensor(), ANEURALNETWORKS_NO_ERROR);  // 4
    const int second = identify({4}, {});
    EXPECT_TRUE(second == ANEURALNETWORKS_NO_ERROR || second == ANEURALNETWORKS_BAD_DATA) << second;
    EXPECT_EQ(ANeuralNetworksModel_finish(model()), ANEURALNETWORKS_BAD_DATA);
}

TEST_F(IdentifyTest, AcceptsAValidDeclaration) {
    EXPECT_EQ(identify({kInput0, kInput1}, {kOutput}), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksModel_finish(model()), ANEURALNETWORKS_NO_ERROR);
}

// The order of the declared inputs defines the execution positions.
TEST_F(ModelTest, InputOrderDefinesPositions) {
    ASSERT_EQ(addFloatTensor({2}), ANEURALNETWORKS_NO_ERROR);  // 0: [2]
    ASSERT_EQ(addFloatTensor({1}), ANEURALNETWORKS_NO_ERROR);  // 1: [1], broadcast
    ASSERT_EQ(addOperand(scalarType(ANEURALNETWORKS_INT32)), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(addFloatTensor({2}), ANEURALNETWORKS_NO_ERROR);  // 3
    const int32_t none = ANEURALNETWORKS_FUSED_NONE;
    ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model(), 2, &none, sizeof(none)), ANEURALNETWORKS_NO_ERROR);
    const uint32_t opIn[] = {0, 1, 2}, out[] = {3};
    ASSERT_EQ(ANeuralNetworksModel_addOperation(model(), ANEURALNETWORKS_ADD, 3, opIn, 1, out),
              ANEURALNETWORKS_NO_ERROR);
    const uint32_t in[] = {1, 0};
    ASSERT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model(), 2, in, 1, out), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksModel_finish(model()), ANEURALNETWORKS_NO_ERROR);
    CompilationPtr compilation = compile(model());
    ASSERT_NE(compilation, nullptr);
    ExecutionPtr execution = newExecution(compilation.get());
    const float one[1] = {100.0f};
    const float two[2] = {1.0f, 2.0f};
    float result[2] = {};
    EXPECT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 0, nullptr, two, sizeof(two)),
              ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 1, nullptr, one, sizeof(one)),
              ANEURALNETWORKS_BAD_DATA);
    ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 0, nullptr, one, sizeof(one)),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 1, nullptr, two, sizeof(two)),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setOutput(execution.get(), 0, nullptr, result, sizeof(result)),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_compute(execution.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(result[0], 101.0f);
    EXPECT_EQ(result[1], 102.0f);
}

// ---- relaxComputationFloat32toFloat16 ----------------------------------------------------------

TEST_F(ModelTest, RelaxComputation) {
    EXPECT_EQ(ANeuralNetworksModel_relaxComputationFloat32toFloat16(nullptr, true), ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksModel_relaxComputationFloat32toFloat16(model(), true), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(buildAddModel(model()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(runTwoInputs(model(), {1, 2}, {3, 4}), (std::vector<float>{4, 6}));
}

// ---- Invalid models ----------------------------------------------------------------------------

// Checks that a model whose finish failed stays invalid for every later call.
void expectPermanentlyInvalid(ANeuralNetworksModel* model) {
    EXPECT_EQ(ANeuralNetworksModel_finish(model), ANEURALNETWORKS_BAD_STATE);
    const ANeuralNetworksOperandType tensor = tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, kDims2);
    EXPECT_EQ(ANeuralNetworksModel_addOperand(model, &tensor), ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(ANeuralNetworksModel_relaxComputationFloat32toFloat16(model, false), ANEURALNETWORKS_BAD_STATE);
    ANeuralNetworksCompilation* compilation = nullptr;
    EXPECT_EQ(ANeuralNetworksCompilation_create(model, &compilation), ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(compilation, nullptr);
    ANeuralNetworksCompilation_free(compilation);
    if (const ANeuralNetworksDevice* device = referenceDevice()) {
        EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(model, &device, 1, &compilation),
                  ANEURALNETWORKS_BAD_STATE);
        bool supported[4] = {};
        EXPECT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(model, &device, 1, supported),
                  ANEURALNETWORKS_BAD_STATE);
    } else {
        ADD_FAILURE() << "no nnapi-reference device";
    }
}

// op A: t1 = in0 + t2;  op B: t2 = t1 + in1  (t2 is the model output) — a cycle.
TEST_F(ModelTest, CycleIsRejectedAtFinishAndModelStaysInvalid) {
    for (int i = 0; i < 4; ++i) ASSERT_EQ(addFloatTensor(), ANEURALNETWORKS_NO_ERROR);  // in0, in1, t1, t2
    ASSERT_EQ(addOperand(scalarType(ANEURALNETWORKS_INT32)), ANEURALNETWORKS_NO_ERROR);  // 4
    const int32_t none = ANEURALNETWORKS_FUSED_NONE;
    ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model(), 4, &none, sizeof(none)), ANEURALNETWORKS_NO_ERROR);
    const uint32_t aIn[] = {0, 3, 4}, aOut[] = {2};
    const uint32_t bIn[] = {2, 1, 4}, bOut[] = {3};
    ASSERT_EQ(ANeuralNetworksModel_addOperation(model(), ANEURALNETWORKS_ADD, 3, aIn, 1, aOut),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksModel_addOperation(model(), ANEURALNETWORKS_ADD, 3, bIn, 1, bOut),
              ANEURALNETWORKS_NO_ERROR);
    const uint32_t in[] = {0, 1}, out[] = {3};
    ASSERT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model(), 2, in, 1, out), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksModel_finish(model()), ANEURALNETWORKS_BAD_DATA);
    expectPermanentlyInvalid(model());
}

// An operation that reads a temporary nobody writes.
TEST_F(ModelTest, UnwrittenTemporaryIsRejectedAtFinish) {
    ASSERT_EQ(buildAddModel(model(), {.finish = false}), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(addFloatTensor(), ANEURALNETWORKS_NO_ERROR);  // 4: never written
    ASSERT_EQ(addFloatTensor(), ANEURALNETWORKS_NO_ERROR);  // 5
    const uint32_t in[] = {4, kInput0, kActivation}, out[] = {5};
    ASSERT_EQ(ANeuralNetworksModel_addOperation(model(), ANEURALNETWORKS_ADD, 3, in, 1, out),
              ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksModel_finish(model()), ANEURALNETWORKS_BAD_DATA);
    expectPermanentlyInvalid(model());
}

// A model output that no operation writes.
TEST_F(ModelTest, UnwrittenOutputIsRejectedAtFinish) {
    ASSERT_EQ(addFloatTensor(), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(addFloatTensor(), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(addOperand(scalarType(ANEURALNETWORKS_INT32)), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(addFloatTensor(), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(addFloatTensor(), ANEURALNETWORKS_NO_ERROR);  // 4: declared output, never written
    const int32_t none = ANEURALNETWORKS_FUSED_NONE;
    ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model(), 2, &none, sizeof(none)), ANEURALNETWORKS_NO_ERROR);
    const uint32_t opIn[] = {0, 1, 2}, opOut[] = {3};
    ASSERT_EQ(ANeuralNetworksModel_addOperation(model(), ANEURALNETWORKS_ADD, 3, opIn, 1, opOut),
              ANEURALNETWORKS_NO_ERROR);
    const uint32_t in[] = {0, 1}, out[] = {3, 4};
    ASSERT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model(), 2, in, 2, out), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksModel_finish(model()), ANEURALNETWORKS_BAD_DATA);
    expectPermanentlyInvalid(model());
}

// Two operations writing the same operand.
TEST_F(ModelTest, OperandWrittenTwiceIsRejectedAtFinish) {
    ASSERT_EQ(buildAddModel(model(), {.finish = false}), ANEURALNETWORKS_NO_ERROR);
    const uint32_t in[] = {kInput1, kInput0, kActivation}, out[] = {kOutput};
    ASSERT_EQ(ANeuralNetworksModel_addOperation(model(), ANEURALNETWORKS_ADD, 3, in, 1, out),
              ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksModel_finish(model()), ANEURALNETWORKS_BAD_DATA);
    expectPermanentlyInvalid(model());
}

// An operation writing a model input.
TEST_F(ModelTest, WritingAnInputIsRejectedAtFinish) {
    ASSERT_EQ(buildAddModel(model(), {.finish = false}), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(addFloatTensor(), ANEURALNETWORKS_NO_ERROR);  // 4
    const uint32_t in[] = {kOutput, kInput1, kActivation}, out[] = {kInput0};
    ASSERT_EQ(ANeuralNetworksModel_addOperation(model(), ANEURALNETWORKS_ADD, 3, in, 1, out),
              ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksModel_finish(model()), ANEURALNETWORKS_BAD_DATA);
}

// Making a declared model input a constant leaves a model whose input list is invalid.
TEST_F(ModelTest, InputTurnedIntoConstantFailsFinish) {
    ASSERT_EQ(buildAddModel(model(), {.finish = false}), ANEURALNETWORKS_NO_ERROR);
    const float values[2] = {1.0f, 2.0f};
    const int set = ANeuralNetworksModel_setOperandValue(model(), kInput0, values, sizeof(values));
    if (set == ANEURALNETWORKS_NO_ERROR) {
        EXPECT_EQ(ANeuralNetworksModel_finish(model()), ANEURALNETWORKS_BAD_DATA);
    } else {
        EXPECT_EQ(set, ANEURALNETWORKS_BAD_DATA);
    }
}

// Operations may be added in any order: finish sorts them.
TEST_F(ModelTest, OperationsAddedOutOfOrderAreSorted) {
    // t = in0 + in1 (added second); out = t + in1 (added first).
    for (int i = 0; i < 4; ++i) ASSERT_EQ(addFloatTensor(), ANEURALNETWORKS_NO_ERROR);  // in0, in1, t, out
    ASSERT_EQ(addOperand(scalarType(ANEURALNETWORKS_INT32)), ANEURALNETWORKS_NO_ERROR);  // 4
    const int32_t none = ANEURALNETWORKS_FUSED_NONE;
    ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model(), 4, &none, sizeof(none)), ANEURALNETWORKS_NO_ERROR);
    const uint32_t secondIn[] = {2, 1, 4}, secondOut[] = {3};
    const uint32_t firstIn[] = {0, 1, 4}, firstOut[] = {2};
    ASSERT_EQ(ANeuralNetworksModel_addOperation(model(), ANEURALNETWORKS_ADD, 3, secondIn, 1, secondOut),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksModel_addOperation(model(), ANEURALNETWORKS_ADD, 3, firstIn, 1, firstOut),
              ANEURALNETWORKS_NO_ERROR);
    const uint32_t in[] = {0, 1}, out[] = {3};
    ASSERT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model(), 2, in, 1, out), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksModel_finish(model()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(runTwoInputs(model(), {1, 2}, {10, 20}), (std::vector<float>{21, 42}));
}

// ---- Extensions (platform-only entry points) ---------------------------------------------------

TEST_F(ModelTest, UnknownExtensionTypesAreBadData) {
    int32_t operandType = 0;
    ANeuralNetworksOperationType operationType = 0;
    EXPECT_EQ(ANeuralNetworksModel_getExtensionOperandType(nullptr, "com.example.none", 0, &operandType),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksModel_getExtensionOperandType(model(), nullptr, 0, &operandType),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksModel_getExtensionOperandType(model(), "com.example.none", 0, nullptr),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksModel_getExtensionOperandType(model(), "com.example.none", 0, &operandType),
              ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksModel_getExtensionOperationType(nullptr, "com.example.none", 0, &operationType),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksModel_getExtensionOperationType(model(), "com.example.none", 0, nullptr),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksModel_getExtensionOperationType(model(), "com.example.none", 0, &operationType),
              ANEURALNETWORKS_BAD_DATA);
}

TEST_F(ModelTest, ExtensionDataOnANonExtensionOperandIsBadData) {
    ASSERT_EQ(addFloatTensor(), ANEURALNETWORKS_NO_ERROR);
    const uint8_t data[4] = {};
    EXPECT_EQ(ANeuralNetworksModel_setOperandExtensionData(nullptr, 0, data, sizeof(data)),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksModel_setOperandExtensionData(model(), 0, nullptr, sizeof(data)),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksModel_setOperandExtensionData(model(), 0, data, sizeof(data)), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksModel_setOperandExtensionData(model(), 5, data, sizeof(data)), ANEURALNETWORKS_BAD_DATA);
}

// ---- Order of the checks: null arguments, then the model's state, then values ------------------

// Null arguments are refused before the operand index is looked at.
TEST_F(ModelTest, NullArgumentsBeforeOperandIndex) {
    EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model(), -1, nullptr, 4), ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromMemory(model(), -1, nullptr, 0, 4),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(model(), -1, nullptr),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksModel_setOperandExtensionData(model(), -1, nullptr, 4), ANEURALNETWORKS_UNEXPECTED_NULL);
}

// A finished model answers a null argument with UNEXPECTED_NULL, not BAD_STATE.
TEST_F(ModelTest, FinishedModelRefusesNullArgumentsFirst) {
    ASSERT_EQ(buildAddModel(model()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksModel_addOperand(model(), nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model(), kActivation, nullptr, 4), ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromMemory(model(), kActivation, nullptr, 0, 4),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(model(), 0, nullptr),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    const uint32_t out[] = {kOutput};
    EXPECT_EQ(ANeuralNetworksModel_addOperation(model(), ANEURALNETWORKS_ADD, 0, nullptr, 1, out),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model(), 0, nullptr, 0, nullptr),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksModel_setOperandExtensionData(model(), 0, nullptr, 4), ANEURALNETWORKS_UNEXPECTED_NULL);
}

// A finished model answers bad values with BAD_STATE: the state comes before the values.
TEST_F(ModelTest, FinishedModelRefusesBadValuesWithBadState) {
    ASSERT_EQ(buildAddModel(model()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(addOperand(scalarType(-1)), ANEURALNETWORKS_BAD_STATE);
    const ANeuralNetworksOperandType countWithoutArray{ANEURALNETWORKS_TENSOR_FLOAT32, 2, nullptr, 0.0f, 0};
    EXPECT_EQ(addOperand(countWithoutArray), ANEURALNETWORKS_BAD_STATE);
    const int32_t value = 0;
    EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model(), 99, &value, sizeof(value)), ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model(), kActivation, &value, 3), ANEURALNETWORKS_BAD_STATE);
    const Fd fd(makeSharedMemoryFd(16));
    ASSERT_GE(fd.get(), 0);
    MemoryPtr memory = memoryFromFd(fd.get(), 16);
    ASSERT_NE(memory, nullptr);
    EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromMemory(model(), 99, memory.get(), 64, 4),
              ANEURALNETWORKS_BAD_STATE);
    const ANeuralNetworksSymmPerChannelQuantParams params{5, 1, nullptr};
    EXPECT_EQ(ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(model(), 99, &params),
              ANEURALNETWORKS_BAD_STATE);
    const uint32_t bad[] = {99, 98, 97}, out[] = {kOutput};
    EXPECT_EQ(ANeuralNetworksModel_addOperation(model(), -1, 3, bad, 1, out), ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(ANeuralNetworksModel_addOperation(model(), ANEURALNETWORKS_ADD, 3, bad, 1, out),
              ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model(), 3, bad, 1, out), ANEURALNETWORKS_BAD_STATE);
    const uint8_t data[4] = {};
    EXPECT_EQ(ANeuralNetworksModel_setOperandExtensionData(model(), 99, data, sizeof(data)),
              ANEURALNETWORKS_BAD_STATE);
}

// A model whose finish failed is in a bad state for setOperandExtensionData too.
TEST_F(ModelTest, InvalidModelRefusesExtensionDataWithBadState) {
    ASSERT_EQ(addFloatTensor(), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksModel_finish(model()), ANEURALNETWORKS_BAD_DATA);  // no operation
    const uint8_t data[4] = {};
    EXPECT_EQ(ANeuralNetworksModel_setOperandExtensionData(model(), 0, data, sizeof(data)),
              ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(ANeuralNetworksModel_setOperandExtensionData(model(), 7, data, sizeof(data)),
              ANEURALNETWORKS_BAD_STATE);
}

}  // namespace
}  // namespace nnemu::apitest
