// The op-profiling report of benchmark_model --enable_op_profiling (TFLite's profile summarizer
// over TSL's stats calculator): per-node timings gathered over runs, printed as the "Run Order",
// "Top by Computation Time" and "Summary by node type" tables plus the short summary, in the
// exact column widths and number formats of the board's TF 2.15 build, or as CSV.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "RunStatistic.h"

namespace nnemu::benchmark {

class OpProfileTable {
public:
    explicit OpProfileTable(bool csv = false) : csv_(csv) {}

    // One node's time in one run. The first call for a name fixes its type and run order.
    void addNodeStats(const std::string& name, const std::string& type, int64_t runOrder, int64_t elapsedUs,
                      int64_t memoryUsed);
    // The summed node time of one run; one call per run.
    void addRunTotal(int64_t totalUs) { runTotalUs_.add(totalUs); }

    bool hasProfiles() const { return runTotalUs_.count() > 0; }
    size_t nodeCount() const { return nodes_.size(); }

    std::string runOrderTable() const;            // every node, in run order
    std::string topByTimeTable() const;           // the 10 slowest by average
    std::string summaryByNodeType() const;        // "Number of nodes executed: N" and the type table
    std::string shortSummary() const;             // Timings / Memory / "N nodes observed"
    // What the summarizer prints for the primary graph: the three tables, the short summary and
    // an empty line.
    std::string report() const;

private:
    struct Node {
        std::string name;
        std::string type;
        int64_t runOrder = 0;
        RunStatistic elapsedUs;
        RunStatistic memoryUsed;
        int64_t timesCalled = 0;
    };
    enum class Order { RUN_ORDER, TIME };

    std::string table(const std::string& title, Order order, size_t limit) const;
    std::string headerRow() const;
    std::string nodeRow(const Node& node, int64_t cumulativeUs) const;

    bool csv_;
    std::map<std::string, Node> nodes_;
    RunStatistic runTotalUs_;
    RunStatistic memory_;   // never fed, as on the board: "Memory (bytes): count=0"
};

}  // namespace nnemu::benchmark
