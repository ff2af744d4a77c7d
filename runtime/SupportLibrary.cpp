// The NNAPI Support Library table (nnapi-fl30plus.md §4): ANeuralNetworks_getSLDriverImpl() hands
// a loader such as TensorFlow Lite's --nnapi_support_library_path the library's own entry points,
// plus the SL-only functions below and the diagnostics of Diagnostics.cpp.
#include <android/NeuralNetworksSupportLibraryImpl.h>

#include <algorithm>
#include <limits>
#include <mutex>
#include <set>
#include <string>

#include "Compilation.h"
#include "Device.h"
#include "Diagnostics.h"
#include "FeatureLevel.h"

using namespace nnemu::runtime;

namespace {

const Device& device(const ANeuralNetworksDevice* handle) { return *reinterpret_cast<const Device*>(handle); }

SL_ANeuralNetworksPerformanceInfo toSl(const nnemu::hal::PerformanceInfo& info) {
    return {info.execTime, info.powerUsage};
}

// IF and WHILE run only on nnapi-reference, which interprets them at the cost of its other
// operations; another device cannot run them at all.
SL_ANeuralNetworksPerformanceInfo controlFlowPerformance(const Device& dev) {
    constexpr float kUnavailable = std::numeric_limits<float>::max();
    return dev.isCpu ? SL_ANeuralNetworksPerformanceInfo{1.0f, 1.0f}
                     : SL_ANeuralNetworksPerformanceInfo{kUnavailable, kUnavailable};
}

// A driver builds its extension list per call; the names handed out must live on.
const char* internedName(const std::string& name) {
    static std::mutex mutex;
    static std::set<std::string> names;
    std::lock_guard lock(mutex);
    return names.insert(name).first->c_str();
}

}  // namespace

extern "C" {

static int SL_ANeuralNetworksCompilation_setCachingFromFds(ANeuralNetworksCompilation* handle,
                                                          const int* modelCacheFds,
                                                          const uint32_t numModelCacheFiles,
                                                          const int* dataCacheFds,
                                                          const uint32_t numDataCacheFiles, const uint8_t* token) {
    if (handle == nullptr || token == nullptr || (numModelCacheFiles > 0 && modelCacheFds == nullptr) ||
        (numDataCacheFiles > 0 && dataCacheFds == nullptr)) {
        return ANEURALNETWORKS_UNEXPECTED_NULL;
    }
    if (numModelCacheFiles > nnemu::hal::kMaxNumberOfCacheFiles ||
        numDataCacheFiles > nnemu::hal::kMaxNumberOfCacheFiles) {
        return ANEURALNETWORKS_BAD_DATA;
    }
    return reinterpret_cast<Compilation*>(handle)->setCachingFromFds(modelCacheFds, numModelCacheFiles, dataCacheFds,
                                                                      numDataCacheFiles, token);
}

static int SL_ANeuralNetworksDevice_getNumberOfCacheFilesNeeded(const ANeuralNetworksDevice* handle,
                                                                uint32_t* numModelCacheFiles,
                                                                uint32_t* numDataCacheFiles) {
    if (numModelCacheFiles != nullptr) *numModelCacheFiles = 0;
    if (numDataCacheFiles != nullptr) *numDataCacheFiles = 0;
    if (handle == nullptr || numModelCacheFiles == nullptr || numDataCacheFiles == nullptr) {
        return ANEURALNETWORKS_UNEXPECTED_NULL;
    }
    const auto [modelFiles, dataFiles] = device(handle).driver->getNumberOfCacheFilesNeeded();
    *numModelCacheFiles = modelFiles;
    *numDataCacheFiles = dataFiles;
    return ANEURALNETWORKS_NO_ERROR;
}

static int SL_ANeuralNetworksDevice_getPerformanceInfo(const ANeuralNetworksDevice* handle,
                                                       int32_t performanceInfoKind,
                                                       SL_ANeuralNetworksPerformanceInfo* performanceInfo) {
    if (handle == nullptr || performanceInfo == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    const Device& dev = device(handle);
    switch (performanceInfoKind) {
        case SL_ANEURALNETWORKS_CAPABILITIES_PERFORMANCE_RELAXED_SCALAR:
            *performanceInfo = toSl(dev.capabilities.relaxedFloat32toFloat16PerformanceScalar);
            return ANEURALNETWORKS_NO_ERROR;
        case SL_ANEURALNETWORKS_CAPABILITIES_PERFORMANCE_RELAXED_TENSOR:
            *performanceInfo = toSl(dev.capabilities.relaxedFloat32toFloat16PerformanceTensor);
            return ANEURALNETWORKS_NO_ERROR;
        case SL_ANEURALNETWORKS_CAPABILITIES_PERFORMANCE_IF:
        case SL_ANEURALNETWORKS_CAPABILITIES_PERFORMANCE_WHILE:
            *performanceInfo = controlFlowPerformance(dev);
            return ANEURALNETWORKS_NO_ERROR;
        default:
            return ANEURALNETWORKS_BAD_DATA;
    }
}

static int SL_ANeuralNetworksDevice_forEachOperandPerformanceInfo(
        const ANeuralNetworksDevice* handle, void* context,
        void (*callback)(SL_ANeuralNetworksOperandPerformanceInfo, void*)) {
    if (handle == nullptr || callback == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    for (const auto& entry : device(handle).capabilities.operandPerformance) {
        callback({static_cast<int32_t>(entry.type), toSl(entry.info)}, context);
    }
    return ANEURALNETWORKS_NO_ERROR;
}

static int SL_ANeuralNetworksDevice_getVendorExtensionCount(const ANeuralNetworksDevice* handle,
                                                            uint32_t* vendorExtensionCount) {
    if (handle == nullptr || vendorExtensionCount == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    *vendorExtensionCount = static_cast<uint32_t>(device(handle).driver->getSupportedExtensions().size());
    return ANEURALNETWORKS_NO_ERROR;
}

static int SL_ANeuralNetworksDevice_getVendorExtensionName(const ANeuralNetworksDevice* handle,
                                                           uint32_t vendorExtensionIndex,
                                                           const char** extensionName) {
    if (handle == nullptr || extensionName == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    const auto extensions = device(handle).driver->getSupportedExtensions();
    if (vendorExtensionIndex >= extensions.size()) return ANEURALNETWORKS_BAD_DATA;
    *extensionName = internedName(extensions[vendorExtensionIndex].name);
    return ANEURALNETWORKS_NO_ERROR;
}

static int SL_ANeuralNetworksDevice_forEachVendorExtensionOperandTypeInformation(
        const ANeuralNetworksDevice* handle, uint32_t vendorExtensionIndex, void* /*context*/,
        void (*callback)(SL_ANeuralNetworksExtensionOperandTypeInformation, void*)) {
    if (handle == nullptr || callback == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    if (vendorExtensionIndex >= device(handle).driver->getSupportedExtensions().size()) {
        return ANEURALNETWORKS_BAD_DATA;
    }
    return ANEURALNETWORKS_NO_ERROR;  // hal::Extension declares no operand types
}

}  // extern "C"

namespace {

// The FL5-shaped table of the runtime's level, but never above feature level 7: current TensorFlow
// Lite accepts only 31, 1000006 and 1000007 and rejects an FL8 table (nnapi-fl30plus.md §4.4).
constexpr int64_t kTableFeatureLevel = std::min(kRuntimeFeatureLevel, nnemu::hal::kFeatureLevel7);
static_assert(kTableFeatureLevel >= nnemu::hal::kFeatureLevel5, "the table needs feature level 5");

// Constant-initialised: the loader may call ANeuralNetworks_getSLDriverImpl before, or without,
// any of the library's static constructors having run. Designated initialisers keep the order
// of the header's fields checked by the compiler.
constinit NnApiSLDriverImplFL5 slTable = {
    .base = {.implFeatureLevel = kTableFeatureLevel},
    .ANeuralNetworksBurst_create = ANeuralNetworksBurst_create,
    .ANeuralNetworksBurst_free = ANeuralNetworksBurst_free,
    .ANeuralNetworksCompilation_createForDevices = ANeuralNetworksCompilation_createForDevices,
    .ANeuralNetworksCompilation_finish = ANeuralNetworksCompilation_finish,
    .ANeuralNetworksCompilation_free = ANeuralNetworksCompilation_free,
    .ANeuralNetworksCompilation_getPreferredMemoryAlignmentForInput =
            ANeuralNetworksCompilation_getPreferredMemoryAlignmentForInput,
    .ANeuralNetworksCompilation_getPreferredMemoryAlignmentForOutput =
            ANeuralNetworksCompilation_getPreferredMemoryAlignmentForOutput,
    .ANeuralNetworksCompilation_getPreferredMemoryPaddingForInput =
            ANeuralNetworksCompilation_getPreferredMemoryPaddingForInput,
    .ANeuralNetworksCompilation_getPreferredMemoryPaddingForOutput =
            ANeuralNetworksCompilation_getPreferredMemoryPaddingForOutput,
    .ANeuralNetworksCompilation_setCaching = ANeuralNetworksCompilation_setCaching,
    .ANeuralNetworksCompilation_setPreference = ANeuralNetworksCompilation_setPreference,
    .ANeuralNetworksCompilation_setPriority = ANeuralNetworksCompilation_setPriority,
    .ANeuralNetworksCompilation_setTimeout = ANeuralNetworksCompilation_setTimeout,
    .ANeuralNetworksDevice_getExtensionSupport = ANeuralNetworksDevice_getExtensionSupport,
    .ANeuralNetworksDevice_getFeatureLevel = ANeuralNetworksDevice_getFeatureLevel,
    .ANeuralNetworksDevice_getName = ANeuralNetworksDevice_getName,
    .ANeuralNetworksDevice_getType = ANeuralNetworksDevice_getType,
    .ANeuralNetworksDevice_getVersion = ANeuralNetworksDevice_getVersion,
    .ANeuralNetworksDevice_wait = ANeuralNetworksDevice_wait,
    .ANeuralNetworksEvent_createFromSyncFenceFd = ANeuralNetworksEvent_createFromSyncFenceFd,
    .ANeuralNetworksEvent_free = ANeuralNetworksEvent_free,
    .ANeuralNetworksEvent_getSyncFenceFd = ANeuralNetworksEvent_getSyncFenceFd,
    .ANeuralNetworksEvent_wait = ANeuralNetworksEvent_wait,
    .ANeuralNetworksExecution_burstCompute = ANeuralNetworksExecution_burstCompute,
    .ANeuralNetworksExecution_compute = ANeuralNetworksExecution_compute,
    .ANeuralNetworksExecution_create = ANeuralNetworksExecution_create,
    .ANeuralNetworksExecution_enableInputAndOutputPadding =
            ANeuralNetworksExecution_enableInputAndOutputPadding,
    .ANeuralNetworksExecution_free = ANeuralNetworksExecution_free,
    .ANeuralNetworksExecution_getDuration = ANeuralNetworksExecution_getDuration,
    .ANeuralNetworksExecution_getOutputOperandDimensions =
            ANeuralNetworksExecution_getOutputOperandDimensions,
    .ANeuralNetworksExecution_getOutputOperandRank = ANeuralNetworksExecution_getOutputOperandRank,
    .ANeuralNetworksExecution_setInput = ANeuralNetworksExecution_setInput,
    .ANeuralNetworksExecution_setInputFromMemory = ANeuralNetworksExecution_setInputFromMemory,
    .ANeuralNetworksExecution_setLoopTimeout = ANeuralNetworksExecution_setLoopTimeout,
    .ANeuralNetworksExecution_setMeasureTiming = ANeuralNetworksExecution_setMeasureTiming,
    .ANeuralNetworksExecution_setOutput = ANeuralNetworksExecution_setOutput,
    .ANeuralNetworksExecution_setOutputFromMemory = ANeuralNetworksExecution_setOutputFromMemory,
    .ANeuralNetworksExecution_setReusable = ANeuralNetworksExecution_setReusable,
    .ANeuralNetworksExecution_setTimeout = ANeuralNetworksExecution_setTimeout,
    .ANeuralNetworksExecution_startComputeWithDependencies =
            ANeuralNetworksExecution_startComputeWithDependencies,
    .ANeuralNetworksMemoryDesc_addInputRole = ANeuralNetworksMemoryDesc_addInputRole,
    .ANeuralNetworksMemoryDesc_addOutputRole = ANeuralNetworksMemoryDesc_addOutputRole,
    .ANeuralNetworksMemoryDesc_create = ANeuralNetworksMemoryDesc_create,
    .ANeuralNetworksMemoryDesc_finish = ANeuralNetworksMemoryDesc_finish,
    .ANeuralNetworksMemoryDesc_free = ANeuralNetworksMemoryDesc_free,
    .ANeuralNetworksMemoryDesc_setDimensions = ANeuralNetworksMemoryDesc_setDimensions,
    .ANeuralNetworksMemory_copy = ANeuralNetworksMemory_copy,
    .ANeuralNetworksMemory_createFromAHardwareBuffer = ANeuralNetworksMemory_createFromAHardwareBuffer,
    .ANeuralNetworksMemory_createFromDesc = ANeuralNetworksMemory_createFromDesc,
    .ANeuralNetworksMemory_createFromFd = ANeuralNetworksMemory_createFromFd,
    .ANeuralNetworksMemory_free = ANeuralNetworksMemory_free,
    .ANeuralNetworksModel_addOperand = ANeuralNetworksModel_addOperand,
    .ANeuralNetworksModel_addOperation = ANeuralNetworksModel_addOperation,
    .ANeuralNetworksModel_create = ANeuralNetworksModel_create,
    .ANeuralNetworksModel_finish = ANeuralNetworksModel_finish,
    .ANeuralNetworksModel_free = ANeuralNetworksModel_free,
    .ANeuralNetworksModel_getExtensionOperandType = ANeuralNetworksModel_getExtensionOperandType,
    .ANeuralNetworksModel_getExtensionOperationType = ANeuralNetworksModel_getExtensionOperationType,
    .ANeuralNetworksModel_getSupportedOperationsForDevices =
            ANeuralNetworksModel_getSupportedOperationsForDevices,
    .ANeuralNetworksModel_identifyInputsAndOutputs = ANeuralNetworksModel_identifyInputsAndOutputs,
    .ANeuralNetworksModel_relaxComputationFloat32toFloat16 =
            ANeuralNetworksModel_relaxComputationFloat32toFloat16,
    .ANeuralNetworksModel_setOperandExtensionData = ANeuralNetworksModel_setOperandExtensionData,
    .ANeuralNetworksModel_setOperandSymmPerChannelQuantParams =
            ANeuralNetworksModel_setOperandSymmPerChannelQuantParams,
    .ANeuralNetworksModel_setOperandValue = ANeuralNetworksModel_setOperandValue,
    .ANeuralNetworksModel_setOperandValueFromMemory = ANeuralNetworksModel_setOperandValueFromMemory,
    .ANeuralNetworksModel_setOperandValueFromModel = ANeuralNetworksModel_setOperandValueFromModel,
    .ANeuralNetworks_getDefaultLoopTimeout = ANeuralNetworks_getDefaultLoopTimeout,
    .ANeuralNetworks_getDevice = ANeuralNetworks_getDevice,
    .ANeuralNetworks_getDeviceCount = ANeuralNetworks_getDeviceCount,
    .ANeuralNetworks_getMaximumLoopTimeout = ANeuralNetworks_getMaximumLoopTimeout,
    .ANeuralNetworks_getRuntimeFeatureLevel = ANeuralNetworks_getRuntimeFeatureLevel,
    .SL_ANeuralNetworksCompilation_setCachingFromFds = SL_ANeuralNetworksCompilation_setCachingFromFds,
    .SL_ANeuralNetworksDevice_getNumberOfCacheFilesNeeded =
            SL_ANeuralNetworksDevice_getNumberOfCacheFilesNeeded,
    .SL_ANeuralNetworksDevice_getPerformanceInfo = SL_ANeuralNetworksDevice_getPerformanceInfo,
    .SL_ANeuralNetworksDevice_forEachOperandPerformanceInfo =
            SL_ANeuralNetworksDevice_forEachOperandPerformanceInfo,
    .SL_ANeuralNetworksDevice_getVendorExtensionCount = SL_ANeuralNetworksDevice_getVendorExtensionCount,
    .SL_ANeuralNetworksDevice_getVendorExtensionName = SL_ANeuralNetworksDevice_getVendorExtensionName,
    .SL_ANeuralNetworksDevice_forEachVendorExtensionOperandTypeInformation =
            SL_ANeuralNetworksDevice_forEachVendorExtensionOperandTypeInformation,
    .SL_ANeuralNetworksDiagnosticCompilationInfo_getSessionId =
            SL_ANeuralNetworksDiagnosticCompilationInfo_getSessionId,
    .SL_ANeuralNetworksDiagnosticCompilationInfo_getNnApiVersion =
            SL_ANeuralNetworksDiagnosticCompilationInfo_getNnApiVersion,
    .SL_ANeuralNetworksDiagnosticCompilationInfo_getModelArchHash =
            SL_ANeuralNetworksDiagnosticCompilationInfo_getModelArchHash,
    .SL_ANeuralNetworksDiagnosticCompilationInfo_getDeviceIds =
            SL_ANeuralNetworksDiagnosticCompilationInfo_getDeviceIds,
    .SL_ANeuralNetworksDiagnosticCompilationInfo_getErrorCode =
            SL_ANeuralNetworksDiagnosticCompilationInfo_getErrorCode,
    .SL_ANeuralNetworksDiagnosticCompilationInfo_getInputDataClass =
            SL_ANeuralNetworksDiagnosticCompilationInfo_getInputDataClass,
    .SL_ANeuralNetworksDiagnosticCompilationInfo_getOutputDataClass =
            SL_ANeuralNetworksDiagnosticCompilationInfo_getOutputDataClass,
    .SL_ANeuralNetworksDiagnosticCompilationInfo_getCompilationTimeNanos =
            SL_ANeuralNetworksDiagnosticCompilationInfo_getCompilationTimeNanos,
    .SL_ANeuralNetworksDiagnosticCompilationInfo_isCachingEnabled =
            SL_ANeuralNetworksDiagnosticCompilationInfo_isCachingEnabled,
    .SL_ANeuralNetworksDiagnosticCompilationInfo_isControlFlowUsed =
            SL_ANeuralNetworksDiagnosticCompilationInfo_isControlFlowUsed,
    .SL_ANeuralNetworksDiagnosticCompilationInfo_areDynamicTensorsUsed =
            SL_ANeuralNetworksDiagnosticCompilationInfo_areDynamicTensorsUsed,
    .SL_ANeuralNetworksDiagnosticExecutionInfo_getSessionId =
            SL_ANeuralNetworksDiagnosticExecutionInfo_getSessionId,
    .SL_ANeuralNetworksDiagnosticExecutionInfo_getNnApiVersion =
            SL_ANeuralNetworksDiagnosticExecutionInfo_getNnApiVersion,
    .SL_ANeuralNetworksDiagnosticExecutionInfo_getModelArchHash =
            SL_ANeuralNetworksDiagnosticExecutionInfo_getModelArchHash,
    .SL_ANeuralNetworksDiagnosticExecutionInfo_getDeviceIds =
            SL_ANeuralNetworksDiagnosticExecutionInfo_getDeviceIds,
    .SL_ANeuralNetworksDiagnosticExecutionInfo_getExecutionMode =
            SL_ANeuralNetworksDiagnosticExecutionInfo_getExecutionMode,
    .SL_ANeuralNetworksDiagnosticExecutionInfo_getInputDataClass =
            SL_ANeuralNetworksDiagnosticExecutionInfo_getInputDataClass,
    .SL_ANeuralNetworksDiagnosticExecutionInfo_getOutputDataClass =
            SL_ANeuralNetworksDiagnosticExecutionInfo_getOutputDataClass,
    .SL_ANeuralNetworksDiagnosticExecutionInfo_getErrorCode =
            SL_ANeuralNetworksDiagnosticExecutionInfo_getErrorCode,
    .SL_ANeuralNetworksDiagnosticExecutionInfo_getRuntimeExecutionTimeNanos =
            SL_ANeuralNetworksDiagnosticExecutionInfo_getRuntimeExecutionTimeNanos,
    .SL_ANeuralNetworksDiagnosticExecutionInfo_getDriverExecutionTimeNanos =
            SL_ANeuralNetworksDiagnosticExecutionInfo_getDriverExecutionTimeNanos,
    .SL_ANeuralNetworksDiagnosticExecutionInfo_getHardwareExecutionTimeNanos =
            SL_ANeuralNetworksDiagnosticExecutionInfo_getHardwareExecutionTimeNanos,
    .SL_ANeuralNetworksDiagnosticExecutionInfo_isCachingEnabled =
            SL_ANeuralNetworksDiagnosticExecutionInfo_isCachingEnabled,
    .SL_ANeuralNetworksDiagnosticExecutionInfo_isControlFlowUsed =
            SL_ANeuralNetworksDiagnosticExecutionInfo_isControlFlowUsed,
    .SL_ANeuralNetworksDiagnosticExecutionInfo_areDynamicTensorsUsed =
            SL_ANeuralNetworksDiagnosticExecutionInfo_areDynamicTensorsUsed,
    .SL_ANeuralNetworksDiagnostic_registerCallbacks = SL_ANeuralNetworksDiagnostic_registerCallbacks,
};

}  // namespace

extern "C" NnApiSLDriverImpl* ANeuralNetworks_getSLDriverImpl(void) { return &slTable.base; }
