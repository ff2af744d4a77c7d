// The C entry points of feature levels 30 and 5 for quality of service, fenced execution, device
// liveness, feature-level discovery, reusable executions and padding (nnapi-fl30plus.md §3.4-§3.8).
// Same shape as NeuralNetworks.cpp: null checks here, then the runtime objects.
#include <android/NeuralNetworks.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <utility>
#include <new>
#include <vector>

#include "ApiGuard.h"
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

// What a fenced computation waits for: another computation's result, or a dup of a fence fd,
// which it owns (the application may free the dependency's event meanwhile).
struct Dependency {
    Dependency() = default;
    Dependency(Dependency&& other) noexcept
        : computation(std::move(other.computation)), fence(std::exchange(other.fence, -1)) {}
    Dependency& operator=(Dependency&&) = delete;
    ~Dependency() { closeFence(); }
    void closeFence() {
        if (fence >= 0) close(fence);
        fence = -1;
    }

    std::shared_future<int> computation;
    int fence = -1;
};

// Waits for every dependency; NO_ERROR when all signalled without error, else OP_FAILED.
// Closes each fence once it has signalled.
int waitForAll(std::vector<Dependency>& dependencies) {
    int result = ANEURALNETWORKS_NO_ERROR;
    for (auto& dependency : dependencies) {
        const int status = dependency.computation.valid() ? dependency.computation.get()
                                                          : waitForFence(dependency.fence, -1);
        dependency.closeFence();
        if (status != ANEURALNETWORKS_NO_ERROR) result = ANEURALNETWORKS_OP_FAILED;
    }
    return result;
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

int ANeuralNetworksCompilation_setPriority(ANeuralNetworksCompilation* compilation, int priority) try {
    if (compilation == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return compilationOf(compilation)->setPriority(priority);
} NNEMU_API_GUARD

int ANeuralNetworksCompilation_setTimeout(ANeuralNetworksCompilation* compilation, uint64_t duration) try {
    if (compilation == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return compilationOf(compilation)->setTimeout(duration);
} NNEMU_API_GUARD

int ANeuralNetworksExecution_setTimeout(ANeuralNetworksExecution* execution, uint64_t duration) try {
    if (execution == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return executionOf(execution)->setTimeout(duration);
} NNEMU_API_GUARD

// ---- Devices (feature levels 30 and 5) -------------------------------------------------------

// In-process devices never die, so they are always alive again.
int ANeuralNetworksDevice_wait(const ANeuralNetworksDevice* device) try {
    if (device == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return ANEURALNETWORKS_NO_ERROR;
} NNEMU_API_GUARD

int64_t ANeuralNetworks_getRuntimeFeatureLevel() try {
    return kRuntimeFeatureLevel;
} NNEMU_API_GUARD_RETURNING(0)

// ---- Fenced execution (feature level 30) -----------------------------------------------------

int ANeuralNetworksEvent_createFromSyncFenceFd(int syncFenceFd, ANeuralNetworksEvent** event) try {
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
} NNEMU_API_GUARD

// *syncFenceFd is -1 on every error, a null event included.
int ANeuralNetworksEvent_getSyncFenceFd(const ANeuralNetworksEvent* event, int* syncFenceFd) try {
    if (syncFenceFd == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    *syncFenceFd = -1;
    if (event == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    const int fence = eventOf(event)->fence();
    const int copy = fence < 0 ? -1 : dup(fence);
    if (copy < 0) {
        NN_LOG(ERROR) << "ANeuralNetworksEvent_getSyncFenceFd: "
                      << (fence < 0 ? "the event has no sync fence" : "cannot duplicate the sync fence");
        return ANEURALNETWORKS_BAD_DATA;
    }
    *syncFenceFd = copy;
    return ANEURALNETWORKS_NO_ERROR;
} NNEMU_API_GUARD

// The computation runs on its own thread once every dependency has signalled, and signals the
// event's eventfd when it ends (see Event.h).
int ANeuralNetworksExecution_startComputeWithDependencies(ANeuralNetworksExecution* handle,
                                                          const ANeuralNetworksEvent* const* dependencies,
                                                          uint32_t numDependencies, uint64_t duration,
                                                          ANeuralNetworksEvent** event) try {
    if (event == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    *event = nullptr;
    if (handle == nullptr || (dependencies == nullptr && numDependencies > 0)) return ANEURALNETWORKS_UNEXPECTED_NULL;
    for (uint32_t i = 0; i < numDependencies; ++i) {
        if (dependencies[i] == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    }
    Execution* run = executionOf(handle);
    if (int n = run->checkFenced(duration)) return n;
    std::vector<Dependency> waits;
    int n = collectDependencies(dependencies, numDependencies, &waits);
    if (n == ANEURALNETWORKS_NO_ERROR) n = run->start();
    if (n != ANEURALNETWORKS_NO_ERROR) return n;
    const int fence = makeFence();
    if (fence < 0) return run->complete(ANEURALNETWORKS_OP_FAILED);
    // The task owns the dependencies' fences; shared so that std::function may copy it.
    auto owned = std::make_shared<std::vector<Dependency>>(std::move(waits));
    auto task = [run, owned, duration]() {
        int result = waitForAll(*owned);
        owned->clear();  // the dependencies' results: not kept while this event lives
        if (result == ANEURALNETWORKS_NO_ERROR) {
            result = diagnostics::timedExecution(*run, ANNDIAG_EXECUTION_MODE_ASYNC_WITH_DEPS, [&] {
                return run->run(duration != 0 ? nnemu::hal::deadlineAfter(duration) : std::nullopt, true);
            });
        } else {
            run->complete(result);
        }
        return result;
    };
    std::shared_future<int> result;
    if (int failed = startComputation(run, std::move(task), fence, &result)) {
        close(fence);
        return failed;
    }
    auto* created = new (std::nothrow) Event(result, fence);
    if (created == nullptr) {  // the computation goes on: its fence is closed once it has signalled
        result.wait();
        close(fence);
        return ANEURALNETWORKS_OUT_OF_MEMORY;
    }
    *event = reinterpret_cast<ANeuralNetworksEvent*>(created);
    return ANEURALNETWORKS_NO_ERROR;
} NNEMU_API_GUARD

// ---- Reusable executions, padding, preferred memory layout (feature level 5) ------------------

int ANeuralNetworksExecution_setReusable(ANeuralNetworksExecution* execution, bool reusable) try {
    if (execution == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return executionOf(execution)->setReusable(reusable);
} NNEMU_API_GUARD

int ANeuralNetworksExecution_enableInputAndOutputPadding(ANeuralNetworksExecution* execution, bool enable) try {
    if (execution == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return executionOf(execution)->enableInputAndOutputPadding(enable);
} NNEMU_API_GUARD

int ANeuralNetworksCompilation_getPreferredMemoryAlignmentForInput(const ANeuralNetworksCompilation* compilation,
                                                                   uint32_t index, uint32_t* alignment) try {
    if (compilation == nullptr || alignment == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return compilationOf(compilation)->getPreferredMemory(true, true, index, alignment);
} NNEMU_API_GUARD

int ANeuralNetworksCompilation_getPreferredMemoryPaddingForInput(const ANeuralNetworksCompilation* compilation,
                                                                 uint32_t index, uint32_t* padding) try {
    if (compilation == nullptr || padding == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return compilationOf(compilation)->getPreferredMemory(true, false, index, padding);
} NNEMU_API_GUARD

int ANeuralNetworksCompilation_getPreferredMemoryAlignmentForOutput(const ANeuralNetworksCompilation* compilation,
                                                                    uint32_t index, uint32_t* alignment) try {
    if (compilation == nullptr || alignment == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return compilationOf(compilation)->getPreferredMemory(false, true, index, alignment);
} NNEMU_API_GUARD

int ANeuralNetworksCompilation_getPreferredMemoryPaddingForOutput(const ANeuralNetworksCompilation* compilation,
                                                                  uint32_t index, uint32_t* padding) try {
    if (compilation == nullptr || padding == nullptr) return ANEURALNETWORKS_UNEXPECTED_NULL;
    return compilationOf(compilation)->getPreferredMemory(false, false, index, padding);
} NNEMU_API_GUARD

}  // extern "C"
