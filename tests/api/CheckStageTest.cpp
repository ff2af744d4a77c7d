// Which stage refuses what (issue 28): addOperation and Model_finish look at operand counts,
// types and ranks only; values (activation codes) and relations between operands (broadcast
// shapes, a quantized bias's scale, dims known only at execution) are left to the execution,
// which fails with ANEURALNETWORKS_OP_FAILED on every device and on the default selection.
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "AddModel.h"

namespace nnemu::apitest {
namespace {

// One model input or output as the execution binds it: the type passed to setInput/setOutput
// (null: the model's) and the buffer.
struct Binding {
    std::vector<uint32_t> dims;  // empty: bind with the model's type
    std::vector<uint8_t> bytes;
};

struct StagedModel {
    std::string name;
    int32_t tensorCode = ANEURALNETWORKS_TENSOR_FLOAT32;
    // Builds everything but finish; returns the first result that is not NO_ERROR.
    std::function<int(ANeuralNetworksModel*)> build;
    std::vector<Binding> inputs;
    std::vector<Binding> outputs;
};

int addTensor(ANeuralNetworksModel* model, int32_t code, const std::vector<uint32_t>& dims, float scale = 0.0f,
              int32_t zeroPoint = 0) {
    const ANeuralNetworksOperandType type = tensorType(code, dims, scale, zeroPoint);
    return ANeuralNetworksModel_addOperand(model, &type);
}

int addInt32(ANeuralNetworksModel* model, uint32_t index, int32_t value) {
    const ANeuralNetworksOperandType type = scalarType(ANEURALNETWORKS_INT32);
    if (int n = ANeuralNetworksModel_addOperand(model, &type)) return n;
    return ANeuralNetworksModel_setOperandValue(model, index, &value, sizeof(value));
}

// ADD of [a] and [b] into [out] with `activation`: operands 0, 1 inputs, 2 activation, 3 output.
int buildAdd(ANeuralNetworksModel* model, const std::vector<uint32_t>& a, const std::vector<uint32_t>& b,
             const std::vector<uint32_t>& out, int32_t activation) {
    if (int n = addTensor(model, ANEURALNETWORKS_TENSOR_FLOAT32, a)) return n;
    if (int n = addTensor(model, ANEURALNETWORKS_TENSOR_FLOAT32, b)) return n;
    if (int n = addInt32(model, 2, activation)) return n;
    if (int n = addTensor(model, ANEURALNETWORKS_TENSOR_FLOAT32, out)) return n;
    const uint32_t inputs[] = {0, 1, 2};
    const uint32_t outputs[] = {3};
    if (int n = ANeuralNetworksModel_addOperation(model, ANEURALNETWORKS_ADD, 3, inputs, 1, outputs)) return n;
    const uint32_t modelInputs[] = {0, 1};
    return ANeuralNetworksModel_identifyInputsAndOutputs(model, 2, modelInputs, 1, outputs);
}

// CONV_2D of a [1,2,2,1] input with a constant 1x1 filter and bias, SAME padding, stride 1:
// operands 0 input, 1 filter, 2 bias, 3 padding, 4-5 strides, 6 activation, 7 output.
int buildConv(ANeuralNetworksModel* model, bool quantized, float biasScale, int32_t activation) {
    const int32_t tensor = quantized ? ANEURALNETWORKS_TENSOR_QUANT8_ASYMM : ANEURALNETWORKS_TENSOR_FLOAT32;
    const float scale = quantized ? 0.5f : 0.0f;
    if (int n = addTensor(model, tensor, {1, 2, 2, 1}, scale)) return n;
    if (int n = addTensor(model, tensor, {1, 1, 1, 1}, scale)) return n;
    if (quantized) {
        if (int n = addTensor(model, ANEURALNETWORKS_TENSOR_INT32, {1}, biasScale)) return n;
        const uint8_t filter = 2;
        const int32_t bias = 0;
        if (int n = ANeuralNetworksModel_setOperandValue(model, 1, &filter, sizeof(filter))) return n;
        if (int n = ANeuralNetworksModel_setOperandValue(model, 2, &bias, sizeof(bias))) return n;
    } else {
        if (int n = addTensor(model, ANEURALNETWORKS_TENSOR_FLOAT32, {1})) return n;
        const float filter = 1.0f;
        const float bias = 0.0f;
        if (int n = ANeuralNetworksModel_setOperandValue(model, 1, &filter, sizeof(filter))) return n;
        if (int n = ANeuralNetworksModel_setOperandValue(model, 2, &bias, sizeof(bias))) return n;
    }
    if (int n = addInt32(model, 3, ANEURALNETWORKS_PADDING_SAME)) return n;
    if (int n = addInt32(model, 4, 1)) return n;
    if (int n = addInt32(model, 5, 1)) return n;
    if (int n = addInt32(model, 6, activation)) return n;
    if (int n = addTensor(model, tensor, {1, 2, 2, 1}, quantized ? 1.0f : 0.0f)) return n;
    const uint32_t inputs[] = {0, 1, 2, 3, 4, 5, 6};
    const uint32_t outputs[] = {7};
    if (int n = ANeuralNetworksModel_addOperation(model, ANEURALNETWORKS_CONV_2D, 7, inputs, 1, outputs)) return n;
    const uint32_t modelInputs[] = {0};
    return ANeuralNetworksModel_identifyInputsAndOutputs(model, 1, modelInputs, 1, outputs);
}

// googletest names the parameter by the model (not its bytes).
void PrintTo(const StagedModel& model, std::ostream* os) { *os << model.name; }

Binding floats(size_t count, std::vector<uint32_t> dims = {}) {
    return {std::move(dims), std::vector<uint8_t>(count * sizeof(float), 0)};
}

std::vector<StagedModel> modelsThatFailAtExecution() {
    std::vector<StagedModel> models;
    models.push_back({"AddActivation999", ANEURALNETWORKS_TENSOR_FLOAT32,
                      [](ANeuralNetworksModel* m) { return buildAdd(m, {2}, {2}, {2}, 999); },
                      {floats(2), floats(2)}, {floats(2)}});
    models.push_back({"AddBroadcast2Vs3", ANEURALNETWORKS_TENSOR_FLOAT32,
                      [](ANeuralNetworksModel* m) { return buildAdd(m, {2}, {3}, {3}, ANEURALNETWORKS_FUSED_NONE); },
                      {floats(2), floats(3)}, {floats(3)}});
    // Unknown dims at build time; the execution's [2] and [3] do not broadcast.
    models.push_back({"AddUnspecifiedDimsIncompatible", ANEURALNETWORKS_TENSOR_FLOAT32,
                      [](ANeuralNetworksModel* m) { return buildAdd(m, {0}, {0}, {0}, ANEURALNETWORKS_FUSED_NONE); },
                      {floats(2, {2}), floats(3, {3})}, {floats(3, {3})}});
    models.push_back({"Conv2DActivation999", ANEURALNETWORKS_TENSOR_FLOAT32,
                      [](ANeuralNetworksModel* m) { return buildConv(m, false, 0.0f, 999); }, {floats(4)},
                      {floats(4)}});
    // Input and filter scales 0.5: the bias scale must be 0.25.
    models.push_back({"QuantConv2DWrongBiasScale", ANEURALNETWORKS_TENSOR_QUANT8_ASYMM,
                      [](ANeuralNetworksModel* m) {
                          return buildConv(m, true, 0.5f, ANEURALNETWORKS_FUSED_NONE);
                      },
                      {{{}, std::vector<uint8_t>(4, 1)}}, {{{}, std::vector<uint8_t>(4, 0)}}});
    return models;
}

// How the compilation picks its devices: "" = ANeuralNetworksCompilation_create, else
// createForDevices with that one device.
class CheckStageTest : public ::testing::TestWithParam<std::tuple<StagedModel, std::string>> {};

TEST_P(CheckStageTest, BuildsFinishesCompilesAndFailsAtExecution) {
    const auto& [staged, deviceName] = GetParam();
    ModelPtr model = newModel();
    ASSERT_NE(model, nullptr);
    ASSERT_EQ(staged.build(model.get()), ANEURALNETWORKS_NO_ERROR);  // addOperation included
    ASSERT_EQ(ANeuralNetworksModel_finish(model.get()), ANEURALNETWORKS_NO_ERROR);

    ANeuralNetworksCompilation* raw = nullptr;
    if (deviceName.empty()) {
        ASSERT_EQ(ANeuralNetworksCompilation_create(model.get(), &raw), ANEURALNETWORKS_NO_ERROR);
    } else {
        const ANeuralNetworksDevice* device = findDevice(deviceName);
        ASSERT_NE(device, nullptr) << deviceName;
        ASSERT_EQ(ANeuralNetworksCompilation_createForDevices(model.get(), &device, 1, &raw), ANEURALNETWORKS_NO_ERROR);
    }
    CompilationPtr compilation(raw);
    ASSERT_EQ(ANeuralNetworksCompilation_finish(compilation.get()), ANEURALNETWORKS_NO_ERROR);

    ExecutionPtr execution = newExecution(compilation.get());
    ASSERT_NE(execution, nullptr);
    std::vector<Binding> inputs = staged.inputs;
    std::vector<Binding> outputs = staged.outputs;
    for (size_t i = 0; i < inputs.size(); ++i) {
        const ANeuralNetworksOperandType type = tensorType(staged.tensorCode, inputs[i].dims);
        ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), static_cast<int32_t>(i),
                                                    inputs[i].dims.empty() ? nullptr : &type, inputs[i].bytes.data(),
                                                    inputs[i].bytes.size()),
                  ANEURALNETWORKS_NO_ERROR);
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
        const ANeuralNetworksOperandType type = tensorType(staged.tensorCode, outputs[i].dims);
        ASSERT_EQ(ANeuralNetworksExecution_setOutput(execution.get(), static_cast<int32_t>(i),
                                                     outputs[i].dims.empty() ? nullptr : &type,
                                                     outputs[i].bytes.data(), outputs[i].bytes.size()),
                  ANEURALNETWORKS_NO_ERROR);
    }
    EXPECT_EQ(ANeuralNetworksExecution_compute(execution.get()), ANEURALNETWORKS_OP_FAILED);
}

INSTANTIATE_TEST_SUITE_P(
        Stages, CheckStageTest,
        ::testing::Combine(::testing::ValuesIn(modelsThatFailAtExecution()),
                           ::testing::Values(std::string(), std::string("nnapi-reference"), std::string("synap-npu"))),
        [](const auto& info) {
            const std::string& device = std::get<1>(info.param);
            std::string suffix = device.empty() ? "Default" : device == "nnapi-reference" ? "Reference" : "Npu";
            return std::get<0>(info.param).name + "_" + suffix;
        });

// ---- What addOperation still refuses: counts, types, ranks ------------------------------------

class StructuralErrorTest : public ::testing::Test {
protected:
    void SetUp() override {
        model_ = newModel();
        ASSERT_NE(model_, nullptr);
    }
    ModelPtr model_;
};

TEST_F(StructuralErrorTest, AddWithTwoInputsIsBadData) {
    ASSERT_EQ(addTensor(model_.get(), ANEURALNETWORKS_TENSOR_FLOAT32, {2}), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(addTensor(model_.get(), ANEURALNETWORKS_TENSOR_FLOAT32, {2}), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(addTensor(model_.get(), ANEURALNETWORKS_TENSOR_FLOAT32, {2}), ANEURALNETWORKS_NO_ERROR);
    const uint32_t inputs[] = {0, 1};
    const uint32_t outputs[] = {2};
    EXPECT_EQ(ANeuralNetworksModel_addOperation(model_.get(), ANEURALNETWORKS_ADD, 2, inputs, 1, outputs),
              ANEURALNETWORKS_BAD_DATA);
}

TEST_F(StructuralErrorTest, AddWithAFloatActivationIsBadData) {
    ASSERT_EQ(addTensor(model_.get(), ANEURALNETWORKS_TENSOR_FLOAT32, {2}), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(addTensor(model_.get(), ANEURALNETWORKS_TENSOR_FLOAT32, {2}), ANEURALNETWORKS_NO_ERROR);
    const ANeuralNetworksOperandType activation = scalarType(ANEURALNETWORKS_FLOAT32);
    ASSERT_EQ(ANeuralNetworksModel_addOperand(model_.get(), &activation), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(addTensor(model_.get(), ANEURALNETWORKS_TENSOR_FLOAT32, {2}), ANEURALNETWORKS_NO_ERROR);
    const uint32_t inputs[] = {0, 1, 2};
    const uint32_t outputs[] = {3};
    EXPECT_EQ(ANeuralNetworksModel_addOperation(model_.get(), ANEURALNETWORKS_ADD, 3, inputs, 1, outputs),
              ANEURALNETWORKS_BAD_DATA);
}

TEST_F(StructuralErrorTest, AddOfMixedTensorTypesIsBadData) {
    ASSERT_EQ(addTensor(model_.get(), ANEURALNETWORKS_TENSOR_FLOAT32, {2}), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(addTensor(model_.get(), ANEURALNETWORKS_TENSOR_INT32, {2}), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(addInt32(model_.get(), 2, ANEURALNETWORKS_FUSED_NONE), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(addTensor(model_.get(), ANEURALNETWORKS_TENSOR_FLOAT32, {2}), ANEURALNETWORKS_NO_ERROR);
    const uint32_t inputs[] = {0, 1, 2};
    const uint32_t outputs[] = {3};
    EXPECT_EQ(ANeuralNetworksModel_addOperation(model_.get(), ANEURALNETWORKS_ADD, 3, inputs, 1, outputs),
              ANEURALNETWORKS_BAD_DATA);
}

TEST_F(StructuralErrorTest, AddOfRank5IsBadData) {
    EXPECT_EQ(buildAdd(model_.get(), {1, 1, 1, 1, 2}, {2}, {0}, ANEURALNETWORKS_FUSED_NONE), ANEURALNETWORKS_BAD_DATA);
}

}  // namespace
}  // namespace nnemu::apitest
