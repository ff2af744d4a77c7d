// Device_wait (feature level 30) and feature-level discovery (feature level 5).
#include "Fl30ApiHelpers.h"

namespace nnemu::apitest {
namespace {

TEST(DeviceLivenessTest, WaitReturnsAtOnceForLiveDevices) {
    EXPECT_EQ(ANeuralNetworksDevice_wait(nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
    for (const ANeuralNetworksDevice* device : allDeviceHandles()) {
        EXPECT_EQ(ANeuralNetworksDevice_wait(device), ANEURALNETWORKS_NO_ERROR);
    }
}

TEST(DeviceLivenessTest, DeviceFeatureLevelsNeverExceedTheRuntimes) {
    const int64_t runtimeLevel = ANeuralNetworks_getRuntimeFeatureLevel();
    EXPECT_EQ(runtimeLevel, ANEURALNETWORKS_FEATURE_LEVEL_8);
    for (const ANeuralNetworksDevice* device : allDeviceHandles()) {
        int64_t level = 0;
        ASSERT_EQ(ANeuralNetworksDevice_getFeatureLevel(device, &level), ANEURALNETWORKS_NO_ERROR);
        EXPECT_GE(level, 27);
        EXPECT_LE(level, runtimeLevel);
    }
}

}  // namespace
}  // namespace nnemu::apitest
