// Quantization coupling (nnapi-fl30plus.md §2.2, conformance README "QuantizationCouplingTest"):
// every single-operation V1_0-V1_2 conformance variant that uses TENSOR_QUANT8_ASYMM is re-run
// with those operands turned into TENSOR_QUANT8_ASYMM_SIGNED (zero point - 128, every value -
// 128, goldens too) and must give the converted goldens within the usual tolerances. The model
// goes straight to the reference executor.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "HalVariantRun.h"
#include "SignedCoupling.h"

namespace nnemu {
namespace {

namespace fs = std::filesystem;

struct Tally {
    size_t covered = 0;
    size_t passed = 0;
};

void printTally(const std::map<std::string, Tally>& tally) {
    size_t covered = 0, passed = 0;
    std::printf("quantization coupling, per operation (covered / passed):\n");
    for (const auto& [name, t] : tally) {
        std::printf("  %-28s %4zu / %4zu\n", name.c_str(), t.covered, t.passed);
        covered += t.covered;
        passed += t.passed;
    }
    std::printf("  %-28s %4zu / %4zu\n", "total", covered, passed);
}

TEST(QuantizationCoupling, SignedVariantsMatchTheConvertedGoldens) {
    const fs::path root = fs::path(NNEMU_SHARED_DIR) / "conformance";
    if (!fs::is_directory(root)) {
        GTEST_SKIP() << "no conformance vectors at " << root << " (set NNEMU_SHARED_DIR)";
    }
    const auto listed = coupling::coupledSignedVariants(root);
    ASSERT_TRUE(listed.isOk()) << listed.message();
    const std::vector<conformance::Variant>& variants = *listed;
    std::map<std::string, Tally> tally;
    std::vector<std::string> failures;
    for (const auto& v : variants) {
        Tally& t = tally[v.operations[0].typeName];
        ++t.covered;
        if (auto problem = halvariant::runVariant(v)) {
            failures.push_back(v.id + ": " + *problem);
        } else {
            ++t.passed;
        }
    }
    printTally(tally);
    EXPECT_FALSE(tally.empty()) << "no coupled variant found under " << root;
    for (size_t i = 0; i < failures.size() && i < 30; ++i) ADD_FAILURE() << failures[i];
    EXPECT_TRUE(failures.empty()) << failures.size()
                                  << " signed variants differ from their converted goldens";
}

}  // namespace
}  // namespace nnemu
