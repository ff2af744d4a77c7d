// The op-profiling tables of benchmark_model: TSL's column widths and number formats, orders and
// the short summary, checked against lines worked out independently of the implementation.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "OpProfileTable.h"

namespace nnemu::benchmark {
namespace {

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> result;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) result.push_back(line);
    return result;
}

// The board documentation's example: delegate kernel, a CPU RESIZE_NEAREST_NEIGHBOR, delegate kernel.
OpProfileTable docExample() {
    OpProfileTable table;
    table.addNodeStats("[]:64", "TfLiteNnapiDelegate", 0, 3826, 0);
    table.addNodeStats("[]:38", "RESIZE_NEAREST_NEIGHBOR", 1, 52, 0);
    table.addNodeStats("[]:65", "TfLiteNnapiDelegate", 2, 2244, 0);
    table.addRunTotal(3826 + 52 + 2244);
    return table;
}

const char* const kHeader =
    "\t                             [node type]\t  [first]\t [avg ms]\t     [%]\t  [cdf%]\t  [mem KB]\t[times called]\t[Name]";
const char* const kRow64 = "\t                     TfLiteNnapiDelegate\t    3.826\t    3.826\t 62.496%\t 62.496%\t     0.000\t        1\t[]:64";
const char* const kRow38 = "\t                 RESIZE_NEAREST_NEIGHBOR\t    0.052\t    0.052\t  0.849%\t 63.345%\t     0.000\t        1\t[]:38";
const char* const kRow65 = "\t                     TfLiteNnapiDelegate\t    2.244\t    2.244\t 36.655%\t100.000%\t     0.000\t        1\t[]:65";

TEST(OpProfileTable, RunOrderTable) {
    const auto got = lines(docExample().runOrderTable());
    const std::vector<std::string> expected = {
        "============================== Run Order ==============================", kHeader, kRow64, kRow38, kRow65, ""};
    EXPECT_EQ(got, expected);
}

TEST(OpProfileTable, TopByComputationTimeIsSlowestFirst) {
    const auto got = lines(docExample().topByTimeTable());
    ASSERT_EQ(got.size(), 6u);
    EXPECT_EQ(got[0], "============================== Top by Computation Time ==============================");
    EXPECT_EQ(got[2], kRow64);
    EXPECT_EQ(got[3], "\t                     TfLiteNnapiDelegate\t    2.244\t    2.244\t 36.655%\t 99.151%\t     0.000\t        1\t[]:65");
    EXPECT_EQ(got[4], "\t                 RESIZE_NEAREST_NEIGHBOR\t    0.052\t    0.052\t  0.849%\t100.000%\t     0.000\t        1\t[]:38");
}

TEST(OpProfileTable, TopByComputationTimeShowsTenNodes) {
    OpProfileTable table;
    int64_t total = 0;
    for (int i = 0; i < 15; ++i) {
        table.addNodeStats("[t" + std::to_string(i) + "]:" + std::to_string(i), "CONV_2D", i, 100 + i, 0);
        total += 100 + i;
    }
    table.addRunTotal(total);
    EXPECT_EQ(lines(table.topByTimeTable()).size(), 2u + 10u + 1u);
    EXPECT_EQ(lines(table.runOrderTable()).size(), 2u + 15u + 1u);
}

TEST(OpProfileTable, SummaryByNodeType) {
    const auto got = lines(docExample().summaryByNodeType());
    const std::vector<std::string> expected = {
        "Number of nodes executed: 3",
        "============================== Summary by node type ==============================",
        "\t                             [Node type]\t  [count]\t  [avg ms]\t    [avg %]\t    [cdf %]\t  [mem KB]\t[times called]",
        "\t                     TfLiteNnapiDelegate\t        2\t     6.070\t    99.151%\t    99.151%\t     0.000\t        2",
        "\t                 RESIZE_NEAREST_NEIGHBOR\t        1\t     0.052\t     0.849%\t   100.000%\t     0.000\t        1",
        "",
    };
    EXPECT_EQ(got, expected);
}

TEST(OpProfileTable, ShortSummaryAndAveragesOverRuns) {
    OpProfileTable table;
    for (int64_t run = 0; run < 2; ++run) {
        table.addNodeStats("[out]:31", "TfLiteNnapiDelegate", 0, 1000 + run * 1000, 0);
        table.addRunTotal(1000 + run * 1000);
    }
    EXPECT_EQ(table.shortSummary(),
              "Timings (microseconds): count=2 first=1000 curr=2000 min=1000 max=2000 avg=1500 std=500\n"
              "Memory (bytes): count=0\n"
              "1 nodes observed\n");
    const auto rows = lines(table.runOrderTable());
    ASSERT_EQ(rows.size(), 4u);
    EXPECT_EQ(rows[2], "\t                     TfLiteNnapiDelegate\t    1.000\t    1.500\t100.000%\t100.000%\t     0.000\t        1\t[out]:31");
}

TEST(OpProfileTable, ReportIsTablesThenSummary) {
    const OpProfileTable table = docExample();
    EXPECT_EQ(table.report(), table.runOrderTable() + table.topByTimeTable() + table.summaryByNodeType() +
                                  table.shortSummary() + "\n");
    EXPECT_TRUE(table.hasProfiles());
    EXPECT_FALSE(OpProfileTable().hasProfiles());
}

TEST(OpProfileTable, CsvRows) {
    OpProfileTable table(true);
    table.addNodeStats("[a, b]:3", "ADD", 0, 1500, 0);
    table.addRunTotal(1500);
    const auto got = lines(table.runOrderTable());
    ASSERT_EQ(got.size(), 4u);
    EXPECT_EQ(got[1], "node type, first, avg_ms, %, cdf%, mem KB, times called, name");
    EXPECT_EQ(got[2], "ADD, 1.5, 1.5, 100%, 100%, 0, 1, [a\t b]:3");
}

}  // namespace
}  // namespace nnemu::benchmark
