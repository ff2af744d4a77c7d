// The NPU's sysfs-style statistics files under the device root
// (/sys/class/misc/synap/device/misc/synap/statistics/: inference_count, inference_time,
// networks, network_profile; /sys/class/misc/synap/statistics links to the same folder).
// Counters live in a state file shared by every process using the device root, mapped and
// changed under a lock word of its own (StatisticsState.h), so counts are exact with several
// processes; each NPU execution stores the visible files' new texts through shared mappings
// before it returns, with one system call (StatisticsFiles.h). Statistics are best-effort:
// nothing they meet on disk (damage, planted links, truncation under a mapping, a stopped lock
// holder) fails or hangs an execution.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nnemu::synap {

// One row of a profiled network's layer table.
struct LayerProfile {
    std::string name;
    const char* opType;  // "NN", "SH", "TP", ...
    uint32_t timeUs;
    uint64_t bytesRead;
    uint64_t bytesWritten;
};

// A network loaded on the NPU, as the statistics see it: created at the first-inference JIT,
// gone when the prepared model is released or the process exits.
class NetworkStatistics {
public:
    // iobuf: the network's input and output buffers (count and total bytes). `layers` is
    // reported only for profiled networks, as the board's kernel does.
    NetworkStatistics(uint32_t iobufCount, uint64_t iobufBytes, uint32_t layers, bool profiling);
    ~NetworkStatistics();
    NetworkStatistics(const NetworkStatistics&) = delete;
    NetworkStatistics& operator=(const NetworkStatistics&) = delete;

    // One NPU execution of this network that took `timeUs` on the core.
    void recordInference(uint64_t timeUs);
    // The layer table of the last profiled inference (profiling networks only).
    void recordProfile(const std::vector<LayerProfile>& layers);

private:
    uint32_t nid_;  // the network's id in this process, as `networks` lists it
    bool profiling_;
};

// Applies a reset written to inference_count or inference_time (or a file deleted or garbled)
// since the last update: the files show 0 at once. Loading the library does the same at start-up.
void touchStatistics();

// Formats shared with tests.
std::string networkLine(uint64_t pid, uint32_t nid, uint64_t count, uint64_t timeUs, uint32_t lastUs,
                        int32_t iobufCount, int64_t iobufSize, int32_t layers);
std::string profileTable(const std::vector<LayerProfile>& layers);

// The NPU clock the profile's cycle column assumes.
constexpr uint32_t kNpuClockMhz = 800;

}  // namespace nnemu::synap
