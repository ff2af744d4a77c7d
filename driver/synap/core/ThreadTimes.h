// What each thread of the core's pool spends on each stage, in CPU time (CLOCK_THREAD_CPUTIME_ID:
// what a thread computes, not how long it waited for a core), for benchmarks that ask how well
// the work is cut: per stage, every pool task's time on the thread that ran it, so that the
// critical path (the sum over stages of the busiest thread's time) can be set against half the
// total without the machine's load entering either. Off unless a benchmark turns it on; one
// inference at a time in the process while on.
#pragma once

#include "CorePool.h"

#include <array>
#include <cstddef>
#include <cstdint>

namespace nnemu::synap {

constexpr size_t kTimedThreads = 8;  // threads told apart; more share the last slot

// One stage's times over the inferences recorded.
struct StageThreadTimes {
    uint64_t callerNs = 0;  // the calling thread over the whole stage (its tasks, hand-outs, waits)
    std::array<uint64_t, kTimedThreads> taskNs{};  // pool tasks, per thread
    uint64_t longestTaskNs = 0;                    // the longest single task
    uint64_t parallelCalls = 0;                    // hand-outs to the pool (each ends in a barrier)
    uint64_t tasks = 0;
};

bool threadTimesOn();
void setThreadTimesOn(bool on);
// The stage being recorded: tasks add to it until the next call (nullptr: none).
void recordThreadTimesInto(StageThreadTimes* stage);
// The calling thread's CPU time, ns.
uint64_t threadCpuNs();

// pool->parallelize(task, count) (CorePool.h), each task timed while threadTimesOn(). The
// calling thread runs tasks too; without a pool, it runs them all.
template <typename Task>
void parallelize(CorePool* pool, const Task& task, size_t count);

namespace detail {
void addTask(uint64_t ns);
void addParallelCall(size_t tasks);
template <typename Task>
void runTask(void* context, size_t i) {
    (*static_cast<const Task*>(context))(i);
}
template <typename Task>
void runTimedTask(void* context, size_t i) {
    const uint64_t start = threadCpuNs();
    (*static_cast<const Task*>(context))(i);
    addTask(threadCpuNs() - start);
}
}  // namespace detail

template <typename Task>
void parallelize(CorePool* pool, const Task& task, size_t count) {
    const bool timed = threadTimesOn();
    if (timed) detail::addParallelCall(count);
    const CorePool::Task run = timed ? &detail::runTimedTask<Task> : &detail::runTask<Task>;
    if (pool == nullptr) {
        for (size_t i = 0; i < count; ++i) run(const_cast<Task*>(&task), i);
        return;
    }
    pool->parallelize(run, const_cast<Task*>(&task), count);
}

}  // namespace nnemu::synap
