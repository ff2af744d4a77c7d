// The NPU core's free-core arithmetic: other processes' CPU time, not this process's, takes
// cores from the thread pool.
#include <gtest/gtest.h>

#include "CoreThreads.h"

namespace nnemu::synap {
namespace {

TEST(CoreThreads, AnIdleMachineLeavesEveryCoreFree) {
    // 100 ms on 2 cores at 100 ticks/s: nothing busy.
    EXPECT_DOUBLE_EQ(freeCores(2, 0, 100, 0, 0.1), 2);
}

TEST(CoreThreads, ThisProcessesOwnWorkDoesNotCount) {
    // Both cores busy for 100 ms (20 ticks), all of it this process's (0.2 s of CPU).
    EXPECT_DOUBLE_EQ(freeCores(2, 20, 100, 0.2, 0.1), 2);
}

TEST(CoreThreads, OtherProcessesTakeCores) {
    // Both cores busy, this process used one core's worth: another process had the other.
    EXPECT_DOUBLE_EQ(freeCores(2, 20, 100, 0.1, 0.1), 1);
    // A busy loop on every core and nothing of ours.
    EXPECT_DOUBLE_EQ(freeCores(2, 20, 100, 0, 0.1), 0);
}

TEST(CoreThreads, NoIntervalMeansNoFreeCore) {
    EXPECT_DOUBLE_EQ(freeCores(2, 20, 100, 0, 0), 0);
    EXPECT_DOUBLE_EQ(freeCores(2, 20, 0, 0, 0.1), 0);
}

}  // namespace
}  // namespace nnemu::synap
