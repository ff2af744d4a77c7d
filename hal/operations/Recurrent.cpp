// Signatures of the single-step recurrent operations: LSTM, RNN, SVDF.
#include "nnemu/hal/Operations.h"

namespace nnemu::hal {
namespace {

bool isFloatTensor(OperandType type) {
    return type == OperandType::TENSOR_FLOAT32 || type == OperandType::TENSOR_FLOAT16;
}

// The scalar float type that goes with a float tensor type.
OperandType floatScalarFor(OperandType tensorType) {
    return tensorType == OperandType::TENSOR_FLOAT16 ? OperandType::FLOAT16 : OperandType::FLOAT32;
}

// An optional operand is absent when it is omitted; an empty tensor counts as absent too.
bool isAbsent(const OperandView& operand) {
    return operand.omitted || (!operand.dims.empty() && operand.elements() == 0);
}

bool dimsAre(const OperandView& operand, std::initializer_list<uint32_t> dims) {
    return operand.dims == std::vector<uint32_t>(dims);
}

// ---- LSTM
// Inputs: 0 input [batch, inputSize]; 1-4 input-to-{input, forget, cell, output} weights
// [units, inputSize]; 5-8 recurrent-to-{...} weights [units, outputSize]; 9-11 cell-to-{input,
// forget, output} peephole weights [units]; 12-15 {input, forget, cell, output} gate biases
// [units]; 16 projection weights [outputSize, units]; 17 projection bias [outputSize];
// 18 output state [batch, outputSize]; 19 cell state [batch, units]; 20 i32 activation;
// 21 cell clip; 22 projection clip; (API 29) 23-26 {input, forget, cell, output} layer
// normalization weights [units].
// Outputs: 0 scratch [batch, units * (cifg ? 3 : 4)], 1 output state, 2 cell state, 3 output.

enum LstmInput : uint32_t {
    kInput = 0,
    kInputToInput = 1, kInputToForget, kInputToCell, kInputToOutput,
    kRecurrentToInput = 5, kRecurrentToForget, kRecurrentToCell, kRecurrentToOutput,
    kCellToInput = 9, kCellToForget, kCellToOutput,
    kInputGateBias = 12, kForgetGateBias, kCellGateBias, kOutputGateBias,
    kProjectionWeights = 16, kProjectionBias = 17,
    kOutputStateIn = 18, kCellStateIn = 19,
    kActivation = 20, kCellClip = 21, kProjClip = 22,
    kInputLayerNorm = 23, kForgetLayerNorm, kCellLayerNorm, kOutputLayerNorm,
};

bool validLstmActivation(int32_t activation) {
    // none, relu, relu1, relu6, tanh, sigmoid
    return activation == 0 || activation == 1 || activation == 2 || activation == 3 ||
           activation == 4 || activation == 6;
}

bool validateLstm(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {23, 27}, 4));
    const OperandType type = context.inputType(kInput);
    NN_RET_CHECK(isFloatTensor(type));
    for (uint32_t i = 0; i < context.numInputs(); ++i) {
        if (i == kActivation) {
            NN_RET_CHECK(context.inputType(i) == OperandType::INT32);
        } else if (i == kCellClip || i == kProjClip) {
            NN_RET_CHECK(context.inputType(i) == floatScalarFor(type));
        } else {
            NN_RET_CHECK(context.inputType(i) == type);
        }
    }
    for (uint32_t i = 0; i < context.numOutputs(); ++i) NN_RET_CHECK(context.output(i).type == type);
    for (uint32_t i : {kInput, kInputToForget, kInputToCell, kInputToOutput, kRecurrentToForget,
                       kRecurrentToCell, kRecurrentToOutput, kOutputStateIn, kCellStateIn}) {
        NN_RET_CHECK(rankIsOrUnknown(context.input(i), 2));
    }
    for (uint32_t i : {kForgetGateBias, kCellGateBias, kOutputGateBias}) {
        NN_RET_CHECK(rankIsOrUnknown(context.input(i), 1));
    }
    if (context.hasValue(kActivation)) {
        NN_RET_CHECK(validLstmActivation(context.scalar<int32_t>(kActivation)));
    }
    if (context.hasValue(kCellClip)) NN_RET_CHECK(context.scalar<float>(kCellClip) >= 0.0f);
    if (context.hasValue(kProjClip)) NN_RET_CHECK(context.scalar<float>(kProjClip) >= 0.0f);
    return true;
}

bool prepareLstm(OperationContext& context) {
    const auto& in = [&](uint32_t i) -> const OperandView& { return context.input(i); };
    const auto present = [&](uint32_t i) { return !isAbsent(context.input(i)); };

    NN_RET_CHECK(in(kInput).rank() == 2);
    const uint32_t batch = in(kInput).dim(0);
    const uint32_t inputSize = in(kInput).dim(1);
    NN_RET_CHECK(in(kInputToOutput).rank() == 2);
    const uint32_t units = in(kInputToOutput).dim(0);
    NN_RET_CHECK(in(kRecurrentToOutput).rank() == 2);
    const uint32_t outputSize = in(kRecurrentToOutput).dim(1);

    NN_RET_CHECK(validLstmActivation(context.scalar<int32_t>(kActivation)));
    NN_RET_CHECK(context.scalar<float>(kCellClip) >= 0.0f);
    NN_RET_CHECK(context.scalar<float>(kProjClip) >= 0.0f);

    for (uint32_t i : {kInputToForget, kInputToCell, kInputToOutput}) {
        NN_RET_CHECK(dimsAre(in(i), {units, inputSize}));
    }
    for (uint32_t i : {kRecurrentToForget, kRecurrentToCell, kRecurrentToOutput}) {
        NN_RET_CHECK(dimsAre(in(i), {units, outputSize}));
    }
    for (uint32_t i : {kForgetGateBias, kCellGateBias, kOutputGateBias}) {
        NN_RET_CHECK(dimsAre(in(i), {units}));
    }

    // CIFG (coupled input and forget gates): no input gate weights, no input gate bias.
    const bool cifg = !present(kInputToInput);
    NN_RET_CHECK(present(kRecurrentToInput) == !cifg);
    NN_RET_CHECK(present(kInputGateBias) == !cifg);
    if (!cifg) {
        NN_RET_CHECK(dimsAre(in(kInputToInput), {units, inputSize}));
        NN_RET_CHECK(dimsAre(in(kRecurrentToInput), {units, outputSize}));
        NN_RET_CHECK(dimsAre(in(kInputGateBias), {units}));
    }

    // Peephole: all of the used cell-to-gate weights or none.
    const bool peephole = present(kCellToForget);
    NN_RET_CHECK(present(kCellToOutput) == peephole);
    if (cifg) {
        NN_RET_CHECK(!present(kCellToInput));
    } else {
        NN_RET_CHECK(present(kCellToInput) == peephole);
    }
    if (peephole) {
        NN_RET_CHECK(dimsAre(in(kCellToForget), {units}));
        NN_RET_CHECK(dimsAre(in(kCellToOutput), {units}));
        if (!cifg) NN_RET_CHECK(dimsAre(in(kCellToInput), {units}));
    }

    // Projection: the bias needs the weights.
    const bool projection = present(kProjectionWeights);
    if (projection) {
        NN_RET_CHECK(dimsAre(in(kProjectionWeights), {outputSize, units}));
    } else {
        NN_RET_CHECK(outputSize == units);
    }
    if (present(kProjectionBias)) {
        NN_RET_CHECK(projection);
        NN_RET_CHECK(dimsAre(in(kProjectionBias), {outputSize}));
    }

    // Layer normalization (27 inputs): all used weights or none.
    if (context.numInputs() == 27) {
        const bool layerNorm = present(kForgetLayerNorm);
        NN_RET_CHECK(present(kCellLayerNorm) == layerNorm);
        NN_RET_CHECK(present(kOutputLayerNorm) == layerNorm);
        if (cifg) {
            NN_RET_CHECK(!present(kInputLayerNorm));
        } else {
            NN_RET_CHECK(present(kInputLayerNorm) == layerNorm);
        }
        if (layerNorm) {
            for (uint32_t i : {kForgetLayerNorm, kCellLayerNorm, kOutputLayerNorm}) {
                NN_RET_CHECK(dimsAre(in(i), {units}));
            }
            if (!cifg) NN_RET_CHECK(dimsAre(in(kInputLayerNorm), {units}));
        }
    }

    NN_RET_CHECK(dimsAre(in(kOutputStateIn), {batch, outputSize}));
    NN_RET_CHECK(dimsAre(in(kCellStateIn), {batch, units}));

    context.output(0).dims = {batch, units * (cifg ? 3u : 4u)};
    context.output(1).dims = {batch, outputSize};
    context.output(2).dims = {batch, units};
    context.output(3).dims = {batch, outputSize};
    return true;
}

// ---- RNN
// Inputs: 0 input [batch, inputSize], 1 weights [units, inputSize], 2 recurrent weights
// [units, units], 3 bias [units], 4 hidden state [batch, units], 5 i32 fuse.
// Outputs: 0 hidden state out [batch, units], 1 output [batch, units].

bool validateRnn(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {6}, 2));
    const OperandType type = context.inputType(0);
    NN_RET_CHECK(isFloatTensor(type));
    for (uint32_t i = 1; i < 5; ++i) NN_RET_CHECK(context.inputType(i) == type);
    NN_RET_CHECK(inputTypeIs(context, 5, {OperandType::INT32}));
    for (uint32_t i = 0; i < 2; ++i) NN_RET_CHECK(context.output(i).type == type);
    for (uint32_t i : {0u, 1u, 2u, 4u}) NN_RET_CHECK(rankIsOrUnknown(context.input(i), 2));
    NN_RET_CHECK(rankIsOrUnknown(context.input(3), 1));
    if (context.hasValue(5)) {
        const int32_t fuse = context.scalar<int32_t>(5);
        NN_RET_CHECK(fuse >= 0 && fuse <= 3);
    }
    return true;
}

bool prepareRnn(OperationContext& context) {
    const OperandView& input = context.input(0);
    NN_RET_CHECK(input.rank() == 2);
    NN_RET_CHECK(context.input(1).rank() == 2);
    const uint32_t batch = input.dim(0);
    const uint32_t inputSize = input.dim(1);
    const uint32_t units = context.input(1).dim(0);
    NN_RET_CHECK(dimsAre(context.input(1), {units, inputSize}));
    NN_RET_CHECK(dimsAre(context.input(2), {units, units}));
    NN_RET_CHECK(dimsAre(context.input(3), {units}));
    NN_RET_CHECK(dimsAre(context.input(4), {batch, units}));
    const int32_t fuse = context.scalar<int32_t>(5);
    NN_RET_CHECK(fuse >= 0 && fuse <= 3);
    context.output(0).dims = {batch, units};
    context.output(1).dims = {batch, units};
    return true;
}

// ---- SVDF
// Inputs: 0 input [batch, inputSize], 1 feature weights [filters, inputSize], 2 time weights
// [filters, memorySize], 3 bias [units] (may be omitted), 4 state [batch, memorySize * filters],
// 5 i32 rank (filters = units * rank), 6 i32 fuse.
// Outputs: 0 state out [batch, memorySize * filters], 1 output [batch, units].

bool validateSvdf(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {7}, 2));
    const OperandType type = context.inputType(0);
    NN_RET_CHECK(isFloatTensor(type));
    for (uint32_t i = 1; i < 5; ++i) NN_RET_CHECK(context.inputType(i) == type);
    NN_RET_CHECK(inputTypeIs(context, 5, {OperandType::INT32}));
    NN_RET_CHECK(inputTypeIs(context, 6, {OperandType::INT32}));
    for (uint32_t i = 0; i < 2; ++i) NN_RET_CHECK(context.output(i).type == type);
    for (uint32_t i : {0u, 1u, 2u, 4u}) NN_RET_CHECK(rankIsOrUnknown(context.input(i), 2));
    if (context.hasValue(5)) NN_RET_CHECK(context.scalar<int32_t>(5) >= 1);
    if (context.hasValue(6)) {
        const int32_t fuse = context.scalar<int32_t>(6);
        NN_RET_CHECK(fuse >= 0 && fuse <= 3);
    }
    return true;
}

bool prepareSvdf(OperationContext& context) {
    const OperandView& input = context.input(0);
    const OperandView& weightsFeature = context.input(1);
    const OperandView& weightsTime = context.input(2);
    NN_RET_CHECK(input.rank() == 2);
    NN_RET_CHECK(weightsFeature.rank() == 2);
    NN_RET_CHECK(weightsTime.rank() == 2);
    const int32_t rank = context.scalar<int32_t>(5);
    NN_RET_CHECK(rank >= 1);
    const int32_t fuse = context.scalar<int32_t>(6);
    NN_RET_CHECK(fuse >= 0 && fuse <= 3);
    const uint32_t batch = input.dim(0);
    const uint32_t inputSize = input.dim(1);
    const uint32_t filters = weightsFeature.dim(0);
    const uint32_t memorySize = weightsTime.dim(1);
    NN_RET_CHECK(memorySize >= 1);
    NN_RET_CHECK(filters % static_cast<uint32_t>(rank) == 0);
    const uint32_t units = filters / static_cast<uint32_t>(rank);
    NN_RET_CHECK(weightsFeature.dim(1) == inputSize);
    NN_RET_CHECK(weightsTime.dim(0) == filters);
    if (!isAbsent(context.input(3))) NN_RET_CHECK(dimsAre(context.input(3), {units}));
    NN_RET_CHECK(dimsAre(context.input(4), {batch, memorySize * filters}));
    context.output(0).dims = {batch, memorySize * filters};
    context.output(1).dims = {batch, units};
    return true;
}

}  // namespace

NN_REGISTER_SIGNATURE(LSTM, validateLstm, prepareLstm, true, false);
NN_REGISTER_SIGNATURE(RNN, validateRnn, prepareRnn, false, false);
NN_REGISTER_SIGNATURE(SVDF, validateSvdf, prepareSvdf, true, false);

}  // namespace nnemu::hal
