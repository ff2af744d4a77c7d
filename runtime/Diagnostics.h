// Diagnostic callbacks of the Support Library (nnapi-fl30plus.md §4.3): an application registers
// one callback for finished compilations and one for finished executions, process-wide; the
// runtime reports each finish to them with a summary of the model (never its weights).
#pragma once

#include <android/NeuralNetworksSupportLibraryImpl.h>

#include <chrono>
#include <cstdint>

namespace nnemu::runtime {

class Compilation;
class Execution;

namespace diagnostics {

// A fresh id per compilation, shared by its executions in the reports.
int32_t nextSessionId();

void registerCallbacks(ANeuralNetworksDiagnosticCompilationFinishedCallback compilationCallback,
                       ANeuralNetworksDiagnosticExecutionFinishedCallback executionCallback, void* context);

// Runs `work` (returning a result code) and reports its end when a callback is registered.
template <typename Work>
int timedCompilation(const Compilation& compilation, Work&& work);
template <typename Work>
int timedExecution(const Execution& execution, ANeuralNetworksDiagnosticExecutionMode mode, Work&& work);

// What the templates call; no-ops without a registered callback.
// False also for a compilation already finished: a refused second finish compiles nothing.
bool reportsCompilation(const Compilation& compilation);
bool executionCallbackRegistered();
void compilationFinished(const Compilation& compilation, int result, uint64_t nanos);
void executionFinished(const Execution& execution, ANeuralNetworksDiagnosticExecutionMode mode, int result,
                       uint64_t nanos);

inline uint64_t nanosSince(std::chrono::steady_clock::time_point start) {
    return static_cast<uint64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
}

template <typename Work>
int timedCompilation(const Compilation& compilation, Work&& work) {
    if (!reportsCompilation(compilation)) return work();
    const auto start = std::chrono::steady_clock::now();
    const int result = work();
    compilationFinished(compilation, result, nanosSince(start));
    return result;
}

template <typename Work>
int timedExecution(const Execution& execution, ANeuralNetworksDiagnosticExecutionMode mode, Work&& work) {
    if (!executionCallbackRegistered()) return work();
    const auto start = std::chrono::steady_clock::now();
    const int result = work();
    executionFinished(execution, mode, result, nanosSince(start));
    return result;
}

}  // namespace diagnostics
}  // namespace nnemu::runtime

// The getters of the reports, reachable through the Support Library table only.
extern "C" {
int32_t SL_ANeuralNetworksDiagnosticCompilationInfo_getSessionId(const ANeuralNetworksDiagnosticCompilationInfo* info);
int64_t SL_ANeuralNetworksDiagnosticCompilationInfo_getNnApiVersion(const ANeuralNetworksDiagnosticCompilationInfo* info);
const uint8_t* SL_ANeuralNetworksDiagnosticCompilationInfo_getModelArchHash(
        const ANeuralNetworksDiagnosticCompilationInfo* info);
const char* SL_ANeuralNetworksDiagnosticCompilationInfo_getDeviceIds(const ANeuralNetworksDiagnosticCompilationInfo* info);
int32_t SL_ANeuralNetworksDiagnosticCompilationInfo_getErrorCode(const ANeuralNetworksDiagnosticCompilationInfo* info);
ANeuralNetworksDiagnosticDataClass SL_ANeuralNetworksDiagnosticCompilationInfo_getInputDataClass(
        const ANeuralNetworksDiagnosticCompilationInfo* info);
ANeuralNetworksDiagnosticDataClass SL_ANeuralNetworksDiagnosticCompilationInfo_getOutputDataClass(
        const ANeuralNetworksDiagnosticCompilationInfo* info);
uint64_t SL_ANeuralNetworksDiagnosticCompilationInfo_getCompilationTimeNanos(
        const ANeuralNetworksDiagnosticCompilationInfo* info);
bool SL_ANeuralNetworksDiagnosticCompilationInfo_isCachingEnabled(const ANeuralNetworksDiagnosticCompilationInfo* info);
bool SL_ANeuralNetworksDiagnosticCompilationInfo_isControlFlowUsed(const ANeuralNetworksDiagnosticCompilationInfo* info);
bool SL_ANeuralNetworksDiagnosticCompilationInfo_areDynamicTensorsUsed(
        const ANeuralNetworksDiagnosticCompilationInfo* info);

int32_t SL_ANeuralNetworksDiagnosticExecutionInfo_getSessionId(const ANeuralNetworksDiagnosticExecutionInfo* info);
int64_t SL_ANeuralNetworksDiagnosticExecutionInfo_getNnApiVersion(const ANeuralNetworksDiagnosticExecutionInfo* info);
const uint8_t* SL_ANeuralNetworksDiagnosticExecutionInfo_getModelArchHash(const ANeuralNetworksDiagnosticExecutionInfo* info);
const char* SL_ANeuralNetworksDiagnosticExecutionInfo_getDeviceIds(const ANeuralNetworksDiagnosticExecutionInfo* info);
ANeuralNetworksDiagnosticExecutionMode SL_ANeuralNetworksDiagnosticExecutionInfo_getExecutionMode(
        const ANeuralNetworksDiagnosticExecutionInfo* info);
ANeuralNetworksDiagnosticDataClass SL_ANeuralNetworksDiagnosticExecutionInfo_getInputDataClass(
        const ANeuralNetworksDiagnosticExecutionInfo* info);
ANeuralNetworksDiagnosticDataClass SL_ANeuralNetworksDiagnosticExecutionInfo_getOutputDataClass(
        const ANeuralNetworksDiagnosticExecutionInfo* info);
uint32_t SL_ANeuralNetworksDiagnosticExecutionInfo_getErrorCode(const ANeuralNetworksDiagnosticExecutionInfo* info);
uint64_t SL_ANeuralNetworksDiagnosticExecutionInfo_getRuntimeExecutionTimeNanos(
        const ANeuralNetworksDiagnosticExecutionInfo* info);
uint64_t SL_ANeuralNetworksDiagnosticExecutionInfo_getDriverExecutionTimeNanos(
        const ANeuralNetworksDiagnosticExecutionInfo* info);
uint64_t SL_ANeuralNetworksDiagnosticExecutionInfo_getHardwareExecutionTimeNanos(
        const ANeuralNetworksDiagnosticExecutionInfo* info);
bool SL_ANeuralNetworksDiagnosticExecutionInfo_isCachingEnabled(const ANeuralNetworksDiagnosticExecutionInfo* info);
bool SL_ANeuralNetworksDiagnosticExecutionInfo_isControlFlowUsed(const ANeuralNetworksDiagnosticExecutionInfo* info);
bool SL_ANeuralNetworksDiagnosticExecutionInfo_areDynamicTensorsUsed(const ANeuralNetworksDiagnosticExecutionInfo* info);
void SL_ANeuralNetworksDiagnostic_registerCallbacks(ANeuralNetworksDiagnosticCompilationFinishedCallback compilationCallback,
                                                   ANeuralNetworksDiagnosticExecutionFinishedCallback executionCallback,
                                                   void* callbackContext);
}
