// Checks of one LSTM or RNN cell's operands, shared by the recurrent operations' signatures
// (RecurrentChecks.h).
#include "RecurrentChecks.h"

namespace nnemu::hal {

namespace recurrent {

bool isFloatTensor(OperandType type) {
    return type == OperandType::TENSOR_FLOAT32 || type == OperandType::TENSOR_FLOAT16;
}

OperandType floatScalarFor(OperandType tensorType) {
    return tensorType == OperandType::TENSOR_FLOAT16 ? OperandType::FLOAT16 : OperandType::FLOAT32;
}

bool isAbsent(const OperandView& operand) {
    return operand.omitted || (!operand.dims.empty() && operand.elements() == 0);
}

bool exists(const OperationContext& context, uint32_t position) {
    return position != kNoOperand && position < context.numInputs();
}

bool present(const OperationContext& context, uint32_t position) {
    return exists(context, position) && !isAbsent(context.input(position));
}

bool dimsAre(const OperandView& operand, std::initializer_list<uint32_t> dims) {
    return operand.dims == std::vector<uint32_t>(dims);
}

bool requiredWithDims(const OperationContext& context, uint32_t position, std::initializer_list<uint32_t> dims) {
    return present(context, position) && dimsAre(context.input(position), dims);
}

namespace {

bool validLstmActivation(int32_t activation) {
    // none, relu, relu1, relu6, tanh, sigmoid
    return activation == 0 || activation == 1 || activation == 2 || activation == 3 ||
           activation == 4 || activation == 6;
}

bool validFuseCode(int32_t fuse) { return fuse >= 0 && fuse <= 3; }

// Every operand position a layout names, that this form of the operation has.
std::vector<uint32_t> tensorPositions(const OperationContext& context, const LstmLayout& layout) {
    std::vector<uint32_t> positions;
    auto add = [&](uint32_t p) {
        if (exists(context, p)) positions.push_back(p);
    };
    for (uint32_t p : {layout.input, layout.projectionWeights, layout.projectionBias, layout.outputStateIn,
                       layout.cellStateIn, layout.auxInput}) {
        add(p);
    }
    for (uint32_t gate = 0; gate < kLstmGates; ++gate) {
        for (uint32_t p : {layout.inputToGate[gate], layout.recurrentToGate[gate], layout.cellToGate[gate],
                           layout.gateBias[gate], layout.auxInputToGate[gate], layout.layerNormWeights[gate]}) {
            add(p);
        }
    }
    return positions;
}

// A group of per-gate operands (peephole, layer normalization or auxiliary input weights):
// when `used`, every gate the cell computes has one with these dims (the input gate has none
// under CIFG); otherwise none has.
bool checkGateGroup(const OperationContext& context, const uint32_t (&positions)[kLstmGates], bool used,
                    bool cifg, std::initializer_list<uint32_t> dims) {
    for (uint32_t gate = 0; gate < kLstmGates; ++gate) {
        if (positions[gate] == kNoOperand) continue;
        const bool wanted = used && !(cifg && gate == kInputGate);
        NN_RET_CHECK(present(context, positions[gate]) == wanted);
        if (wanted) NN_RET_CHECK(dimsAre(context.input(positions[gate]), dims));
    }
    return true;
}

}  // namespace

bool validateLstmCell(const OperationContext& context, const LstmLayout& layout, OperandType type) {
    for (uint32_t i : tensorPositions(context, layout)) NN_RET_CHECK(context.inputType(i) == type);
    NN_RET_CHECK(inputTypeIs(context, layout.activation, {OperandType::INT32}));
    NN_RET_CHECK(inputTypeIs(context, layout.cellClip, {floatScalarFor(type)}));
    NN_RET_CHECK(inputTypeIs(context, layout.projClip, {floatScalarFor(type)}));
    for (uint32_t gate : {kForgetGate, kCellGate, kOutputGate}) {
        NN_RET_CHECK(rankIsOrUnknown(context.input(layout.inputToGate[gate]), 2));
        NN_RET_CHECK(rankIsOrUnknown(context.input(layout.recurrentToGate[gate]), 2));
        NN_RET_CHECK(rankIsOrUnknown(context.input(layout.gateBias[gate]), 1));
    }
    NN_RET_CHECK(rankIsOrUnknown(context.input(layout.outputStateIn), 2));
    NN_RET_CHECK(rankIsOrUnknown(context.input(layout.cellStateIn), 2));
    return true;
}

bool prepareLstmCell(const OperationContext& context, const LstmLayout& layout, uint32_t batch,
                     uint32_t inputSize, uint32_t auxInputSize, LstmSizes* sizes) {
    const auto& in = [&](uint32_t i) -> const OperandView& { return context.input(i); };
    NN_RET_CHECK(present(context, layout.inputToGate[kOutputGate]));
    NN_RET_CHECK(in(layout.inputToGate[kOutputGate]).rank() == 2);
    NN_RET_CHECK(present(context, layout.recurrentToGate[kOutputGate]));
    NN_RET_CHECK(in(layout.recurrentToGate[kOutputGate]).rank() == 2);
    const uint32_t units = in(layout.inputToGate[kOutputGate]).dim(0);
    const uint32_t outputSize = in(layout.recurrentToGate[kOutputGate]).dim(1);

    // A layout without these scalars (QUANTIZED_LSTM) checks its own.
    for (uint32_t scalar : {layout.activation, layout.cellClip, layout.projClip}) {
        if (scalar != kNoOperand) NN_RET_CHECK(context.hasValue(scalar));
    }
    if (layout.activation != kNoOperand) {
        NN_RET_CHECK(validLstmActivation(context.scalar<int32_t>(layout.activation)));
        NN_RET_CHECK(context.scalar<float>(layout.cellClip) >= 0.0f);
        NN_RET_CHECK(context.scalar<float>(layout.projClip) >= 0.0f);
    }

    for (uint32_t gate : {kForgetGate, kCellGate, kOutputGate}) {
        NN_RET_CHECK(requiredWithDims(context, layout.inputToGate[gate], {units, inputSize}));
        NN_RET_CHECK(requiredWithDims(context, layout.recurrentToGate[gate], {units, outputSize}));
        NN_RET_CHECK(requiredWithDims(context, layout.gateBias[gate], {units}));
    }

    // CIFG (coupled input and forget gates): no input gate weights, no input gate bias.
    const bool cifg = !present(context, layout.inputToGate[kInputGate]);
    NN_RET_CHECK(present(context, layout.recurrentToGate[kInputGate]) == !cifg);
    NN_RET_CHECK(present(context, layout.gateBias[kInputGate]) == !cifg);
    if (!cifg) {
        NN_RET_CHECK(dimsAre(in(layout.inputToGate[kInputGate]), {units, inputSize}));
        NN_RET_CHECK(dimsAre(in(layout.recurrentToGate[kInputGate]), {units, outputSize}));
        NN_RET_CHECK(dimsAre(in(layout.gateBias[kInputGate]), {units}));
    }

    const bool peephole = present(context, layout.cellToGate[kForgetGate]);
    NN_RET_CHECK(checkGateGroup(context, layout.cellToGate, peephole, cifg, {units}));
    if (exists(context, layout.layerNormWeights[kForgetGate])) {
        const bool layerNorm = present(context, layout.layerNormWeights[kForgetGate]);
        NN_RET_CHECK(checkGateGroup(context, layout.layerNormWeights, layerNorm, cifg, {units}));
    }
    if (layout.auxInput != kNoOperand) {
        NN_RET_CHECK(checkGateGroup(context, layout.auxInputToGate, auxInputSize > 0, cifg, {units, auxInputSize}));
    }

    // Projection: the bias needs the weights; without them the output is the cell's.
    const bool projection = present(context, layout.projectionWeights);
    if (projection) {
        NN_RET_CHECK(dimsAre(in(layout.projectionWeights), {outputSize, units}));
    } else {
        NN_RET_CHECK(outputSize == units);
    }
    if (present(context, layout.projectionBias)) {
        NN_RET_CHECK(projection);
        NN_RET_CHECK(dimsAre(in(layout.projectionBias), {outputSize}));
    }

    NN_RET_CHECK(requiredWithDims(context, layout.outputStateIn, {batch, outputSize}));
    NN_RET_CHECK(requiredWithDims(context, layout.cellStateIn, {batch, units}));
    *sizes = {units, outputSize, cifg};
    return true;
}

bool validateRnnCell(const OperationContext& context, const RnnLayout& layout, OperandType type) {
    for (uint32_t i : {layout.input, layout.weights, layout.recurrentWeights, layout.bias, layout.hiddenStateIn,
                       layout.auxInput, layout.auxWeights}) {
        if (exists(context, i)) NN_RET_CHECK(context.inputType(i) == type);
    }
    NN_RET_CHECK(inputTypeIs(context, layout.activation, {OperandType::INT32}));
    for (uint32_t i : {layout.weights, layout.recurrentWeights, layout.hiddenStateIn}) {
        NN_RET_CHECK(rankIsOrUnknown(context.input(i), 2));
    }
    NN_RET_CHECK(rankIsOrUnknown(context.input(layout.bias), 1));
    return true;
}

bool prepareRnnCell(const OperationContext& context, const RnnLayout& layout, uint32_t batch,
                    uint32_t inputSize, uint32_t auxInputSize, uint32_t* units) {
    NN_RET_CHECK(present(context, layout.weights));
    NN_RET_CHECK(context.input(layout.weights).rank() == 2);
    const uint32_t n = context.input(layout.weights).dim(0);
    NN_RET_CHECK(requiredWithDims(context, layout.weights, {n, inputSize}));
    NN_RET_CHECK(requiredWithDims(context, layout.recurrentWeights, {n, n}));
    NN_RET_CHECK(requiredWithDims(context, layout.bias, {n}));
    NN_RET_CHECK(requiredWithDims(context, layout.hiddenStateIn, {batch, n}));
    if (layout.auxWeights != kNoOperand) {
        NN_RET_CHECK(present(context, layout.auxWeights) == (auxInputSize > 0));
        if (auxInputSize > 0) NN_RET_CHECK(dimsAre(context.input(layout.auxWeights), {n, auxInputSize}));
    }
    NN_RET_CHECK(context.hasValue(layout.activation));
    NN_RET_CHECK(validFuseCode(context.scalar<int32_t>(layout.activation)));
    *units = n;
    return true;
}

}  // namespace recurrent

}  // namespace nnemu::hal
