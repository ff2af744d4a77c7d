// Shapes chosen by a model's data (a PAD's paddings) can ask for tensors larger than an operand
// may be, or whose byte size a plain product would wrap to a few bytes. synap-npu must fail such
// an execution, never report success or touch memory past its buffers.
#include <gtest/gtest.h>

#include "OneOperationModel.h"

namespace nnemu::test {
namespace {

// PAD of a [1, 1, 1, 1] float input to `outDims`, all padding after; the output's dims are
// unknown to the model, so only the paddings decide them.
OneOperationModel padTo(const std::vector<uint32_t>& outDims) {
    std::vector<int32_t> paddings;
    for (uint32_t d : outDims) {
        paddings.push_back(0);
        paddings.push_back(static_cast<int32_t>(d - 1));
    }
    return OneOperationModel(ANEURALNETWORKS_PAD,
                             {TestOperand(ANEURALNETWORKS_TENSOR_FLOAT32, {1, 1, 1, 1}),
                              TestOperand(ANEURALNETWORKS_TENSOR_INT32, {4, 2}, 0.0f, 0, bytesOf(paddings))},
                             TestOperand(ANEURALNETWORKS_TENSOR_FLOAT32, {0, 0, 0, 0}));
}

// Runs `model` on `device` alone with an 8-byte output buffer.
int runWithSmallOutput(const OneOperationModel& model, const char* device) {
    const ANeuralNetworksDevice* devices[1] = {deviceNamed(device)};
    ANeuralNetworksCompilation* compilation = nullptr;
    EXPECT_EQ(ANeuralNetworksCompilation_createForDevices(model.handle(), devices, 1, &compilation), 0);
    EXPECT_EQ(ANeuralNetworksCompilation_finish(compilation), 0);
    ANeuralNetworksExecution* execution = nullptr;
    EXPECT_EQ(ANeuralNetworksExecution_create(compilation, &execution), 0);
    const float input = 1.0f;
    float output[2] = {-1.0f, -1.0f};
    EXPECT_EQ(ANeuralNetworksExecution_setInput(execution, 0, nullptr, &input, sizeof(input)), 0);
    EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution, 0, nullptr, output, sizeof(output)), 0);
    const int status = ANeuralNetworksExecution_compute(execution);
    ANeuralNetworksExecution_free(execution);
    ANeuralNetworksCompilation_free(compilation);
    return status;
}

TEST(SizeLimits, OutputsLargerThanAnOperandFailOnEveryDevice) {
    const std::vector<std::vector<uint32_t>> tooLarge{{17362, 27905, 49477, 384773},  // 4 * product = 2^65 + 8
                                                      {1, 65536, 65536, 1}};           // 16 GiB
    for (const auto& dims : tooLarge) {
        OneOperationModel model = padTo(dims);
        ASSERT_TRUE(model.claimedBy("synap-npu"));
        EXPECT_EQ(runWithSmallOutput(model, "synap-npu"), ANEURALNETWORKS_OP_FAILED);
        EXPECT_EQ(runWithSmallOutput(model, "nnapi-reference"), ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE);
    }
    OneOperationModel fits = padTo({1, 1, 2, 1});
    EXPECT_EQ(runWithSmallOutput(fits, "synap-npu"), ANEURALNETWORKS_NO_ERROR);
}

}  // namespace
}  // namespace nnemu::test
