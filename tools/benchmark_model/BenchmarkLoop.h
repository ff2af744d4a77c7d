// One benchmark phase (warm-up or regular runs) with benchmark_model's rules: keep starting runs
// while (run < min_runs || now < start + min_secs) and now <= start + max_secs; only the
// invocation itself is timed. The clock is an interface so tests can drive the rules.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "RunStatistic.h"
#include "nnemu/base/Status.h"

namespace nnemu::benchmark {

class BenchmarkClock {
public:
    virtual ~BenchmarkClock() = default;
    virtual int64_t nowUs() = 0;
    virtual void sleepSeconds(double seconds) = 0;   // returns at once when seconds <= 0
};

// The monotonic clock the tool uses.
class SteadyBenchmarkClock : public BenchmarkClock {
public:
    int64_t nowUs() override;
    void sleepSeconds(double seconds) override;
};

struct PhaseLimits {
    int32_t minRuns = 1;
    float minSecs = 0.5f;
    float maxSecs = 150.0f;
    float runDelaySecs = -1.0f;     // sleep between runs when > 0
    float runFrequency = -1.0f;     // runs per second when > 0; overrides runDelaySecs
};

// "Running benchmark for at least N iterations and at least S seconds but terminate if exceeding M seconds."
std::string phaseHeader(const PhaseLimits& limits);

struct PhaseHooks {
    std::function<void()> beforeRun;                 // untimed (inputs, profiler start); may be empty
    std::function<Status()> invoke;                  // timed; a failure stops the phase with its message
    std::function<void()> afterRun;                  // untimed (profiler collection); may be empty
};

struct PhaseOutcome {
    RunStatistic timesUs;
    bool ok = true;
    std::string error;
};

PhaseOutcome runPhase(const PhaseLimits& limits, BenchmarkClock& clock, const PhaseHooks& hooks);

}  // namespace nnemu::benchmark
