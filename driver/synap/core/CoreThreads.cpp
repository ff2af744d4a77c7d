#include "CoreThreads.h"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>

#include "../kernels/Isa.h"
#include "CorePool.h"
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

}  // namespace

long ownRunnableThreads() {
    constexpr long kMostThreads = 256;  // beyond this, reading each one's state costs too much
    DIR* tasks = opendir("/proc/self/task");
    if (tasks == nullptr) return -1;
    long running = 0, seen = 0;
    while (const dirent* entry = readdir(tasks)) {
        if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
        if (++seen > kMostThreads) {
            running = -1;
            break;
        }
        char path[64], line[512];
        std::snprintf(path, sizeof path, "/proc/self/task/%.20s/stat", entry->d_name);
        const int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;  // a thread that just ended
        const ssize_t got = read(fd, line, sizeof line - 1);
        close(fd);
        if (got <= 0) continue;
        line[got] = '\0';
        // "tid (name) S ...": the name may hold spaces and parentheses, the state follows the last ')'.
        const char* nameEnd = std::strrchr(line, ')');
        if (nameEnd != nullptr && nameEnd[1] == ' ' && nameEnd[2] == 'R') ++running;
    }
    closedir(tasks);
    return running;
}

namespace {

// Other programs' runnable threads right now (/proc/loadavg less this process's own), the least
// of up to kLooks looks kLookGap apart: a thread of this process that just ended (the SyNAP
// cache prefetch) is still runnable for a moment while it exits, no longer listed as ours, and
// read as another program's it kept 2 of 10 warm processes' first inferences off the pool on the
// idle VM. A program that runs is there at every look. The cores' count when unknown.
long othersRunnableNow() {
    constexpr int kLooks = 3;
    constexpr auto kLookGap = std::chrono::microseconds(30);
    long fewest = -1;
    for (int look = 0; look < kLooks; ++look) {
        if (look > 0) {  // waited for on the core, not asleep: on a busy machine a sleep may last a slice
            const auto until = std::chrono::steady_clock::now() + kLookGap;
            while (std::chrono::steady_clock::now() < until) std::this_thread::yield();
        }
        const long runnable = runnableNow();
        // The caller alone: no need to list this process's threads (some 20 system calls).
        if (runnable == 1) return 0;
        const long own = ownRunnableThreads();
        if (runnable < 0 || own < 0) return static_cast<long>(poolSize());
        const long others = std::max(0L, runnable - std::max(1L, own));
        fewest = fewest < 0 ? others : std::min(fewest, others);
        if (fewest == 0) break;
    }
    return fewest;
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
        double free = 0, allowed = kOthersAllowed;
        const Sample* since = windowStart(now);
        if (since != nullptr && sample.ticks >= 0 && since->ticks >= 0 && now - since->time >= kSampleInterval) {
            const double seconds = std::chrono::duration<double>(now - since->time).count();
            const double ticksPerSecond = static_cast<double>(sysconf(_SC_CLK_TCK));
            free = freeCores(cores, static_cast<double>(sample.ticks - since->ticks), ticksPerSecond,
                             sample.ownCpu - since->ownCpu, seconds);
            allowed = othersAllowed(cores, ticksPerSecond, seconds);
        } else {
            // No interval long enough to count ticks over (the process's first inference): what
            // runs right now, less this process's own threads (the caller, workers still spinning).
            free = cores - static_cast<double>(othersRunnableNow());
        }
        samples_[next_] = sample;
        next_ = (next_ + 1) % kSamples;
        count_ = std::min(count_ + 1, kSamples);
        sampled_ = true;
        sampleTime_ = now;
        const bool use = free >= cores - allowed;
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

double othersAllowed(double cores, double ticksPerSecond, double seconds) {
    // /proc/stat counts whole ticks: its busy time of `cores` may be off by about one tick per
    // core, which kOthersAllowed already allows for over kWindow; a shorter window allows more.
    const double window = std::chrono::duration<double>(kWindow).count();
    if (ticksPerSecond <= 0 || seconds <= 0 || seconds >= window) return kOthersAllowed;
    return kOthersAllowed + cores / ticksPerSecond * (1 / seconds - 1 / window);
}

double freeCores(double cores, double busyTicksDelta, double ticksPerSecond, double ownCpuSecondsDelta,
                 double wallSecondsDelta) {
    if (wallSecondsDelta <= 0 || ticksPerSecond <= 0) return 0;
    const double others = std::max(0.0, busyTicksDelta / ticksPerSecond - ownCpuSecondsDelta) / wallSecondsDelta;
    return std::max(0.0, cores - others);
}

namespace {

// The pools and who holds them. Never destroyed itself (inferences may run during exit); the
// pools in it are, by the exit handler, when nobody holds them.
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

    // The own pool, or (xnnpack) the pthreadpool's; nullptr when there is none (yet), the
    // process is exiting or is a forked child. With NNEMU_NPU_THREADS set the pool asked for is
    // started (and waited for) first.
    CorePool* acquire(bool xnnpack, bool awaitOwn = false) {
        std::unique_lock lock(mutex_);
        CorePool* pool = available(lock, xnnpack, awaitOwn);
        if (pool != nullptr) ++users_;
        return pool;
    }
    void release() {
        std::lock_guard lock(mutex_);
        --users_;
        if (closing_ && users_ == 0) destroy();
    }
    CorePool* peek(bool xnnpack) {
        std::unique_lock lock(mutex_);
        return available(lock, xnnpack);
    }
    pthreadpool_t xnnpackThreads() {
        std::unique_lock lock(mutex_);
        return available(lock, true) != nullptr ? xnnpack_ : nullptr;
    }

    // A pool still in use is freed by its last user (a thread still running an inference while
    // the process exits), one still starting by its starter; in between, nothing new acquires it.
    void close() {
        std::lock_guard lock(mutex_);
        closing_ = true;
        if (users_ == 0) destroy();
    }

    // Starts the own pool's threads once: pthread_create returns without waiting for the thread
    // to run, and nothing waits for the workers afterwards either.
    void launchOwn(int callerCpu) {
        std::unique_lock lock(mutex_);
        launchOwnLocked(lock, callerCpu);
    }
    // Starts the pthreadpool once, on a thread of its own: pthreadpool_create returns once every
    // worker has run, which took 0.1 ms on the idle 2-core VM but 7-18 ms while other processes
    // kept its cores busy. Inferences meanwhile run on their calling thread.
    void launchXnnpack() {
        std::lock_guard lock(mutex_);
        launchXnnpackLocked();
    }

private:
    PoolGate() = default;

    bool usable() const { return !closing_ && poolSize() > 1 && base::processId() == owner_; }

    CorePool* available(std::unique_lock<std::mutex>& lock, bool xnnpack, bool awaitOwn = false) {
        if (!usable()) return nullptr;
        if (!xnnpack) {
            if (fixedThreads() != 0 || awaitOwn) {
                launchOwnLocked(lock);
                started_.wait(lock, [&] { return !startingOwn_; });
                if (!usable()) return nullptr;
            }
            return own_.get();  // nullptr while another thread starts it: this inference runs alone
        }
        if (fixedThreads() != 0) {
            launchXnnpackLocked();
            started_.wait(lock, [&] { return !startingXnnpack_; });
            if (!usable()) return nullptr;
        }
        return overXnnpack_.get();
    }

    // Creates the own pool once, outside the lock: creating a thread took 0.1-0.25 ms on the
    // 2-core VM, and a small inference that meets the pool still starting runs alone rather
    // than wait for it (the SyNAP cache prefetch starts it while the first inference begins); a
    // large one waits (PoolUse's awaitOwnPool).
    void launchOwnLocked(std::unique_lock<std::mutex>& lock, int callerCpu = -1) {
        if (launchedOwn_ || !usable()) return;
        launchedOwn_ = true;
        startingOwn_ = true;
        lock.unlock();
        // Each worker takes its AMX tile state first (kernels::prepareAmxThread: the first use
        // of the tiles traps into Linux, 16-27 us a thread), not in its first inference.
        std::unique_ptr<CorePool> pool;
        try {
            pool = CorePool::create(poolSize(), [] { kernels::prepareAmxThread(); }, callerCpu);
        } catch (const std::bad_alloc&) {  // no pool: every inference runs on its calling thread
        }
        lock.lock();
        startingOwn_ = false;
        own_ = std::move(pool);
        if (closing_ && users_ == 0) destroy();
        started_.notify_all();
    }

    void launchXnnpackLocked() {
        if (launchedXnnpack_ || !usable()) return;
        launchedXnnpack_ = true;
        startingXnnpack_ = true;
        try {
            std::thread([this] { startXnnpack(); }).detach();
        } catch (const std::system_error&) {
            startingXnnpack_ = false;  // no thread to spare: every inference runs on its caller
        }
    }

    void startXnnpack() {
        pthreadpool_t pool = pthreadpool_create(poolSize());
        if (pool != nullptr) prepareWorkers(pool);
        std::unique_ptr<CorePool> over = CorePool::over(pool);
        std::lock_guard lock(mutex_);
        xnnpack_ = pool;
        overXnnpack_ = std::move(over);
        startingXnnpack_ = false;
        if (closing_ && users_ == 0) destroy();
        started_.notify_all();
    }

    // Each pthreadpool worker takes its AMX tile state now, one task per thread (a thread that
    // happens to take two leaves a worker to pay it later). PTHREADPOOL_FLAG_YIELD_WORKERS sends
    // the workers to sleep right after, where they would otherwise spin for milliseconds (as
    // after pthreadpool_create) and take a core from the threads loading and running networks.
    static void prepareWorkers(pthreadpool_t pool) {
        pthreadpool_parallelize_1d(
                pool, [](void*, size_t) { kernels::prepareAmxThread(); }, nullptr, pthreadpool_get_threads_count(pool),
                PTHREADPOOL_FLAG_YIELD_WORKERS);
    }

    void destroy() {
        // A forked child has the pools' memory but not their threads: joining them there would
        // wait for threads that do not exist, so the child leaves them alone.
        if (base::processId() != owner_) {
            (void)own_.release();
            (void)overXnnpack_.release();
            return;
        }
        own_.reset();  // joins the workers: their thread-local storage goes with them
        overXnnpack_.reset();
        if (xnnpack_ != nullptr) pthreadpool_destroy(xnnpack_);
        xnnpack_ = nullptr;
    }

    std::mutex mutex_;
    std::condition_variable started_;
    std::unique_ptr<CorePool> own_;
    pthreadpool_t xnnpack_ = nullptr;
    std::unique_ptr<CorePool> overXnnpack_;  // calls on xnnpack_
    bool launchedOwn_ = false;
    bool launchedXnnpack_ = false;
    bool startingXnnpack_ = false;  // the starter thread is creating the pthreadpool
    bool startingOwn_ = false;      // a thread is creating the own pool (outside the lock)
    const pid_t owner_ = base::processId();  // the process whose threads the pools have
    size_t users_ = 0;
    bool closing_ = false;
};

}  // namespace

CorePool* coreThreadPool() { return PoolGate::get().peek(false); }

pthreadpool_t xnnpackThreadPool() { return PoolGate::get().xnnpackThreads(); }

size_t coreThreadCount() { return poolSize(); }

void startCoreThreadPool(int callerCpu) { PoolGate::get().launchOwn(callerCpu); }

void startXnnpackThreadPool() { PoolGate::get().launchXnnpack(); }

void closeCoreThreadPool() { PoolGate::get().close(); }

PoolUse::PoolUse(bool xnnpack, bool awaitOwnPool) : pool_(PoolGate::get().acquire(xnnpack, awaitOwnPool)) {}

PoolUse::~PoolUse() {
    if (pool_ != nullptr) PoolGate::get().release();
}

bool poolWorthUsingNow() {
    if (fixedThreads() != 0) return true;
    return probe().worthUsingPool();
}

void pooledRunWas(bool slow) {
    if (fixedThreads() == 0) probe().pooledRunWas(slow);
}

}  // namespace nnemu::synap
