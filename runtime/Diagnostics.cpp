#include "Diagnostics.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <limits>
#include <mutex>
#include <string>

#include "Compilation.h"
#include "Execution.h"
#include "FeatureLevel.h"
#include "nnemu/base/Digest.h"
#include "nnemu/hal/OperandTypes.h"

using nnemu::hal::OperandType;
using nnemu::hal::OperationType;

// The reports handed to the callbacks, alive during the call only.
struct ModelSummary {
    int32_t sessionId = 0;
    std::array<uint8_t, 32> archHash{};
    std::string deviceIds;
    ANeuralNetworksDiagnosticDataClass inputClass = ANNDIAG_DATA_CLASS_UNKNOWN;
    ANeuralNetworksDiagnosticDataClass outputClass = ANNDIAG_DATA_CLASS_UNKNOWN;
    bool caching = false;
    bool controlFlow = false;
    bool dynamicTensors = false;
};

struct ANeuralNetworksDiagnosticCompilationInfo {
    ModelSummary model;
    int32_t errorCode = 0;
    uint64_t nanos = 0;
};

struct ANeuralNetworksDiagnosticExecutionInfo {
    ModelSummary model;
    ANeuralNetworksDiagnosticExecutionMode mode = ANNDIAG_EXECUTION_MODE_UNKNOWN;
    uint32_t errorCode = 0;
    uint64_t runtimeNanos = 0;
    uint64_t driverNanos = std::numeric_limits<uint64_t>::max();
    uint64_t hardwareNanos = std::numeric_limits<uint64_t>::max();
};

namespace nnemu::runtime::diagnostics {
namespace {

struct Callbacks {
    ANeuralNetworksDiagnosticCompilationFinishedCallback compilation = nullptr;
    ANeuralNetworksDiagnosticExecutionFinishedCallback execution = nullptr;
    void* context = nullptr;
};

std::mutex& callbacksMutex() {
    static std::mutex mutex;
    return mutex;
}
Callbacks& callbacks() {
    static Callbacks registered;
    return registered;
}
std::atomic<bool> compilationRegistered{false};
std::atomic<bool> executionRegistered{false};

Callbacks currentCallbacks() {
    std::lock_guard lock(callbacksMutex());
    return callbacks();
}

ANeuralNetworksDiagnosticDataClass dataClass(OperandType type) {
    switch (type) {
        case OperandType::FLOAT32:
        case OperandType::TENSOR_FLOAT32: return ANNDIAG_DATA_CLASS_FLOAT32;
        case OperandType::FLOAT16:
        case OperandType::TENSOR_FLOAT16: return ANNDIAG_DATA_CLASS_FLOAT16;
        case OperandType::TENSOR_QUANT8_ASYMM:
        case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
        case OperandType::TENSOR_QUANT8_SYMM:
        case OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL:
        case OperandType::TENSOR_QUANT16_ASYMM:
        case OperandType::TENSOR_QUANT16_SYMM: return ANNDIAG_DATA_CLASS_QUANT;
        default: return ANNDIAG_DATA_CLASS_OTHER;
    }
}

// UNKNOWN without operands, MIXED when they differ.
ANeuralNetworksDiagnosticDataClass dataClassOf(const hal::Model& model, const std::vector<uint32_t>& indexes) {
    ANeuralNetworksDiagnosticDataClass result = ANNDIAG_DATA_CLASS_UNKNOWN;
    for (uint32_t index : indexes) {
        const auto current = dataClass(model.operands[index].type);
        if (result == ANNDIAG_DATA_CLASS_UNKNOWN) result = current;
        if (result != current) return ANNDIAG_DATA_CLASS_MIXED;
    }
    return result;
}

template <typename T>
void hashVector(base::Digest& digest, const std::vector<T>& values) {
    digest.updateValue(values.size());
    if (!values.empty()) digest.update(values.data(), values.size() * sizeof(T));
}

// SHA-256 of the graph: operand types, shapes, quantization and lifetimes, operations and the
// model's inputs and outputs, never the constants' values.
std::array<uint8_t, 32> architectureHash(const hal::Model& model) {
    base::Digest digest(base::DigestAlgorithm::SHA256);
    for (const auto& operand : model.operands) {
        digest.updateValue(operand.type);
        hashVector(digest, operand.dimensions);
        digest.updateValue(operand.scale);
        digest.updateValue(operand.zeroPoint);
        digest.updateValue(operand.lifetime);
    }
    for (const auto& operation : model.operations) {
        digest.updateValue(operation.type);
        hashVector(digest, operation.inputs);
        hashVector(digest, operation.outputs);
    }
    hashVector(digest, model.inputIndexes);
    hashVector(digest, model.outputIndexes);
    std::array<uint8_t, 32> hash{};
    const std::vector<uint8_t> sum = digest.finish();
    std::copy(sum.begin(), sum.end(), hash.begin());
    return hash;
}

bool usesControlFlow(const hal::Model& model) {
    for (const auto& operation : model.operations) {
        if (operation.type == OperationType::IF || operation.type == OperationType::WHILE) return true;
    }
    return false;
}

// A tensor of unknown rank or with an unknown dimension, anywhere in the model.
bool usesDynamicTensors(const hal::Model& model) {
    for (const auto& operand : model.operands) {
        if (!hal::isTensorType(operand.type)) continue;
        if (operand.dimensions.empty()) return true;
        for (uint32_t dim : operand.dimensions) {
            if (dim == 0) return true;
        }
    }
    return false;
}

ModelSummary summarize(const Compilation& compilation) {
    const hal::Model& model = compilation.model();
    ModelSummary summary;
    summary.sessionId = compilation.sessionId();
    summary.archHash = architectureHash(model);
    for (const Device* device : compilation.devices()) {
        if (!summary.deviceIds.empty()) summary.deviceIds += ',';
        summary.deviceIds += device->name;
    }
    summary.inputClass = dataClassOf(model, model.inputIndexes);
    summary.outputClass = dataClassOf(model, model.outputIndexes);
    summary.caching = compilation.cachingEnabled();
    summary.controlFlow = usesControlFlow(model);
    summary.dynamicTensors = usesDynamicTensors(model);
    return summary;
}

uint64_t duration(const Execution& execution, int32_t code) {
    uint64_t nanos = std::numeric_limits<uint64_t>::max();
    if (execution.getDuration(code, &nanos) != ANEURALNETWORKS_NO_ERROR) {
        return std::numeric_limits<uint64_t>::max();
    }
    return nanos;
}

}  // namespace

int32_t nextSessionId() {
    static std::atomic<int32_t> next{0};
    return next++;
}

void registerCallbacks(ANeuralNetworksDiagnosticCompilationFinishedCallback compilationCallback,
                       ANeuralNetworksDiagnosticExecutionFinishedCallback executionCallback, void* context) {
    std::lock_guard lock(callbacksMutex());
    callbacks() = {compilationCallback, executionCallback, context};
    compilationRegistered = compilationCallback != nullptr;
    executionRegistered = executionCallback != nullptr;
}

bool reportsCompilation(const Compilation& compilation) {
    return compilationRegistered && !compilation.isFinished();
}
bool executionCallbackRegistered() { return executionRegistered; }

void compilationFinished(const Compilation& compilation, int result, uint64_t nanos) {
    const Callbacks registered = currentCallbacks();
    if (registered.compilation == nullptr) return;
    const ANeuralNetworksDiagnosticCompilationInfo info{summarize(compilation), result, nanos};
    registered.compilation(registered.context, &info);
}

void executionFinished(const Execution& execution, ANeuralNetworksDiagnosticExecutionMode mode, int result,
                       uint64_t nanos) {
    const Callbacks registered = currentCallbacks();
    if (registered.execution == nullptr) return;
    ANeuralNetworksDiagnosticExecutionInfo info;
    info.model = summarize(*execution.compilation());
    info.mode = mode;
    info.errorCode = static_cast<uint32_t>(result);
    info.runtimeNanos = nanos;
    // Asynchronous executions may already be running again on another thread: no durations.
    if (mode == ANNDIAG_EXECUTION_MODE_SYNC || mode == ANNDIAG_EXECUTION_MODE_BURST) {
        info.driverNanos = duration(execution, ANEURALNETWORKS_DURATION_IN_DRIVER);
        info.hardwareNanos = duration(execution, ANEURALNETWORKS_DURATION_ON_HARDWARE);
    }
    registered.execution(registered.context, &info);
}

}  // namespace nnemu::runtime::diagnostics

// ---- Getters --------------------------------------------------------------------------------

using CompilationInfo = ANeuralNetworksDiagnosticCompilationInfo;
using ExecutionInfo = ANeuralNetworksDiagnosticExecutionInfo;

extern "C" {

int32_t SL_ANeuralNetworksDiagnosticCompilationInfo_getSessionId(const CompilationInfo* info) {
    return info->model.sessionId;
}
int64_t SL_ANeuralNetworksDiagnosticCompilationInfo_getNnApiVersion(const CompilationInfo*) {
    return nnemu::runtime::kRuntimeFeatureLevel;
}
const uint8_t* SL_ANeuralNetworksDiagnosticCompilationInfo_getModelArchHash(const CompilationInfo* info) {
    return info->model.archHash.data();
}
const char* SL_ANeuralNetworksDiagnosticCompilationInfo_getDeviceIds(const CompilationInfo* info) {
    return info->model.deviceIds.c_str();
}
int32_t SL_ANeuralNetworksDiagnosticCompilationInfo_getErrorCode(const CompilationInfo* info) { return info->errorCode; }
ANeuralNetworksDiagnosticDataClass SL_ANeuralNetworksDiagnosticCompilationInfo_getInputDataClass(
        const CompilationInfo* info) {
    return info->model.inputClass;
}
ANeuralNetworksDiagnosticDataClass SL_ANeuralNetworksDiagnosticCompilationInfo_getOutputDataClass(
        const CompilationInfo* info) {
    return info->model.outputClass;
}
uint64_t SL_ANeuralNetworksDiagnosticCompilationInfo_getCompilationTimeNanos(const CompilationInfo* info) {
    return info->nanos;
}
bool SL_ANeuralNetworksDiagnosticCompilationInfo_isCachingEnabled(const CompilationInfo* info) {
    return info->model.caching;
}
bool SL_ANeuralNetworksDiagnosticCompilationInfo_isControlFlowUsed(const CompilationInfo* info) {
    return info->model.controlFlow;
}
bool SL_ANeuralNetworksDiagnosticCompilationInfo_areDynamicTensorsUsed(const CompilationInfo* info) {
    return info->model.dynamicTensors;
}

int32_t SL_ANeuralNetworksDiagnosticExecutionInfo_getSessionId(const ExecutionInfo* info) {
    return info->model.sessionId;
}
int64_t SL_ANeuralNetworksDiagnosticExecutionInfo_getNnApiVersion(const ExecutionInfo*) {
    return nnemu::runtime::kRuntimeFeatureLevel;
}
const uint8_t* SL_ANeuralNetworksDiagnosticExecutionInfo_getModelArchHash(const ExecutionInfo* info) {
    return info->model.archHash.data();
}
const char* SL_ANeuralNetworksDiagnosticExecutionInfo_getDeviceIds(const ExecutionInfo* info) {
    return info->model.deviceIds.c_str();
}
ANeuralNetworksDiagnosticExecutionMode SL_ANeuralNetworksDiagnosticExecutionInfo_getExecutionMode(
        const ExecutionInfo* info) {
    return info->mode;
}
ANeuralNetworksDiagnosticDataClass SL_ANeuralNetworksDiagnosticExecutionInfo_getInputDataClass(
        const ExecutionInfo* info) {
    return info->model.inputClass;
}
ANeuralNetworksDiagnosticDataClass SL_ANeuralNetworksDiagnosticExecutionInfo_getOutputDataClass(
        const ExecutionInfo* info) {
    return info->model.outputClass;
}
uint32_t SL_ANeuralNetworksDiagnosticExecutionInfo_getErrorCode(const ExecutionInfo* info) { return info->errorCode; }
uint64_t SL_ANeuralNetworksDiagnosticExecutionInfo_getRuntimeExecutionTimeNanos(const ExecutionInfo* info) {
    return info->runtimeNanos;
}
uint64_t SL_ANeuralNetworksDiagnosticExecutionInfo_getDriverExecutionTimeNanos(const ExecutionInfo* info) {
    return info->driverNanos;
}
uint64_t SL_ANeuralNetworksDiagnosticExecutionInfo_getHardwareExecutionTimeNanos(const ExecutionInfo* info) {
    return info->hardwareNanos;
}
bool SL_ANeuralNetworksDiagnosticExecutionInfo_isCachingEnabled(const ExecutionInfo* info) {
    return info->model.caching;
}
bool SL_ANeuralNetworksDiagnosticExecutionInfo_isControlFlowUsed(const ExecutionInfo* info) {
    return info->model.controlFlow;
}
bool SL_ANeuralNetworksDiagnosticExecutionInfo_areDynamicTensorsUsed(const ExecutionInfo* info) {
    return info->model.dynamicTensors;
}

void SL_ANeuralNetworksDiagnostic_registerCallbacks(ANeuralNetworksDiagnosticCompilationFinishedCallback compilationCallback,
                                                   ANeuralNetworksDiagnosticExecutionFinishedCallback executionCallback,
                                                   void* callbackContext) {
    nnemu::runtime::diagnostics::registerCallbacks(compilationCallback, executionCallback, callbackContext);
}

}  // extern "C"
