// Signatures of the recurrent operations over sequences: UNIDIRECTIONAL_SEQUENCE_RNN,
// BIDIRECTIONAL_SEQUENCE_RNN, UNIDIRECTIONAL_SEQUENCE_LSTM, BIDIRECTIONAL_SEQUENCE_LSTM.
// Each direction is one RNN or LSTM cell (RecurrentChecks.h). A sequence is
// [maxTime, batch, size] when time-major, [batch, maxTime, size] otherwise; the outputs use
// the input's order. From feature level 30, each direction's final states may follow as extra
// outputs ([batch, features] each; all of them or none), and a bidirectional operation whose
// auxiliary input comes without auxiliary weights links its directions in parallel: the
// forward direction reads the input, the backward direction the auxiliary input.
#include "RecurrentChecks.h"
#include "SignatureList.h"

namespace nnemu::hal {
namespace {

using namespace recurrent;

struct SequenceShape {
    uint32_t maxTime = 0;
    uint32_t batch = 0;
    uint32_t size = 0;  // features per step
    bool timeMajor = true;

    std::vector<uint32_t> dimsWith(uint32_t features) const {
        return timeMajor ? std::vector<uint32_t>{maxTime, batch, features}
                         : std::vector<uint32_t>{batch, maxTime, features};
    }
};

bool readSequence(const OperationContext& context, uint32_t position, bool timeMajor, SequenceShape* shape) {
    NN_RET_CHECK(present(context, position));
    const OperandView& input = context.input(position);
    NN_RET_CHECK(input.rank() == 3);
    shape->maxTime = input.dim(timeMajor ? 0 : 1);
    shape->batch = input.dim(timeMajor ? 1 : 0);
    shape->size = input.dim(2);
    shape->timeMajor = timeMajor;
    return true;
}

// The auxiliary input of a bidirectional operation: absent (size 0), or a sequence with the
// input's time and batch sizes.
bool readAuxSequence(const OperationContext& context, uint32_t position, const SequenceShape& input,
                     uint32_t* auxInputSize) {
    *auxInputSize = 0;
    if (!present(context, position)) return true;
    SequenceShape aux;
    NN_RET_CHECK(readSequence(context, position, input.timeMajor, &aux));
    NN_RET_CHECK(aux.maxTime == input.maxTime && aux.batch == input.batch && aux.size > 0);
    *auxInputSize = aux.size;
    return true;
}

// The output count of a bidirectional operation: one or two sequences (merged or not), then
// optionally `stateOutputs` final states. validate() takes any of those counts; the execution
// holds it to the merge flag's value.
bool outputCountPossible(const OperationContext& context, uint32_t stateOutputs) {
    const uint32_t count = context.numOutputs();
    return count == 1 || count == 2 || count == 1 + stateOutputs || count == 2 + stateOutputs;
}

bool outputsMatchMerge(const OperationContext& context, uint32_t mergePosition, uint32_t stateOutputs) {
    const uint32_t count = context.numOutputs();
    const uint32_t sequences = context.scalar<bool>(mergePosition) ? 1u : 2u;
    return count == sequences || count == sequences + stateOutputs;
}

// Parallel linking: an auxiliary input without auxiliary weights (`auxWeights`, any one of
// them) feeds the backward direction in place of the input.
bool parallelLinking(const OperationContext& context, uint32_t auxInputSize, uint32_t auxWeights) {
    return auxInputSize > 0 && !present(context, auxWeights);
}

// Sets the dims of the final-state outputs from `first` on, when the operation has them.
bool setStateOutputs(OperationContext& context, uint32_t first, std::initializer_list<std::vector<uint32_t>> dims) {
    if (context.numOutputs() == first) return true;
    NN_RET_CHECK(context.numOutputs() == first + dims.size());
    uint32_t i = first;
    for (const auto& d : dims) context.output(i++).dims = d;
    return true;
}

bool outputTypesAre(const OperationContext& context, OperandType type) {
    for (uint32_t i = 0; i < context.numOutputs(); ++i) NN_RET_CHECK(context.output(i).type == type);
    return true;
}

// Writes the outputs of a bidirectional operation: both directions' outputs concatenated
// along the features (merged) or one output each.
bool setBidirectionalOutputs(OperationContext& context, const SequenceShape& shape, bool merge,
                             uint32_t fwFeatures, uint32_t bwFeatures) {
    NN_RET_CHECK(context.numOutputs() >= (merge ? 1u : 2u));
    if (merge) {
        context.output(0).dims = shape.dimsWith(fwFeatures + bwFeatures);
    } else {
        context.output(0).dims = shape.dimsWith(fwFeatures);
        context.output(1).dims = shape.dimsWith(bwFeatures);
    }
    return true;
}

// ---- UNIDIRECTIONAL_SEQUENCE_RNN
// Inputs: 0 input sequence, 1 weights [units, inputSize], 2 recurrent weights [units, units],
// 3 bias [units], 4 hidden state [batch, units], 5 i32 fuse, 6 i32 time-major (0 or 1).
// Outputs: 0 [maxTime, batch, units] (time-major) or [batch, maxTime, units]; optional 1 the
// final hidden state [batch, units].

// ---- BIDIRECTIONAL_SEQUENCE_RNN
// Inputs: 0 input sequence; forward 1 weights, 2 recurrent weights, 3 bias, 4 hidden state;
// backward 5-8 likewise; 9 auxiliary input sequence, 10 forward and 11 backward auxiliary
// weights [units, auxInputSize] (all three or none); 12 i32 fuse; 13 bool time-major;
// 14 bool merge outputs.
// Outputs: merged, 0 [.., fwUnits + bwUnits]; otherwise 0 [.., fwUnits] and 1 [.., bwUnits];
// then optionally the final forward [batch, fwUnits] and backward [batch, bwUnits] hidden
// states. Parallel linking: 9 present, 10 and 11 omitted.

// ---- UNIDIRECTIONAL_SEQUENCE_LSTM (positions in kUnidirectionalLstmLayout)
// Inputs as LSTM's 0-22 (input 0 a sequence), 23 bool time-major, 24-27 layer normalization
// weights. Outputs: 0 [maxTime, batch, outputSize] (time-major) or [batch, maxTime,
// outputSize]; optionally 1 the final output state [batch, outputSize] with 2 the final cell
// state [batch, units] (output 1 needs output 2).

// ---- BIDIRECTIONAL_SEQUENCE_LSTM (positions in kBidirectionalLstmForward/Backward)
// Inputs: 0 input sequence; 1-17 forward and 18-34 backward weights, biases and projection
// (as LSTM's 1-17); 35/36 forward and 37/38 backward output and cell states; 39 auxiliary
// input sequence with its forward (40-43) and backward (44-47) input-to-gate weights (all or
// none); 48 i32 activation; 49 cell clip; 50 projection clip; 51 bool merge outputs; 52 bool
// time-major; 53-56 forward and 57-60 backward layer normalization weights.
// Outputs: merged, 0 [.., fwOutputSize + bwOutputSize]; otherwise 0 forward and 1 backward;
// then optionally the final forward output [batch, fwOutputSize] and cell [batch, fwUnits]
// states and the backward ones. Parallel linking: 39 present, 40-47 omitted.

int64_t bidirectionalFeatureLevel(const OperationContext& context, uint32_t mergePosition, uint32_t auxInput,
                                  uint32_t auxWeights) {
    const bool merged = context.hasValue(mergePosition) && context.scalar<bool>(mergePosition);
    const bool stateOutputs = context.numOutputs() > (merged ? 1u : 2u);
    const bool parallel = present(context, auxInput) && context.input(auxWeights).omitted;
    return stateOutputs || parallel ? kFeatureLevel30 : kFeatureLevel29;
}

}  // namespace

bool signatures::validateUnidirectionalRnn(const OperationContext& context) {
    NN_RET_CHECK(context.numInputs() == 7);
    NN_RET_CHECK(context.numOutputs() == 1 || context.numOutputs() == 2);
    const OperandType type = context.inputType(0);
    NN_RET_CHECK(isFloatTensor(type));
    NN_RET_CHECK(validateRnnCell(context, kRnnLayout, type));
    NN_RET_CHECK(rankIsOrUnknown(context.input(0), 3));
    NN_RET_CHECK(inputTypeIs(context, kUnidirectionalRnnTimeMajor, {OperandType::INT32}));
    return outputTypesAre(context, type);
}

bool signatures::prepareUnidirectionalRnn(OperationContext& context) {
    NN_RET_CHECK(context.hasValue(kUnidirectionalRnnTimeMajor));
    const int32_t timeMajor = context.scalar<int32_t>(kUnidirectionalRnnTimeMajor);
    NN_RET_CHECK(timeMajor == 0 || timeMajor == 1);
    SequenceShape shape;
    NN_RET_CHECK(readSequence(context, kRnnLayout.input, timeMajor == 1, &shape));
    uint32_t units = 0;
    NN_RET_CHECK(prepareRnnCell(context, kRnnLayout, shape.batch, shape.size, 0, &units));
    context.output(0).dims = shape.dimsWith(units);
    return setStateOutputs(context, 1, {{shape.batch, units}});
}

// Feature level of one use (nnapi-fl30plus.md §2.3): final-state outputs and parallel linking
// came with feature level 30.
int64_t signatures::unidirectionalFeatureLevel(const OperationContext& context) {
    return context.numOutputs() > 1 ? kFeatureLevel30 : kFeatureLevel29;
}

bool signatures::validateBidirectionalRnn(const OperationContext& context) {
    NN_RET_CHECK(context.numInputs() == 15);
    NN_RET_CHECK(context.numOutputs() >= 1 && context.numOutputs() <= 4);
    const OperandType type = context.inputType(0);
    NN_RET_CHECK(isFloatTensor(type));
    NN_RET_CHECK(validateRnnCell(context, kBidirectionalRnnForward, type));
    NN_RET_CHECK(validateRnnCell(context, kBidirectionalRnnBackward, type));
    NN_RET_CHECK(rankIsOrUnknown(context.input(0), 3));
    NN_RET_CHECK(inputTypeIs(context, kBidirectionalRnnTimeMajor, {OperandType::BOOL}));
    NN_RET_CHECK(inputTypeIs(context, kBidirectionalRnnMergeOutputs, {OperandType::BOOL}));
    NN_RET_CHECK(outputCountPossible(context, 2));
    return outputTypesAre(context, type);
}

bool signatures::prepareBidirectionalRnn(OperationContext& context) {
    NN_RET_CHECK(context.hasValue(kBidirectionalRnnTimeMajor));
    NN_RET_CHECK(context.hasValue(kBidirectionalRnnMergeOutputs));
    SequenceShape shape;
    NN_RET_CHECK(readSequence(context, 0, context.scalar<bool>(kBidirectionalRnnTimeMajor), &shape));
    uint32_t auxInputSize = 0;
    NN_RET_CHECK(readAuxSequence(context, kBidirectionalRnnForward.auxInput, shape, &auxInputSize));
    const bool parallel = parallelLinking(context, auxInputSize, kBidirectionalRnnForward.auxWeights);
    const uint32_t bwInputSize = parallel ? auxInputSize : shape.size;
    const uint32_t sharedAuxSize = parallel ? 0 : auxInputSize;
    uint32_t fwUnits = 0;
    uint32_t bwUnits = 0;
    NN_RET_CHECK(prepareRnnCell(context, kBidirectionalRnnForward, shape.batch, shape.size, sharedAuxSize, &fwUnits));
    NN_RET_CHECK(prepareRnnCell(context, kBidirectionalRnnBackward, shape.batch, bwInputSize, sharedAuxSize, &bwUnits));
    const bool merge = context.scalar<bool>(kBidirectionalRnnMergeOutputs);
    NN_RET_CHECK(outputsMatchMerge(context, kBidirectionalRnnMergeOutputs, 2));
    NN_RET_CHECK(setBidirectionalOutputs(context, shape, merge, fwUnits, bwUnits));
    return setStateOutputs(context, merge ? 1 : 2, {{shape.batch, fwUnits}, {shape.batch, bwUnits}});
}

int64_t signatures::bidirectionalRnnFeatureLevel(const OperationContext& context) {
    return bidirectionalFeatureLevel(context, kBidirectionalRnnMergeOutputs, kBidirectionalRnnForward.auxInput,
                                     kBidirectionalRnnForward.auxWeights);
}

bool signatures::validateUnidirectionalLstm(const OperationContext& context) {
    NN_RET_CHECK(context.numInputs() == 28);
    NN_RET_CHECK(context.numOutputs() == 1 || context.numOutputs() == 3);
    const OperandType type = context.inputType(0);
    NN_RET_CHECK(isFloatTensor(type));
    NN_RET_CHECK(validateLstmCell(context, kUnidirectionalLstmLayout, type));
    NN_RET_CHECK(rankIsOrUnknown(context.input(0), 3));
    NN_RET_CHECK(inputTypeIs(context, kUnidirectionalLstmTimeMajor, {OperandType::BOOL}));
    return outputTypesAre(context, type);
}

bool signatures::prepareUnidirectionalLstm(OperationContext& context) {
    NN_RET_CHECK(context.hasValue(kUnidirectionalLstmTimeMajor));
    SequenceShape shape;
    NN_RET_CHECK(readSequence(context, 0, context.scalar<bool>(kUnidirectionalLstmTimeMajor), &shape));
    LstmSizes sizes;
    NN_RET_CHECK(prepareLstmCell(context, kUnidirectionalLstmLayout, shape.batch, shape.size, 0, &sizes));
    context.output(0).dims = shape.dimsWith(sizes.outputSize);
    return setStateOutputs(context, 1, {{shape.batch, sizes.outputSize}, {shape.batch, sizes.units}});
}

bool signatures::validateBidirectionalLstm(const OperationContext& context) {
    NN_RET_CHECK(context.numInputs() == 61);
    NN_RET_CHECK(context.numOutputs() >= 1 && context.numOutputs() <= 6);
    const OperandType type = context.inputType(0);
    NN_RET_CHECK(isFloatTensor(type));
    NN_RET_CHECK(validateLstmCell(context, kBidirectionalLstmForward, type));
    NN_RET_CHECK(validateLstmCell(context, kBidirectionalLstmBackward, type));
    NN_RET_CHECK(rankIsOrUnknown(context.input(0), 3));
    NN_RET_CHECK(inputTypeIs(context, kBidirectionalLstmMergeOutputs, {OperandType::BOOL}));
    NN_RET_CHECK(inputTypeIs(context, kBidirectionalLstmTimeMajor, {OperandType::BOOL}));
    NN_RET_CHECK(outputCountPossible(context, 4));
    return outputTypesAre(context, type);
}

bool signatures::prepareBidirectionalLstm(OperationContext& context) {
    NN_RET_CHECK(context.hasValue(kBidirectionalLstmTimeMajor));
    NN_RET_CHECK(context.hasValue(kBidirectionalLstmMergeOutputs));
    SequenceShape shape;
    NN_RET_CHECK(readSequence(context, 0, context.scalar<bool>(kBidirectionalLstmTimeMajor), &shape));
    uint32_t auxInputSize = 0;
    NN_RET_CHECK(readAuxSequence(context, kBidirectionalLstmForward.auxInput, shape, &auxInputSize));
    const bool parallel =
            parallelLinking(context, auxInputSize, kBidirectionalLstmForward.auxInputToGate[kForgetGate]);
    const uint32_t bwInputSize = parallel ? auxInputSize : shape.size;
    const uint32_t sharedAuxSize = parallel ? 0 : auxInputSize;
    LstmSizes fw;
    LstmSizes bw;
    NN_RET_CHECK(prepareLstmCell(context, kBidirectionalLstmForward, shape.batch, shape.size, sharedAuxSize, &fw));
    NN_RET_CHECK(prepareLstmCell(context, kBidirectionalLstmBackward, shape.batch, bwInputSize, sharedAuxSize, &bw));
    const bool merge = context.scalar<bool>(kBidirectionalLstmMergeOutputs);
    NN_RET_CHECK(outputsMatchMerge(context, kBidirectionalLstmMergeOutputs, 4));
    NN_RET_CHECK(setBidirectionalOutputs(context, shape, merge, fw.outputSize, bw.outputSize));
    return setStateOutputs(context, merge ? 1 : 2,
                           {{shape.batch, fw.outputSize}, {shape.batch, fw.units}, {shape.batch, bw.outputSize},
                            {shape.batch, bw.units}});
}

int64_t signatures::bidirectionalLstmFeatureLevel(const OperationContext& context) {
    return bidirectionalFeatureLevel(context, kBidirectionalLstmMergeOutputs, kBidirectionalLstmForward.auxInput,
                                     kBidirectionalLstmForward.auxInputToGate[kForgetGate]);
}

}  // namespace nnemu::hal
