// Quantization coupling (nnapi-fl30plus.md §2.2, conformance README "QuantizationCouplingTest"):
// every single-operation V1_0-V1_2 conformance variant that uses TENSOR_QUANT8_ASYMM is re-run
// with those operands turned into TENSOR_QUANT8_ASYMM_SIGNED (zero point - 128, every value -
// 128, goldens too) and must give the converted goldens within the usual tolerances. The model
// goes straight to the reference executor: the FL29 runtime still refuses the signed type.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "Comparison.h"
#include "HalVariantRun.h"
#include "Variant.h"
#include "nnemu/cpu/Executor.h"
#include "nnemu/hal/OperandTypes.h"
#include "nnemu/hal/Validation.h"

namespace nnemu {
namespace {

namespace fs = std::filesystem;
using conformance::ElementKind;
using halvariant::runVariant;
using conformance::Lifetime;
using conformance::Variant;

constexpr int32_t kQuant8Asymm = static_cast<int32_t>(hal::OperandType::TENSOR_QUANT8_ASYMM);
constexpr int32_t kQuant8AsymmSigned = static_cast<int32_t>(hal::OperandType::TENSOR_QUANT8_ASYMM_SIGNED);

// The §2.2 operations, less those the coupling leaves out: PAD_V2 (its pad value is an INT32
// scalar the conversion would have to shift) and CAST (identity only for the signed type).
const std::set<std::string>& coupledOperations() {
    static const std::set<std::string> names = {
            "ADD", "AVERAGE_POOL_2D", "CONCATENATION", "CONV_2D", "DEPTHWISE_CONV_2D",
            "DEPTH_TO_SPACE", "DEQUANTIZE", "EMBEDDING_LOOKUP", "FULLY_CONNECTED", "L2_NORMALIZATION",
            "LOGISTIC", "MAX_POOL_2D", "MUL", "RELU", "RELU1", "RELU6", "RESHAPE", "RESIZE_BILINEAR",
            "SOFTMAX", "SPACE_TO_DEPTH", "TANH", "BATCH_TO_SPACE_ND", "MEAN", "PAD",
            "SPACE_TO_BATCH_ND", "SQUEEZE", "STRIDED_SLICE", "SUB", "TRANSPOSE", "ARGMAX", "ARGMIN",
            "AXIS_ALIGNED_BBOX_TRANSFORM", "BOX_WITH_NMS_LIMIT", "CHANNEL_SHUFFLE", "EQUAL",
            "EXPAND_DIMS", "GATHER", "GENERATE_PROPOSALS", "GREATER", "GREATER_EQUAL",
            "GROUPED_CONV_2D", "HEATMAP_MAX_KEYPOINT", "LESS", "LESS_EQUAL", "MAXIMUM", "MINIMUM",
            "NOT_EQUAL", "PRELU", "QUANTIZE", "REDUCE_MAX", "REDUCE_MIN", "ROI_ALIGN", "ROI_POOLING",
            "SELECT", "SLICE", "SPLIT", "TILE", "TOPK_V2", "TRANSPOSE_CONV_2D",
            "RESIZE_NEAREST_NEIGHBOR"};
    return names;
}

bool isCoupled(const Variant& v) {
    if (v.operations.size() != 1 || coupledOperations().count(v.operations[0].typeName) == 0) {
        return false;
    }
    bool usesQuant8 = false;
    for (const auto& operand : v.operands) {
        if (operand.lifetime == Lifetime::Temporary) return false;
        usesQuant8 = usesQuant8 || operand.typeCode == kQuant8Asymm;
    }
    return usesQuant8;
}

// uint8 q -> int8 q - 128 is a flip of the top bit.
void shiftBytes(std::vector<uint8_t>& bytes) {
    for (uint8_t& b : bytes) b ^= 0x80;
}

uint64_t elementCount(const std::vector<uint32_t>& dims) {
    uint64_t count = 1;
    for (uint32_t d : dims) count *= d;
    return count;
}

// Turns every TENSOR_QUANT8_ASYMM operand, constant, example value and golden into its signed
// form. A zero-sized golden keeps no element to compare (its placeholder is not output data).
void convertToSigned(Variant& v) {
    std::vector<bool> converted(v.operands.size(), false);
    for (size_t i = 0; i < v.operands.size(); ++i) {
        auto& operand = v.operands[i];
        if (operand.typeCode != kQuant8Asymm) continue;
        converted[i] = true;
        operand.typeCode = kQuant8AsymmSigned;
        operand.typeName = "TENSOR_QUANT8_ASYMM_SIGNED";
        operand.kind = ElementKind::Quant8Symm;  // stored as int8_t
        operand.zeroPoint -= 128;
        shiftBytes(operand.value);
    }
    for (auto& example : v.examples) {
        for (size_t p = 0; p < v.inputs.size(); ++p) {
            if (converted[v.inputs[p]]) shiftBytes(example.inputs[p].bytes);
        }
        for (size_t p = 0; p < v.outputs.size(); ++p) {
            auto& golden = example.outputs[p];
            if (converted[v.outputs[p]]) shiftBytes(golden.bytes);
            golden.count = std::min<size_t>(golden.count, elementCount(golden.dims));
        }
    }
}

struct Tally {
    size_t covered = 0;
    size_t passed = 0;
};

std::vector<fs::path> specFiles(const fs::path& root) {
    std::vector<fs::path> files;
    for (const char* version : {"V1_0", "V1_1", "V1_2"}) {
        if (!fs::is_directory(root / version)) continue;
        for (const auto& entry : fs::directory_iterator(root / version)) {
            if (entry.path().extension() == ".json") files.push_back(entry.path());
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

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
    std::map<std::string, Tally> tally;
    std::vector<std::string> failures;
    for (const auto& file : specFiles(root)) {
        const conformance::SpecFile spec =
                conformance::loadSpecFile(file, [](const std::string&) { return true; });
        for (const auto& entry : spec.entries) {
            ASSERT_TRUE(entry.variant.has_value()) << entry.broken->id << ": " << entry.broken->error;
            Variant v = *entry.variant;
            if (!isCoupled(v)) continue;
            convertToSigned(v);
            Tally& t = tally[v.operations[0].typeName];
            ++t.covered;
            if (auto problem = runVariant(v)) {
                failures.push_back(v.id + ": " + *problem);
            } else {
                ++t.passed;
            }
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
