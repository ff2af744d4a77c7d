// Operations defined once: the table of hal/include/nnemu/hal/OperationTable.def against every
// list derived from it or kept beside it. The NDK header's OperationCode enum (names, codes and its
// feature-level comments), the HAL's name and feature-level lookups, the conformance loader's
// names, the signature list (hal/Operations.cpp), the reference kernel list
// (driver/cpu/Kernels.cpp) and the operations table of the documentation.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "DocumentedOperations.h"
#include "Variant.h"
#include "nnemu/cpu/Kernels.h"
#include "nnemu/hal/ControlFlow.h"
#include "nnemu/hal/OperandTypes.h"
#include "nnemu/hal/OperationCoverage.h"
#include "nnemu/hal/OperationTable.h"
#include "nnemu/hal/Operations.h"

namespace {

using nnemu::hal::kOperations;
using nnemu::hal::OperationInfo;
using nnemu::hal::OperationType;

struct NdkOperation {
    std::string name;
    int32_t code;
    int64_t featureLevel;
};

// A feature level as the header's comments write it: 27..30, or 6, 7... for 1000006, 1000007...
int64_t featureLevelCode(int64_t written) { return written < 27 ? 1000000 + written : written; }

// The OperationCode enum of <android/NeuralNetworks.h>, with the level of the comment above each.
std::vector<NdkOperation> ndkOperations() {
    std::ifstream header(NNEMU_SOURCE_DIR "/runtime/include/android/NeuralNetworks.h");
    std::vector<std::string> lines;
    for (std::string line; std::getline(header, line);) lines.push_back(line);
    size_t end = 0;
    while (end < lines.size() && lines[end].find("} OperationCode;") == std::string::npos) ++end;
    size_t begin = end;
    while (begin > 0 && lines[begin - 1].find("typedef enum {") == std::string::npos) --begin;
    const std::regex level(R"(/\* feature level (\d+) \*/)");
    const std::regex constant(R"(^\s*ANEURALNETWORKS_([A-Z0-9_]+) = (\d+),?\s*$)");
    std::vector<NdkOperation> result;
    int64_t current = 0;
    for (size_t i = begin; i < end; ++i) {
        std::smatch match;
        if (std::regex_search(lines[i], match, level)) current = featureLevelCode(std::stoll(match[1]));
        if (std::regex_match(lines[i], match, constant)) {
            result.push_back({match[1], static_cast<int32_t>(std::stol(match[2])), current});
        }
    }
    return result;
}

TEST(OperationsDefinedOnce, NdkHeaderHasEveryRowAndNothingElse) {
    const auto ndk = ndkOperations();
    ASSERT_EQ(ndk.size(), kOperations.size()) << "OperationCode in <android/NeuralNetworks.h>";
    for (size_t i = 0; i < ndk.size(); ++i) {
        const OperationInfo& row = kOperations[i];
        EXPECT_EQ(ndk[i].name, row.name) << "code " << i;
        EXPECT_EQ(ndk[i].code, static_cast<int32_t>(row.type)) << row.name;
        EXPECT_EQ(ndk[i].featureLevel, row.featureLevel) << row.name << ": the header's feature-level comment";
    }
}

TEST(OperationsDefinedOnce, NameAndFeatureLevelLookupsFollowTheTable) {
    for (const OperationInfo& row : kOperations) {
        EXPECT_STREQ(nnemu::hal::operationName(row.type), row.name);
        EXPECT_EQ(nnemu::hal::operationFeatureLevel(row.type), row.featureLevel) << row.name;
        OperationType parsed = OperationType::OEM_OPERATION;
        EXPECT_TRUE(nnemu::hal::operationFromName(row.name, &parsed)) << row.name;
        EXPECT_EQ(parsed, row.type) << row.name;
        // The conformance runner's loader reads the same rows.
        EXPECT_STREQ(nnemu::conformance::operationName(static_cast<int32_t>(row.type)), row.name);
    }
    EXPECT_STREQ(nnemu::hal::operationName(static_cast<OperationType>(nnemu::hal::kNumberOfOperationTypes)),
                 "UNKNOWN");
    EXPECT_EQ(nnemu::conformance::operationName(nnemu::hal::kNumberOfOperationTypes), nullptr);
    OperationType parsed;
    EXPECT_FALSE(nnemu::hal::operationFromName("NOT_AN_OPERATION", &parsed));
}

std::string joined(const std::vector<std::string>& problems) {
    std::string text;
    for (const auto& problem : problems) text += problem + "\n";
    return text;
}

TEST(OperationsDefinedOnce, EveryOperationHasExactlyOneSignature) {
    EXPECT_EQ(joined(nnemu::hal::signatureCoverageProblems()), "");
    for (const OperationInfo& row : kOperations) {
        const nnemu::hal::OperationSignature* signature = nnemu::hal::findSignature(row.type);
        ASSERT_NE(signature, nullptr) << row.name;
        EXPECT_EQ(signature->type, row.type) << row.name;
    }
}

TEST(OperationsDefinedOnce, EveryOperationButControlFlowHasExactlyOneReferenceKernel) {
    EXPECT_EQ(joined(nnemu::cpu::kernelCoverageProblems()), "");
    for (const OperationInfo& row : kOperations) {
        const bool interpreted = nnemu::hal::isControlFlow(row.type);
        EXPECT_EQ(nnemu::cpu::findKernel(row.type) != nullptr, !interpreted) << row.name;
    }
}

// The check itself: a missing entry, a second one, one outside the table, and levels.
TEST(OperationsDefinedOnce, CoverageCheckReportsMissingDuplicateAndUnknownEntries) {
    std::vector<OperationType> listed;
    for (const OperationInfo& row : kOperations) listed.push_back(row.type);
    const int64_t all = nnemu::hal::kFeatureLevel8;
    EXPECT_TRUE(nnemu::hal::coverageProblems(listed, all, nullptr, "entry").empty());

    auto missing = listed;
    missing.erase(missing.begin() + 3);  // CONV_2D
    EXPECT_EQ(joined(nnemu::hal::coverageProblems(missing, all, nullptr, "entry")), "CONV_2D has no entry\n");
    // Only what the level covers is needed.
    auto newest = listed;
    newest.pop_back();  // REVERSE, feature level 7
    EXPECT_TRUE(nnemu::hal::coverageProblems(newest, nnemu::hal::kFeatureLevel6, nullptr, "entry").empty());
    EXPECT_FALSE(nnemu::hal::coverageProblems(newest, nnemu::hal::kFeatureLevel7, nullptr, "entry").empty());

    auto twice = listed;
    twice.push_back(OperationType::ADD);
    EXPECT_EQ(joined(nnemu::hal::coverageProblems(twice, all, nullptr, "entry")), "ADD has more than one entry (2)\n");

    auto unknown = listed;
    unknown.push_back(OperationType::OEM_OPERATION);
    EXPECT_EQ(nnemu::hal::coverageProblems(unknown, all, nullptr, "entry").size(), 1u);

    auto withoutControlFlow = listed;
    std::erase_if(withoutControlFlow, nnemu::hal::isControlFlow);
    EXPECT_EQ(nnemu::hal::coverageProblems(withoutControlFlow, all, nullptr, "entry").size(), 2u);
    EXPECT_TRUE(nnemu::hal::coverageProblems(withoutControlFlow, all, nnemu::hal::isControlFlow, "entry").empty());
}

TEST(OperationsDefinedOnce, DocumentedOperationsTableMatchesTheTable) {
    const auto [file, rows] = nnemu::test::findDocumentedOperations(NNEMU_SOURCE_DIR);
    if (file.empty()) GTEST_SKIP() << "no operations table (\"| # | operation |\") in README.md or docs/*.md";
    for (const auto& [code, cells] : rows) {
        const OperationInfo* row = nnemu::hal::findOperation(code);
        ASSERT_NE(row, nullptr) << file << ": row " << code << " (" << cells[1] << ") is not an operation";
        EXPECT_EQ(cells[1], row->name) << file << ": row " << code;
    }
    // IF and WHILE have no kernel of their own and may go without a row; every other operation has one.
    for (const OperationInfo& row : kOperations) {
        if (nnemu::hal::isControlFlow(row.type)) continue;
        EXPECT_EQ(rows.count(static_cast<int>(row.type)), 1u) << file << " has no row for " << row.name;
    }
}

}  // namespace
