// ANeuralNetworksEvent: the end of an asynchronous computation, or a sync fence the application
// wrapped. Linux has no Android sync_file for in-process work, so a fenced computation's event
// owns an eventfd that it makes readable (POLLIN) when the computation ends; a fence given by the
// application is any fd that polls readable once signalled (nnapi-fl30plus.md §3.5).
#pragma once

#include <future>

namespace nnemu::runtime {

class Event {
public:
    // startCompute: the computation's result, no fence.
    explicit Event(std::shared_future<int> result) : result_(std::move(result)) {}
    // startComputeWithDependencies: the result and the eventfd the computation signals.
    Event(std::shared_future<int> result, int fence) : result_(std::move(result)), fence_(fence) {}
    // Event_createFromSyncFenceFd: owns `fence` (a dup of the application's fd).
    explicit Event(int fence) : fence_(fence) {}
    ~Event();  // waits for the computation, then closes the fence
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;

    // Blocks until signalled: the computation's result code, or for a bare fence NO_ERROR when it
    // polls readable and OP_FAILED when it polls in error.
    int wait() const;
    int fence() const { return fence_; }  // -1: none
    bool hasComputation() const { return result_.valid(); }
    const std::shared_future<int>& computation() const { return result_; }
    // Without blocking: true when the event is known to have signalled an error.
    bool failed() const;

private:
    std::shared_future<int> result_;
    int fence_ = -1;
};

// poll(POLLIN) semantics of Android's sync fences: NO_ERROR once `fd` is readable, OP_FAILED
// when it reports an error or is not an open fd. `timeoutMs` as for poll; -1 waits.
// Returns -1 when the timeout ran out first.
int waitForFence(int fd, int timeoutMs);

// An eventfd that polls readable once signalFence has written it; -1 if none can be made.
int makeFence();
void signalFence(int fd);

}  // namespace nnemu::runtime
