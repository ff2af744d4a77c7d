// Shape inference computes in 64 bits and refuses what a dimension cannot hold: operands whose
// values ask for a block area, a padded size or an element count that 32 (or 64) bits would wrap
// fail the execution cleanly, instead of dividing by a wrapped zero or running with a wrapped
// shape.
#include <android/NeuralNetworks.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "NnapiDevices.h"

namespace {

using nnemu::test::deviceNamed;

struct Operand {
    int32_t type;
    std::vector<uint32_t> dims;
    std::vector<int32_t> value;  // constant int32 data; empty for the model input or the output
};


// One operation whose first operand is the float model input and whose output has the input's
// rank and unknown dimensions; runs it on `device` with `input` and `outputFloats` of output.
int runOne(const char* device, int32_t operation, const std::vector<Operand>& operands, std::vector<float> input,
           size_t outputFloats) {
    ANeuralNetworksModel* model = nullptr;
    EXPECT_EQ(ANeuralNetworksModel_create(&model), 0);
    std::vector<uint32_t> inputs;
    for (uint32_t i = 0; i < operands.size(); ++i) {
        const auto& o = operands[i];
        const ANeuralNetworksOperandType type{o.type, static_cast<uint32_t>(o.dims.size()),
                                              o.dims.empty() ? nullptr : o.dims.data(), 0.0f, 0};
        EXPECT_EQ(ANeuralNetworksModel_addOperand(model, &type), 0);
        if (!o.value.empty()) {
            EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model, i, o.value.data(), o.value.size() * 4), 0);
        }
        inputs.push_back(i);
    }
    const std::vector<uint32_t> unknown(operands[0].dims.size(), 0);
    const ANeuralNetworksOperandType outputType{ANEURALNETWORKS_TENSOR_FLOAT32, static_cast<uint32_t>(unknown.size()),
                                                unknown.data(), 0.0f, 0};
    EXPECT_EQ(ANeuralNetworksModel_addOperand(model, &outputType), 0);
    const uint32_t output = static_cast<uint32_t>(operands.size()), modelInput = 0;
    EXPECT_EQ(ANeuralNetworksModel_addOperation(model, operation, static_cast<uint32_t>(inputs.size()), inputs.data(),
                                                1, &output),
              0);
    EXPECT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model, 1, &modelInput, 1, &output), 0);
    EXPECT_EQ(ANeuralNetworksModel_finish(model), 0);
    const ANeuralNetworksDevice* devices[1] = {deviceNamed(device)};
    ANeuralNetworksCompilation* compilation = nullptr;
    EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(model, devices, 1, &compilation), 0);
    int status = ANeuralNetworksCompilation_finish(compilation);
    ANeuralNetworksExecution* execution = nullptr;
    std::vector<float> out(outputFloats, -1.0f);
    if (status == 0) status = ANeuralNetworksExecution_create(compilation, &execution);
    if (status == 0) status = ANeuralNetworksExecution_setInput(execution, 0, nullptr, input.data(), input.size() * 4);
    if (status == 0) status = ANeuralNetworksExecution_setOutput(execution, 0, nullptr, out.data(), out.size() * 4);
    if (status == 0) status = ANeuralNetworksExecution_compute(execution);
    ANeuralNetworksExecution_free(execution);
    ANeuralNetworksCompilation_free(compilation);
    ANeuralNetworksModel_free(model);
    return status;
}

const Operand kImage{ANEURALNETWORKS_TENSOR_FLOAT32, {1, 1, 1, 4}, {}};
Operand scalar(int32_t value) { return {ANEURALNETWORKS_INT32, {}, {value}}; }

// A block of 65536: its area is 2^32, which 32 bits wrap to 0 (a division by zero).
TEST(ShapeOverflow, DepthToSpaceWithABlockAreaPast32Bits) {
    EXPECT_EQ(runOne("nnapi-reference", ANEURALNETWORKS_DEPTH_TO_SPACE, {kImage, scalar(65536)}, {1, 2, 3, 4}, 4),
              ANEURALNETWORKS_OP_FAILED);
    EXPECT_EQ(runOne("nnapi-reference", ANEURALNETWORKS_DEPTH_TO_SPACE, {kImage, scalar(2)}, {1, 2, 3, 4}, 4),
              ANEURALNETWORKS_NO_ERROR);
}

TEST(ShapeOverflow, BatchToSpaceWithABlockAreaPast32Bits) {
    const Operand block{ANEURALNETWORKS_TENSOR_INT32, {2}, {65536, 65536}};
    EXPECT_EQ(runOne("nnapi-reference", ANEURALNETWORKS_BATCH_TO_SPACE_ND, {kImage, block}, {1, 2, 3, 4}, 4),
              ANEURALNETWORKS_OP_FAILED);
}

// 3 + (2^31 - 1) + (2^31 - 1) = 2^32 + 1, which 32 bits wrap to 1.
TEST(ShapeOverflow, PadPast32Bits) {
    const Operand input{ANEURALNETWORKS_TENSOR_FLOAT32, {1, 1, 1, 3}, {}};
    const Operand paddings{ANEURALNETWORKS_TENSOR_INT32, {4, 2}, {0, 0, 0, 0, 0, 0, INT32_MAX, INT32_MAX}};
    for (const char* device : {"nnapi-reference", "synap-npu"}) {
        EXPECT_EQ(runOne(device, ANEURALNETWORKS_PAD, {input, paddings}, {1, 2, 3}, 1), ANEURALNETWORKS_OP_FAILED)
                << device;
    }
}

// A shape whose element count is 2^66 + 2: 64 bits wrap it to the input's 2 elements.
TEST(ShapeOverflow, ReshapeWhoseCountWrapsToTheInputs) {
    const Operand input{ANEURALNETWORKS_TENSOR_FLOAT32, {1, 1, 1, 2}, {}};
    const Operand shape{ANEURALNETWORKS_TENSOR_INT32, {4}, {5462, 4323, 409891, 7623851}};
    const Operand fits{ANEURALNETWORKS_TENSOR_INT32, {4}, {1, 2, 1, 1}};
    for (const char* device : {"nnapi-reference", "synap-npu"}) {
        EXPECT_EQ(runOne(device, ANEURALNETWORKS_RESHAPE, {input, shape}, {1, 2}, 2), ANEURALNETWORKS_OP_FAILED)
                << device;
        EXPECT_EQ(runOne(device, ANEURALNETWORKS_RESHAPE, {input, fits}, {1, 2}, 2), ANEURALNETWORKS_NO_ERROR)
                << device;
    }
}

}  // namespace
