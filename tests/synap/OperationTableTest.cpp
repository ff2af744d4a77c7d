// The operation table of docs/operations.md against the registrations: every feature-level-29
// operation has a signature and a reference kernel, and the table's synap-npu column says "—"
// exactly for the operations without a lowering rule. A registration that vanishes, or a claim
// the table does not mention, fails here.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "NodeLowering.h"
#include "nnemu/cpu/Kernels.h"
#include "nnemu/hal/OperandTypes.h"
#include "nnemu/hal/Operations.h"

namespace {

using nnemu::hal::OperationType;

constexpr int kFeatureLevel29Operations = 95;

std::vector<std::string> cells(const std::string& row) {
    std::vector<std::string> result;
    std::stringstream stream(row);
    std::string cell;
    std::getline(stream, cell, '|');  // before the first bar
    while (std::getline(stream, cell, '|')) {
        const size_t first = cell.find_first_not_of(' ');
        const size_t last = cell.find_last_not_of(' ');
        result.push_back(first == std::string::npos ? "" : cell.substr(first, last - first + 1));
    }
    return result;
}

// Operation number -> {name, synap-npu column} from the table in docs/operations.md.
std::map<int, std::vector<std::string>> readmeTable() {
    std::ifstream readme(NNEMU_SOURCE_DIR "/docs/operations.md");
    std::map<int, std::vector<std::string>> rows;
    std::string line;
    bool inTable = false;
    while (std::getline(readme, line)) {
        if (line.rfind("| # | operation |", 0) == 0) {
            inTable = true;
        } else if (inTable && line.rfind("|---", 0) == 0) {
            continue;
        } else if (inTable && line.rfind("| ", 0) != 0) {
            break;
        } else if (inTable) {
            const auto row = cells(line);
            if (row.size() == 4) rows[std::stoi(row[0])] = {row[1], row[3]};
        }
    }
    return rows;
}

TEST(OperationTable, ListsEveryOperationWithItsReferenceKernelAndNpuClaim) {
    const auto rows = readmeTable();
    ASSERT_GE(rows.size(), static_cast<size_t>(kFeatureLevel29Operations))
            << "docs/operations.md operation table";
    for (int code = 0; code < static_cast<int>(nnemu::hal::kNumberOfOperationTypes); ++code) {
        // Operations of later feature levels have a row once they are implemented.
        if (code >= kFeatureLevel29Operations && rows.count(code) == 0) continue;
        const auto type = static_cast<OperationType>(code);
        const std::string name = nnemu::hal::operationName(type);
        ASSERT_TRUE(rows.count(code)) << "docs/operations.md has no row for " << name;
        EXPECT_EQ(rows.at(code)[0], name);
        EXPECT_NE(nnemu::hal::findSignature(type), nullptr) << name << " has no signature";
        EXPECT_NE(nnemu::cpu::findKernel(type), nullptr) << name << " has no reference kernel";
        const bool npuClaims = nnemu::synap::findLowering(type) != nullptr;
        EXPECT_EQ(rows.at(code)[1] != "—", npuClaims)
                << name << ": docs/operations.md's synap-npu column says \"" << rows.at(code)[1]
                << "\"";
    }
}

}  // namespace
