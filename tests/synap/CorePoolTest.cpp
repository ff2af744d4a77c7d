// The core's own thread pool (CorePool.h): every task runs once, a call never waits for a worker
// that has not come, concurrent callers each get their tasks run, and workers stay off the
// caller's CPU.
#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "HalNetworkBuilder.h"
#include "compiler/Compiler.h"
#include "core/CorePool.h"
#include "core/CoreThreads.h"
#include "core/NpuCore.h"

namespace nnemu::synap {
namespace {

struct Counts {
    std::vector<std::atomic<int>> runs;
    explicit Counts(size_t n) : runs(n) {}
};

void countRun(void* context, size_t i) { static_cast<Counts*>(context)->runs[i].fetch_add(1); }

bool eachRanOnce(const Counts& counts) {
    for (const auto& r : counts.runs) {
        if (r.load() != 1) return false;
    }
    return true;
}

TEST(CorePool, EveryTaskRunsOnceOnEveryCall) {
    for (size_t threads : {2u, 3u}) {
        const std::unique_ptr<CorePool> pool = CorePool::create(threads);
        ASSERT_NE(pool, nullptr);
        EXPECT_EQ(pool->threads(), threads);
        for (size_t count = 0; count < 70; ++count) {
            for (int repeat = 0; repeat < 20; ++repeat) {
                Counts counts(count);
                if (repeat % 7 == 3) pool->wake();
                pool->parallelize(countRun, &counts, count);
                ASSERT_TRUE(eachRanOnce(counts)) << threads << " threads, " << count << " tasks";
            }
        }
    }
}

// A worker that has not come yet (here: held in its start hook) takes no task, and the call does
// not wait for it: the caller runs every task.
std::atomic<bool> releaseWorkers{false};
std::atomic<int> workersStarted{0};

TEST(CorePool, ACallDoesNotWaitForAWorkerThatHasNotCome) {
    releaseWorkers = false;
    const std::unique_ptr<CorePool> pool = CorePool::create(2, [] {
        ++workersStarted;
        while (!releaseWorkers.load()) usleep(200);
    });
    ASSERT_NE(pool, nullptr);
    const std::thread::id caller = std::this_thread::get_id();
    struct Seen {
        std::thread::id caller;
        std::atomic<int> elsewhere{0};
        Counts counts{64};
    } seen{caller};
    const auto start = std::chrono::steady_clock::now();
    pool->parallelize(
            [](void* context, size_t i) {
                auto* s = static_cast<Seen*>(context);
                if (std::this_thread::get_id() != s->caller) ++s->elsewhere;
                s->counts.runs[i].fetch_add(1);
            },
            &seen, 64);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
    EXPECT_TRUE(eachRanOnce(seen.counts));
    EXPECT_EQ(seen.elsewhere.load(), 0);  // the held worker ran none
    releaseWorkers = true;                // and once there, it serves
    for (int k = 0; k < 50; ++k) {
        Counts counts(256);
        pool->parallelize(countRun, &counts, 256);
        ASSERT_TRUE(eachRanOnce(counts));
    }
}

// Each thread has a contiguous share, the caller the first half: the caller's tasks are a prefix
// of its half and, where it helped the worker, a suffix of the worker's (taken from the far end).
TEST(CorePool, TheCallerRunsAPrefixOfItsHalfAndTheFarEndOfTheOther) {
    const std::unique_ptr<CorePool> pool = CorePool::create(2);
    ASSERT_NE(pool, nullptr);
    struct ByCaller {
        std::thread::id caller = std::this_thread::get_id();
        std::vector<std::atomic<int>> mine = std::vector<std::atomic<int>>(64);
    };
    int callerFirst = 0;  // calls whose first task the caller ran
    for (int k = 0; k < 200; ++k) {
        ByCaller seen;
        if (k % 2 == 0) pool->wake();
        pool->parallelize(
                [](void* context, size_t i) {
                    auto* s = static_cast<ByCaller*>(context);
                    s->mine[i] = std::this_thread::get_id() == s->caller ? 1 : 0;
                    if (i % 8 == 0) std::this_thread::yield();  // give the worker a chance
                },
                &seen, 64);
        size_t a = 0, b = 64;
        while (a < 32 && seen.mine[a]) ++a;
        while (b > 32 && seen.mine[b - 1]) --b;
        for (size_t i = a; i < b; ++i) ASSERT_EQ(seen.mine[i].load(), 0) << "call " << k << ", task " << i;
        callerFirst += seen.mine[0].load();
    }
    // Its first task, before a worker could reach it, unless the caller lost its CPU right after
    // publishing the call (on a loaded machine the worker may then run every task).
    EXPECT_GT(callerFirst, 0);
}

TEST(CorePool, TwoCallersAtOnceEachGetTheirTasksRun) {
    const std::unique_ptr<CorePool> pool = CorePool::create(2);
    ASSERT_NE(pool, nullptr);
    std::atomic<bool> failed{false};
    auto caller = [&] {
        for (int k = 0; k < 300; ++k) {
            Counts counts(1 + k % 40);
            pool->parallelize(countRun, &counts, counts.runs.size());
            if (!eachRanOnce(counts)) failed = true;
        }
    };
    std::thread other(caller);
    caller();
    other.join();
    EXPECT_FALSE(failed.load());
}

TEST(CorePool, WorkersAreKeptOffTheCallersCpu) {
    cpu_set_t allowed;
    ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
    if (CPU_COUNT(&allowed) < 2) GTEST_SKIP() << "one CPU: the workers have nowhere else to go";
    const std::unique_ptr<CorePool> pool = CorePool::create(2);
    ASSERT_NE(pool, nullptr);
    // The caller pinned to one CPU, then to another: the workers follow away from it.
    int pinned = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE && pinned < 2; ++cpu) {
        if (!CPU_ISSET(cpu, &allowed)) continue;
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
        Counts counts(8);
        pool->parallelize(countRun, &counts, 8);
        EXPECT_TRUE(eachRanOnce(counts));
        EXPECT_EQ(pool->keptOffCpu(), cpu);
        ++pinned;
    }
    ASSERT_EQ(sched_setaffinity(0, sizeof allowed, &allowed), 0);
}

TEST(CorePool, FreeingAnIdleOrSpinningPoolJoinsItsWorkers) {
    for (int k = 0; k < 20; ++k) {
        std::unique_ptr<CorePool> pool = CorePool::create(3);
        ASSERT_NE(pool, nullptr);
        if (k % 2 == 1) {  // workers spinning right after a call
            Counts counts(16);
            pool->parallelize(countRun, &counts, 16);
        }
        pool.reset();  // a hang here fails the test by its timeout
    }
}

// The pool's threads start when a network is loaded for it, so that its first inference is
// pooled like the later ones (before, it ran alone and the pool started after it). Fresh process:
// the pool is the process's.
TEST(CorePoolStart, ANetworkLoadedForThePoolStartsItsThreadsBeforeItsFirstInference) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
            {
                unsetenv("NNEMU_NPU_THREADS");
                if (coreThreadCount() < 2) _exit(0);  // one core: no pool
                if (coreThreadPool() != nullptr) _exit(2);
                // 1.2 M multiply-accumulates: enough for the pool.
                Result<std::vector<uint8_t>> program = compileProgram(test::floatDepthwise3x3(64, 32), {{1, 64, 64, 32}});
                if (!program.isOk()) _exit(3);
                auto alone = NpuCore::load(cache::ProgramImage(*program), false, /*callingThreadOnly=*/true);
                if (!alone.isOk() || coreThreadPool() != nullptr) _exit(4);  // not for a core kept off the pool
                auto core = NpuCore::load(cache::ProgramImage(*program), false, /*callingThreadOnly=*/false);
                if (!core.isOk()) _exit(5);
                _exit(coreThreadPool() != nullptr ? 0 : 6);
            },
            ::testing::ExitedWithCode(0), "");
}

// The SyNAP cache prefetch hands the loaded core to the first inference before it starts the
// pool (PreparedNetwork.cpp): until then that inference runs alone, and right.
TEST(CorePoolStart, ANetworkLoadedForItsCallerToStartThePoolLeavesItToTheCaller) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    const auto body = [] {
        unsetenv("NNEMU_NPU_THREADS");
        if (coreThreadCount() < 2) _exit(0);  // one core: no pool
        Result<std::vector<uint8_t>> program = compileProgram(test::floatDepthwise3x3(64, 32), {{1, 64, 64, 32}});
        if (!program.isOk()) _exit(3);
        auto core = NpuCore::load(cache::ProgramImage(*program), false, false, -1, NpuCore::PoolStart::kByCaller);
        if (!core.isOk() || !(*core)->usesCorePool()) _exit(4);
        if (coreThreadPool() != nullptr) _exit(5);  // left to the caller
        auto alone = NpuCore::load(cache::ProgramImage(*program), false, /*callingThreadOnly=*/true);
        if (!alone.isOk() || (*alone)->usesCorePool()) _exit(6);
        std::vector<float> input((*core)->inputBytes(0) / sizeof(float));
        for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<float>(i % 13) * 0.25f - 1.5f;
        std::vector<uint8_t> ours((*core)->outputBytes(0)), theirs(ours.size());
        const auto* in = reinterpret_cast<const uint8_t*>(input.data());
        if (!(*core)->run({in}, {ours.data()}).isOk() || (*core)->lastRunPooled()) _exit(7);
        if (!(*alone)->run({in}, {theirs.data()}).isOk() || ours != theirs) _exit(8);
        startCoreThreadPool();
        _exit(coreThreadPool() != nullptr ? 0 : 9);
    };
    EXPECT_EXIT(body(), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace nnemu::synap
