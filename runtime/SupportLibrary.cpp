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

// One table entry: the field and the function of the same name.
#define NNEMU_SL_ENTRY(name) .name = name

// Constant-initialised: the loader may call ANeuralNetworks_getSLDriverImpl before, or without,
// any of the library's static constructors having run. Designated initialisers keep the order
// of the header's fields checked by the compiler.
constinit NnApiSLDriverImplFL5 slTable = {
    .base = {.implFeatureLevel = kTableFeatureLevel},
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

}  // namespace

extern "C" NnApiSLDriverImpl* ANeuralNetworks_getSLDriverImpl(void) { return &slTable.base; }
