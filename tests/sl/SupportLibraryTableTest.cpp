// The table itself: its layout (nnapi-fl30plus.md §4.2), its level, and that each entry is the
// library's exported function of the same name.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <set>
#include <string>

#include "SlLoader.h"

namespace nnemu::sltest {
namespace {

struct Entry {
    const char* name;
    size_t offset;
};

#define NNEMU_SL_ENTRY(field) Entry{#field, offsetof(NnApiSLDriverImplFL5, field)}

// The 104 entries in the order of §4.2.
constexpr Entry kEntries[] = {
    NNEMU_SL_ENTRY(ANeuralNetworksBurst_create),
    NNEMU_SL_ENTRY(ANeuralNetworksBurst_free),
    NNEMU_SL_ENTRY(ANeuralNetworksCompilation_createForDevices),
    NNEMU_SL_ENTRY(ANeuralNetworksCompilation_finish),
    NNEMU_SL_ENTRY(ANeuralNetworksCompilation_free),
    NNEMU_SL_ENTRY(ANeuralNetworksCompilation_getPreferredMemoryAlignmentForInput),
    NNEMU_SL_ENTRY(ANeuralNetworksCompilation_getPreferredMemoryAlignmentForOutput),
    NNEMU_SL_ENTRY(ANeuralNetworksCompilation_getPreferredMemoryPaddingForInput),
    NNEMU_SL_ENTRY(ANeuralNetworksCompilation_getPreferredMemoryPaddingForOutput),
    NNEMU_SL_ENTRY(ANeuralNetworksCompilation_setCaching),
    NNEMU_SL_ENTRY(ANeuralNetworksCompilation_setPreference),
    NNEMU_SL_ENTRY(ANeuralNetworksCompilation_setPriority),
    NNEMU_SL_ENTRY(ANeuralNetworksCompilation_setTimeout),
    NNEMU_SL_ENTRY(ANeuralNetworksDevice_getExtensionSupport),
    NNEMU_SL_ENTRY(ANeuralNetworksDevice_getFeatureLevel),
    NNEMU_SL_ENTRY(ANeuralNetworksDevice_getName),
    NNEMU_SL_ENTRY(ANeuralNetworksDevice_getType),
    NNEMU_SL_ENTRY(ANeuralNetworksDevice_getVersion),
    NNEMU_SL_ENTRY(ANeuralNetworksDevice_wait),
    NNEMU_SL_ENTRY(ANeuralNetworksEvent_createFromSyncFenceFd),
    NNEMU_SL_ENTRY(ANeuralNetworksEvent_free),
    NNEMU_SL_ENTRY(ANeuralNetworksEvent_getSyncFenceFd),
    NNEMU_SL_ENTRY(ANeuralNetworksEvent_wait),
    NNEMU_SL_ENTRY(ANeuralNetworksExecution_burstCompute),
    NNEMU_SL_ENTRY(ANeuralNetworksExecution_compute),
    NNEMU_SL_ENTRY(ANeuralNetworksExecution_create),
    NNEMU_SL_ENTRY(ANeuralNetworksExecution_enableInputAndOutputPadding),
    NNEMU_SL_ENTRY(ANeuralNetworksExecution_free),
    NNEMU_SL_ENTRY(ANeuralNetworksExecution_getDuration),
    NNEMU_SL_ENTRY(ANeuralNetworksExecution_getOutputOperandDimensions),
    NNEMU_SL_ENTRY(ANeuralNetworksExecution_getOutputOperandRank),
    NNEMU_SL_ENTRY(ANeuralNetworksExecution_setInput),
    NNEMU_SL_ENTRY(ANeuralNetworksExecution_setInputFromMemory),
    NNEMU_SL_ENTRY(ANeuralNetworksExecution_setLoopTimeout),
    NNEMU_SL_ENTRY(ANeuralNetworksExecution_setMeasureTiming),
    NNEMU_SL_ENTRY(ANeuralNetworksExecution_setOutput),
    NNEMU_SL_ENTRY(ANeuralNetworksExecution_setOutputFromMemory),
    NNEMU_SL_ENTRY(ANeuralNetworksExecution_setReusable),
    NNEMU_SL_ENTRY(ANeuralNetworksExecution_setTimeout),
    NNEMU_SL_ENTRY(ANeuralNetworksExecution_startComputeWithDependencies),
    NNEMU_SL_ENTRY(ANeuralNetworksMemoryDesc_addInputRole),
    NNEMU_SL_ENTRY(ANeuralNetworksMemoryDesc_addOutputRole),
    NNEMU_SL_ENTRY(ANeuralNetworksMemoryDesc_create),
    NNEMU_SL_ENTRY(ANeuralNetworksMemoryDesc_finish),
    NNEMU_SL_ENTRY(ANeuralNetworksMemoryDesc_free),
    NNEMU_SL_ENTRY(ANeuralNetworksMemoryDesc_setDimensions),
    NNEMU_SL_ENTRY(ANeuralNetworksMemory_copy),
    NNEMU_SL_ENTRY(ANeuralNetworksMemory_createFromAHardwareBuffer),
    NNEMU_SL_ENTRY(ANeuralNetworksMemory_createFromDesc),
    NNEMU_SL_ENTRY(ANeuralNetworksMemory_createFromFd),
    NNEMU_SL_ENTRY(ANeuralNetworksMemory_free),
    NNEMU_SL_ENTRY(ANeuralNetworksModel_addOperand),
    NNEMU_SL_ENTRY(ANeuralNetworksModel_addOperation),
    NNEMU_SL_ENTRY(ANeuralNetworksModel_create),
    NNEMU_SL_ENTRY(ANeuralNetworksModel_finish),
    NNEMU_SL_ENTRY(ANeuralNetworksModel_free),
    NNEMU_SL_ENTRY(ANeuralNetworksModel_getExtensionOperandType),
    NNEMU_SL_ENTRY(ANeuralNetworksModel_getExtensionOperationType),
    NNEMU_SL_ENTRY(ANeuralNetworksModel_getSupportedOperationsForDevices),
    NNEMU_SL_ENTRY(ANeuralNetworksModel_identifyInputsAndOutputs),
    NNEMU_SL_ENTRY(ANeuralNetworksModel_relaxComputationFloat32toFloat16),
    NNEMU_SL_ENTRY(ANeuralNetworksModel_setOperandExtensionData),
    NNEMU_SL_ENTRY(ANeuralNetworksModel_setOperandSymmPerChannelQuantParams),
    NNEMU_SL_ENTRY(ANeuralNetworksModel_setOperandValue),
    NNEMU_SL_ENTRY(ANeuralNetworksModel_setOperandValueFromMemory),
    NNEMU_SL_ENTRY(ANeuralNetworksModel_setOperandValueFromModel),
    NNEMU_SL_ENTRY(ANeuralNetworks_getDefaultLoopTimeout),
    NNEMU_SL_ENTRY(ANeuralNetworks_getDevice),
    NNEMU_SL_ENTRY(ANeuralNetworks_getDeviceCount),
    NNEMU_SL_ENTRY(ANeuralNetworks_getMaximumLoopTimeout),
    NNEMU_SL_ENTRY(ANeuralNetworks_getRuntimeFeatureLevel),
    NNEMU_SL_ENTRY(SL_ANeuralNetworksCompilation_setCachingFromFds),
    NNEMU_SL_ENTRY(SL_ANeuralNetworksDevice_getNumberOfCacheFilesNeeded),
    NNEMU_SL_ENTRY(SL_ANeuralNetworksDevice_getPerformanceInfo),
    NNEMU_SL_ENTRY(SL_ANeuralNetworksDevice_forEachOperandPerformanceInfo),
    NNEMU_SL_ENTRY(SL_ANeuralNetworksDevice_getVendorExtensionCount),
    NNEMU_SL_ENTRY(SL_ANeuralNetworksDevice_getVendorExtensionName),
    NNEMU_SL_ENTRY(SL_ANeuralNetworksDevice_forEachVendorExtensionOperandTypeInformation),
    NNEMU_SL_ENTRY(SL_ANeuralNetworksDiagnosticCompilationInfo_getSessionId),
    NNEMU_SL_ENTRY(SL_ANeuralNetworksDiagnosticCompilationInfo_getNnApiVersion),
    NNEMU_SL_ENTRY(SL_ANeuralNetworksDiagnosticCompilationInfo_getModelArchHash),
    NNEMU_SL_ENTRY(SL_ANeuralNetworksDiagnosticCompilationInfo_getDeviceIds),
    NNEMU_SL_ENTRY(SL_ANeuralNetworksDiagnosticCompilationInfo_getErrorCode),
    NNEMU_SL_ENTRY(SL_ANeuralNetworksDiagnosticCompilationInfo_getInputDataClass),
    NNEMU_SL_ENTRY(SL_ANeuralNetworksDiagnosticCompilationInfo_getOutputDataClass),
    NNEMU_SL_ENTRY(SL_ANeuralNetworksDiagnosticCompilationInfo_getCompilationTimeNanos),
    NNEMU_SL_ENTRY(SL_ANeuralNetworksDiagnosticCompilationInfo_isCachingEnabled),
    NNEMU_SL_ENTRY(SL_ANeuralNetworksDiagnosticCompilationInfo_isControlFlowUsed),
    NNEMU_SL_ENTRY(SL_ANeuralNetworksDiagnosticCompilationInfo_areDynamicTensorsUsed),
    NNEMU_SL_ENTRY(SL_ANeuralNetworksDiagnosticExecutionInfo_getSessionId),
    NNEMU_SL_ENTRY(SL_ANeuralNetworksDiagnosticExecutionInfo_getNnApiVersion),
    NNEMU_SL_ENTRY(SL_ANeuralNetworksDiagnosticExecutionInfo_getModelArchHash),
    NNEMU_SL_ENTRY(SL_ANeuralNetworksDiagnosticExecutionInfo_getDeviceIds),
    NNEMU_SL_ENTRY(SL_ANeuralNetworksDiagnosticExecutionInfo_getExecutionMode),
    NNEMU_SL_ENTRY(SL_ANeuralNetworksDiagnosticExecutionInfo_getInputDataClass),
    NNEMU_SL_ENTRY(SL_ANeuralNetworksDiagnosticExecutionInfo_getOutputDataClass),
    NNEMU_SL_ENTRY(SL_ANeuralNetworksDiagnosticExecutionInfo_getErrorCode),
    NNEMU_SL_ENTRY(SL_ANeuralNetworksDiagnosticExecutionInfo_getRuntimeExecutionTimeNanos),
    NNEMU_SL_ENTRY(SL_ANeuralNetworksDiagnosticExecutionInfo_getDriverExecutionTimeNanos),
    NNEMU_SL_ENTRY(SL_ANeuralNetworksDiagnosticExecutionInfo_getHardwareExecutionTimeNanos),
    NNEMU_SL_ENTRY(SL_ANeuralNetworksDiagnosticExecutionInfo_isCachingEnabled),
    NNEMU_SL_ENTRY(SL_ANeuralNetworksDiagnosticExecutionInfo_isControlFlowUsed),
    NNEMU_SL_ENTRY(SL_ANeuralNetworksDiagnosticExecutionInfo_areDynamicTensorsUsed),
    NNEMU_SL_ENTRY(SL_ANeuralNetworksDiagnostic_registerCallbacks),
};

#undef NNEMU_SL_ENTRY

constexpr size_t kEntryCount = sizeof(kEntries) / sizeof(kEntries[0]);
static_assert(kEntryCount == 104);

constexpr bool entriesFollowEachOther() {
    for (size_t i = 0; i < kEntryCount; ++i) {
        if (kEntries[i].offset != sizeof(NnApiSLDriverImpl) + i * sizeof(void*)) return false;
    }
    return true;
}
static_assert(entriesFollowEachOther(), "the table's pointers are contiguous, in the order of §4.2");
static_assert(sizeof(NnApiSLDriverImplFL5) == sizeof(NnApiSLDriverImpl) + kEntryCount * sizeof(void*));
static_assert(offsetof(NnApiSLDriverImplFL8, ANeuralNetworksExecution_addExtensionAttribute) ==
              sizeof(NnApiSLDriverImplFL5) + sizeof(void*));
static_assert(sizeof(NnApiSLDriverImplFL8) == sizeof(NnApiSLDriverImplFL5) + 2 * sizeof(void*));
#if defined(__LP64__)
static_assert(offsetof(NnApiSLDriverImplFL5, ANeuralNetworksBurst_create) == 8);
static_assert(sizeof(NnApiSLDriverImplFL5) == 840);
static_assert(sizeof(NnApiSLDriverImplFL8) == 856);
#endif

void* entryAt(const NnApiSLDriverImplFL5& table, const Entry& entry) {
    void* pointer = nullptr;
    std::memcpy(&pointer, reinterpret_cast<const char*>(&table) + entry.offset, sizeof(pointer));
    return pointer;
}

using TableTest = SupportLibraryTest;

TEST_F(TableTest, TheLevelIsTheRuntimeLevelUpToFeatureLevel7) {
    // An FL5-shaped table at the runtime's level, never 1000008: TensorFlow Lite rejects that.
    const int64_t runtimeLevel = sl().ANeuralNetworks_getRuntimeFeatureLevel();
    EXPECT_EQ(sl().base.implFeatureLevel, std::min<int64_t>(runtimeLevel, 1000007));
}

TEST_F(TableTest, TheTableIsStatic) {
    EXPECT_EQ(loadDriverImpl(), &sl().base);
}

TEST_F(TableTest, EveryEntryIsTheExportedFunctionOfItsName) {
    for (const Entry& entry : kEntries) {
        void* inTable = entryAt(sl(), entry);
        void* exported = dlsym(libraryHandle(), entry.name);
        if (std::strncmp(entry.name, "SL_", 3) == 0) {
            EXPECT_EQ(exported, nullptr) << entry.name << " is reachable through the table only";
        } else if (inTable != nullptr) {
            EXPECT_EQ(inTable, exported) << entry.name;
        } else {
            EXPECT_EQ(exported, nullptr) << entry.name << " is exported: put it in the table";
        }
    }
}

// Every slot is filled: the library defines every function of the table.
TEST_F(TableTest, NoEntryIsNull) {
    for (const Entry& entry : kEntries) EXPECT_NE(entryAt(sl(), entry), nullptr) << entry.name;
}

// The functions TensorFlow Lite's delegate calls without checking them (§4.5).
TEST_F(TableTest, WhatTfliteCallsUnconditionallyIsThere) {
    EXPECT_NE(sl().ANeuralNetworksExecution_setReusable, nullptr);
    EXPECT_NE(sl().ANeuralNetworksCompilation_setPriority, nullptr);
    EXPECT_NE(sl().ANeuralNetworksCompilation_createForDevices, nullptr);
    EXPECT_NE(sl().ANeuralNetworksExecution_compute, nullptr);
    EXPECT_NE(sl().ANeuralNetworksExecution_burstCompute, nullptr);
    EXPECT_NE(sl().ANeuralNetworksMemory_createFromFd, nullptr);
    EXPECT_NE(sl().ANeuralNetworksModel_getSupportedOperationsForDevices, nullptr);
    EXPECT_NE(sl().ANeuralNetworksDevice_getFeatureLevel, nullptr);
}

TEST_F(TableTest, LoopTimeoutsOnceControlFlowIsIn) {
    if (sl().ANeuralNetworks_getDefaultLoopTimeout == nullptr) {
        EXPECT_EQ(dlsym(libraryHandle(), "ANeuralNetworks_getDefaultLoopTimeout"), nullptr);
        return;
    }
    EXPECT_EQ(sl().ANeuralNetworks_getDefaultLoopTimeout(), 2'000'000'000u);
    ASSERT_NE(sl().ANeuralNetworks_getMaximumLoopTimeout, nullptr);
    EXPECT_EQ(sl().ANeuralNetworks_getMaximumLoopTimeout(), 15'000'000'000u);
    EXPECT_NE(sl().ANeuralNetworksExecution_setLoopTimeout, nullptr);
}

TEST_F(TableTest, GetRuntimeFeatureLevelAnswersThroughTheTable) {
    EXPECT_GE(sl().ANeuralNetworks_getRuntimeFeatureLevel(), 30);
}

}  // namespace
}  // namespace nnemu::sltest
