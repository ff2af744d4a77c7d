// The V1_3 conformance vectors of the feature level 30 operations and operation changes
// (nnapi-fl30plus.md §2.1, §2.3), run on the reference executor directly, below the runtime
// (the V1_3 runner checks them through the C API).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "HalVariantRun.h"
#include "Variant.h"

namespace nnemu {
namespace {

namespace fs = std::filesystem;

// Spec files whose every variant is expected to succeed.
const char* const kSpecs[] = {
        "abs_int32", "add_int32", "sub_int32", "mul_int32", "div_int32", "cast_identity", "elu",
        "embedding_lookup_v1_3", "fill", "hard_swish", "l2_normalization_zeros", "rank",
        "resize_bilinear_v1_3", "resize_nearest_neighbor_v1_3"};

TEST(Fl30OperationVectors, PassOnTheReferenceExecutor) {
    const fs::path root = fs::path(NNEMU_SHARED_DIR) / "conformance-fl30" / "V1_3";
    if (!fs::is_directory(root)) GTEST_SKIP() << "no V1_3 vectors at " << root;
    std::vector<std::string> failures;
    for (const char* spec : kSpecs) {
        const fs::path file = root / (std::string(spec) + ".json");
        if (!fs::exists(file)) continue;
        const conformance::SpecFile loaded = conformance::loadSpecFile(file, [](const std::string&) { return true; });
        size_t passed = 0;
        for (const auto& entry : loaded.entries) {
            ASSERT_TRUE(entry.variant.has_value()) << entry.broken->id << ": " << entry.broken->error;
            if (auto problem = halvariant::runVariant(*entry.variant)) {
                failures.push_back(entry.variant->id + ": " + *problem);
            } else {
                ++passed;
            }
        }
        std::printf("  %-30s %3zu / %3zu passed\n", spec, passed, loaded.entries.size());
    }
    for (size_t i = 0; i < failures.size() && i < 40; ++i) ADD_FAILURE() << failures[i];
    EXPECT_TRUE(failures.empty()) << failures.size() << " V1_3 variants failed";
}

}  // namespace
}  // namespace nnemu
