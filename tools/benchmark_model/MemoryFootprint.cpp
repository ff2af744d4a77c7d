#include "MemoryFootprint.h"

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace nnemu::benchmark {

int64_t parseStatusFieldKb(const std::string& statusText, const std::string& field) {
    std::istringstream lines(statusText);
    std::string line;
    const std::string prefix = field + ":";
    while (std::getline(lines, line)) {
        if (line.rfind(prefix, 0) != 0) continue;
        std::istringstream value(line.substr(prefix.size()));
        long long kb = -1;
        std::string unit;
        if (!(value >> kb) || kb < 0) return -1;
        if (value >> unit && unit != "kB") return -1;
        return kb;
    }
    return -1;
}

int64_t readPeakResidentKb() {
    std::ifstream file("/proc/self/status");
    if (!file) return -1;
    std::ostringstream text;
    text << file.rdbuf();
    return parseStatusFieldKb(text.str(), "VmHWM");
}

void PeakMemoryMonitor::sample() {
    const int64_t kb = readPeakResidentKb();
    int64_t previous = peakKb_.load();
    while (kb > previous && !peakKb_.compare_exchange_weak(previous, kb)) {
    }
}

void PeakMemoryMonitor::start() {
    if (thread_.joinable()) return;
    stopping_ = false;
    sample();
    thread_ = std::thread([this] {
        std::unique_lock<std::mutex> lock(mutex_);
        while (!stopping_) {
            wake_.wait_for(lock, std::chrono::milliseconds(intervalMs_), [this] { return stopping_; });
            sample();
        }
    });
}

void PeakMemoryMonitor::stop() {
    if (!thread_.joinable()) return;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

float PeakMemoryMonitor::peakMb() const {
    const int64_t kb = peakKb_.load();
    return kb < 0 ? -1.0f : static_cast<float>(kb) / 1024.0f;
}

}  // namespace nnemu::benchmark
