#include "Lowering.h"

#include <cassert>
#include <cmath>
#include <limits>

#include "lowering/LoweringList.h"
#include "nnemu/hal/OperationCoverage.h"

namespace nnemu::synap {
namespace {

// Every lowering rule, one per operation the NPU runs, grouped by the lowering/<Family>.cpp that
// defines its functions (declared in lowering/LoweringList.h). Explicit, so that what is
// registered does not depend on how the library is linked.
constexpr LoweringRule kRules[] = {
    // Activation.cpp
    {hal::OperationType::RELU, lowering::supportsClamp, lowering::lowerRelu},
    {hal::OperationType::RELU1, lowering::supportsClamp, lowering::lowerRelu1},
    {hal::OperationType::RELU6, lowering::supportsClamp, lowering::lowerRelu6},
    {hal::OperationType::LOGISTIC, lowering::supportsLogistic, lowering::lowerLogistic},
    {hal::OperationType::TANH, lowering::supportsTanh, lowering::lowerTanh},
    {hal::OperationType::SOFTMAX, lowering::supportsSoftmax, lowering::lowerSoftmax},
    {hal::OperationType::PRELU, lowering::supportsPrelu, lowering::lowerPrelu},
    {hal::OperationType::HARD_SWISH, lowering::supportsHardSwish, lowering::lowerHardSwish},

    // ArgMinMax.cpp
    {hal::OperationType::ARGMAX, lowering::supportsArgMinMax, lowering::lowerArgMax},
    {hal::OperationType::ARGMIN, lowering::supportsArgMinMax, lowering::lowerArgMin},

    // Convolution.cpp
    {hal::OperationType::CONV_2D, lowering::supportsConvolution, lowering::lowerConvolution},
    {hal::OperationType::DEPTHWISE_CONV_2D, lowering::supportsDepthwise, lowering::lowerDepthwise},
    {hal::OperationType::FULLY_CONNECTED, lowering::supportsFullyConnected, lowering::lowerFullyConnected},

    // Elementwise.cpp
    {hal::OperationType::ADD, lowering::supportsAddition, lowering::lowerAdd},
    {hal::OperationType::SUB, lowering::supportsAddition, lowering::lowerSubtract},
    {hal::OperationType::MUL, lowering::supportsMultiplication, lowering::lowerMultiply},
    {hal::OperationType::MAXIMUM, lowering::supportsMaxMin, lowering::lowerMaximum},
    {hal::OperationType::MINIMUM, lowering::supportsMaxMin, lowering::lowerMinimum},

    // Pooling.cpp
    {hal::OperationType::AVERAGE_POOL_2D, lowering::supportsPool, lowering::lowerAveragePool},
    {hal::OperationType::MAX_POOL_2D, lowering::supportsPool, lowering::lowerMaxPool},
    {hal::OperationType::MEAN, lowering::supportsMean, lowering::lowerMean},

    // Shape.cpp
    {hal::OperationType::RESHAPE, lowering::supportsReshape, lowering::lowerReshape},
    {hal::OperationType::CONCATENATION, lowering::supportsConcatenation, lowering::lowerConcatenation},
    {hal::OperationType::PAD, lowering::supportsPad, lowering::lowerPad},
    {hal::OperationType::RESIZE_BILINEAR, lowering::supportsResizeBilinear, lowering::lowerResizeBilinear},
    {hal::OperationType::QUANTIZE, lowering::supportsQuantize, lowering::lowerConvert},
    {hal::OperationType::DEQUANTIZE, lowering::supportsDequantize, lowering::lowerConvert},
    {hal::OperationType::CHANNEL_SHUFFLE, lowering::supportsChannelShuffle, lowering::lowerChannelShuffle},

    // TransposeConvolution.cpp
    {hal::OperationType::TRANSPOSE_CONV_2D, lowering::supportsTransposeConvolution,
     lowering::lowerTransposeConvolution},
};

hal::OperationIndex<LoweringRule> buildIndex() {
    assert(loweringCoverageProblems().empty() && "driver/synap/compiler/Lowering.cpp: a rule listed twice");
    return hal::OperationIndex<LoweringRule>(kRules);
}

// The NPU claims the operations it computes exactly: a rule is optional for every one.
bool optional(hal::OperationType) { return true; }

}  // namespace

std::vector<hal::OperationType> listedLowerings() { return hal::operationsOf<LoweringRule>(kRules); }

std::vector<std::string> loweringCoverageProblems() {
    return hal::coverageProblems(listedLowerings(), hal::kFeatureLevel8, optional, "lowering rule");
}

const LoweringRule* findLowering(hal::OperationType type) {
    static const hal::OperationIndex<LoweringRule> index = buildIndex();
    return index.find(type);
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
