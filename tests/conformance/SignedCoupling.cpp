#include "SignedCoupling.h"

#include <algorithm>
#include <set>

#include "nnemu/hal/OperandTypes.h"

namespace nnemu::coupling {
namespace {

namespace fs = std::filesystem;
using conformance::ElementKind;
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

}  // namespace

Result<std::vector<Variant>> coupledSignedVariants(const fs::path& root) {
    std::vector<Variant> variants;
    for (const auto& file : specFiles(root)) {
        const conformance::SpecFile spec =
                conformance::loadSpecFile(file, [](const std::string&) { return true; });
        for (const auto& entry : spec.entries) {
            if (!entry.variant.has_value()) return badData(entry.broken->id + ": " + entry.broken->error);
            Variant v = *entry.variant;
            if (!isCoupled(v)) continue;
            convertToSigned(v);
            variants.push_back(std::move(v));
        }
    }
    return variants;
}

}  // namespace nnemu::coupling
