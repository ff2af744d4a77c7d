// The C entry points of feature levels 30 and 5 for quality of service, fenced execution, device
// liveness, feature-level discovery, reusable executions and padding (nnapi-fl30plus.md §3.4-§3.8).
// Same shape as NeuralNetworks.cpp: null checks here, then the runtime objects.
#include <android/NeuralNetworks.h>
#include <unistd.h>

#include <chrono>
#include <new>
#include <vector>

#include "Device.h"
#include "Execution.h"
#include "FeatureLevel.h"
#include "nnemu/base/Log.h"

using namespace nnemu::runtime;

namespace {

Compilation* compilationOf(ANeuralNetworksCompilation* handle) { return reinterpret_cast<Compilation*>(handle); }
const Compilation* compilationOf(const ANeuralNetworksCompilation* handle) {
    return reinterpret_cast<const Compilation*>(handle);
}
Execution* executionOf(ANeuralNetworksExecution* handle) { return reinterpret_cast<Execution*>(handle); }
const Event* eventOf(const ANeuralNetworksEvent* handle) { return reinterpret_cast<const Event*>(handle); }

// What a fenced computation waits for: another computation's result, or a dup of a fence fd.
struct Dependency {
    std::shared_future<int> computation;
    int fence = -1;
};

// Waits for every dependency; NO_ERROR when all signalled without error, else OP_FAILED.
// Closes the fences it owns.
int waitForAll(std::vector<Dependency>& dependencies) {
    int result = ANEURALNETWORKS_NO_ERROR;
    for (auto& dependency : dependencies) {
        const int status = dependency.computation.valid() ? dependency.computation.get()
                                                          : waitForFence(dependency.fence, -1);
        if (dependency.fence >= 0) close(dependency.fence);
        if (status != ANEURALNETWORKS_NO_ERROR) result = ANEURALNETWORKS_OP_FAILED;
    }
    return result;
}

void closeAll(std::vector<Dependency>& dependencies) {
    for (auto& dependency : dependencies) {
        if (dependency.fence >= 0) close(dependency.fence);
    }
}

// The dependencies of startComputeWithDependencies: those without a fence (startCompute's
// events) are waited for now, as Android does; an error among them is returned. One already
// known to have failed is OP_FAILED now.
int collectDependencies(const ANeuralNetworksEvent* const* handles, uint32_t count,
                        std::vector<Dependency>* dependencies) {
    for (uint32_t i = 0; i < count; ++i) {
        const Event* event = eventOf(handles[i]);
        if (event->fence() < 0) {
            if (int n = event->wait()) {
                NN_LOG(ERROR) << "ANeuralNetworksExecution_startComputeWithDependencies: dependency " << i
                              << " failed";
                return n;
            }
            continue;
        }
        if (event->failed()) {
            NN_LOG(ERROR) << "ANeuralNetworksExecution_startComputeWithDependencies: dependency " << i
                          << " is in an error state";
            return ANEURALNETWORKS_OP_FAILED;
        }
        Dependency dependency;
        if (event->hasComputation()) {
            dependency.computation = event->computation();
        } else {
            dependency.fence = dup(event->fence());
            if (dependency.fence < 0) return ANEURALNETWORKS_OUT_OF_MEMORY;
        }
        dependencies->push_back(std::move(dependency));
    }
    return ANEURALNETWORKS_NO_ERROR;
}

}  // namespace

extern "C" {

// ---- Quality of service (feature level 30) ---------------------------------------------------

int ANeuralNetworksCompilation_setPriority(ANeuralNetworksCompilation* compilation, int priority) {
    if (compilation == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return compilationOf(compilation)->setPriority(priority);
}

int ANeuralNetworksCompilation_setTimeout(ANeuralNetworksCompilation* compilation, uint64_t duration) {
    if (compilation == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return compilationOf(compilation)->setTimeout(duration);
}

int ANeuralNetworksExecution_setTimeout(ANeuralNetworksExecution* execution, uint64_t duration) {
    if (execution == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return executionOf(execution)->setTimeout(duration);
}

// ---- Devices (feature levels 30 and 5) -------------------------------------------------------

// In-process devices never die, so they are always alive again.
int ANeuralNetworksDevice_wait(const ANeuralNetworksDevice* device) {
    if (device == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return ANEURALNETWORKS_NO_ERROR;
}

int64_t ANeuralNetworks_getRuntimeFeatureLevel() { return kRuntimeFeatureLevel; }

// ---- Fenced execution (feature level 30) -----------------------------------------------------

int ANeuralNetworksEvent_createFromSyncFenceFd(int syncFenceFd, ANeuralNetworksEvent** event) {
    if (event == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    *event = nullptr;
    if (syncFenceFd <= 0) {
        NN_LOG(ERROR) << "ANeuralNetworksEvent_createFromSyncFenceFd: invalid fd " << syncFenceFd;
        return ANEURALNETWORKS_BAD_DATA;
    }
    const int fence = dup(syncFenceFd);
    if (fence < 0) {
        NN_LOG(ERROR) << "ANeuralNetworksEvent_createFromSyncFenceFd: cannot duplicate fd " << syncFenceFd;
        return ANEURALNETWORKS_BAD_DATA;
    }
    auto* created = new (std::nothrow) Event(fence);
    if (created == nullptr) {
        close(fence);
        return ANEURALNETWORKS_OUT_OF_MEMORY;
    }
    *event = reinterpret_cast<ANeuralNetworksEvent*>(created);
    return ANEURALNETWORKS_NO_ERROR;
}

int ANeuralNetworksEvent_getSyncFenceFd(const ANeuralNetworksEvent* event, int* syncFenceFd) {
    if (event == nullptr || syncFenceFd == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    *syncFenceFd = -1;
    const int fence = eventOf(event)->fence();
    if (fence < 0) {
        NN_LOG(ERROR) << "ANeuralNetworksEvent_getSyncFenceFd: the event has no sync fence";
        return ANEURALNETWORKS_BAD_DATA;
    }
    *syncFenceFd = dup(fence);
    return *syncFenceFd < 0 ? ANEURALNETWORKS_OP_FAILED : ANEURALNETWORKS_NO_ERROR;
}

// The computation runs on its own thread once every dependency has signalled, and signals the
// event's eventfd when it ends (see Event.h).
int ANeuralNetworksExecution_startComputeWithDependencies(ANeuralNetworksExecution* handle,
                                                          const ANeuralNetworksEvent* const* dependencies,
                                                          uint32_t numDependencies, uint64_t duration,
                                                          ANeuralNetworksEvent** event) {
    if (handle == nullptr || event == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    *event = nullptr;
    if (dependencies == nullptr && numDependencies > 0) return ANEURALNETWORKS_UNEXPECTED_NULL;
    for (uint32_t i = 0; i < numDependencies; ++i) {
        if (dependencies[i] == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    }
    Execution* run = executionOf(handle);
    if (int n = run->checkFenced(duration)) return n;
    std::vector<Dependency> waits;
    int n = collectDependencies(dependencies, numDependencies, &waits);
    if (n == ANEURALNETWORKS_NO_ERROR) n = run->start();
    const int fence = n == ANEURALNETWORKS_NO_ERROR ? makeFence() : -1;
    if (n != ANEURALNETWORKS_NO_ERROR || fence < 0) {
        closeAll(waits);
        if (n == ANEURALNETWORKS_NO_ERROR) return run->complete(ANEURALNETWORKS_OP_FAILED);
        return n;
    }
    auto task = [run, waits = std::move(waits), duration, fence]() mutable {
        int result = waitForAll(waits);
        if (result == ANEURALNETWORKS_NO_ERROR) {
            result = diagnostics::timedExecution(*run, ANNDIAG_EXECUTION_MODE_ASYNC_WITH_DEPS, [&] {
                return run->run(duration != 0 ? nnemu::hal::deadlineAfter(duration) : std::nullopt);
            });
        } else {
            run->complete(result);
        }
        signalFence(fence);
        return result;
    };
    auto* created = new (std::nothrow) Event(std::async(std::launch::async, std::move(task)).share(), fence);
    if (created == nullptr) return ANEURALNETWORKS_OUT_OF_MEMORY;
    *event = reinterpret_cast<ANeuralNetworksEvent*>(created);
    return ANEURALNETWORKS_NO_ERROR;
}

// ---- Reusable executions, padding, preferred memory layout (feature level 5) ------------------

int ANeuralNetworksExecution_setReusable(ANeuralNetworksExecution* execution, bool reusable) {
    if (execution == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return executionOf(execution)->setReusable(reusable);
}

int ANeuralNetworksExecution_enableInputAndOutputPadding(ANeuralNetworksExecution* execution, bool enable) {
    if (execution == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return executionOf(execution)->enableInputAndOutputPadding(enable);
}

int ANeuralNetworksCompilation_getPreferredMemoryAlignmentForInput(const ANeuralNetworksCompilation* compilation,
                                                                   uint32_t index, uint32_t* alignment) {
    if (compilation == nullptr || alignment == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return compilationOf(compilation)->getPreferredMemory(true, true, index, alignment);
}

int ANeuralNetworksCompilation_getPreferredMemoryPaddingForInput(const ANeuralNetworksCompilation* compilation,
                                                                 uint32_t index, uint32_t* padding) {
    if (compilation == nullptr || padding == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return compilationOf(compilation)->getPreferredMemory(true, false, index, padding);
}

int ANeuralNetworksCompilation_getPreferredMemoryAlignmentForOutput(const ANeuralNetworksCompilation* compilation,
                                                                    uint32_t index, uint32_t* alignment) {
    if (compilation == nullptr || alignment == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return compilationOf(compilation)->getPreferredMemory(false, true, index, alignment);
}

int ANeuralNetworksCompilation_getPreferredMemoryPaddingForOutput(const ANeuralNetworksCompilation* compilation,
                                                                  uint32_t index, uint32_t* padding) {
    if (compilation == nullptr || padding == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return compilationOf(compilation)->getPreferredMemory(false, false, index, padding);
}

}  // extern "C"
