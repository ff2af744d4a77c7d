// The NNAPI Support Library table (nnapi-fl30plus.md §4): ANeuralNetworks_getSLDriverImpl() hands
// a loader such as TensorFlow Lite's --nnapi_support_library_path the library's own entry points,
// plus the SL-only functions below and the diagnostics of Diagnostics.cpp.
#include <android/NeuralNetworksSupportLibraryImpl.h>

#include <algorithm>
#include <limits>
#include <mutex>
#include <set>
#include <string>

#include "ApiGuard.h"
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
                                                          const uint32_t numDataCacheFiles, const uint8_t* token) try {
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
} NNEMU_API_GUARD

static int SL_ANeuralNetworksDevice_getNumberOfCacheFilesNeeded(const ANeuralNetworksDevice* handle,
                                                                uint32_t* numModelCacheFiles,
                                                                uint32_t* numDataCacheFiles) try {
    if (numModelCacheFiles != nullptr) *numModelCacheFiles = 0;
    if (numDataCacheFiles != nullptr) *numDataCacheFiles = 0;
    if (handle == nullptr || numModelCacheFiles == nullptr || numDataCacheFiles == nullptr) {
        return ANEURALNETWORKS_UNEXPECTED_NULL;
    }
    const auto [modelFiles, dataFiles] = device(handle).driver->getNumberOfCacheFilesNeeded();
    *numModelCacheFiles = modelFiles;
    *numDataCacheFiles = dataFiles;
    return ANEURALNETWORKS_NO_ERROR;
} NNEMU_API_GUARD

static int SL_ANeuralNetworksDevice_getPerformanceInfo(const ANeuralNetworksDevice* handle,
                                                       int32_t performanceInfoKind,
                                                       SL_ANeuralNetworksPerformanceInfo* performanceInfo) try {
    // As Android's Support Library: outputs are cleared before the arguments are checked.
    if (performanceInfo != nullptr) *performanceInfo = {0.0f, 0.0f};
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
} NNEMU_API_GUARD

static int SL_ANeuralNetworksDevice_forEachOperandPerformanceInfo(
        const ANeuralNetworksDevice* handle, void* context,
        void (*callback)(SL_ANeuralNetworksOperandPerformanceInfo, void*)) try {
    if (handle == nullptr || context == nullptr || callback == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    for (const auto& entry : device(handle).capabilities.operandPerformance) {
        callback({static_cast<int32_t>(entry.type), toSl(entry.info)}, context);
    }
    return ANEURALNETWORKS_NO_ERROR;
} NNEMU_API_GUARD

static int SL_ANeuralNetworksDevice_getVendorExtensionCount(const ANeuralNetworksDevice* handle,
                                                            uint32_t* vendorExtensionCount) try {
    if (vendorExtensionCount != nullptr) *vendorExtensionCount = 0;
    if (handle == nullptr || vendorExtensionCount == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    *vendorExtensionCount = static_cast<uint32_t>(device(handle).driver->getSupportedExtensions().size());
    return ANEURALNETWORKS_NO_ERROR;
} NNEMU_API_GUARD

static int SL_ANeuralNetworksDevice_getVendorExtensionName(const ANeuralNetworksDevice* handle,
                                                           uint32_t vendorExtensionIndex,
                                                           const char** extensionName) try {
    if (extensionName != nullptr) *extensionName = nullptr;
    if (handle == nullptr || extensionName == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    const auto extensions = device(handle).driver->getSupportedExtensions();
    if (vendorExtensionIndex >= extensions.size()) return ANEURALNETWORKS_BAD_DATA;
    *extensionName = internedName(extensions[vendorExtensionIndex].name);
    return ANEURALNETWORKS_NO_ERROR;
} NNEMU_API_GUARD

static int SL_ANeuralNetworksDevice_forEachVendorExtensionOperandTypeInformation(
        const ANeuralNetworksDevice* handle, uint32_t vendorExtensionIndex, void* context,
        void (*callback)(SL_ANeuralNetworksExtensionOperandTypeInformation, void*)) try {
    if (handle == nullptr || context == nullptr || callback == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    if (vendorExtensionIndex >= device(handle).driver->getSupportedExtensions().size()) {
        return ANEURALNETWORKS_BAD_DATA;
    }
    return ANEURALNETWORKS_NO_ERROR;  // hal::Extension declares no operand types
} NNEMU_API_GUARD

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
#include "SupportLibraryEntries.inc"
};

#undef NNEMU_SL_ENTRY

}  // namespace

extern "C" NnApiSLDriverImpl* ANeuralNetworks_getSLDriverImpl(void) try {
    return &slTable.base;
} NNEMU_API_GUARD_RETURNING(nullptr)
