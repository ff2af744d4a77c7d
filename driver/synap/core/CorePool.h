// The threads that run the core's own layers side by side with the calling thread.
//
// Why not pthreadpool (which the XNNPACK stages still use, CoreThreads.h): a pthreadpool call
// returns only once every worker has taken the command, whether or not it found work. A worker
// that has slept since the last inference must first be woken, and on a VM the wake of an idle
// vCPU takes 40-70 us at best; at worst Linux places the woken worker on the caller's own CPU
// (an idle vCPU is halted and counts as preempted, not idle) where it waits for the next
// scheduler tick while the caller spins for it: the first layer of a warm process's first pooled
// inference took 5.3 ms instead of 0.1 (MobileNet v2 uint8, `perf sched`: 4.7 ms of scheduling
// delay). Here a call returns as soon as its tasks are done: a worker that is not there yet
// takes no task, and the caller runs them all if need be.
//
// - Each thread has its share of a call's tasks, a contiguous range as pthreadpool gives it (the
//   caller the first): layer after layer a thread works on the same rows, which stay in its
//   caches (handing tasks out in turn from one counter made the float MobileNets 7-13 % slower
//   on two threads). A thread done with its own range takes tasks from the far end of the
//   others', so a worker that has not come leaves its share to the rest.
// - Each worker is kept off the CPU of the thread that hands out the work (its affinity is every
//   allowed CPU but that one, set again when the caller moves), so that a wake goes to another
//   CPU instead of queueing behind the caller.
// - After a call a worker spins for a while (kSpin in CorePool.cpp) for the next one, then
//   sleeps on a futex. wake() rouses sleeping workers ahead of a run, without waiting for them.
#pragma once

#include <pthread.h>
#include <pthreadpool.h>
#include <sched.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace nnemu::synap {

class CorePool {
public:
    using Task = void (*)(void* context, size_t index);

    // A pool of `threads` threads, the calling thread of each call included (threads - 1
    // workers), each worker run `onStart` first (may be null); nullptr when no worker thread can
    // be created. The workers sleep until the first call or wake(), kept off `callerCpu` (-1:
    // this thread's CPU) until then.
    static std::unique_ptr<CorePool> create(size_t threads, void (*onStart)() = nullptr, int callerCpu = -1);
    // The same calls on a pthreadpool's threads (not owned): a network with XNNPACK stages runs
    // all its layers on the pthreadpool those stages need, since the workers of two pools would
    // compete for the same cores.
    static std::unique_ptr<CorePool> over(pthreadpool_t pool);
    ~CorePool();  // joins the workers
    CorePool(const CorePool&) = delete;
    CorePool& operator=(const CorePool&) = delete;

    size_t threads() const { return pthreadpool_ != nullptr ? pthreadpool_get_threads_count(pthreadpool_) : workers_.size() + 1; }

    // Runs task(context, i) for every i < count, on the calling thread and whichever workers
    // come, and returns when all have run. While another thread's call runs, this one runs its
    // tasks alone.
    void parallelize(Task task, void* context, size_t count);

    // Rouses the workers that sleep: they spin, ready for the next call, for a while. Does not
    // wait for them.
    void wake();

    // The CPU the workers were last kept off (tests), -1 before the first call.
    int keptOffCpu() const { return keptOff_.load(std::memory_order_relaxed); }

private:
    CorePool() = default;
    void work(size_t self, void (*onStart)());
    void runTasks(size_t self);
    bool take(size_t range, bool fromFront, size_t* task);
    void keepOffThisThread();
    void publish();

    pthreadpool_t pthreadpool_ = nullptr;  // over(): the calls go there
    std::vector<pthread_t> workers_;
    std::mutex calling_;
    cpu_set_t allowed_{};
    std::atomic<int> keptOff_{-1};

    // The call being run. Written by the caller only while no worker is inside (active_ == 0
    // and the state closed).
    Task task_ = nullptr;
    void* context_ = nullptr;
    // Per thread (the caller's first), the tasks of its range not yet taken: the first in the low
    // 32 bits, one past the last in the high 32 bits.
    struct alignas(64) Range {
        std::atomic<uint64_t> left{0};
    };
    std::unique_ptr<Range[]> ranges_;
    // The call's number, times two, plus one while it is open for workers to join.
    alignas(64) std::atomic<uint64_t> state_{0};
    std::atomic<size_t> active_{0};  // workers between joining a call and leaving it
    // What sleeping workers wait on: changes with every call and wake().
    alignas(64) std::atomic<uint32_t> word_{0};
    std::atomic<uint32_t> sleepers_{0};
    std::atomic<bool> stopping_{false};
};

}  // namespace nnemu::synap
