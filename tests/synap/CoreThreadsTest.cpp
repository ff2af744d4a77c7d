// The NPU core's free-core arithmetic: other processes' CPU time, not this process's, takes
// cores from the thread pool.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "core/CoreThreads.h"

namespace nnemu::synap {
namespace {

TEST(CoreThreads, AnIdleMachineLeavesEveryCoreFree) {
    // 100 ms on 2 cores at 100 ticks/s: nothing busy.
    EXPECT_DOUBLE_EQ(freeCores(2, 0, 100, 0, 0.1), 2);
}

TEST(CoreThreads, ThisProcessesOwnWorkDoesNotCount) {
    // Both cores busy for 100 ms (20 ticks), all of it this process's (0.2 s of CPU).
    EXPECT_DOUBLE_EQ(freeCores(2, 20, 100, 0.2, 0.1), 2);
}

TEST(CoreThreads, OtherProcessesTakeCores) {
    // Both cores busy, this process used one core's worth: another process had the other.
    EXPECT_DOUBLE_EQ(freeCores(2, 20, 100, 0.1, 0.1), 1);
    // A busy loop on every core and nothing of ours.
    EXPECT_DOUBLE_EQ(freeCores(2, 20, 100, 0, 0.1), 0);
}

TEST(CoreThreads, NoIntervalMeansNoFreeCore) {
    EXPECT_DOUBLE_EQ(freeCores(2, 20, 100, 0, 0), 0);
    EXPECT_DOUBLE_EQ(freeCores(2, 20, 0, 0, 0.1), 0);
}

// A window of /proc/stat shorter than 200 ms allows for its larger counting error; a longer one
// is held to the quarter core, never to less.
TEST(CoreThreads, ShortWindowsAllowForTheirCountingError) {
    EXPECT_DOUBLE_EQ(othersAllowed(2, 100, 0.2), 0.25);
    EXPECT_DOUBLE_EQ(othersAllowed(2, 100, 2.0), 0.25);
    EXPECT_NEAR(othersAllowed(2, 100, 0.05), 0.55, 1e-12);
    EXPECT_DOUBLE_EQ(othersAllowed(2, 0, 0.05), 0.25);
    // A busy loop on the other core (one core of others) is never allowed, even at 50 ms.
    EXPECT_LT(othersAllowed(2, 100, 0.05), 1.0);
}

// The first inference's check counts this process's runnable threads: a thread spinning is one
// of them, one asleep is not.
TEST(CoreThreads, OwnRunnableThreadsCountsSpinningNotSleeping) {
    const long alone = ownRunnableThreads();
    ASSERT_GE(alone, 1);  // this thread, reading
    std::atomic<bool> stop{false}, started{false};
    std::thread spinner([&] {
        started = true;
        while (!stop.load(std::memory_order_relaxed)) {
        }
    });
    std::thread sleeper([&] {
        while (!stop.load(std::memory_order_relaxed)) usleep(1000);
    });
    while (!started) std::this_thread::yield();
    EXPECT_GE(ownRunnableThreads(), alone + 1);
    EXPECT_LE(ownRunnableThreads(), alone + 2);  // the sleeper is at most briefly runnable
    stop = true;
    spinner.join();
    sleeper.join();
}

// Exit: the pool is closed by the exit handler (closeCoreThreadPool); a holder keeps it usable
// until it lets go, and nobody acquires it afterwards. Each case runs in a fresh process (the
// pool is the process's, and NNEMU_NPU_THREADS is read once).
void addUp(void* sum, size_t i) { static_cast<std::atomic<size_t>*>(sum)->fetch_add(i); }

size_t sumOnPool(CorePool* pool) {
    std::atomic<size_t> sum{0};
    pool->parallelize(addUp, &sum, 100);
    return sum.load();
}

TEST(CoreThreadsExit, AHolderKeepsThePoolUntilItLetsGoAndNobodyAcquiresItAfterTheClose) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
            {
                setenv("NNEMU_NPU_THREADS", "2", 1);
                {
                    const PoolUse held;
                    if (held.pool() == nullptr) _exit(2);
                    closeCoreThreadPool();
                    const PoolUse later;
                    if (later.pool() != nullptr || coreThreadPool() != nullptr) _exit(3);
                    if (sumOnPool(held.pool()) != 4950) _exit(4);  // still running on its threads
                }  // the last holder frees it (joins its workers)
                const PoolUse afterwards;
                _exit(afterwards.pool() == nullptr ? 0 : 5);
            },
            ::testing::ExitedWithCode(0), "");
}

// A network with XNNPACK stages runs its own layers on the pthreadpool those stages need
// (CorePool::over); the exit handler frees that pool too, after its last holder.
TEST(CoreThreadsExit, ThePthreadpoolOfXnnpackNetworksServesTheOwnLayersAndIsFreedLikeTheOther) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
            {
                setenv("NNEMU_NPU_THREADS", "2", 1);
                {
                    const PoolUse xnnpack(true);
                    if (xnnpack.pool() == nullptr || xnnpackThreadPool() == nullptr) _exit(2);
                    if (xnnpack.pool()->threads() != 2) _exit(3);
                    if (sumOnPool(xnnpack.pool()) != 4950) _exit(4);
                    closeCoreThreadPool();
                    if (sumOnPool(xnnpack.pool()) != 4950) _exit(5);  // still served until let go
                    const PoolUse later(true);
                    if (later.pool() != nullptr || xnnpackThreadPool() != nullptr) _exit(6);
                }
                _exit(0);
            },
            ::testing::ExitedWithCode(0), "");
}

TEST(CoreThreadsExit, ExitingWhileAnotherThreadRunsOnThePoolNeitherHangsNorCrashes) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
            {
                setenv("NNEMU_NPU_THREADS", "2", 1);
                std::atomic<bool> started{false};
                std::thread([&] {
                    for (;;) {
                        const PoolUse use;
                        if (use.pool() != nullptr && sumOnPool(use.pool()) != 4950) _exit(2);
                        started = true;
                    }
                }).detach();
                while (!started) usleep(1000);
                alarm(20);  // a hang fails the case
                std::exit(0);  // runs the exit handler while the thread keeps acquiring and releasing
            },
            ::testing::ExitedWithCode(0), "");
}

// By default the pool starts in the background: nothing waits for its threads, and once they
// run it serves. Exiting while it may still be starting neither hangs nor crashes.
TEST(CoreThreadsStart, TheDefaultPoolStartsInTheBackgroundAndThenServes) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
            {
                unsetenv("NNEMU_NPU_THREADS");
                if (coreThreadCount() < 2) _exit(0);  // a 1-core machine has no pool
                startCoreThreadPool();
                alarm(20);  // a pool that never comes fails the case
                while (coreThreadPool() == nullptr) usleep(1000);
                const PoolUse use;
                if (use.pool() == nullptr || sumOnPool(use.pool()) != 4950) _exit(2);
                std::exit(0);
            },
            ::testing::ExitedWithCode(0), "");
    EXPECT_EXIT(
            {
                unsetenv("NNEMU_NPU_THREADS");
                startCoreThreadPool();
                std::exit(0);  // at once: the exit handler meets a pool still starting
            },
            ::testing::ExitedWithCode(0), "");
}

// Without NNEMU_NPU_THREADS an inference that finds no pool yet runs alone (a small network's:
// starting the pool costs more than it saves), and a large one's starts the pool, or waits for
// the thread starting it, and gets it: a warm v1 float whose first inference met the pool still
// starting ran alone, 12.5-13.9 ms against 7.0 (NpuStages.cpp, kAwaitPoolWorkThreshold).
TEST(CoreThreadsStart, ALargeInferenceAwaitsTheDefaultPoolAndASmallOneRunsAlone) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
            {
                unsetenv("NNEMU_NPU_THREADS");
                if (coreThreadCount() < 2) _exit(0);  // a 1-core machine has no pool
                alarm(20);  // a wait that never ends fails the case
                {
                    const PoolUse small;
                    if (small.pool() != nullptr || coreThreadPool() != nullptr) _exit(2);
                }
                const PoolUse large(false, true);
                if (large.pool() == nullptr || sumOnPool(large.pool()) != 4950) _exit(3);
                std::exit(0);
            },
            ::testing::ExitedWithCode(0), "");
    EXPECT_EXIT(
            {
                unsetenv("NNEMU_NPU_THREADS");
                if (coreThreadCount() < 2) _exit(0);
                alarm(20);
                // Another thread starting it too (the SyNAP cache prefetch): whichever starts it,
                // the large inference gets the pool, never nullptr.
                std::thread starter([] { startCoreThreadPool(); });
                const PoolUse large(false, true);
                starter.join();
                if (large.pool() == nullptr || large.pool() != coreThreadPool()) _exit(2);
                std::exit(0);
            },
            ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace nnemu::synap
