// Which threads run the NPU core's layers. One pool (CorePool.h) serves every network of the
// process, and one pthreadpool of the same size their XNNPACK stages. NNEMU_NPU_THREADS=N fixes
// its size (1: everything on the calling thread). By default the pool has one thread per core
// this process may run on, and each inference first asks whether those cores are free right
// now: a worker waiting for a busy core holds up the layers whose tasks it took (on pthreadpool,
// whose every call waits for every worker, it was 75x slower than one thread on a loaded 2-core
// machine), so on a busy machine inferences run on the calling thread alone.
#pragma once

#include <pthreadpool.h>

#include <cstddef>

#include "CorePool.h"

namespace nnemu::synap {

// The process's pool for networks whose every layer runs on the own kernels (CorePool.h);
// nullptr when it would have one thread, before it is started (or while another thread creates
// it), or once the process is exiting (or in a forked child).
CorePool* coreThreadPool();

// The process's pthreadpool, for networks with XNNPACK stages (XNNPACK needs one; the own layers
// of such a network run on it too, through CorePool::over, so that two pools' workers do not
// compete for the cores); nullptr while it is not started (with NNEMU_NPU_THREADS set: started
// and waited for), or as above.
pthreadpool_t xnnpackThreadPool();

// The threads of the process's pools (the calling thread's included), started or not; 1 when
// they have none.
size_t coreThreadCount();

// Starts the own pool's threads if they are not started yet (once per process). The core calls
// it when a network of own layers is loaded for a pool: the workers take their AMX tile state
// and sleep, so the first inference finds them ready (CorePool.h: an inference does not wait
// for a worker that is late; before, on pthreadpool, the first inference ran alone and the pool
// started after it).
// The workers start kept off `callerCpu` (-1: the calling thread's CPU), where the thread that
// will hand them work runs (CorePool.h).
void startCoreThreadPool(int callerCpu = -1);

// Starts the pthreadpool in the background if it is not started yet. The core calls it when a
// network with XNNPACK stages ends its first inference: that one runs on the calling thread
// alone (a pthreadpool call waits for every worker, and workers starting meanwhile slowed it:
// MobileNet v2 uint8 2.35 ms alone against 2.92 on a pool started at the load, 2-core VM).
void startXnnpackThreadPool();

// Holds one of the pools for one inference (or one runtime build that records it): at process
// exit the pools' threads are joined and the pools freed unless a PoolUse holds them (then its
// last holder frees them), and no PoolUse acquires one afterwards (those inferences run on the
// calling thread). Without this the workers outlive main and their thread-local storage shows as
// "possibly lost" to leak checkers such as valgrind.
class PoolUse {
public:
    // The own pool, or with `xnnpack` the pthreadpool's (CorePool::over). Without
    // NNEMU_NPU_THREADS an inference that meets the own pool not yet started (the SyNAP cache
    // prefetch starts it after handing its core over) runs alone, unless `awaitOwnPool`: then it
    // starts the pool itself, or waits while another thread does (a thread created, 0.1-0.25 ms
    // on the 2-core VM), as with NNEMU_NPU_THREADS set.
    explicit PoolUse(bool xnnpack = false, bool awaitOwnPool = false);
    ~PoolUse();
    PoolUse(const PoolUse&) = delete;
    PoolUse& operator=(const PoolUse&) = delete;
    // The pool, or nullptr: none (yet), or the process is exiting.
    CorePool* pool() const { return pool_; }

private:
    CorePool* pool_;
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
