#include "ThreadTimes.h"

#include <algorithm>
#include <atomic>
#include <ctime>

namespace nnemu::synap {
namespace {

std::atomic<bool> on{false};
std::atomic<StageThreadTimes*> current{nullptr};
std::atomic<size_t> nextSlot{0};

size_t slotOfThisThread() {
    thread_local const size_t slot = std::min(nextSlot.fetch_add(1), kTimedThreads - 1);
    return slot;
}

void atomicAdd(uint64_t& value, uint64_t add) { std::atomic_ref<uint64_t>(value).fetch_add(add); }

}  // namespace

bool threadTimesOn() { return on.load(std::memory_order_relaxed); }
void setThreadTimesOn(bool enabled) { on.store(enabled); }
void recordThreadTimesInto(StageThreadTimes* stage) { current.store(stage); }

uint64_t threadCpuNs() {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<uint64_t>(now.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(now.tv_nsec);
}

namespace detail {

void addTask(uint64_t ns) {
    StageThreadTimes* stage = current.load();
    if (stage == nullptr) return;
    atomicAdd(stage->taskNs[slotOfThisThread()], ns);
    std::atomic_ref<uint64_t> longest(stage->longestTaskNs);
    uint64_t seen = longest.load();
    while (ns > seen && !longest.compare_exchange_weak(seen, ns)) {
    }
}

void addParallelCall(size_t tasks) {
    StageThreadTimes* stage = current.load();
    if (stage == nullptr) return;
    atomicAdd(stage->parallelCalls, 1);
    atomicAdd(stage->tasks, tasks);
}

}  // namespace detail
}  // namespace nnemu::synap
