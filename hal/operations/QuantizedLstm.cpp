// Signature of QUANTIZED_16BIT_LSTM: one LSTM step with 8-bit weights and activations and a
// 16-bit cell state, no peephole, projection or CIFG.
// Inputs: 0 input [batch, inputSize] (Q8, scale 1/128, zero point 128); 1-4 input-to-{input,
// forget, cell, output} weights [outputSize, inputSize] and 5-8 recurrent-to-{...} weights
// [outputSize, outputSize] (Q8, one scale and zero point for all eight); 9-12 gate biases
// [outputSize] (I32, scale = weights scale * input scale, zero point 0); 13 previous cell state
// [batch, outputSize] (Q16S, scale 2^-11, zero point 0); 14 previous output [batch, outputSize]
// (Q8 as the input).
// Outputs: 0 cell state (as input 13), 1 output (as input 14).
#include <cmath>

#include "RecurrentChecks.h"
#include "SignatureList.h"

namespace nnemu::hal {
namespace {

using recurrent::dimsAre;

using namespace quantized16BitLstm;  // operand positions (RecurrentLayout.h)

constexpr float kActivationScale = 1.0f / 128.0f;
constexpr float kCellStateScale = 1.0f / 2048.0f;

bool hasQuantization(const OperandView& operand, OperandType type, float scale, int32_t zeroPoint) {
    return operand.type == type && operand.scale == scale && operand.zeroPoint == zeroPoint;
}

}  // namespace

bool signatures::validateQuantizedLstm(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {15}, 2));
    for (uint32_t i = kFirstWeights; i < kFirstBias; ++i) {
        NN_RET_CHECK(context.inputType(i) == OperandType::TENSOR_QUANT8_ASYMM);
        NN_RET_CHECK(rankIsOrUnknown(context.input(i), 2));
    }
    for (uint32_t i = kFirstBias; i < kPrevCellState; ++i) {
        const OperandView& bias = context.input(i);
        NN_RET_CHECK(bias.type == OperandType::TENSOR_INT32 && bias.zeroPoint == 0);
        NN_RET_CHECK(rankIsOrUnknown(bias, 1));
    }
    for (const OperandView* activation : {&context.input(kInput), &context.input(kPrevOutput), &context.output(1)}) {
        NN_RET_CHECK(hasQuantization(*activation, OperandType::TENSOR_QUANT8_ASYMM, kActivationScale,
                                     kActivationZeroPoint));
        NN_RET_CHECK(rankIsOrUnknown(*activation, 2));
    }
    for (const OperandView* cellState : {&context.input(kPrevCellState), &context.output(0)}) {
        NN_RET_CHECK(hasQuantization(*cellState, OperandType::TENSOR_QUANT16_SYMM, kCellStateScale, 0));
        NN_RET_CHECK(rankIsOrUnknown(*cellState, 2));
    }
    return true;
}

bool signatures::prepareQuantizedLstm(OperationContext& context) {
    // Every weight shares the first one's quantization; the biases' scale is weights x input.
    const OperandView& weights = context.input(kFirstWeights);
    for (uint32_t i = kFirstWeights; i < kFirstBias; ++i) {
        NN_RET_CHECK(hasQuantization(context.input(i), OperandType::TENSOR_QUANT8_ASYMM, weights.scale, weights.zeroPoint));
    }
    const float biasScale = weights.scale * kActivationScale;
    for (uint32_t i = kFirstBias; i < kPrevCellState; ++i) {
        NN_RET_CHECK(std::fabs(context.input(i).scale - biasScale) <= 1e-6f * biasScale);
    }
    const OperandView& input = context.input(kInput);
    NN_RET_CHECK(input.rank() == 2);
    const uint32_t batch = input.dim(0);
    const uint32_t inputSize = input.dim(1);
    NN_RET_CHECK(context.input(kFirstWeights).rank() == 2);
    const uint32_t outputSize = context.input(kFirstWeights).dim(0);
    for (uint32_t gate = 0; gate < kLstmGates; ++gate) {
        NN_RET_CHECK(dimsAre(context.input(kFirstWeights + gate), {outputSize, inputSize}));
        NN_RET_CHECK(dimsAre(context.input(kFirstRecurrentWeights + gate), {outputSize, outputSize}));
        NN_RET_CHECK(dimsAre(context.input(kFirstBias + gate), {outputSize}));
    }
    NN_RET_CHECK(dimsAre(context.input(kPrevCellState), {batch, outputSize}));
    NN_RET_CHECK(dimsAre(context.input(kPrevOutput), {batch, outputSize}));
    context.output(0).dims = {batch, outputSize};
    context.output(1).dims = {batch, outputSize};
    return true;
}

}  // namespace nnemu::hal
