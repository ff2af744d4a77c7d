// Signatures of the single-step recurrent operations: LSTM, RNN (their cell checks, shared with
// the sequence operations, are in RecurrentChecks.cpp) and SVDF.
#include "RecurrentChecks.h"
#include "SignatureList.h"

namespace nnemu::hal {
namespace {

using namespace recurrent;

// ---- LSTM (positions in kLstmLayout)
// Inputs: 0 input [batch, inputSize]; 1-4 input-to-{input, forget, cell, output} weights
// [units, inputSize]; 5-8 recurrent-to-{...} weights [units, outputSize]; 9-11 cell-to-{input,
// forget, output} peephole weights [units]; 12-15 {input, forget, cell, output} gate biases
// [units]; 16 projection weights [outputSize, units]; 17 projection bias [outputSize];
// 18 output state [batch, outputSize]; 19 cell state [batch, units]; 20 i32 activation;
// 21 cell clip; 22 projection clip; (API 29) 23-26 {input, forget, cell, output} layer
// normalization weights [units].
// Outputs: 0 scratch [batch, units * (cifg ? 3 : 4)], 1 output state, 2 cell state, 3 output.

// ---- RNN
// Inputs: 0 input [batch, inputSize], 1 weights [units, inputSize], 2 recurrent weights
// [units, units], 3 bias [units], 4 hidden state [batch, units], 5 i32 fuse.
// Outputs: 0 hidden state out [batch, units], 1 output [batch, units].

// ---- SVDF
// Inputs: 0 input [batch, inputSize], 1 feature weights [filters, inputSize], 2 time weights
// [filters, memorySize], 3 bias [units] (may be omitted), 4 state [batch, memorySize * filters],
// 5 i32 rank (filters = units * rank), 6 i32 fuse.
// Outputs: 0 state out [batch, memorySize * filters], 1 output [batch, units].

}  // namespace

bool signatures::validateLstm(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {23, 27}, 4));
    const OperandType type = context.inputType(0);
    NN_RET_CHECK(isFloatTensor(type));
    NN_RET_CHECK(validateLstmCell(context, kLstmLayout, type));
    NN_RET_CHECK(rankIsOrUnknown(context.input(0), 2));
    for (uint32_t i = 0; i < context.numOutputs(); ++i) NN_RET_CHECK(context.output(i).type == type);
    return true;
}

bool signatures::prepareLstm(OperationContext& context) {
    const OperandView& input = context.input(0);
    NN_RET_CHECK(!isAbsent(input) && input.rank() == 2);
    const uint32_t batch = input.dim(0);
    LstmSizes sizes;
    NN_RET_CHECK(prepareLstmCell(context, kLstmLayout, batch, input.dim(1), 0, &sizes));
    context.output(0).dims = {batch, sizes.units * (sizes.cifg ? 3u : 4u)};
    context.output(1).dims = {batch, sizes.outputSize};
    context.output(2).dims = {batch, sizes.units};
    context.output(3).dims = {batch, sizes.outputSize};
    return true;
}

bool signatures::validateRnn(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {6}, 2));
    const OperandType type = context.inputType(0);
    NN_RET_CHECK(isFloatTensor(type));
    NN_RET_CHECK(validateRnnCell(context, kRnnLayout, type));
    NN_RET_CHECK(rankIsOrUnknown(context.input(0), 2));
    for (uint32_t i = 0; i < 2; ++i) NN_RET_CHECK(context.output(i).type == type);
    return true;
}

bool signatures::prepareRnn(OperationContext& context) {
    const OperandView& input = context.input(0);
    NN_RET_CHECK(input.rank() == 2);
    const uint32_t batch = input.dim(0);
    uint32_t units = 0;
    NN_RET_CHECK(prepareRnnCell(context, kRnnLayout, batch, input.dim(1), 0, &units));
    context.output(0).dims = {batch, units};
    context.output(1).dims = {batch, units};
    return true;
}

bool signatures::validateSvdf(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {7}, 2));
    const OperandType type = context.inputType(0);
    NN_RET_CHECK(isFloatTensor(type));
    for (uint32_t i = 1; i < 5; ++i) NN_RET_CHECK(context.inputType(i) == type);
    NN_RET_CHECK(inputTypeIs(context, 5, {OperandType::INT32}));
    NN_RET_CHECK(inputTypeIs(context, 6, {OperandType::INT32}));
    for (uint32_t i = 0; i < 2; ++i) NN_RET_CHECK(context.output(i).type == type);
    for (uint32_t i : {0u, 1u, 2u, 4u}) NN_RET_CHECK(rankIsOrUnknown(context.input(i), 2));
    return true;
}

bool signatures::prepareSvdf(OperationContext& context) {
    const OperandView& input = context.input(0);
    const OperandView& weightsFeature = context.input(1);
    const OperandView& weightsTime = context.input(2);
    for (uint32_t i : {0u, 1u, 2u, 4u}) NN_RET_CHECK(present(context, i));  // only the bias is optional
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

}  // namespace nnemu::hal
