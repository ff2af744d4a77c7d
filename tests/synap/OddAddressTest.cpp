// Applications may hand over data at any address. Elements are read and written through typed
// pointers, which need their alignment, so both devices must cope with an input or output at an
// odd address (the reference executor and the NPU core alike).
#include <android/NeuralNetworks.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "NnapiDevices.h"

namespace {

using nnemu::test::deviceNamed;

TEST(OddAddresses, InputsAndOutputsAtOddAddressesWorkOnEveryDevice) {
    ANeuralNetworksModel* model = nullptr;
    ASSERT_EQ(ANeuralNetworksModel_create(&model), ANEURALNETWORKS_NO_ERROR);
    const uint32_t dims[1] = {3};
    const ANeuralNetworksOperandType tensor{ANEURALNETWORKS_TENSOR_FLOAT32, 1, dims, 0.0f, 0};
    const ANeuralNetworksOperandType scalar{ANEURALNETWORKS_INT32, 0, nullptr, 0.0f, 0};
    for (const auto* type : {&tensor, &tensor, &scalar, &tensor}) ANeuralNetworksModel_addOperand(model, type);
    const int32_t none = ANEURALNETWORKS_FUSED_NONE;
    ANeuralNetworksModel_setOperandValue(model, 2, &none, sizeof none);
    const uint32_t in[3] = {0, 1, 2}, out[1] = {3};
    ANeuralNetworksModel_addOperation(model, ANEURALNETWORKS_ADD, 3, in, 1, out);
    ANeuralNetworksModel_identifyInputsAndOutputs(model, 2, in, 1, out);
    ASSERT_EQ(ANeuralNetworksModel_finish(model), ANEURALNETWORKS_NO_ERROR);
    for (const char* name : {"nnapi-reference", "synap-npu"}) {
        SCOPED_TRACE(name);
        const ANeuralNetworksDevice* device = deviceNamed(name);
        ASSERT_NE(device, nullptr);
        ANeuralNetworksCompilation* compilation = nullptr;
        ASSERT_EQ(ANeuralNetworksCompilation_createForDevices(model, &device, 1, &compilation), 0);
        ASSERT_EQ(ANeuralNetworksCompilation_finish(compilation), 0);
        alignas(16) uint8_t bytes[64] = {};
        const float a[3] = {1.5f, -2.0f, 4.0f}, b[3] = {0.25f, 8.0f, -1.0f};
        std::memcpy(bytes + 1, a, sizeof a);
        std::memcpy(bytes + 18, b, sizeof b);
        ANeuralNetworksExecution* execution = nullptr;
        ASSERT_EQ(ANeuralNetworksExecution_create(compilation, &execution), 0);
        ANeuralNetworksExecution_setInput(execution, 0, nullptr, bytes + 1, sizeof a);
        ANeuralNetworksExecution_setInput(execution, 1, nullptr, bytes + 18, sizeof b);
        ANeuralNetworksExecution_setOutput(execution, 0, nullptr, bytes + 35, 3 * sizeof(float));
        EXPECT_EQ(ANeuralNetworksExecution_compute(execution), ANEURALNETWORKS_NO_ERROR);
        float sum[3];
        std::memcpy(sum, bytes + 35, sizeof sum);
        EXPECT_EQ(sum[0], 1.75f);
        EXPECT_EQ(sum[1], 6.0f);
        EXPECT_EQ(sum[2], 3.0f);
        ANeuralNetworksExecution_free(execution);
        ANeuralNetworksCompilation_free(compilation);
    }
    ANeuralNetworksModel_free(model);
}

}  // namespace
