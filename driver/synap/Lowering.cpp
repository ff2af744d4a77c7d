#include "Lowering.h"

#include <array>
#include <cassert>
#include <cmath>
#include <limits>

#include "lowering/LoweringFamilies.h"
#include "nnemu/hal/OperationCoverage.h"

namespace nnemu::synap {
namespace {

// Every lowering rule, one family (lowering/<Family>.cpp) per line. Explicit, so that what is
// registered does not depend on how the library is linked.
constexpr std::span<const LoweringRule> (*kLoweringFamilies[])() = {
        activationLowerings,
        argMinMaxLowerings,
        convolutionLowerings,
        elementwiseLowerings,
        poolingLowerings,
        shapeLowerings,
        transposeConvolutionLowerings,
};

using RuleTable = std::array<const LoweringRule*, hal::kNumberOfOperationTypes>;

RuleTable buildTable() {
    assert(loweringCoverageProblems().empty() && "driver/synap/Lowering.cpp: a rule listed twice");
    RuleTable table{};
    for (auto family : kLoweringFamilies) {
        for (const LoweringRule& rule : family()) {
            const auto code = static_cast<int32_t>(rule.type);
            if (code >= 0 && code < hal::kNumberOfOperationTypes && table[code] == nullptr) table[code] = &rule;
        }
    }
    return table;
}

// The NPU claims the operations it computes exactly: a rule is optional for every one.
bool optional(hal::OperationType) { return true; }

}  // namespace

std::vector<hal::OperationType> listedLowerings() {
    std::vector<hal::OperationType> listed;
    for (auto family : kLoweringFamilies) {
        for (const LoweringRule& rule : family()) listed.push_back(rule.type);
    }
    return listed;
}

std::vector<std::string> loweringCoverageProblems() {
    return hal::coverageProblems(listedLowerings(), hal::kFeatureLevel8, optional, "lowering rule");
}

const LoweringRule* findLowering(hal::OperationType type) {
    static const RuleTable table = buildTable();
    const auto code = static_cast<int32_t>(type);
    if (code < 0 || code >= hal::kNumberOfOperationTypes) return nullptr;
    return table[code];
}

bool isFloatOrQuant8(hal::OperandType type) {
    return type == hal::OperandType::TENSOR_FLOAT32 || type == hal::OperandType::TENSOR_QUANT8_ASYMM;
}

bool isQuant8(hal::OperandType type) {
    return type == hal::OperandType::TENSOR_QUANT8_ASYMM || type == hal::OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
}

bool isFloatOrAnyQuant8(hal::OperandType type) { return type == hal::OperandType::TENSOR_FLOAT32 || isQuant8(type); }

bool isNhwc(const hal::OperationContext& context, uint32_t layoutInput) {
    if (layoutInput >= context.numInputs()) return true;
    return context.hasValue(layoutInput) && !context.scalar<bool>(layoutInput);
}

bool fuseCodeValid(const hal::OperationContext& context, uint32_t input) {
    if (input >= context.numInputs() || !context.hasValue(input)) return false;
    const auto fuse = context.scalar<int32_t>(input);
    return fuse >= 0 && fuse <= 3;
}

void activationBounds(int32_t fuseCode, float* low, float* high) {
    *low = -std::numeric_limits<float>::infinity();
    *high = std::numeric_limits<float>::infinity();
    if (fuseCode == 1) *low = 0.0f;
    if (fuseCode == 2) { *low = -1.0f; *high = 1.0f; }
    if (fuseCode == 3) { *low = 0.0f; *high = 6.0f; }
}

const char* activationName(int32_t fuseCode) {
    switch (fuseCode) {
        case 1: return "Relu";
        case 2: return "Relu1";
        case 3: return "Relu6";
        default: return "";
    }
}

bool ratioWithin(double numerator, double denominator, double low, double high) {
    const double ratio = numerator / denominator;
    return ratio >= low && ratio < high;
}

bool requantizationFactorSupported(float inputScale, float filterScale, float outputScale) {
    const float coreFactor = inputScale * filterScale / outputScale;
    return coreFactor < 256.0f && coreFactor >= 0x1p-32f &&
           ratioWithin(double{inputScale} * filterScale, outputScale, std::ldexp(1.0, -32), 256.0);
}

uint32_t asFloat(ProgramBuilder& builder, uint32_t tensor) {
    if (builder.tensor(tensor).type == npu::DataType::FLOAT32) return tensor;
    const uint32_t copy = builder.intermediate(npu::DataType::FLOAT32, builder.tensor(tensor).dims);
    npu::LayerParamsUnion params;
    params.Set(npu::ConvertT{});
    builder.addLayer("Dequantize", std::move(params), {tensor}, {copy});
    return copy;
}

void convertInto(ProgramBuilder& builder, uint32_t floatTensor, uint32_t tensor) {
    npu::LayerParamsUnion params;
    params.Set(npu::ConvertT{});
    builder.addLayer("Quantize", std::move(params), {floatTensor}, {tensor});
}

void flipSign(ProgramBuilder& builder, uint32_t from, uint32_t to) {
    npu::LayerParamsUnion params;
    params.Set(npu::FlipSignT{});
    builder.addLayer("ConvertSign", std::move(params), {from}, {to});
}

uint32_t floatScalar(ProgramBuilder& builder, float value) {
    return builder.constant(npu::DataType::FLOAT32, {1}, &value, sizeof value);
}

}  // namespace nnemu::synap
