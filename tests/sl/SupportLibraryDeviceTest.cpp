// The SL-only device queries (nnapi-fl30plus.md §4.3), through the table.
#include <limits>
#include <vector>

#include "SlLoader.h"

namespace nnemu::sltest {
namespace {

using DeviceQueryTest = SupportLibraryTest;

TEST_F(DeviceQueryTest, NumberOfCacheFilesNeeded) {
    const ANeuralNetworksDevice* npu = findDevice("synap-npu");
    const ANeuralNetworksDevice* cpu = findDevice("nnapi-reference");
    ASSERT_NE(npu, nullptr);
    ASSERT_NE(cpu, nullptr);
    uint32_t modelFiles = 7, dataFiles = 7;
    ASSERT_EQ(sl().SL_ANeuralNetworksDevice_getNumberOfCacheFilesNeeded(cpu, &modelFiles, &dataFiles),
              ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(modelFiles, 0u);  // the reference device does not cache
    EXPECT_EQ(dataFiles, 0u);
    ASSERT_EQ(sl().SL_ANeuralNetworksDevice_getNumberOfCacheFilesNeeded(npu, &modelFiles, &dataFiles),
              ANEURALNETWORKS_NO_ERROR);
    // synap-npu caches its program in one model file while vendor.npu.cache.model=1, else not at all.
    EXPECT_LE(modelFiles, 1u);
    EXPECT_EQ(dataFiles, 0u);

    modelFiles = dataFiles = 7;
    EXPECT_EQ(sl().SL_ANeuralNetworksDevice_getNumberOfCacheFilesNeeded(nullptr, &modelFiles, &dataFiles),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(modelFiles, 0u);  // zeroed on error
    EXPECT_EQ(dataFiles, 0u);
    EXPECT_EQ(sl().SL_ANeuralNetworksDevice_getNumberOfCacheFilesNeeded(npu, nullptr, &dataFiles),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(sl().SL_ANeuralNetworksDevice_getNumberOfCacheFilesNeeded(npu, &modelFiles, nullptr),
              ANEURALNETWORKS_UNEXPECTED_NULL);
}

TEST_F(DeviceQueryTest, PerformanceInfo) {
    const ANeuralNetworksDevice* npu = findDevice("synap-npu");
    const ANeuralNetworksDevice* cpu = findDevice("nnapi-reference");
    ASSERT_NE(npu, nullptr);
    ASSERT_NE(cpu, nullptr);
    SL_ANeuralNetworksPerformanceInfo npuInfo{}, cpuInfo{};
    ASSERT_EQ(sl().SL_ANeuralNetworksDevice_getPerformanceInfo(
                      npu, SL_ANEURALNETWORKS_CAPABILITIES_PERFORMANCE_RELAXED_TENSOR, &npuInfo),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(sl().SL_ANeuralNetworksDevice_getPerformanceInfo(
                      cpu, SL_ANEURALNETWORKS_CAPABILITIES_PERFORMANCE_RELAXED_TENSOR, &cpuInfo),
              ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(cpuInfo.execTime, 1.0f);  // the reference is the unit
    EXPECT_LT(npuInfo.execTime, cpuInfo.execTime);
    ASSERT_EQ(sl().SL_ANeuralNetworksDevice_getPerformanceInfo(
                      cpu, SL_ANEURALNETWORKS_CAPABILITIES_PERFORMANCE_RELAXED_SCALAR, &cpuInfo),
              ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(cpuInfo.powerUsage, 1.0f);

    // Control flow runs only on the reference device.
    ASSERT_EQ(sl().SL_ANeuralNetworksDevice_getPerformanceInfo(cpu, SL_ANEURALNETWORKS_CAPABILITIES_PERFORMANCE_WHILE,
                                                               &cpuInfo),
              ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(cpuInfo.execTime, 1.0f);
    ASSERT_EQ(sl().SL_ANeuralNetworksDevice_getPerformanceInfo(npu, SL_ANEURALNETWORKS_CAPABILITIES_PERFORMANCE_IF,
                                                               &npuInfo),
              ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(npuInfo.execTime, std::numeric_limits<float>::max());

    EXPECT_EQ(sl().SL_ANeuralNetworksDevice_getPerformanceInfo(npu, 4, &npuInfo), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(npuInfo.execTime, 0.0f);  // cleared before any check, as Android does
    EXPECT_EQ(npuInfo.powerUsage, 0.0f);
    EXPECT_EQ(sl().SL_ANeuralNetworksDevice_getPerformanceInfo(npu, -1, &npuInfo), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(sl().SL_ANeuralNetworksDevice_getPerformanceInfo(nullptr, 0, &npuInfo), ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(sl().SL_ANeuralNetworksDevice_getPerformanceInfo(npu, 0, nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
}

void collect(SL_ANeuralNetworksOperandPerformanceInfo info, void* context) {
    static_cast<std::vector<SL_ANeuralNetworksOperandPerformanceInfo>*>(context)->push_back(info);
}

TEST_F(DeviceQueryTest, OperandPerformanceInfo) {
    const ANeuralNetworksDevice* npu = findDevice("synap-npu");
    const ANeuralNetworksDevice* cpu = findDevice("nnapi-reference");
    ASSERT_NE(npu, nullptr);
    ASSERT_NE(cpu, nullptr);
    std::vector<SL_ANeuralNetworksOperandPerformanceInfo> infos;
    ASSERT_EQ(sl().SL_ANeuralNetworksDevice_forEachOperandPerformanceInfo(cpu, &infos, collect),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_FALSE(infos.empty());
    for (const auto& info : infos) EXPECT_EQ(info.performanceInfo.execTime, 1.0f) << info.operandType;

    infos.clear();
    ASSERT_EQ(sl().SL_ANeuralNetworksDevice_forEachOperandPerformanceInfo(npu, &infos, collect),
              ANEURALNETWORKS_NO_ERROR);
    bool sawFloat32 = false;
    for (const auto& info : infos) {
        if (info.operandType == ANEURALNETWORKS_TENSOR_FLOAT32) sawFloat32 = true;
        EXPECT_LT(info.performanceInfo.execTime, 1.0f) << info.operandType;
    }
    EXPECT_TRUE(sawFloat32);

    EXPECT_EQ(sl().SL_ANeuralNetworksDevice_forEachOperandPerformanceInfo(nullptr, &infos, collect),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(sl().SL_ANeuralNetworksDevice_forEachOperandPerformanceInfo(npu, &infos, nullptr),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    // As Android's Support Library, a null context is refused too.
    EXPECT_EQ(sl().SL_ANeuralNetworksDevice_forEachOperandPerformanceInfo(npu, nullptr, collect),
              ANEURALNETWORKS_UNEXPECTED_NULL);
}

void neverCalled(SL_ANeuralNetworksExtensionOperandTypeInformation, void*) { ADD_FAILURE() << "called"; }

TEST_F(DeviceQueryTest, NoDeviceHasVendorExtensions) {
    uint32_t count = 0;
    ASSERT_EQ(sl().ANeuralNetworks_getDeviceCount(&count), ANEURALNETWORKS_NO_ERROR);
    for (uint32_t i = 0; i < count; ++i) {
        ANeuralNetworksDevice* device = nullptr;
        ASSERT_EQ(sl().ANeuralNetworks_getDevice(i, &device), ANEURALNETWORKS_NO_ERROR);
        uint32_t extensions = 7;
        ASSERT_EQ(sl().SL_ANeuralNetworksDevice_getVendorExtensionCount(device, &extensions),
                  ANEURALNETWORKS_NO_ERROR);
        EXPECT_EQ(extensions, 0u);
        const char* name = "unchanged";
        EXPECT_EQ(sl().SL_ANeuralNetworksDevice_getVendorExtensionName(device, 0, &name), ANEURALNETWORKS_BAD_DATA);
        EXPECT_EQ(name, nullptr);  // cleared before any check, as Android does
        int context = 0;
        EXPECT_EQ(sl().SL_ANeuralNetworksDevice_forEachVendorExtensionOperandTypeInformation(device, 0, &context,
                                                                                              neverCalled),
                  ANEURALNETWORKS_BAD_DATA);
        EXPECT_EQ(sl().SL_ANeuralNetworksDevice_forEachVendorExtensionOperandTypeInformation(device, 0, nullptr,
                                                                                              neverCalled),
                  ANEURALNETWORKS_UNEXPECTED_NULL);
        EXPECT_EQ(sl().SL_ANeuralNetworksDevice_getVendorExtensionName(device, 0, nullptr),
                  ANEURALNETWORKS_UNEXPECTED_NULL);
        EXPECT_EQ(sl().SL_ANeuralNetworksDevice_forEachVendorExtensionOperandTypeInformation(device, 0, nullptr,
                                                                                              nullptr),
                  ANEURALNETWORKS_UNEXPECTED_NULL);
    }
    uint32_t extensions = 7;
    EXPECT_EQ(sl().SL_ANeuralNetworksDevice_getVendorExtensionCount(nullptr, &extensions),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(extensions, 0u);
}

}  // namespace
}  // namespace nnemu::sltest
