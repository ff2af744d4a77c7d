// The memory footprint benchmark_model reports: VmHWM parsing and the peak monitor.
#include <gtest/gtest.h>

#include <vector>

#include "MemoryFootprint.h"

namespace nnemu::benchmark {
namespace {

TEST(MemoryFootprint, ParsesStatusFields) {
    const std::string status = "Name:\tbenchmark_model\nVmPeak:\t  20000 kB\nVmHWM:\t    7580 kB\nVmRSS:\t    7000 kB\n";
    EXPECT_EQ(parseStatusFieldKb(status, "VmHWM"), 7580);
    EXPECT_EQ(parseStatusFieldKb(status, "VmRSS"), 7000);
    EXPECT_EQ(parseStatusFieldKb(status, "VmSwap"), -1);
    EXPECT_EQ(parseStatusFieldKb("VmHWM:\tlots kB\n", "VmHWM"), -1);
    EXPECT_EQ(parseStatusFieldKb("VmHWM:\t12 MB\n", "VmHWM"), -1);
}

TEST(MemoryFootprint, ReadsThisProcess) {
    const int64_t before = readPeakResidentKb();
    ASSERT_GT(before, 0);
    // Touch 16 MB: the high-water mark grows by about that much.
    std::vector<char> block(16 << 20, 1);
    for (size_t i = 0; i < block.size(); i += 4096) block[i] = static_cast<char>(i);
    const int64_t after = readPeakResidentKb();
    EXPECT_GE(after, before + 8 * 1024) << static_cast<int>(block[4096]);
}

TEST(MemoryFootprint, MonitorReportsAPeak) {
    PeakMemoryMonitor monitor(5);
    EXPECT_LT(monitor.peakMb(), 0.0f);
    monitor.start();
    monitor.stop();
    EXPECT_GT(monitor.peakMb(), 0.0f);
    monitor.stop();   // stopping twice is harmless
}

}  // namespace
}  // namespace nnemu::benchmark
