// Which threads run the NPU core's XNNPACK stages. One pool serves every network of the
// process. NNEMU_NPU_THREADS=N fixes its size (1: everything on the calling thread). By default
// the pool has one thread per core this process may run on, and each inference first asks
// whether those cores are free right now: a pool whose workers must wait for a busy core stalls
// at every layer's barrier (measured: 75x slower than one thread on a loaded 2-core machine), so
// on a busy machine inferences run on the calling thread alone.
#pragma once

#include <pthreadpool.h>

#include <cstddef>

namespace nnemu::synap {

// The process's pool; nullptr when it would have one thread, while it is still starting (unless
// NNEMU_NPU_THREADS fixes its size: then this waits for it), or once the process is exiting.
pthreadpool_t coreThreadPool();

// The threads of the process's pool (the calling thread's included), started or not; 1 when it
// has none.
size_t coreThreadCount();

// Starts the pool's threads, in the background, if they are not started yet. Nothing waits for
// them: inferences until then run on the calling thread. The core calls it when a network's
// first inference ends, not before: that inference runs faster alone than on a pool whose
// threads start, warm up and compete with the program's load meanwhile (2-core VM, idle, medians
// of 6-8 warm processes: MobileNet v2 uint8 first inference 2.35 ms alone against 2.92 on a pool
// started at the load; v1 0.25 128 0.48 ms in a 1-thread process against 0.81 with the pool
// starting; a pool's first run is cold: 1.4-1.7 ms against 0.85 steady for the tf2 int8 v2).
// With NNEMU_NPU_THREADS set the pool starts when first asked for.
void startCoreThreadPool();

// Holds the pool for one inference (or one runtime build that records it): at process exit the
// pool's threads are joined and the pool freed unless a PoolUse holds it (then its last holder
// frees it), and no PoolUse acquires it afterwards (those inferences run on the calling thread). Without this the workers outlive main and their thread-local storage shows as
// "possibly lost" to leak checkers such as valgrind.
class PoolUse {
public:
    PoolUse();
    ~PoolUse();
    PoolUse(const PoolUse&) = delete;
    PoolUse& operator=(const PoolUse&) = delete;
    // The pool, or nullptr: none, or the process is exiting.
    pthreadpool_t pool() const { return pool_; }

private:
    pthreadpool_t pool_;
};

// What the exit handler runs (exposed for tests): no PoolUse acquires the pool from now on, and
// it is freed at once or by its last holder.
void closeCoreThreadPool();

// Whether an inference started now should use the pool: always when NNEMU_NPU_THREADS fixes
// the size, otherwise only when the cores the pool's threads need were free over the last 200 ms
// or more (other processes used less than a quarter core, from /proc/stat, re-sampled at most
// every 50 ms: a few microseconds per inference on average; over the process's first 50-200 ms,
// the shorter interval with the larger error of counting in ticks allowed for) and no pooled
// inference stalled recently. The process's first inference goes by what runs at that moment
// (/proc/loadavg less this process's threads), so that it is not left on one thread.
bool poolWorthUsingNow();

// After an inference on the pool: `slow` when it took much longer than this network's runs
// usually take (a worker waited for a core), which keeps the pool off for a while (0.5 s,
// doubling while it keeps happening, at most 8 s).
void pooledRunWas(bool slow);

// This process's threads that are runnable right now (state R in /proc/self/task/*/stat), -1
// when unknown (or more than 256 threads). The pool's workers spin for a while after the pool
// starts and after each parallel run, so /proc/loadavg counts them as if another program held a
// core: the first inference of a process, which has no interval of /proc/stat to go by, subtracts
// them. Exposed for tests.
long ownRunnableThreads();

// How much of a core other processes may use, measured over `seconds` of /proc/stat, for the
// pool to be used: a quarter core over 200 ms or more, more over a shorter window (the error of
// counting in ticks; 0.55 at 50 ms on 2 cores at 100 ticks/s). Exposed for tests.
double othersAllowed(double cores, double ticksPerSecond, double seconds);

// The CPU time of other processes, in cores, over [previous, current] samples: what remains
// free of `cores` for this process. Exposed for tests.
double freeCores(double cores, double busyTicksDelta, double ticksPerSecond, double ownCpuSecondsDelta,
                 double wallSecondsDelta);

}  // namespace nnemu::synap
