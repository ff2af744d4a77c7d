#include "CorePool.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <mutex>
#include <immintrin.h>

namespace nnemu::synap {
namespace {

using Clock = std::chrono::steady_clock;

// How long a worker spins for the next call before it sleeps: long enough to span the gap
// between two layers and between back-to-back inferences, short enough that a process that
// stops inferring gives the core back at once.
constexpr auto kSpin = std::chrono::microseconds(1000);
// How long the caller spins for workers still running a task before it yields its CPU at every
// check (a worker preempted by another program).
constexpr auto kCallerSpin = std::chrono::microseconds(200);

void futexWait(std::atomic<uint32_t>* word, uint32_t expected) {
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE, expected, nullptr, nullptr, 0);
}

void futexWakeAll(std::atomic<uint32_t>* word) {
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
}

struct Start {
    CorePool* pool;
    size_t self;  // the worker's thread number (the caller is 0)
    void (*onStart)();
};

uint64_t packRange(size_t first, size_t end) { return static_cast<uint64_t>(end) << 32 | static_cast<uint64_t>(first); }

}  // namespace

std::unique_ptr<CorePool> CorePool::create(size_t threads, void (*onStart)(), int callerCpu) {
    if (threads < 2 || threads > UINT32_MAX) return nullptr;
    std::unique_ptr<CorePool> pool(new CorePool());
    pool->ranges_.reset(new Range[threads]);
    if (sched_getaffinity(0, sizeof pool->allowed_, &pool->allowed_) != 0) CPU_ZERO(&pool->allowed_);
    // Started away from the caller's CPU, like later calls' workers (keepOffThisThread).
    const int here = callerCpu >= 0 ? callerCpu : sched_getcpu();
    cpu_set_t elsewhere = pool->allowed_;
    if (here >= 0 && here < CPU_SETSIZE) CPU_CLR(here, &elsewhere);
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    if (CPU_COUNT(&elsewhere) > 0) pthread_attr_setaffinity_np(&attributes, sizeof elsewhere, &elsewhere);
    pool->keptOff_ = CPU_COUNT(&elsewhere) > 0 ? here : -1;
    for (size_t t = 1; t < threads; ++t) {
        auto* start = new Start{pool.get(), pool->workers_.size() + 1, onStart};
        pthread_t thread;
        if (pthread_create(
                    &thread, &attributes,
                    [](void* argument) -> void* {
                        const Start begin = *static_cast<Start*>(argument);
                        delete static_cast<Start*>(argument);
                        pthread_setname_np(pthread_self(), "nnemu-npu");
                        begin.pool->work(begin.self, begin.onStart);
                        return nullptr;
                    },
                    start) != 0) {
            delete start;
            break;
        }
        pool->workers_.push_back(thread);
    }
    pthread_attr_destroy(&attributes);
    if (pool->workers_.empty()) return nullptr;
    return pool;
}

std::unique_ptr<CorePool> CorePool::over(pthreadpool_t threads) {
    if (threads == nullptr) return nullptr;
    std::unique_ptr<CorePool> pool(new CorePool());
    pool->pthreadpool_ = threads;
    return pool;
}

CorePool::~CorePool() {
    stopping_.store(true);
    word_.fetch_add(1);
    futexWakeAll(&word_);
    for (pthread_t thread : workers_) pthread_join(thread, nullptr);
}

void CorePool::wake() {
    if (pthreadpool_ != nullptr) return;
    keepOffThisThread();  // before the wake: a worker started by another thread may sit on this CPU
    word_.fetch_add(1);
    if (sleepers_.load() > 0) futexWakeAll(&word_);
}

// Takes a task of thread `range`'s range: its first (the owner's) or its last (another thread's).
bool CorePool::take(size_t range, bool fromFront, size_t* task) {
    std::atomic<uint64_t>& left = ranges_[range].left;
    uint64_t seen = left.load(std::memory_order_relaxed);
    for (;;) {
        const size_t first = static_cast<uint32_t>(seen), end = static_cast<size_t>(seen >> 32);
        if (first >= end) return false;
        const uint64_t after = fromFront ? packRange(first + 1, end) : packRange(first, end - 1);
        if (left.compare_exchange_weak(seen, after, std::memory_order_relaxed)) {
            *task = fromFront ? first : end - 1;
            return true;
        }
    }
}

void CorePool::runTasks(size_t self) {
    const size_t threads = this->threads();
    size_t task;
    while (take(self, true, &task)) task_(context_, task);
    for (size_t k = 1; k < threads; ++k) {
        const size_t other = (self + k) % threads;
        while (take(other, false, &task)) task_(context_, task);
    }
}

void CorePool::work(size_t self, void (*onStart)()) {
    if (onStart != nullptr) onStart();
    uint64_t joined = 0;  // the last call's state this worker looked at
    auto spinUntil = Clock::now();  // a new worker sleeps until the first call or wake()
    for (;;) {
        const uint32_t word = word_.load();
        const uint64_t state = state_.load();
        if (stopping_.load()) return;
        if (state != joined) {
            joined = state;
            if (state & 1) {
                // Inside the call before looking at it: the caller, which closes the call and
                // then waits for active_ to fall to 0, either sees this worker or this worker
                // sees the call closed (or another call) and leaves it alone.
                active_.fetch_add(1);
                if (state_.load() == state) runTasks(self);
                active_.fetch_sub(1);
            }
            spinUntil = Clock::now() + kSpin;
            continue;
        }
        // Nothing new: spin for the next call, then sleep until the word changes.
        bool changed = false;
        while (!changed && Clock::now() < spinUntil) {
            for (int p = 0; p < 32 && !changed; ++p) {
                _mm_pause();
                changed = word_.load(std::memory_order_relaxed) != word;
            }
        }
        if (!changed) {
            sleepers_.fetch_add(1);
            futexWait(&word_, word);
            sleepers_.fetch_sub(1);
        }
        spinUntil = Clock::now() + kSpin;  // roused (a call or wake()): ready for the next
    }
}

void CorePool::keepOffThisThread() {
    const int cpu = sched_getcpu();  // no system call (rseq area or vDSO)
    if (cpu < 0 || cpu >= CPU_SETSIZE || cpu == keptOff_.load(std::memory_order_relaxed)) return;
    cpu_set_t elsewhere = allowed_;
    CPU_CLR(cpu, &elsewhere);
    if (CPU_COUNT(&elsewhere) == 0) return;  // nowhere else to go
    for (pthread_t thread : workers_) pthread_setaffinity_np(thread, sizeof elsewhere, &elsewhere);
    keptOff_.store(cpu, std::memory_order_relaxed);
}

void CorePool::publish() {
    const uint64_t call = (state_.load(std::memory_order_relaxed) | 1) + 1;  // the next even number
    state_.store(call | 1);
    word_.fetch_add(1);
    if (sleepers_.load() > 0) futexWakeAll(&word_);
}

void CorePool::parallelize(Task task, void* context, size_t count) {
    if (count == 0) return;
    if (pthreadpool_ != nullptr) return pthreadpool_parallelize_1d(pthreadpool_, task, context, count, 0);
    // Another thread's inference has the workers: this one runs alone.
    const std::unique_lock call(calling_, std::try_to_lock);
    if (count == 1 || count > UINT32_MAX || !call.owns_lock()) {
        for (size_t i = 0; i < count; ++i) task(context, i);
        return;
    }
    keepOffThisThread();
    task_ = task;
    context_ = context;
    const size_t threads = this->threads();
    for (size_t t = 0; t < threads; ++t) {
        ranges_[t].left.store(packRange(t * count / threads, (t + 1) * count / threads), std::memory_order_relaxed);
    }
    publish();
    runTasks(0);
    state_.store(state_.load(std::memory_order_relaxed) & ~uint64_t{1});  // closed: nobody joins now
    if (active_.load() == 0) return;
    const auto spinUntil = Clock::now() + kCallerSpin;
    while (active_.load() != 0) {
        _mm_pause();
        if (Clock::now() > spinUntil) sched_yield();
    }
}

}  // namespace nnemu::synap
