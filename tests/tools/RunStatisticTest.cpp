// The statistic lines of benchmark_model: every variant of TFLite's Stat<int64_t> output.
#include <gtest/gtest.h>

#include "RunStatistic.h"

namespace nnemu::benchmark {
namespace {

RunStatistic statOf(std::initializer_list<int64_t> values) {
    RunStatistic stat;
    for (int64_t v : values) stat.add(v);
    return stat;
}

TEST(RunStatistic, EmptyIsCountZero) {
    EXPECT_EQ(RunStatistic().toString(), "count=0");
    EXPECT_EQ(RunStatistic().average(), 0.0);   // TFLite's integer NaN is 0
}

TEST(RunStatistic, OneSampleShowsOnlyCurr) {
    EXPECT_EQ(statOf({637079}).toString(), "count=1 curr=637079");
}

TEST(RunStatistic, EqualSamplesAreAllSame) {
    EXPECT_EQ(statOf({5, 5, 5}).toString(), "count=3 curr=5(all same)");
}

TEST(RunStatistic, GeneralLine) {
    EXPECT_EQ(statOf({10, 20, 40}).toString(), "count=3 first=10 curr=40 min=10 max=40 avg=23.3333 std=12");
    EXPECT_EQ(statOf({2531, 1171, 9925, 2793}).toString(),
              "count=4 first=2531 curr=2793 min=1171 max=9925 avg=4105 std=3416");
}

TEST(RunStatistic, AverageHasSixSignificantDigits) {
    // The board's cache example: one slow first run and one fast one averaging past 999999.
    EXPECT_EQ(statOf({1000000, 2198124}).toString(),
              "count=2 first=1000000 curr=2198124 min=1000000 max=2198124 avg=1.59906e+06 std=599062");
}

TEST(RunStatistic, StdIsTheTruncatedRootOfTheTruncatedVariance) {
    // variance 0.25 truncates to 0; 1.25 to 1.
    EXPECT_EQ(statOf({1, 2}).toString(), "count=2 first=1 curr=2 min=1 max=2 avg=1.5 std=0");
    EXPECT_EQ(statOf({1, 2, 3, 4}).standardDeviation(), 1);
    EXPECT_EQ(statOf({1, 2, 3, 4}).variance(), 1);
}

}  // namespace
}  // namespace nnemu::benchmark
