// The driver's helper threads (driver/synap/core/ParentThread.h): a thread started beside its
// caller may run on every CPU the caller may once it runs (the narrower start mask is given
// back, also when a joiner moved it before it ran), a caller limited to one CPU still gets its
// thread, the body runs exactly once and is joined, and a child forked while the thread runs
// neither joins nor hangs.
#include <gtest/gtest.h>

#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>

#include "core/ParentThread.h"

namespace nnemu::synap {
namespace {

struct Seen {
    cpu_set_t mask;
    bool masked = false;
    int runs = 0;
};

// Starts a thread beside the caller that records its own CPU mask, and joins it: at once (it has
// usually not run yet, and the join moves it), or once it has run on its own.
Seen runBeside(bool joinAtOnce) {
    Seen seen;
    CPU_ZERO(&seen.mask);
    std::atomic<bool> done{false};
    ParentThread thread;
    EXPECT_TRUE(thread.start(
            [&] {
                seen.masked = sched_getaffinity(0, sizeof seen.mask, &seen.mask) == 0;
                ++seen.runs;
                done.store(true);
            },
            ParentThread::Start::kBesideCaller));
    EXPECT_TRUE(thread.running());
    while (!joinAtOnce && !done.load()) sched_yield();
    thread.join();
    EXPECT_FALSE(thread.running());
    return seen;
}

TEST(ParentThread, AThreadStartedBesideItsCallerMayRunWhereverTheCallerMay) {
    cpu_set_t allowed;
    ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
    const Seen seen = runBeside(false);
    EXPECT_EQ(seen.runs, 1);
    ASSERT_TRUE(seen.masked);
    EXPECT_TRUE(CPU_EQUAL(&seen.mask, &allowed)) << "the start mask was not given back: " << CPU_COUNT(&seen.mask)
                                                 << " CPUs of " << CPU_COUNT(&allowed);
}

// Joined at once, a thread often has not run yet: the joiner moves it to its own CPU first. Either
// way (who moves it first is a race), the body runs once with the whole mask.
TEST(ParentThread, AThreadJoinedBeforeItRanStillRunsOnceWithTheWholeMask) {
    cpu_set_t allowed;
    ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
    for (int i = 0; i < 200; ++i) {
        const Seen seen = runBeside(true);
        ASSERT_EQ(seen.runs, 1);
        ASSERT_TRUE(seen.masked);
        ASSERT_TRUE(CPU_EQUAL(&seen.mask, &allowed)) << "start " << i;
    }
    cpu_set_t after;
    ASSERT_EQ(sched_getaffinity(0, sizeof after, &after), 0);
    EXPECT_TRUE(CPU_EQUAL(&after, &allowed)) << "the joiner's own mask changed";
}

TEST(ParentThread, ACallerOnOneCpuStillGetsItsThread) {
    cpu_set_t allowed;
    ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
    const int here = sched_getcpu();
    ASSERT_GE(here, 0);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(here, &one);
    ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
    const Seen seen = runBeside(true);
    ASSERT_EQ(sched_setaffinity(0, sizeof allowed, &allowed), 0);
    EXPECT_EQ(seen.runs, 1);
    ASSERT_TRUE(seen.masked);
    EXPECT_TRUE(CPU_EQUAL(&seen.mask, &one));
}

TEST(ParentThread, AChildForkedWhileItRunsNeitherJoinsNorHangs) {
    std::atomic<bool> release{false};
    ParentThread thread;
    ASSERT_TRUE(thread.start(
            [&] {
                while (!release.load()) sched_yield();
            },
            ParentThread::Start::kBesideCaller));
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        alarm(30);  // a hang fails the case
        const bool sees = thread.forked();
        thread.join();  // the parent's thread is not here: returns at once
        _exit(sees ? 0 : 1);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    EXPECT_FALSE(thread.forked());
    release.store(true);
    thread.join();
}

}  // namespace
}  // namespace nnemu::synap
