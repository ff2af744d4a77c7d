// The process memory footprint benchmark_model reports: the resident-set high-water mark (what
// getrusage's ru_maxrss gives on the board), read from VmHWM in /proc/self/status, in KB, and a
// monitor thread that samples it for --report_peak_memory_footprint.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace nnemu::benchmark {

// The value of a "Name:   123 kB" line of a /proc status text, in KB; -1 when absent or malformed.
int64_t parseStatusFieldKb(const std::string& statusText, const std::string& field);

// VmHWM of this process in KB; -1 when /proc is unavailable.
int64_t readPeakResidentKb();

class PeakMemoryMonitor {
public:
    explicit PeakMemoryMonitor(int32_t intervalMs) : intervalMs_(intervalMs) {}
    ~PeakMemoryMonitor() { stop(); }
    PeakMemoryMonitor(const PeakMemoryMonitor&) = delete;
    PeakMemoryMonitor& operator=(const PeakMemoryMonitor&) = delete;

    void start();
    void stop();
    float peakMb() const;   // largest sample / 1024, or -1 when nothing was sampled

private:
    void sample();

    int32_t intervalMs_;
    std::atomic<int64_t> peakKb_{-1};
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace nnemu::benchmark
