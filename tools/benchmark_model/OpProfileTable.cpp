#include "OpProfileTable.h"

#include <algorithm>
#include <iomanip>
#include <sstream>
#include <tuple>
#include <vector>

namespace nnemu::benchmark {
namespace {

constexpr int kNodeTypeWidth = 40;   // TSL's width for the node type column
constexpr size_t kTopByTimeLimit = 10;
const char* const kRule = "==============================";

// Every table field: a TAB, then the value right-aligned, fixed with 3 decimals.
std::ostream& field(std::ostream& out, int width) {
    out << "\t" << std::right << std::setw(width) << std::fixed << std::setprecision(3);
    return out;
}

}  // namespace

void OpProfileTable::addNodeStats(const std::string& name, const std::string& type, int64_t runOrder,
                                  int64_t elapsedUs, int64_t memoryUsed) {
    auto [it, inserted] = nodes_.try_emplace(name);
    Node& node = it->second;
    if (inserted) {
        node.name = name;
        node.type = type;
        node.runOrder = runOrder;
    }
    node.elapsedUs.add(elapsedUs);
    node.memoryUsed.add(memoryUsed);
    ++node.timesCalled;
}

std::string OpProfileTable::headerRow() const {
    std::ostringstream out;
    if (csv_) {
        out << "node type, first, avg_ms, %, cdf%, mem KB, times called, name";
        return out.str();
    }
    field(out, kNodeTypeWidth) << "[node type]";
    field(out, 9) << "[first]";
    field(out, 9) << "[avg ms]";
    field(out, 8) << "[%]";
    field(out, 8) << "[cdf%]";
    field(out, 10) << "[mem KB]";
    field(out, 9) << "[times called]";
    out << "\t" << "[Name]";
    return out.str();
}

std::string OpProfileTable::nodeRow(const Node& node, int64_t cumulativeUs) const {
    const double firstMs = static_cast<double>(node.elapsedUs.first()) / 1000.0;
    const double averageMs = node.elapsedUs.average() / 1000.0;
    const double percentage = static_cast<double>(node.elapsedUs.sum()) * 100.0 / static_cast<double>(runTotalUs_.sum());
    // The board computes the cumulative share in float.
    const double cdfPercentage = static_cast<double>(static_cast<float>(cumulativeUs) * 100.0f /
                                                     static_cast<float>(runTotalUs_.sum()));
    const int64_t timesCalled = node.timesCalled / runTotalUs_.count();
    const double memoryKb = static_cast<double>(node.memoryUsed.newest()) / 1000.0;

    std::ostringstream out;
    if (csv_) {
        std::string name = node.name;
        std::replace(name.begin(), name.end(), ',', '\t');
        out << node.type << ", " << firstMs << ", " << averageMs << ", " << percentage << "%, " << cdfPercentage
            << "%, " << memoryKb << ", " << timesCalled << ", " << name;
        return out.str();
    }
    field(out, kNodeTypeWidth) << node.type;
    field(out, 9) << firstMs;
    field(out, 9) << averageMs;
    field(out, 7) << percentage << "%";
    field(out, 7) << cdfPercentage << "%";
    field(out, 10) << memoryKb;
    field(out, 9) << timesCalled;
    out << "\t" << node.name;
    return out.str();
}

std::string OpProfileTable::table(const std::string& title, Order order, size_t limit) const {
    // The board sorts by a right-aligned text key, largest first; equal keys fall back to the
    // name here so the order is deterministic.
    std::vector<std::pair<std::string, const Node*>> keyed;
    const int64_t nodeCount = static_cast<int64_t>(nodes_.size());
    for (const auto& [name, node] : nodes_) {
        std::ostringstream key;
        key << std::setw(20) << std::right << std::setprecision(10) << std::fixed;
        if (order == Order::RUN_ORDER) {
            key << nodeCount - node.runOrder;
        } else {
            key << node.elapsedUs.average();
        }
        keyed.emplace_back(key.str(), &node);
    }
    std::sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) {
        if (a.first != b.first) return a.first > b.first;
        return a.second->name > b.second->name;
    });

    std::ostringstream out;
    out << kRule << " " << title << " " << kRule << "\n";
    out << headerRow() << "\n";
    double cumulativeUs = 0;
    size_t shown = 0;
    for (const auto& [key, node] : keyed) {
        if (limit > 0 && shown == limit) break;
        ++shown;
        cumulativeUs += static_cast<double>(node->elapsedUs.sum());
        out << nodeRow(*node, static_cast<int64_t>(cumulativeUs)) << "\n";
    }
    out << "\n";
    return out.str();
}

std::string OpProfileTable::runOrderTable() const { return table("Run Order", Order::RUN_ORDER, 0); }

std::string OpProfileTable::topByTimeTable() const {
    return table("Top by Computation Time", Order::TIME, kTopByTimeLimit);
}

std::string OpProfileTable::summaryByNodeType() const {
    struct TypeTotals {
        int64_t count = 0;
        int64_t timeUs = 0;
        int64_t memory = 0;
        int64_t timesCalled = 0;
    };
    std::map<std::string, TypeTotals> byType;
    int64_t accumulatedUs = 0;
    const int64_t runs = runTotalUs_.count();
    for (const auto& [name, node] : nodes_) {
        const int64_t perRunUs = runs > 0 ? node.elapsedUs.sum() / runs : 0;
        accumulatedUs += perRunUs;
        TypeTotals& totals = byType[node.type];
        totals.count += 1;
        totals.timeUs += perRunUs;
        totals.memory += node.memoryUsed.newest();
        totals.timesCalled += runs > 0 ? node.timesCalled / runs : 0;
    }
    // Largest time first, then type name and memory, both descending.
    std::vector<std::tuple<int64_t, std::string, int64_t>> ordered;
    for (const auto& [type, totals] : byType) ordered.emplace_back(totals.timeUs, type, totals.memory);
    std::sort(ordered.begin(), ordered.end(), std::greater<>());

    std::ostringstream out;
    out << "Number of nodes executed: " << nodes_.size() << "\n";
    out << kRule << " Summary by node type " << kRule << "\n";
    if (csv_) {
        out << "node type, count, avg_ms, avg %, cdf %, mem KB, times called\n";
    } else {
        field(out, kNodeTypeWidth) << "[Node type]";
        field(out, 9) << "[count]";
        field(out, 10) << "[avg ms]";
        field(out, 11) << "[avg %]";
        field(out, 11) << "[cdf %]";
        field(out, 10) << "[mem KB]";
        field(out, 10) << "[times called]";
        out << "\n";
    }
    float cdf = 0.0f;
    for (const auto& [timeUs, type, memory] : ordered) {
        const TypeTotals& totals = byType.at(type);
        const float memoryKb = static_cast<float>(memory) / 1000.0f;
        const float timePerRunMs = static_cast<float>(timeUs) / 1000.0f;
        const float percentage = (static_cast<float>(timeUs) / static_cast<float>(accumulatedUs)) * 100.0f;
        cdf += percentage;
        if (csv_) {
            out << type << ", " << totals.count << ", " << timePerRunMs << ", " << percentage << "%, " << cdf << "%, "
                << memoryKb << ", " << totals.timesCalled << "\n";
        } else {
            field(out, kNodeTypeWidth) << type;
            field(out, 9) << totals.count;
            field(out, 10) << timePerRunMs;
            field(out, 10) << percentage << "%";
            field(out, 10) << cdf << "%";
            field(out, 10) << memoryKb;
            field(out, 9) << totals.timesCalled;
            out << "\n";
        }
    }
    out << "\n";
    return out.str();
}

std::string OpProfileTable::shortSummary() const {
    std::ostringstream out;
    out << "Timings (microseconds): " << runTotalUs_.toString() << "\n";
    out << "Memory (bytes): " << memory_.toString() << "\n";
    out << nodes_.size() << " nodes observed\n";
    return out.str();
}

std::string OpProfileTable::report() const {
    return runOrderTable() + topByTimeTable() + summaryByNodeType() + shortSummary() + "\n";
}

}  // namespace nnemu::benchmark
