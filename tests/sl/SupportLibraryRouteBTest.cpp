// TensorFlow Lite's route B (tflite-nnapi-delegate-on-linux.md): the library loaded by path as a
// Support Library, a model built, compiled for synap-npu and run twice as one reusable
// execution on shared memory, every call through the table.
#include <cstring>

#include "SlConvModel.h"

namespace nnemu::sltest {
namespace {

using RouteBTest = ConvModelTest;

TEST_F(RouteBTest, ReusableExecutionOnSynapNpuThroughTheTableOnly) {
    const ANeuralNetworksDevice* npu = findDevice("synap-npu");
    ASSERT_NE(npu, nullptr);
    int64_t deviceLevel = 0;
    ASSERT_EQ(sl().ANeuralNetworksDevice_getFeatureLevel(npu, &deviceLevel), ANEURALNETWORKS_NO_ERROR);
    EXPECT_GE(deviceLevel, 29);
    ASSERT_NO_FATAL_FAILURE(buildConvModel());

    bool supported = false;
    ASSERT_EQ(sl().ANeuralNetworksModel_getSupportedOperationsForDevices(model_, &npu, 1, &supported),
              ANEURALNETWORKS_NO_ERROR);
    EXPECT_TRUE(supported);
    ASSERT_EQ(sl().ANeuralNetworksCompilation_createForDevices(model_, &npu, 1, &compilation_),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(sl().ANeuralNetworksCompilation_setPriority(compilation_, ANEURALNETWORKS_PRIORITY_DEFAULT),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(sl().ANeuralNetworksCompilation_finish(compilation_), ANEURALNETWORKS_NO_ERROR);

    SharedMemory in(9 * sizeof(float));
    SharedMemory out(4 * sizeof(float));
    ASSERT_NE(in.data(), nullptr);
    ASSERT_NE(out.data(), nullptr);
    ANeuralNetworksMemory* inMemory = wrap(in);
    ANeuralNetworksMemory* outMemory = wrap(out);
    ASSERT_EQ(sl().ANeuralNetworksExecution_create(compilation_, &execution_), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(sl().ANeuralNetworksExecution_setReusable(execution_, true), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(sl().ANeuralNetworksExecution_enableInputAndOutputPadding(execution_, true), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(sl().ANeuralNetworksExecution_setInputFromMemory(execution_, 0, nullptr, inMemory, 0, in.size()),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(sl().ANeuralNetworksExecution_setOutputFromMemory(execution_, 0, nullptr, outMemory, 0, out.size()),
              ANEURALNETWORKS_NO_ERROR);

    // Each output is input[y][x] + input[y+1][x+1] + 0.5.
    for (int run = 1; run <= 2; ++run) {
        for (int i = 0; i < 9; ++i) in.data()[i] = static_cast<float>(run * (i + 1));  // rewritten in place
        std::memset(out.data(), 0, out.size());
        ASSERT_EQ(sl().ANeuralNetworksExecution_compute(execution_), ANEURALNETWORKS_NO_ERROR) << "run " << run;
        const float expected[4] = {run * 6.0f + 0.5f, run * 8.0f + 0.5f, run * 12.0f + 0.5f, run * 14.0f + 0.5f};
        for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(out.data()[i], expected[i]) << "run " << run << " output " << i;
    }
}

TEST_F(RouteBTest, DevicesAreEnumeratedWithTheirLevels) {
    uint32_t count = 0;
    ASSERT_EQ(sl().ANeuralNetworks_getDeviceCount(&count), ANEURALNETWORKS_NO_ERROR);
    ASSERT_GE(count, 2u);
    EXPECT_NE(findDevice("synap-npu"), nullptr);
    EXPECT_NE(findDevice("nnapi-reference"), nullptr);
    const int64_t runtimeLevel = sl().ANeuralNetworks_getRuntimeFeatureLevel();
    for (uint32_t i = 0; i < count; ++i) {
        ANeuralNetworksDevice* device = nullptr;
        ASSERT_EQ(sl().ANeuralNetworks_getDevice(i, &device), ANEURALNETWORKS_NO_ERROR);
        int64_t level = 0;
        ASSERT_EQ(sl().ANeuralNetworksDevice_getFeatureLevel(device, &level), ANEURALNETWORKS_NO_ERROR);
        EXPECT_LE(level, runtimeLevel);
    }
}

}  // namespace
}  // namespace nnemu::sltest
