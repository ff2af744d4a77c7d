#include "CoreThreads.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>

#include "nnemu/base/Process.h"

namespace nnemu::synap {
namespace {

constexpr auto kSampleInterval = std::chrono::milliseconds(50);
// The busy time of other processes is measured over at least this long: /proc/stat counts in
// ticks (10 ms), so over one 50 ms interval an idle 2-core machine could read as 0.4 core busy
// (one tick more on each core) and the pool be declined; over 200 ms the error is 0.1 core.
constexpr auto kWindow = std::chrono::milliseconds(200);
constexpr size_t kSamples = 8;  // 50 ms apart at most: enough to reach back kWindow
// Others may use this much of a core and the pool still pays: a pooled inference that meets a
// busy core costs tens of single-threaded ones, so the pool needs the cores nearly idle.
constexpr double kOthersAllowed = 0.25;
constexpr auto kFirstBackoff = std::chrono::milliseconds(500);
constexpr auto kLongestBackoff = std::chrono::seconds(8);
constexpr int kSlowRunsToBackOff = 2;   // slow pooled runs in a row before the back-off

// NNEMU_NPU_THREADS, or 0 when unset or not a positive number.
size_t fixedThreads() {
    static const size_t threads = [] {
        const char* text = std::getenv("NNEMU_NPU_THREADS");
        const long value = text != nullptr ? std::atol(text) : 0;
        return value > 0 ? static_cast<size_t>(value) : size_t{0};
    }();
    return threads;
}

// The cores this process may run on.
const cpu_set_t& allowedCores() {
    static const cpu_set_t set = [] {
        cpu_set_t cores;
        CPU_ZERO(&cores);
        if (sched_getaffinity(0, sizeof cores, &cores) != 0 || CPU_COUNT(&cores) == 0) {
            for (long c = 0; c < std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)) && c < CPU_SETSIZE; ++c) CPU_SET(c, &cores);
        }
        return cores;
    }();
    return set;
}

size_t poolSize() { return fixedThreads() != 0 ? fixedThreads() : static_cast<size_t>(CPU_COUNT(&allowedCores())); }

// Busy ticks (everything but idle and iowait) of the allowed cores since boot; -1 when unknown.
long long busyTicks() {
    FILE* file = std::fopen("/proc/stat", "re");
    if (file == nullptr) return -1;
    long long total = 0;
    bool found = false;
    char line[512];
    while (std::fgets(line, sizeof line, file) != nullptr) {
        int cpu = -1;
        long long user, nice, system, idle, iowait, irq, softirq, steal;
        if (std::strncmp(line, "cpu", 3) != 0 || line[3] < '0' || line[3] > '9') continue;
        if (std::sscanf(line, "cpu%d %lld %lld %lld %lld %lld %lld %lld %lld", &cpu, &user, &nice, &system, &idle,
                        &iowait, &irq, &softirq, &steal) != 9) {
            continue;
        }
        if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &allowedCores())) continue;
        total += user + nice + system + irq + softirq + steal;
        found = true;
    }
    std::fclose(file);
    return found ? total : -1;
}

// Runnable threads of the whole machine right now (/proc/loadavg), -1 when unknown.
long runnableNow() {
    FILE* file = std::fopen("/proc/loadavg", "re");
    if (file == nullptr) return -1;
    double one, five, fifteen;
    long running = -1, total = 0;
    if (std::fscanf(file, "%lf %lf %lf %ld/%ld", &one, &five, &fifteen, &running, &total) != 5) running = -1;
    std::fclose(file);
    return running;
}

double processCpuSeconds() {
    timespec now{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

// The decision of the last sample, and what it was taken from.
class FreeCoreProbe {
public:
    bool worthUsingPool() {
        std::unique_lock lock(mutex_, std::try_to_lock);  // another inference is sampling: take its answer
        if (!lock.owns_lock()) return usePool_.load(std::memory_order_relaxed);
        const auto now = std::chrono::steady_clock::now();
        if (now < backoffUntil_) return false;
        if (sampled_ && now - sampleTime_ < kSampleInterval) return usePool_.load(std::memory_order_relaxed);
        const double cores = static_cast<double>(poolSize());
        const Sample sample{now, busyTicks(), processCpuSeconds()};
        double free = 0;
        if (const Sample* since = windowStart(now); since != nullptr && sample.ticks >= 0 && since->ticks >= 0) {
            free = freeCores(cores, static_cast<double>(sample.ticks - since->ticks),
                             static_cast<double>(sysconf(_SC_CLK_TCK)), sample.ownCpu - since->ownCpu,
                             std::chrono::duration<double>(now - since->time).count());
        } else {
            // No interval yet: what runs right now, less this thread.
            const long runnable = runnableNow();
            free = runnable < 0 ? 0 : cores - static_cast<double>(std::max(0L, runnable - 1));
        }
        samples_[next_] = sample;
        next_ = (next_ + 1) % kSamples;
        count_ = std::min(count_ + 1, kSamples);
        sampled_ = true;
        sampleTime_ = now;
        const bool use = free >= cores - kOthersAllowed;
        usePool_.store(use, std::memory_order_relaxed);
        return use;
    }

    void pooledRunWas(bool slow) {
        std::lock_guard lock(mutex_);
        if (!slow) {
            backoff_ = kFirstBackoff;
            slowInARow_ = 0;
            return;
        }
        // One stall alone is a hiccup (an idle VM shows a few ms now and then, which backed
        // most of a benchmark off the pool); a core someone else holds stalls run after run.
        if (++slowInARow_ < kSlowRunsToBackOff) return;
        slowInARow_ = 0;
        backoffUntil_ = std::chrono::steady_clock::now() + backoff_;
        backoff_ = std::min<std::chrono::steady_clock::duration>(backoff_ * 2, kLongestBackoff);
        usePool_.store(false, std::memory_order_relaxed);
    }

private:
    struct Sample {
        std::chrono::steady_clock::time_point time;
        long long ticks = -1;  // busyTicks()
        double ownCpu = 0;     // processCpuSeconds()
    };

    // The newest sample at least kWindow old, else the oldest kept; nullptr before the first.
    const Sample* windowStart(std::chrono::steady_clock::time_point now) const {
        const Sample* oldest = nullptr;
        for (size_t k = 1; k <= count_; ++k) {  // newest first
            const Sample& s = samples_[(next_ + kSamples - k) % kSamples];
            oldest = &s;
            if (now - s.time >= kWindow) return &s;
        }
        return oldest;
    }

    std::mutex mutex_;
    std::atomic<bool> usePool_{false};
    bool sampled_ = false;
    std::chrono::steady_clock::time_point sampleTime_;
    Sample samples_[kSamples];
    size_t next_ = 0, count_ = 0;
    // After a pooled inference that stalled (the samples missed a busy core), no pool for a while.
    std::chrono::steady_clock::time_point backoffUntil_;
    std::chrono::steady_clock::duration backoff_ = kFirstBackoff;
    int slowInARow_ = 0;
};

FreeCoreProbe& probe() {
    static FreeCoreProbe* probe = new FreeCoreProbe();  // never destroyed: inferences may run during exit
    return *probe;
}

}  // namespace

double freeCores(double cores, double busyTicksDelta, double ticksPerSecond, double ownCpuSecondsDelta,
                 double wallSecondsDelta) {
    if (wallSecondsDelta <= 0 || ticksPerSecond <= 0) return 0;
    const double others = std::max(0.0, busyTicksDelta / ticksPerSecond - ownCpuSecondsDelta) / wallSecondsDelta;
    return std::max(0.0, cores - others);
}

namespace {

// The pool and who holds it. Never destroyed itself (inferences may run during exit); the pool
// in it is, by the exit handler, when nobody holds it.
class PoolGate {
public:
    static PoolGate& get() {
        static PoolGate* gate = [] {
            auto* created = new PoolGate();
            // Runs at exit (the library is linked -z nodelete: never unloaded before).
            std::atexit([] { get().close(); });
            return created;
        }();
        return *gate;
    }

    pthreadpool_t acquire() {
        std::lock_guard lock(mutex_);
        if (pool_ == nullptr || closing_ || base::processId() != owner_) return nullptr;  // a forked child: no workers
        ++users_;
        return pool_;
    }
    void release() {
        std::lock_guard lock(mutex_);
        --users_;
        if (closing_ && users_ == 0) destroy();
    }
    pthreadpool_t peek() {
        std::lock_guard lock(mutex_);
        return closing_ || base::processId() != owner_ ? nullptr : pool_;
    }

    // A pool still in use is freed by its last user (a thread still running an inference while
    // the process exits); in between, nothing new acquires it.
    void close() {
        std::lock_guard lock(mutex_);
        closing_ = true;
        if (users_ == 0) destroy();
    }

private:
    PoolGate() : pool_(poolSize() > 1 ? pthreadpool_create(poolSize()) : nullptr) {}

    void destroy() {
        // A forked child has the pool's memory but not its threads: joining them there would
        // wait for threads that do not exist, so the child leaves it alone.
        if (pool_ == nullptr || base::processId() != owner_) return;
        pthreadpool_t pool = pool_;
        pool_ = nullptr;
        pthreadpool_destroy(pool);  // joins the workers: their thread-local storage goes with them
    }

    std::mutex mutex_;
    pthreadpool_t pool_;
    const pid_t owner_ = base::processId();  // the process whose threads the pool has
    size_t users_ = 0;
    bool closing_ = false;
};

}  // namespace

pthreadpool_t coreThreadPool() { return PoolGate::get().peek(); }

void closeCoreThreadPool() { PoolGate::get().close(); }

PoolUse::PoolUse() : pool_(PoolGate::get().acquire()) {}

PoolUse::~PoolUse() {
    if (pool_ != nullptr) PoolGate::get().release();
}

bool poolWorthUsingNow() {
    if (coreThreadPool() == nullptr) return false;
    if (fixedThreads() != 0) return true;
    return probe().worthUsingPool();
}

void pooledRunWas(bool slow) {
    if (fixedThreads() == 0) probe().pooledRunWas(slow);
}

}  // namespace nnemu::synap
