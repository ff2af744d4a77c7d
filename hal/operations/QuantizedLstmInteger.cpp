// Signature of QUANTIZED_LSTM (feature level 30): one step of TensorFlow Lite's fully integer
// LSTM cell, with optional CIFG, peephole, projection and layer normalization (operand
// positions in kQuantizedLstmLayout, nnemu/hal/RecurrentLayout.h).
// Inputs: 0 input [batch, inputSize] (Q8S); 1-4 input-to-gate weights [units, inputSize] and
// 5-8 recurrent-to-gate weights [units, outputSize] (Q8SYM; the input gate's optional);
// 9-11 peephole weights [units] (Q16SYM, optional); 12-15 gate biases [units] (I32); 16
// projection weights [outputSize, units] (Q8SYM, optional) and 17 projection bias
// [outputSize] (I32, optional); 18 previous output state [batch, outputSize] (Q8S); 19
// previous cell state [batch, units] (Q16SYM, scale a power of two); 20-23 layer normalization
// weights [units] (Q16SYM, optional); 24 cell clip and 25 projection clip (FLOAT32, 0 or
// omitted: none); 26-29 scales of the gates' matmul results (FLOAT32); 30 hidden state zero
// point (INT32) and 31 scale (FLOAT32).
// Outputs: 0 output state and 2 output [batch, outputSize] (quantized as input 18), 1 cell
// state [batch, units] (quantized as input 19).
#include <cmath>

#include "RecurrentChecks.h"
#include "SignatureList.h"

namespace nnemu::hal {
namespace {

using namespace recurrent;

constexpr const LstmLayout& kLayout = kQuantizedLstmLayout;
constexpr uint32_t kOutputState = 0;
constexpr uint32_t kCellState = 1;
constexpr uint32_t kOutput = 2;

// The tanh of the cell state runs in 16-bit fixed point with 15 + log2(scale) integer bits,
// of which it supports 0 to 6.
constexpr int kMinCellScaleLog2 = -15;
constexpr int kMaxCellScaleLog2 = -9;

bool typeAndRank(const OperationContext& context, uint32_t position, OperandType type, uint32_t rank) {
    NN_RET_CHECK(context.inputType(position) == type);
    return rankIsOrUnknown(context.input(position), rank);
}

bool sameQuantization(const OperandView& a, const OperandView& b) {
    return a.type == b.type && a.scale == b.scale && a.zeroPoint == b.zeroPoint;
}

bool validateTensors(const OperationContext& context) {
    NN_RET_CHECK(typeAndRank(context, kLayout.input, OperandType::TENSOR_QUANT8_ASYMM_SIGNED, 2));
    for (uint32_t gate = 0; gate < kLstmGates; ++gate) {
        NN_RET_CHECK(typeAndRank(context, kLayout.inputToGate[gate], OperandType::TENSOR_QUANT8_SYMM, 2));
        NN_RET_CHECK(typeAndRank(context, kLayout.recurrentToGate[gate], OperandType::TENSOR_QUANT8_SYMM, 2));
        NN_RET_CHECK(typeAndRank(context, kLayout.gateBias[gate], OperandType::TENSOR_INT32, 1));
        NN_RET_CHECK(typeAndRank(context, kLayout.layerNormWeights[gate], OperandType::TENSOR_QUANT16_SYMM, 1));
        if (kLayout.cellToGate[gate] != kNoOperand) {
            NN_RET_CHECK(typeAndRank(context, kLayout.cellToGate[gate], OperandType::TENSOR_QUANT16_SYMM, 1));
        }
    }
    NN_RET_CHECK(typeAndRank(context, kLayout.projectionWeights, OperandType::TENSOR_QUANT8_SYMM, 2));
    NN_RET_CHECK(typeAndRank(context, kLayout.projectionBias, OperandType::TENSOR_INT32, 1));
    NN_RET_CHECK(typeAndRank(context, kLayout.outputStateIn, OperandType::TENSOR_QUANT8_ASYMM_SIGNED, 2));
    NN_RET_CHECK(typeAndRank(context, kLayout.cellStateIn, OperandType::TENSOR_QUANT16_SYMM, 2));

    const OperandView& cellStateIn = context.input(kLayout.cellStateIn);
    for (uint32_t i = 0; i < context.numOutputs(); ++i) NN_RET_CHECK(rankIsOrUnknown(context.output(i), 2));

    // The cell state's scale must be 2^k (as a float32 rounds it), k in [-15, -9].
    NN_RET_CHECK(cellStateIn.scale > 0.0f);
    const double exponent = std::log2(static_cast<double>(cellStateIn.scale));
    NN_RET_CHECK(std::fabs(exponent - std::round(exponent)) < 1e-3);
    NN_RET_CHECK(std::round(exponent) >= kMinCellScaleLog2 && std::round(exponent) <= kMaxCellScaleLog2);
    return true;
}

bool validateScalarTypes(const OperationContext& context) {
    for (uint32_t i : {kQuantizedLstmCellClip, kQuantizedLstmProjClip, kQuantizedLstmHiddenScale}) {
        NN_RET_CHECK(inputTypeIs(context, i, {OperandType::FLOAT32}));
    }
    for (uint32_t gate = 0; gate < kLstmGates; ++gate) {
        NN_RET_CHECK(inputTypeIs(context, kQuantizedLstmIntermediateScale + gate, {OperandType::FLOAT32}));
    }
    NN_RET_CHECK(inputTypeIs(context, kQuantizedLstmHiddenZeroPoint, {OperandType::INT32}));
    return true;
}

// Execution stage: the scalars' values; the outputs keep the states' quantization.
bool checkValues(const OperationContext& context) {
    const OperandView& outputStateIn = context.input(kLayout.outputStateIn);
    NN_RET_CHECK(sameQuantization(context.output(kOutputState), outputStateIn));
    NN_RET_CHECK(sameQuantization(context.output(kOutput), outputStateIn));
    NN_RET_CHECK(sameQuantization(context.output(kCellState), context.input(kLayout.cellStateIn)));
    for (uint32_t clip : {kQuantizedLstmCellClip, kQuantizedLstmProjClip}) {
        if (context.hasValue(clip)) NN_RET_CHECK(context.scalar<float>(clip) >= 0.0f);
    }
    if (context.hasValue(kQuantizedLstmHiddenZeroPoint)) {
        const int32_t zeroPoint = context.scalar<int32_t>(kQuantizedLstmHiddenZeroPoint);
        NN_RET_CHECK(zeroPoint >= -128 && zeroPoint <= 127);
    }
    if (context.hasValue(kQuantizedLstmHiddenScale)) {
        NN_RET_CHECK(context.scalar<float>(kQuantizedLstmHiddenScale) > 0.0f);
    }
    return true;
}

bool positiveScalar(const OperationContext& context, uint32_t position) {
    NN_RET_CHECK(context.hasValue(position));
    const float value = context.scalar<float>(position);
    return std::isfinite(value) && value > 0.0f;
}

}  // namespace

bool signatures::validateQuantizedLstmInteger(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {32}, 3));
    return validateTensors(context) && validateScalarTypes(context);
}

bool signatures::prepareQuantizedLstmInteger(OperationContext& context) {
    const OperandView& input = context.input(kLayout.input);
    NN_RET_CHECK(present(context, kLayout.input) && input.rank() == 2);
    const uint32_t batch = input.dim(0);
    LstmSizes sizes;
    NN_RET_CHECK(prepareLstmCell(context, kLayout, batch, input.dim(1), 0, &sizes));
    NN_RET_CHECK(checkValues(context));
    for (uint32_t gate = 0; gate < kLstmGates; ++gate) {
        if (gate == kInputGate && sizes.cifg) continue;
        NN_RET_CHECK(positiveScalar(context, kQuantizedLstmIntermediateScale + gate));
    }
    NN_RET_CHECK(positiveScalar(context, kQuantizedLstmHiddenScale));
    NN_RET_CHECK(context.hasValue(kQuantizedLstmHiddenZeroPoint));
    context.output(kOutputState).dims = {batch, sizes.outputSize};
    context.output(kCellState).dims = {batch, sizes.units};
    context.output(kOutput).dims = {batch, sizes.outputSize};
    return true;
}

}  // namespace nnemu::hal
