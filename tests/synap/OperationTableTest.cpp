// The documentation's operation table (README.md or docs/*.md) against the registrations: every
// feature-level-29 operation has a signature and a reference kernel, and the table's synap-npu
// column says "—" exactly for the operations without a lowering rule. A registration that
// vanishes, or a claim the documentation does not mention, fails here. Skipped when no file has
// the table.
#include <gtest/gtest.h>

#include <string>

#include "DocumentedOperations.h"
#include "compiler/Lowering.h"
#include "nnemu/cpu/Kernels.h"
#include "nnemu/hal/OperandTypes.h"
#include "nnemu/hal/Operations.h"

namespace {

using nnemu::hal::OperationType;

constexpr int kFeatureLevel29Operations = 95;

TEST(OperationTable, ListsEveryOperationWithItsReferenceKernelAndNpuClaim) {
    const auto [file, rows] = nnemu::test::findDocumentedOperations(NNEMU_SOURCE_DIR);
    if (file.empty()) GTEST_SKIP() << "no operations table (\"| # | operation |\") in README.md or docs/*.md";
    ASSERT_GE(rows.size(), static_cast<size_t>(kFeatureLevel29Operations)) << file;
    for (int code = 0; code < static_cast<int>(nnemu::hal::kNumberOfOperationTypes); ++code) {
        // Operations of later feature levels have a row once they are implemented.
        if (code >= kFeatureLevel29Operations && rows.count(code) == 0) continue;
        const auto type = static_cast<OperationType>(code);
        const std::string name = nnemu::hal::operationName(type);
        ASSERT_TRUE(rows.count(code)) << file << " has no row for " << name;
        ASSERT_EQ(rows.at(code).size(), 4u) << file << ": row " << code;
        EXPECT_EQ(rows.at(code)[1], name);
        EXPECT_NE(nnemu::hal::findSignature(type), nullptr) << name << " has no signature";
        EXPECT_NE(nnemu::cpu::findKernel(type), nullptr) << name << " has no reference kernel";
        const bool npuClaims = nnemu::synap::findLowering(type) != nullptr;
        EXPECT_EQ(rows.at(code)[3] != "—", npuClaims)
                << name << ": " << file << "'s synap-npu column says \"" << rows.at(code)[3] << "\"";
    }
}

// The lowering rules listed in driver/synap/compiler/Lowering.cpp: none twice, none outside the table.
TEST(OperationTable, LoweringRulesAreListedOnceEach) {
    std::string problems;
    for (const auto& problem : nnemu::synap::loweringCoverageProblems()) problems += problem + "\n";
    EXPECT_EQ(problems, "");
    for (const auto type : nnemu::synap::listedLowerings()) {
        EXPECT_EQ(nnemu::synap::findLowering(type)->type, type) << nnemu::hal::operationName(type);
    }
}

}  // namespace
