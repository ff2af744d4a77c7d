// What the C API fuzz target (tests/fuzz/nnapi_model_fuzz.cpp) found, as focused cases: an
// omitted first input reached a kernel as a null buffer, and quantized kernels converted
// infinite or NaN requantized values to integers when valid but extreme scales made them so, and
// QUANTIZE converted a NaN input to an integer.
#include <android/NeuralNetworks.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "../synap/NnapiDevices.h"
#include "nnemu/kernels/QuantMath.h"

namespace {

const ANeuralNetworksDevice* reference() { return nnemu::test::deviceNamed("nnapi-reference"); }

// The model, its one input and output identified, finished and compiled for nnapi-reference,
// with an execution of it.
void executeOnReference(ANeuralNetworksModel* model, const uint32_t* input, const uint32_t* output,
                        ANeuralNetworksCompilation** compilation, ANeuralNetworksExecution** execution) {
    ASSERT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model, 1, input, 1, output), 0);
    ASSERT_EQ(ANeuralNetworksModel_finish(model), 0);
    const ANeuralNetworksDevice* device = reference();
    ASSERT_EQ(ANeuralNetworksCompilation_createForDevices(model, &device, 1, compilation), 0);
    ASSERT_EQ(ANeuralNetworksCompilation_finish(*compilation), 0);
    ASSERT_EQ(ANeuralNetworksExecution_create(*compilation, execution), 0);
}

void freeAll(ANeuralNetworksModel* model, ANeuralNetworksCompilation* compilation, ANeuralNetworksExecution* execution) {
    ANeuralNetworksExecution_free(execution);
    ANeuralNetworksCompilation_free(compilation);
    ANeuralNetworksModel_free(model);
}

// SQUEEZE may leave out its axes, never its data.
TEST(OmittedFirstInput, IsRefusedWhenTheModelIsBuilt) {
    ANeuralNetworksModel* model = nullptr;
    ASSERT_EQ(ANeuralNetworksModel_create(&model), ANEURALNETWORKS_NO_ERROR);
    const uint32_t dims[2] = {1, 4};
    const ANeuralNetworksOperandType tensor{ANEURALNETWORKS_TENSOR_FLOAT32, 2, dims, 0.0f, 0};
    const ANeuralNetworksOperandType axes{ANEURALNETWORKS_TENSOR_INT32, 1, dims, 0.0f, 0};
    ASSERT_EQ(ANeuralNetworksModel_addOperand(model, &tensor), 0);
    ASSERT_EQ(ANeuralNetworksModel_addOperand(model, &axes), 0);
    ASSERT_EQ(ANeuralNetworksModel_addOperand(model, &tensor), 0);
    ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model, 0, nullptr, 0), 0);  // omitted data
    ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model, 1, nullptr, 0), 0);  // omitted axes: fine
    const uint32_t inputs[2] = {0, 1}, outputs[1] = {2};
    EXPECT_EQ(ANeuralNetworksModel_addOperation(model, ANEURALNETWORKS_SQUEEZE, 2, inputs, 1, outputs),
              ANEURALNETWORKS_BAD_DATA);
    ANeuralNetworksModel_free(model);
}

TEST(OmittedFirstInput, BoundWithoutAValueFailsTheExecution) {
    ANeuralNetworksModel* model = nullptr;
    ASSERT_EQ(ANeuralNetworksModel_create(&model), ANEURALNETWORKS_NO_ERROR);
    const uint32_t dims[2] = {1, 4}, one[1] = {1};
    const ANeuralNetworksOperandType tensor{ANEURALNETWORKS_TENSOR_FLOAT32, 2, dims, 0.0f, 0};
    const ANeuralNetworksOperandType axes{ANEURALNETWORKS_TENSOR_INT32, 1, one, 0.0f, 0};
    const ANeuralNetworksOperandType squeezed{ANEURALNETWORKS_TENSOR_FLOAT32, 1, dims + 1, 0.0f, 0};
    ASSERT_EQ(ANeuralNetworksModel_addOperand(model, &tensor), 0);
    ASSERT_EQ(ANeuralNetworksModel_addOperand(model, &axes), 0);
    ASSERT_EQ(ANeuralNetworksModel_addOperand(model, &squeezed), 0);
    const int32_t axis = 0;
    ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model, 1, &axis, sizeof axis), 0);
    const uint32_t inputs[2] = {0, 1}, outputs[1] = {2};
    ASSERT_EQ(ANeuralNetworksModel_addOperation(model, ANEURALNETWORKS_SQUEEZE, 2, inputs, 1, outputs), 0);
    ANeuralNetworksCompilation* compilation = nullptr;
    ANeuralNetworksExecution* execution = nullptr;
    ASSERT_NO_FATAL_FAILURE(executeOnReference(model, inputs, outputs, &compilation, &execution));
    float output[4] = {};
    ASSERT_EQ(ANeuralNetworksExecution_setInput(execution, 0, nullptr, nullptr, 0), 0);
    ASSERT_EQ(ANeuralNetworksExecution_setOutput(execution, 0, nullptr, output, sizeof output), 0);
    EXPECT_NE(ANeuralNetworksExecution_compute(execution), ANEURALNETWORKS_NO_ERROR);
    freeAll(model, compilation, execution);
}

TEST(QuantizeSaturated, ClampsInfiniteAndHugeValuesAndSendsNanToTheZeroPoint) {
    using nnemu::quant::quantizeSaturated;
    EXPECT_EQ(quantizeSaturated(std::numeric_limits<double>::infinity(), 128, 0, 255), 255);
    EXPECT_EQ(quantizeSaturated(-std::numeric_limits<double>::infinity(), 128, 0, 255), 0);
    EXPECT_EQ(quantizeSaturated(1e30, -128, -128, 127), 127);
    EXPECT_EQ(quantizeSaturated(std::numeric_limits<double>::quiet_NaN(), 128, 0, 255), 128);
    EXPECT_EQ(quantizeSaturated(2.5, 10, 0, 255), 13);   // half away from zero
    EXPECT_EQ(quantizeSaturated(-2.5, 10, 0, 255), 7);
}

// QUANTIZE of NaN (a float input, any scale) on nnapi-reference: the zero point, not a conversion
// of NaN to an integer.
TEST(QuantizeNan, GivesTheZeroPoint) {
    ANeuralNetworksModel* model = nullptr;
    ASSERT_EQ(ANeuralNetworksModel_create(&model), ANEURALNETWORKS_NO_ERROR);
    const uint32_t dims[1] = {3};
    const ANeuralNetworksOperandType in{ANEURALNETWORKS_TENSOR_FLOAT32, 1, dims, 0.0f, 0};
    const ANeuralNetworksOperandType out{ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, 1, dims, 0.5f, 100};
    ASSERT_EQ(ANeuralNetworksModel_addOperand(model, &in), 0);
    ASSERT_EQ(ANeuralNetworksModel_addOperand(model, &out), 0);
    const uint32_t input[1] = {0}, output[1] = {1};
    ASSERT_EQ(ANeuralNetworksModel_addOperation(model, ANEURALNETWORKS_QUANTIZE, 1, input, 1, output), 0);
    ANeuralNetworksCompilation* compilation = nullptr;
    ANeuralNetworksExecution* execution = nullptr;
    ASSERT_NO_FATAL_FAILURE(executeOnReference(model, input, output, &compilation, &execution));
    const float values[3] = {std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN(), 1.0f};
    uint8_t quantized[3] = {0, 0, 0};
    ASSERT_EQ(ANeuralNetworksExecution_setInput(execution, 0, nullptr, values, sizeof values), 0);
    ASSERT_EQ(ANeuralNetworksExecution_setOutput(execution, 0, nullptr, quantized, sizeof quantized), 0);
    EXPECT_EQ(ANeuralNetworksExecution_compute(execution), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(quantized[0], 100);
    EXPECT_EQ(quantized[1], 100);
    EXPECT_EQ(quantized[2], 102);
    freeAll(model, compilation, execution);
}

}  // namespace
