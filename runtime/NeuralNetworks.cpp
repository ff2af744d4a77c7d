// The NNAPI C entry points: null checks and handle casts, then the runtime objects. As in
// Android, every entry point refuses null pointer arguments (UNEXPECTED_NULL) before it reads a
// count, an index or a range; the objects then check their state (BAD_STATE) before values.
// Every entry point is a function-try-block ending in NNEMU_API_GUARD (ApiGuard.h): an
// allocation failure below it is OUT_OF_MEMORY, never a crash.
#include <android/NeuralNetworks.h>
#include <android/NeuralNetworksExtensions.h>


#include <algorithm>
#include <memory>
#include <new>

#include "ApiGuard.h"
#include "ArgumentChecks.h"
#include "Device.h"
#include "Execution.h"
#include "FeatureLevel.h"
#include "Memory.h"
#include "MemoryDesc.h"
#include "nnemu/base/Log.h"

using namespace nnemu::runtime;

namespace {

// An fd memory or a memory from a descriptor (DeviceMemory).
struct MemoryHandle {
    std::shared_ptr<nnemu::hal::MemoryPool> memory;
};

ModelBuilder* model(ANeuralNetworksModel* handle) { return reinterpret_cast<ModelBuilder*>(handle); }
const ModelBuilder* model(const ANeuralNetworksModel* handle) { return reinterpret_cast<const ModelBuilder*>(handle); }
Compilation* compilation(ANeuralNetworksCompilation* handle) { return reinterpret_cast<Compilation*>(handle); }
Execution* execution(ANeuralNetworksExecution* handle) { return reinterpret_cast<Execution*>(handle); }
const Execution* execution(const ANeuralNetworksExecution* handle) { return reinterpret_cast<const Execution*>(handle); }
MemoryDesc* memoryDesc(ANeuralNetworksMemoryDesc* handle) { return reinterpret_cast<MemoryDesc*>(handle); }
std::shared_ptr<nnemu::hal::MemoryPool> memory(const ANeuralNetworksMemory* handle) {
    return reinterpret_cast<const MemoryHandle*>(handle)->memory;
}

// A device list is read only once it is known to be non-empty.
int checkDeviceCount(uint32_t count, const char* function) {
    if (count != 0) return ANEURALNETWORKS_NO_ERROR;
    NN_LOG(ERROR) << function << ": empty device list";
    return ANEURALNETWORKS_BAD_DATA;
}

// The devices behind a non-empty list of handles, entry by entry as Android checks them: a null
// entry is UNEXPECTED_NULL, an entry repeated later BAD_DATA; then an unknown handle is BAD_DATA.
int devicesFromHandles(const ANeuralNetworksDevice* const* handles, uint32_t count,
                       std::vector<const Device*>* devices) {
    for (uint32_t i = 0; i < count; ++i) {
        if (handles[i] == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
        for (uint32_t j = i + 1; j < count; ++j) {
            if (handles[j] == handles[i]) {
                NN_LOG(ERROR) << "the device list holds a device twice";
                return ANEURALNETWORKS_BAD_DATA;
            }
        }
    }
    for (uint32_t i = 0; i < count; ++i) {
        const Device* device = findDevice(handles[i]);
        if (device == nullptr) {
            NN_LOG(ERROR) << "the device list holds a handle that is not a device";
            return ANEURALNETWORKS_BAD_DATA;
        }
        devices->push_back(device);
    }
    return ANEURALNETWORKS_NO_ERROR;
}

// Past the null checks the result is null until a compilation exists.
int createCompilation(ANeuralNetworksModel* handle, std::vector<const Device*> devices, bool explicitDevices,
                      ANeuralNetworksCompilation** result) {
    *result = nullptr;
    const ModelBuilder* builder = model(handle);
    if (!builder->isFinished() || !builder->isValid()) {
        NN_LOG(ERROR) << "cannot compile a model that is not finished or is invalid";
        return ANEURALNETWORKS_BAD_STATE;
    }
    auto* created = new (std::nothrow) Compilation(builder, std::move(devices), explicitDevices);
    if (created == nullptr) return ANEURALNETWORKS_OUT_OF_MEMORY;
    *result = reinterpret_cast<ANeuralNetworksCompilation*>(created);
    return ANEURALNETWORKS_NO_ERROR;
}

// Executions and bursts are made from a compilation that finished successfully.
int checkCompiled(const Compilation* source, const char* function) {
    if (source->isFinished() && source->plan() != nullptr) return ANEURALNETWORKS_NO_ERROR;
    NN_LOG(ERROR) << function << ": the compilation is not finished or failed";
    return ANEURALNETWORKS_BAD_STATE;
}

// A synchronous computation; its reference keeps the execution alive should another thread free
// it meanwhile.
int startedRun(Execution* run, ANeuralNetworksDiagnosticExecutionMode mode) {
    const Ref<Execution> hold(run);
    if (int n = run->start()) return n;
    return diagnostics::timedExecution(*run, mode, [run] { return run->run(); });
}

}  // namespace

extern "C" {

// ---- Devices -------------------------------------------------------------------------------

int ANeuralNetworks_getDeviceCount(uint32_t* numDevices) try {
    if (numDevices == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    *numDevices = static_cast<uint32_t>(allDevices().size());
    return ANEURALNETWORKS_NO_ERROR;
} NNEMU_API_GUARD

int ANeuralNetworks_getDevice(uint32_t devIndex, ANeuralNetworksDevice** device) try {
    if (device == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    const auto& devices = allDevices();
    if (devIndex >= devices.size()) return ANEURALNETWORKS_BAD_DATA;
    *device = reinterpret_cast<ANeuralNetworksDevice*>(const_cast<Device*>(&devices[devIndex]));
    return ANEURALNETWORKS_NO_ERROR;
} NNEMU_API_GUARD

int ANeuralNetworksDevice_getName(const ANeuralNetworksDevice* device, const char** name) try {
    if (device == nullptr || name == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    *name = reinterpret_cast<const Device*>(device)->name.c_str();
    return ANEURALNETWORKS_NO_ERROR;
} NNEMU_API_GUARD

int ANeuralNetworksDevice_getType(const ANeuralNetworksDevice* device, int32_t* type) try {
    if (device == nullptr || type == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    *type = static_cast<int32_t>(reinterpret_cast<const Device*>(device)->driver->getType());
    return ANEURALNETWORKS_NO_ERROR;
} NNEMU_API_GUARD

int ANeuralNetworksDevice_getVersion(const ANeuralNetworksDevice* device, const char** version) try {
    if (device == nullptr || version == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    *version = reinterpret_cast<const Device*>(device)->version.c_str();
    return ANEURALNETWORKS_NO_ERROR;
} NNEMU_API_GUARD

int ANeuralNetworksDevice_getFeatureLevel(const ANeuralNetworksDevice* device, int64_t* featureLevel) try {
    if (device == nullptr || featureLevel == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    // Never above what the runtime implements (nnapi-fl30plus.md §3.7).
    const int64_t level = featureLevelOf(*reinterpret_cast<const Device*>(device));
    if (level < 0) return ANEURALNETWORKS_BAD_STATE;  // a driver that cannot answer
    *featureLevel = level;
    return ANEURALNETWORKS_NO_ERROR;
} NNEMU_API_GUARD

int ANeuralNetworksDevice_getExtensionSupport(const ANeuralNetworksDevice* device, const char* extensionName,
                                              bool* isExtensionSupported) try {
    if (device == nullptr || extensionName == nullptr || isExtensionSupported == nullptr) {
        return ANEURALNETWORKS_UNEXPECTED_NULL;
    }
    *isExtensionSupported = false;
    for (const auto& extension : reinterpret_cast<const Device*>(device)->driver->getSupportedExtensions()) {
        if (extension.name == extensionName) *isExtensionSupported = true;
    }
    return ANEURALNETWORKS_NO_ERROR;
} NNEMU_API_GUARD

int ANeuralNetworksModel_getSupportedOperationsForDevices(const ANeuralNetworksModel* handle,
                                                          const ANeuralNetworksDevice* const* devices,
                                                          uint32_t numDevices, bool* supportedOps) try {
    const char* function = "ANeuralNetworksModel_getSupportedOperationsForDevices";
    if (handle == nullptr || devices == nullptr || supportedOps == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    if (int n = checkDeviceCount(numDevices, function)) return n;
    const ModelBuilder* builder = model(handle);
    if (!builder->isFinished() || !builder->isValid()) {
        NN_LOG(ERROR) << function << ": the model is not finished or is invalid";
        return ANEURALNETWORKS_BAD_STATE;
    }
    // Android reads the list's entries only after the model's state.
    std::vector<const Device*> chosen;
    if (int n = devicesFromHandles(devices, numDevices, &chosen)) return n;
    const auto& operations = builder->model().operations;
    const auto& order = builder->sortedToAdded();
    for (size_t i = 0; i < operations.size(); ++i) supportedOps[i] = false;
    for (const Device* device : chosen) {
        const std::vector<bool> flags = supportedOperations(*device, builder->model());
        for (size_t i = 0; i < flags.size(); ++i) supportedOps[order[i]] = supportedOps[order[i]] || flags[i];
    }
    return ANEURALNETWORKS_NO_ERROR;
} NNEMU_API_GUARD

// ---- Memory --------------------------------------------------------------------------------

int ANeuralNetworksMemory_createFromFd(size_t size, int protect, int fd, size_t offset,
                                       ANeuralNetworksMemory** memory) try {
    if (memory == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    *memory = nullptr;
    if (size == 0 || fd < 0) return ANEURALNETWORKS_BAD_DATA;
    std::shared_ptr<Memory> created;
    if (int n = Memory::create(size, protect, fd, offset, &created)) return n;
    auto* handle = new (std::nothrow) MemoryHandle{std::move(created)};
    if (handle == nullptr) return ANEURALNETWORKS_OUT_OF_MEMORY;
    *memory = reinterpret_cast<ANeuralNetworksMemory*>(handle);
    return ANEURALNETWORKS_NO_ERROR;
} NNEMU_API_GUARD

int ANeuralNetworksMemory_createFromAHardwareBuffer(const AHardwareBuffer* ahwb, ANeuralNetworksMemory** memory) try {
    if (ahwb == nullptr || memory == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    *memory = nullptr;
    NN_LOG(ERROR) << "AHardwareBuffer memory does not exist on Linux";
    return ANEURALNETWORKS_BAD_DATA;
} NNEMU_API_GUARD

void ANeuralNetworksMemory_free(ANeuralNetworksMemory* memory) try {
    delete reinterpret_cast<MemoryHandle*>(memory);
} NNEMU_API_GUARD_RETURNING()

// ---- Memory domains (feature level 30) ------------------------------------------------------

int ANeuralNetworksMemoryDesc_create(ANeuralNetworksMemoryDesc** desc) try {
    if (desc == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    *desc = reinterpret_cast<ANeuralNetworksMemoryDesc*>(new (std::nothrow) MemoryDesc());
    return *desc == nullptr ? ANEURALNETWORKS_OUT_OF_MEMORY : ANEURALNETWORKS_NO_ERROR;
} NNEMU_API_GUARD

void ANeuralNetworksMemoryDesc_free(ANeuralNetworksMemoryDesc* desc) try {
    delete memoryDesc(desc);
} NNEMU_API_GUARD_RETURNING()

int ANeuralNetworksMemoryDesc_addInputRole(ANeuralNetworksMemoryDesc* desc, const ANeuralNetworksCompilation* handle,
                                           uint32_t index, float frequency) try {
    if (desc == nullptr || handle == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return memoryDesc(desc)->addRole(reinterpret_cast<const Compilation*>(handle), true, index, frequency);
} NNEMU_API_GUARD

int ANeuralNetworksMemoryDesc_addOutputRole(ANeuralNetworksMemoryDesc* desc, const ANeuralNetworksCompilation* handle,
                                            uint32_t index, float frequency) try {
    if (desc == nullptr || handle == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return memoryDesc(desc)->addRole(reinterpret_cast<const Compilation*>(handle), false, index, frequency);
} NNEMU_API_GUARD

int ANeuralNetworksMemoryDesc_setDimensions(ANeuralNetworksMemoryDesc* desc, uint32_t rank,
                                            const uint32_t* dimensions) try {
    if (desc == nullptr || (dimensions == nullptr && rank != 0)) return ANEURALNETWORKS_UNEXPECTED_NULL;
    std::vector<uint32_t> dims(rank);
    if (rank != 0) std::copy(dimensions, dimensions + rank, dims.begin());
    return memoryDesc(desc)->setDimensions(dims);
} NNEMU_API_GUARD

int ANeuralNetworksMemoryDesc_finish(ANeuralNetworksMemoryDesc* desc) try {
    if (desc == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return memoryDesc(desc)->finish();
} NNEMU_API_GUARD

// Any dims are supported: the buffer is runtime-owned host memory sized at every write.
int ANeuralNetworksMemory_createFromDesc(const ANeuralNetworksMemoryDesc* desc, ANeuralNetworksMemory** memory) try {
    if (memory != nullptr) *memory = nullptr;  // before the null checks, as Android does
    if (desc == nullptr || memory == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    const auto* source = reinterpret_cast<const MemoryDesc*>(desc);
    if (!source->isFinished()) {
        NN_LOG(ERROR) << "ANeuralNetworksMemory_createFromDesc: the descriptor is not finished";
        return ANEURALNETWORKS_BAD_STATE;
    }
    auto handle = std::make_unique<MemoryHandle>();
    handle->memory = std::make_shared<DeviceMemory>(source->metadata());
    *memory = reinterpret_cast<ANeuralNetworksMemory*>(handle.release());
    return ANEURALNETWORKS_NO_ERROR;
} NNEMU_API_GUARD

int ANeuralNetworksMemory_copy(const ANeuralNetworksMemory* src, const ANeuralNetworksMemory* dst) try {
    if (src == nullptr || dst == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return copyMemory(memory(src), memory(dst));
} NNEMU_API_GUARD

// ---- Model ---------------------------------------------------------------------------------

int ANeuralNetworksModel_create(ANeuralNetworksModel** result) try {
    if (result == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    auto* created = new (std::nothrow) ModelBuilder();
    if (created == nullptr) return ANEURALNETWORKS_OUT_OF_MEMORY;
    *result = reinterpret_cast<ANeuralNetworksModel*>(created);
    return ANEURALNETWORKS_NO_ERROR;
} NNEMU_API_GUARD

void ANeuralNetworksModel_free(ANeuralNetworksModel* handle) try {
    delete model(handle);
} NNEMU_API_GUARD_RETURNING()

int ANeuralNetworksModel_finish(ANeuralNetworksModel* handle) try {
    if (handle == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return model(handle)->finish();
} NNEMU_API_GUARD

int ANeuralNetworksModel_addOperand(ANeuralNetworksModel* handle, const ANeuralNetworksOperandType* type) try {
    if (handle == nullptr || type == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return model(handle)->addOperand(*type);
} NNEMU_API_GUARD

int ANeuralNetworksModel_setOperandValue(ANeuralNetworksModel* handle, int32_t index, const void* buffer,
                                         size_t length) try {
    if (handle == nullptr || isNullWithLength(buffer, length)) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return model(handle)->setOperandValue(index, buffer, length);
} NNEMU_API_GUARD

int ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(
        ANeuralNetworksModel* handle, int32_t index, const ANeuralNetworksSymmPerChannelQuantParams* channelQuant) try {
    if (handle == nullptr || channelQuant == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return model(handle)->setOperandSymmPerChannelQuantParams(index, *channelQuant);
} NNEMU_API_GUARD

int ANeuralNetworksModel_setOperandValueFromMemory(ANeuralNetworksModel* handle, int32_t index,
                                                   const ANeuralNetworksMemory* memoryHandle, size_t offset,
                                                   size_t length) try {
    if (handle == nullptr || memoryHandle == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return model(handle)->setOperandValueFromMemory(index, memory(memoryHandle), offset, length);
} NNEMU_API_GUARD

int ANeuralNetworksModel_setOperandValueFromModel(ANeuralNetworksModel* handle, int32_t index,
                                                  const ANeuralNetworksModel* value) try {
    if (handle == nullptr || value == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return model(handle)->setOperandValueFromModel(index, *model(value));
} NNEMU_API_GUARD

int ANeuralNetworksModel_addOperation(ANeuralNetworksModel* handle, ANeuralNetworksOperationType type,
                                      uint32_t inputCount, const uint32_t* inputs, uint32_t outputCount,
                                      const uint32_t* outputs) try {
    // The lists must not be null even with a zero count.
    if (handle == nullptr || inputs == nullptr || outputs == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return model(handle)->addOperation(type, inputCount, inputs, outputCount, outputs);
} NNEMU_API_GUARD

int ANeuralNetworksModel_identifyInputsAndOutputs(ANeuralNetworksModel* handle, uint32_t inputCount,
                                                  const uint32_t* inputs, uint32_t outputCount,
                                                  const uint32_t* outputs) try {
    // The lists must not be null even with a zero count.
    if (handle == nullptr || inputs == nullptr || outputs == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return model(handle)->identifyInputsAndOutputs(inputCount, inputs, outputCount, outputs);
} NNEMU_API_GUARD

int ANeuralNetworksModel_relaxComputationFloat32toFloat16(ANeuralNetworksModel* handle, bool allow) try {
    if (handle == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return model(handle)->relaxComputationFloat32toFloat16(allow);
} NNEMU_API_GUARD

int ANeuralNetworksModel_getExtensionOperandType(ANeuralNetworksModel* handle, const char* extensionName,
                                                 uint16_t, int32_t* type) try {
    if (handle == nullptr || extensionName == nullptr || type == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    NN_LOG(ERROR) << "unknown extension " << extensionName;
    return ANEURALNETWORKS_BAD_DATA;
} NNEMU_API_GUARD

int ANeuralNetworksModel_getExtensionOperationType(ANeuralNetworksModel* handle, const char* extensionName,
                                                   uint16_t, ANeuralNetworksOperationType* type) try {
    if (handle == nullptr || extensionName == nullptr || type == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    NN_LOG(ERROR) << "unknown extension " << extensionName;
    return ANEURALNETWORKS_BAD_DATA;
} NNEMU_API_GUARD

int ANeuralNetworksModel_setOperandExtensionData(ANeuralNetworksModel* handle, int32_t index, const void* data,
                                                 size_t length) try {
    if (handle == nullptr || isNullWithLength(data, length)) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return model(handle)->setOperandExtensionData(index, data, length);
} NNEMU_API_GUARD

// ---- Compilation ---------------------------------------------------------------------------

int ANeuralNetworksCompilation_create(ANeuralNetworksModel* handle, ANeuralNetworksCompilation** result) try {
    if (handle == nullptr || result == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    std::vector<const Device*> devices;
    for (const auto& device : allDevices()) devices.push_back(&device);
    return createCompilation(handle, std::move(devices), false, result);
} NNEMU_API_GUARD

int ANeuralNetworksCompilation_createForDevices(ANeuralNetworksModel* handle,
                                                const ANeuralNetworksDevice* const* devices, uint32_t numDevices,
                                                ANeuralNetworksCompilation** result) try {
    if (handle == nullptr || devices == nullptr || result == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    if (int n = checkDeviceCount(numDevices, "ANeuralNetworksCompilation_createForDevices")) return n;
    // Unlike getSupportedOperationsForDevices, the list's entries come before the model's state.
    std::vector<const Device*> chosen;
    if (int n = devicesFromHandles(devices, numDevices, &chosen)) return n;
    return createCompilation(handle, std::move(chosen), true, result);
} NNEMU_API_GUARD

// Its executions and bursts hold references of their own (RefCounted.h).
void ANeuralNetworksCompilation_free(ANeuralNetworksCompilation* handle) try {
    if (handle != nullptr) compilation(handle)->release();
} NNEMU_API_GUARD_RETURNING()

int ANeuralNetworksCompilation_setPreference(ANeuralNetworksCompilation* handle, int32_t preference) try {
    if (handle == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return compilation(handle)->setPreference(preference);
} NNEMU_API_GUARD

int ANeuralNetworksCompilation_setCaching(ANeuralNetworksCompilation* handle, const char* cacheDir,
                                          const uint8_t* token) try {
    if (handle == nullptr || cacheDir == nullptr || token == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return compilation(handle)->setCaching(cacheDir, token);
} NNEMU_API_GUARD

int ANeuralNetworksCompilation_finish(ANeuralNetworksCompilation* handle) try {
    if (handle == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    Compilation* compiling = compilation(handle);
    return diagnostics::timedCompilation(*compiling, [compiling] { return compiling->finish(); });
} NNEMU_API_GUARD

// ---- Execution -----------------------------------------------------------------------------

int ANeuralNetworksExecution_create(ANeuralNetworksCompilation* handle, ANeuralNetworksExecution** result) try {
    if (handle == nullptr || result == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    *result = nullptr;
    const Compilation* source = compilation(handle);
    if (int n = checkCompiled(source, "ANeuralNetworksExecution_create")) return n;
    auto* created = new (std::nothrow) Execution(source);
    if (created == nullptr) return ANEURALNETWORKS_OUT_OF_MEMORY;
    *result = reinterpret_cast<ANeuralNetworksExecution*>(created);
    return ANEURALNETWORKS_NO_ERROR;
} NNEMU_API_GUARD

// Android refuses (and logs) to free an execution whose computation is in flight; here the
// computation's own reference keeps it until it completes, and then it is freed.
void ANeuralNetworksExecution_free(ANeuralNetworksExecution* handle) try {
    if (handle == nullptr) return;
    Execution* freed = execution(handle);
    if (freed->computing()) {
        NN_LOG(ERROR) << "ANeuralNetworksExecution_free: the execution is still computing; it is freed once its "
                         "computation completes";
    }
    freed->release();
} NNEMU_API_GUARD_RETURNING()

int ANeuralNetworksExecution_setInput(ANeuralNetworksExecution* handle, int32_t index,
                                      const ANeuralNetworksOperandType* type, const void* buffer, size_t length) try {
    if (handle == nullptr || isNullWithLength(buffer, length)) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return execution(handle)->setInput(index, type, buffer, length);
} NNEMU_API_GUARD

int ANeuralNetworksExecution_setInputFromMemory(ANeuralNetworksExecution* handle, int32_t index,
                                                const ANeuralNetworksOperandType* type,
                                                const ANeuralNetworksMemory* memoryHandle, size_t offset,
                                                size_t length) try {
    if (handle == nullptr || memoryHandle == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return execution(handle)->setInputFromMemory(index, type, memory(memoryHandle), offset, length);
} NNEMU_API_GUARD

int ANeuralNetworksExecution_setOutput(ANeuralNetworksExecution* handle, int32_t index,
                                       const ANeuralNetworksOperandType* type, void* buffer, size_t length) try {
    if (handle == nullptr || isNullWithLength(buffer, length)) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return execution(handle)->setOutput(index, type, buffer, length);
} NNEMU_API_GUARD

int ANeuralNetworksExecution_setOutputFromMemory(ANeuralNetworksExecution* handle, int32_t index,
                                                 const ANeuralNetworksOperandType* type,
                                                 const ANeuralNetworksMemory* memoryHandle, size_t offset,
                                                 size_t length) try {
    if (handle == nullptr || memoryHandle == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return execution(handle)->setOutputFromMemory(index, type, memory(memoryHandle), offset, length);
} NNEMU_API_GUARD

int ANeuralNetworksExecution_compute(ANeuralNetworksExecution* handle) try {
    if (handle == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return startedRun(execution(handle), ANNDIAG_EXECUTION_MODE_SYNC);
} NNEMU_API_GUARD

int ANeuralNetworksExecution_startCompute(ANeuralNetworksExecution* handle, ANeuralNetworksEvent** event) try {
    if (event == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    *event = nullptr;
    if (handle == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    Execution* run = execution(handle);
    if (int n = run->start()) return n;
    std::shared_future<int> result;
    if (int n = startComputation(run, [run] {
            return diagnostics::timedExecution(*run, ANNDIAG_EXECUTION_MODE_ASYNC, [run] { return run->run(); });
        }, -1, &result)) {
        return n;
    }
    auto* created = new (std::nothrow) Event(std::move(result));
    if (created == nullptr) return ANEURALNETWORKS_OUT_OF_MEMORY;
    *event = reinterpret_cast<ANeuralNetworksEvent*>(created);
    return ANEURALNETWORKS_NO_ERROR;
} NNEMU_API_GUARD

int ANeuralNetworksEvent_wait(ANeuralNetworksEvent* event) try {
    if (event == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return reinterpret_cast<Event*>(event)->wait();
} NNEMU_API_GUARD

// Waits for the event's computation first (Event.h), as Android does.
void ANeuralNetworksEvent_free(ANeuralNetworksEvent* event) try {
    delete reinterpret_cast<Event*>(event);
} NNEMU_API_GUARD_RETURNING()

int ANeuralNetworksExecution_setLoopTimeout(ANeuralNetworksExecution* handle, uint64_t duration) try {
    if (handle == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return execution(handle)->setLoopTimeout(duration);
} NNEMU_API_GUARD

uint64_t ANeuralNetworks_getDefaultLoopTimeout() try {
    return nnemu::hal::kLoopTimeoutDefault;
} NNEMU_API_GUARD_RETURNING(0)

uint64_t ANeuralNetworks_getMaximumLoopTimeout() try {
    return nnemu::hal::kLoopTimeoutMaximum;
} NNEMU_API_GUARD_RETURNING(0)

int ANeuralNetworksExecution_getOutputOperandRank(ANeuralNetworksExecution* handle, int32_t index,
                                                  uint32_t* rank) try {
    if (handle == nullptr || rank == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return execution(handle)->getOutputOperandRank(index, rank);
} NNEMU_API_GUARD

int ANeuralNetworksExecution_getOutputOperandDimensions(ANeuralNetworksExecution* handle, int32_t index,
                                                        uint32_t* dimensions) try {
    if (handle == nullptr || dimensions == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return execution(handle)->getOutputOperandDimensions(index, dimensions);
} NNEMU_API_GUARD

int ANeuralNetworksExecution_setMeasureTiming(ANeuralNetworksExecution* handle, bool measure) try {
    if (handle == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return execution(handle)->setMeasureTiming(measure);
} NNEMU_API_GUARD

int ANeuralNetworksExecution_getDuration(const ANeuralNetworksExecution* handle, int32_t durationCode,
                                         uint64_t* duration) try {
    if (handle == nullptr || duration == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return execution(handle)->getDuration(durationCode, duration);
} NNEMU_API_GUARD

// ---- Bursts --------------------------------------------------------------------------------

int ANeuralNetworksBurst_create(ANeuralNetworksCompilation* handle, ANeuralNetworksBurst** burst) try {
    if (handle == nullptr || burst == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    *burst = nullptr;
    const Compilation* source = compilation(handle);
    if (int n = checkCompiled(source, "ANeuralNetworksBurst_create")) return n;
    auto* created = new (std::nothrow) Burst(source);
    if (created == nullptr) return ANEURALNETWORKS_OUT_OF_MEMORY;
    *burst = reinterpret_cast<ANeuralNetworksBurst*>(created);
    return ANEURALNETWORKS_NO_ERROR;
} NNEMU_API_GUARD

// A burstCompute in flight holds a reference of its own (RefCounted.h).
void ANeuralNetworksBurst_free(ANeuralNetworksBurst* burst) try {
    if (burst != nullptr) reinterpret_cast<Burst*>(burst)->release();
} NNEMU_API_GUARD_RETURNING()

int ANeuralNetworksExecution_burstCompute(ANeuralNetworksExecution* handle, ANeuralNetworksBurst* burstHandle) try {
    if (handle == nullptr || burstHandle == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    const Ref<Burst> burst(reinterpret_cast<Burst*>(burstHandle));
    Execution* run = execution(handle);
    // As in Android: the compilation check (BAD_DATA) comes before the burst's and the
    // execution's state (BAD_STATE).
    if (run->compilation() != burst->compilation.get()) {
        NN_LOG(ERROR) << "ANeuralNetworksExecution_burstCompute: the burst belongs to another compilation";
        return ANEURALNETWORKS_BAD_DATA;
    }
    std::unique_lock<std::mutex> lock(burst->busy, std::try_to_lock);
    if (!lock.owns_lock()) return ANEURALNETWORKS_BAD_STATE;
    // The burst reuses nothing yet: it is a synchronous compute serialized per burst.
    return startedRun(run, ANNDIAG_EXECUTION_MODE_BURST);
} NNEMU_API_GUARD

}  // extern "C"
