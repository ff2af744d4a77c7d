// The warm-up and regular phases: minimum runs, minimum and maximum duration, driven by a fake clock.
#include <gtest/gtest.h>

#include <vector>

#include "BenchmarkLoop.h"

namespace nnemu::benchmark {
namespace {

// Time only moves when a run takes time or the loop sleeps.
class FakeClock : public BenchmarkClock {
public:
    int64_t nowUs() override { return nowUs_; }
    void sleepSeconds(double seconds) override {
        if (seconds > 0) {
            nowUs_ += static_cast<int64_t>(seconds * 1e6);
            sleeps_.push_back(seconds);
        }
    }
    void advance(int64_t us) { nowUs_ += us; }
    const std::vector<double>& sleeps() const { return sleeps_; }

private:
    int64_t nowUs_ = 1000000;
    std::vector<double> sleeps_;
};

PhaseOutcome runWithDurations(const PhaseLimits& limits, FakeClock& clock, std::vector<int64_t> durations,
                              int64_t steadyUs) {
    size_t run = 0;
    PhaseHooks hooks;
    hooks.invoke = [&] {
        clock.advance(run < durations.size() ? durations[run] : steadyUs);
        ++run;
        return Status();
    };
    return runPhase(limits, clock, hooks);
}

TEST(BenchmarkLoop, HeaderLine) {
    PhaseLimits warmup;
    EXPECT_EQ(phaseHeader(warmup),
              "Running benchmark for at least 1 iterations and at least 0.5 seconds but terminate if exceeding 150 seconds.");
    PhaseLimits regular;
    regular.minRuns = 50;
    regular.minSecs = 1.0f;
    EXPECT_EQ(phaseHeader(regular),
              "Running benchmark for at least 50 iterations and at least 1 seconds but terminate if exceeding 150 seconds.");
}

TEST(BenchmarkLoop, SlowFirstRunGivesExactlyOneWarmupRun) {
    FakeClock clock;
    PhaseLimits warmup;   // 1 run, 0.5 s
    const PhaseOutcome outcome = runWithDurations(warmup, clock, {637079}, 1885);
    EXPECT_TRUE(outcome.ok);
    EXPECT_EQ(outcome.timesUs.toString(), "count=1 curr=637079");
}

// Limits of at least `minRuns` runs and `minSecs` seconds, the rest as by default.
PhaseLimits runLimits(int minRuns, float minSecs) {
    PhaseLimits limits;
    limits.minRuns = minRuns;
    limits.minSecs = minSecs;
    return limits;
}

TEST(BenchmarkLoop, FastRunsContinueUntilTheMinimumDuration) {
    FakeClock clock;
    PhaseLimits warmup;
    const PhaseOutcome outcome = runWithDurations(warmup, clock, {201009}, 1000);
    // 201009 us, then 1000 us runs until 500000 us have passed: 299 more runs.
    EXPECT_EQ(outcome.timesUs.count(), 300);
    EXPECT_EQ(outcome.timesUs.first(), 201009);
}

TEST(BenchmarkLoop, MinimumRunsWinOverAShortDuration) {
    FakeClock clock;
    EXPECT_EQ(runWithDurations(runLimits(50, 0.0f), clock, {}, 100).timesUs.count(), 50);
}

TEST(BenchmarkLoop, MaximumDurationStopsStartingRuns) {
    FakeClock clock;
    PhaseLimits regular = runLimits(1000, 1.0f);
    regular.maxSecs = 1.0f;
    // 300 ms runs: runs start at 0, 300, 600, 900 ms; the one ending at 1200 ms is the last.
    EXPECT_EQ(runWithDurations(regular, clock, {}, 300000).timesUs.count(), 4);
}

TEST(BenchmarkLoop, ZeroRunsAndZeroSecondsRunNothing) {
    FakeClock clock;
    const PhaseOutcome outcome = runWithDurations(runLimits(0, 0.0f), clock, {}, 100);
    EXPECT_EQ(outcome.timesUs.toString(), "count=0");
}

TEST(BenchmarkLoop, RunDelaySleepsBetweenRuns) {
    FakeClock clock;
    PhaseLimits limits = runLimits(3, 0.0f);
    limits.runDelaySecs = 0.25f;
    EXPECT_EQ(runWithDurations(limits, clock, {}, 1000).timesUs.count(), 3);
    EXPECT_EQ(clock.sleeps().size(), 3u);
}

TEST(BenchmarkLoop, OnlyTheInvocationIsTimedAndHooksRun) {
    FakeClock clock;
    const PhaseLimits limits = runLimits(2, 0.0f);
    int before = 0, after = 0;
    PhaseHooks hooks;
    hooks.beforeRun = [&] { ++before; clock.advance(5000); };
    hooks.invoke = [&] {
        clock.advance(700);
        return Status();
    };
    hooks.afterRun = [&] { ++after; clock.advance(9000); };
    const PhaseOutcome outcome = runPhase(limits, clock, hooks);
    EXPECT_EQ(outcome.timesUs.toString(), "count=2 curr=700(all same)");
    EXPECT_EQ(before, 2);
    EXPECT_EQ(after, 2);
}

TEST(BenchmarkLoop, AFailedInvocationStopsThePhase) {
    FakeClock clock;
    PhaseLimits limits;
    limits.minRuns = 10;
    int runs = 0;
    PhaseHooks hooks;
    hooks.invoke = [&] {
        clock.advance(10);
        return ++runs == 3 ? opFailed("boom") : Status();
    };
    const PhaseOutcome outcome = runPhase(limits, clock, hooks);
    EXPECT_FALSE(outcome.ok);
    EXPECT_EQ(outcome.error, "boom");
    EXPECT_EQ(outcome.timesUs.count(), 3);
}

}  // namespace
}  // namespace nnemu::benchmark
