#include "BenchmarkLoop.h"

#include <chrono>
#include <sstream>
#include <thread>

namespace nnemu::benchmark {

int64_t SteadyBenchmarkClock::nowUs() {
    return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

void SteadyBenchmarkClock::sleepSeconds(double seconds) {
    if (seconds <= 0) return;
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

std::string phaseHeader(const PhaseLimits& limits) {
    std::ostringstream out;
    out << "Running benchmark for at least " << limits.minRuns << " iterations and at least " << limits.minSecs
        << " seconds but terminate if exceeding " << limits.maxSecs << " seconds.";
    return out.str();
}

PhaseOutcome runPhase(const PhaseLimits& limits, BenchmarkClock& clock, const PhaseHooks& hooks) {
    PhaseOutcome outcome;
    int64_t nowUs = clock.nowUs();
    // The limits are floats in seconds, scaled in float as the board's tool does.
    const int64_t minFinishUs = nowUs + static_cast<int64_t>(limits.minSecs * 1.e6f);
    const int64_t maxFinishUs = nowUs + static_cast<int64_t>(limits.maxSecs * 1.e6f);
    const double frequencyGap = 1.0 / static_cast<double>(limits.runFrequency);
    double nextRunFinishSecs = static_cast<double>(nowUs) * 1e-6 + frequencyGap;
    double sleepSecs = limits.runDelaySecs;

    for (int64_t run = 0; (run < limits.minRuns || nowUs < minFinishUs) && nowUs <= maxFinishUs; ++run) {
        if (hooks.beforeRun) hooks.beforeRun();
        const int64_t startUs = clock.nowUs();
        const Status invoked = hooks.invoke();
        const int64_t endUs = clock.nowUs();
        if (hooks.afterRun) hooks.afterRun();
        outcome.timesUs.add(endUs - startUs);
        if (!invoked) {
            // A failed invocation fails the same way again: stop instead of repeating it.
            outcome.ok = false;
            outcome.error = invoked.message();
            break;
        }
        if (limits.runFrequency > 0) {
            sleepSecs = nextRunFinishSecs - static_cast<double>(clock.nowUs()) * 1e-6;
            nextRunFinishSecs += frequencyGap;
        }
        clock.sleepSeconds(sleepSecs);
        nowUs = clock.nowUs();
    }
    return outcome;
}

}  // namespace nnemu::benchmark
