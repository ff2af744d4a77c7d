// Reference kernels of the recurrent operations over sequences: UNIDIRECTIONAL_SEQUENCE_RNN,
// BIDIRECTIONAL_SEQUENCE_RNN, UNIDIRECTIONAL_SEQUENCE_LSTM, BIDIRECTIONAL_SEQUENCE_LSTM.
// Sequences are put in time-major order, fed step by step to the cells shared with the
// single-step kernels (RecurrentCell.h), and the outputs are put back in the input's order.
// The backward direction of a bidirectional operation reads the steps from last to first and
// writes each step's output at that step's position; its final states are those after the
// first step. Optional outputs after the sequences receive each direction's final states
// (feature level 30), and under parallel linking (auxiliary input, no auxiliary weights) the
// backward direction reads the auxiliary input in place of the input.
#include <algorithm>
#include <vector>

#include "RecurrentCell.h"
#include "nnemu/cpu/Kernels.h"
#include "KernelList.h"

namespace nnemu::cpu {
namespace {

using namespace recurrent;

// Swaps the two leading axes of [a, b, size] values.
std::vector<float> swapLeadingAxes(const std::vector<float>& values, uint32_t a, uint32_t b, uint32_t size) {
    std::vector<float> swapped(values.size());
    for (uint32_t i = 0; i < a; ++i) {
        for (uint32_t j = 0; j < b; ++j) {
            const auto from = values.begin() + (static_cast<size_t>(i) * b + j) * size;
            std::copy(from, from + size, swapped.begin() + (static_cast<size_t>(j) * a + i) * size);
        }
    }
    return swapped;
}

// A sequence in time-major order, [maxTime, batch, size]; empty when absent.
struct Sequence {
    uint32_t maxTime = 0;
    uint32_t batch = 0;
    uint32_t size = 0;
    std::vector<float> values;

    const float* step(uint32_t t) const {
        return values.empty() ? nullptr : values.data() + static_cast<size_t>(t) * batch * size;
    }
};

bool loadSequence(const OperandView& operand, bool timeMajor, Sequence* sequence) {
    NN_RET_CHECK(operand.rank() == 3);
    sequence->maxTime = operand.dim(timeMajor ? 0 : 1);
    sequence->batch = operand.dim(timeMajor ? 1 : 0);
    sequence->size = operand.dim(2);
    NN_RET_CHECK(loadFloats(operand, operand.elements(), &sequence->values));
    if (!timeMajor) {
        sequence->values = swapLeadingAxes(sequence->values, sequence->batch, sequence->maxTime, sequence->size);
    }
    return true;
}

// The auxiliary input of a bidirectional operation: absent, or steps matching the input's.
bool loadAuxSequence(const OperandView& operand, bool timeMajor, const Sequence& input, Sequence* aux) {
    *aux = Sequence{};
    if (operand.omitted || operand.data == nullptr || operand.elements() == 0) return true;
    NN_RET_CHECK(loadSequence(operand, timeMajor, aux));
    NN_RET_CHECK(aux->maxTime == input.maxTime && aux->batch == input.batch);
    return true;
}

// One output sequence, built time-major: [maxTime, batch, rowSize]. A direction writes its
// values of each row from a column on (both directions share the rows of a merged output).
struct SequenceOutput {
    uint32_t maxTime = 0;
    uint32_t batch = 0;
    uint32_t rowSize = 0;
    std::vector<float> values;

    bool init(const Sequence& input, const OperandView& operand, bool timeMajor) {
        NN_RET_CHECK(operand.rank() == 3);
        NN_RET_CHECK(operand.dim(timeMajor ? 0 : 1) == input.maxTime && operand.dim(timeMajor ? 1 : 0) == input.batch);
        maxTime = input.maxTime;
        batch = input.batch;
        rowSize = operand.dim(2);
        values.assign(static_cast<size_t>(maxTime) * batch * rowSize, 0.0f);
        return true;
    }

    void write(uint32_t t, const float* rows, uint32_t features, uint32_t column) {
        for (uint32_t b = 0; b < batch; ++b) {
            const float* from = rows + static_cast<size_t>(b) * features;
            std::copy(from, from + features, values.begin() + (static_cast<size_t>(t) * batch + b) * rowSize + column);
        }
    }

    bool store(bool timeMajor, OperandView& operand) const {
        return storeFloats(timeMajor ? values : swapLeadingAxes(values, maxTime, batch, rowSize), operand);
    }
};

// The states a direction ends with: the output (hidden) state, and an LSTM's cell state.
struct FinalStates {
    std::vector<float> output;
    std::vector<float> cell;
};

// Stores `states` into the outputs from `first` on, when the operation has those outputs.
bool storeStates(OperationContext& context, uint32_t first, std::initializer_list<const std::vector<float>*> states) {
    if (context.numOutputs() == first) return true;
    NN_RET_CHECK(context.numOutputs() == first + states.size());
    uint32_t i = first;
    for (const std::vector<float>* state : states) NN_RET_CHECK(storeFloats(*state, context.output(i++)));
    return true;
}

bool isAbsent(const OperandView& operand) {
    return operand.omitted || operand.data == nullptr || operand.elements() == 0;
}

// Feeds the steps to `step(input, auxInput)`, which returns the step's [batch, features] output.
template <typename Step>
void runSteps(const Sequence& input, const Sequence& aux, bool backward, uint32_t features, uint32_t column,
              SequenceOutput& out, Step&& step) {
    for (uint32_t i = 0; i < input.maxTime; ++i) {
        const uint32_t t = backward ? input.maxTime - 1 - i : i;
        out.write(t, step(input.step(t), aux.step(t)), features, column);
    }
}

// Runs the RNN cell at `layout` over the sequence; sets *features to its number of units.
bool runRnn(const OperationContext& context, const hal::RnnLayout& layout, const Sequence& input,
            const Sequence& aux, bool backward, SequenceOutput& out, uint32_t column, uint32_t* features,
            FinalStates* final) {
    RnnCell cell;
    NN_RET_CHECK(loadRnnCell(context, layout, &cell));
    NN_RET_CHECK(cell.inputSize == input.size && cell.auxInputSize == aux.size);
    NN_RET_CHECK(column + cell.units <= out.rowSize);
    std::vector<float> hidden;
    NN_RET_CHECK(loadFloats(context.input(layout.hiddenStateIn), size_t{input.batch} * cell.units, &hidden));
    runSteps(input, aux, backward, cell.units, column, out, [&](const float* x, const float* auxX) {
        rnnStep(cell, input.batch, x, auxX, hidden.data());
        return hidden.data();
    });
    *features = cell.units;
    final->output = std::move(hidden);
    return true;
}

// Runs the LSTM cell at `layout` over the sequence; sets *features to its output size.
bool runLstm(const OperationContext& context, const hal::LstmLayout& layout, const Sequence& input,
             const Sequence& aux, bool backward, SequenceOutput& out, uint32_t column, uint32_t* features,
             FinalStates* final) {
    LstmCell cell;
    NN_RET_CHECK(loadLstmCell(context, layout, &cell));
    NN_RET_CHECK(cell.inputSize == input.size && cell.auxInputSize == aux.size);
    NN_RET_CHECK(column + cell.outputSize <= out.rowSize);
    std::vector<float> outputState;
    std::vector<float> cellState;
    NN_RET_CHECK(loadLstmState(context, layout, cell, input.batch, &outputState, &cellState));
    runSteps(input, aux, backward, cell.outputSize, column, out, [&](const float* x, const float* auxX) {
        lstmStep(cell, input.batch, x, auxX, outputState.data(), cellState.data());
        return outputState.data();
    });
    *features = cell.outputSize;
    final->output = std::move(outputState);
    final->cell = std::move(cellState);
    return true;
}

// Runs both directions (run(backward, out, column, &features, &finalStates)) into one merged
// output or into one output each; *fw and *bw receive their final states.
template <typename Direction>
bool runBothDirections(OperationContext& context, const Sequence& input, bool timeMajor, bool merge,
                       FinalStates* fw, FinalStates* bw, Direction&& run) {
    uint32_t fwFeatures = 0;
    uint32_t bwFeatures = 0;
    if (merge) {
        SequenceOutput out;
        NN_RET_CHECK(out.init(input, context.output(0), timeMajor));
        NN_RET_CHECK(run(false, out, 0, &fwFeatures, fw));
        NN_RET_CHECK(run(true, out, fwFeatures, &bwFeatures, bw));
        NN_RET_CHECK(fwFeatures + bwFeatures == out.rowSize);
        return out.store(timeMajor, context.output(0));
    }
    NN_RET_CHECK(context.numOutputs() >= 2);
    SequenceOutput fwOut;
    SequenceOutput bwOut;
    NN_RET_CHECK(fwOut.init(input, context.output(0), timeMajor));
    NN_RET_CHECK(bwOut.init(input, context.output(1), timeMajor));
    NN_RET_CHECK(run(false, fwOut, 0, &fwFeatures, fw));
    NN_RET_CHECK(run(true, bwOut, 0, &bwFeatures, bw));
    NN_RET_CHECK(fwFeatures == fwOut.rowSize && bwFeatures == bwOut.rowSize);
    return fwOut.store(timeMajor, context.output(0)) && bwOut.store(timeMajor, context.output(1));
}

}  // namespace

bool kernels::unidirectionalRnn(OperationContext& context) {
    const bool timeMajor = context.scalar<int32_t>(hal::kUnidirectionalRnnTimeMajor) != 0;
    Sequence input;
    NN_RET_CHECK(loadSequence(context.input(hal::kRnnLayout.input), timeMajor, &input));
    SequenceOutput out;
    NN_RET_CHECK(out.init(input, context.output(0), timeMajor));
    uint32_t units = 0;
    FinalStates final;
    NN_RET_CHECK(runRnn(context, hal::kRnnLayout, input, Sequence{}, false, out, 0, &units, &final));
    NN_RET_CHECK(units == out.rowSize);
    return out.store(timeMajor, context.output(0)) && storeStates(context, 1, {&final.output});
}

bool kernels::bidirectionalRnn(OperationContext& context) {
    const bool timeMajor = context.scalar<bool>(hal::kBidirectionalRnnTimeMajor);
    Sequence input;
    Sequence aux;
    NN_RET_CHECK(loadSequence(context.input(hal::kBidirectionalRnnForward.input), timeMajor, &input));
    NN_RET_CHECK(loadAuxSequence(context.input(hal::kBidirectionalRnnForward.auxInput), timeMajor, input, &aux));
    const bool parallel =
            !aux.values.empty() && isAbsent(context.input(hal::kBidirectionalRnnForward.auxWeights));
    const Sequence none;
    const bool merge = context.scalar<bool>(hal::kBidirectionalRnnMergeOutputs);
    FinalStates fw;
    FinalStates bw;
    NN_RET_CHECK(runBothDirections(
            context, input, timeMajor, merge, &fw, &bw,
            [&](bool backward, SequenceOutput& out, uint32_t column, uint32_t* features, FinalStates* final) {
                const auto& layout = backward ? hal::kBidirectionalRnnBackward : hal::kBidirectionalRnnForward;
                const Sequence& steps = backward && parallel ? aux : input;
                return runRnn(context, layout, steps, parallel ? none : aux, backward, out, column, features, final);
            }));
    return storeStates(context, merge ? 1 : 2, {&fw.output, &bw.output});
}

bool kernels::unidirectionalLstm(OperationContext& context) {
    const bool timeMajor = context.scalar<bool>(hal::kUnidirectionalLstmTimeMajor);
    Sequence input;
    NN_RET_CHECK(loadSequence(context.input(hal::kUnidirectionalLstmLayout.input), timeMajor, &input));
    SequenceOutput out;
    NN_RET_CHECK(out.init(input, context.output(0), timeMajor));
    uint32_t outputSize = 0;
    FinalStates final;
    NN_RET_CHECK(runLstm(context, hal::kUnidirectionalLstmLayout, input, Sequence{}, false, out, 0, &outputSize,
                         &final));
    NN_RET_CHECK(outputSize == out.rowSize);
    return out.store(timeMajor, context.output(0)) && storeStates(context, 1, {&final.output, &final.cell});
}

bool kernels::bidirectionalLstm(OperationContext& context) {
    const bool timeMajor = context.scalar<bool>(hal::kBidirectionalLstmTimeMajor);
    Sequence input;
    Sequence aux;
    NN_RET_CHECK(loadSequence(context.input(hal::kBidirectionalLstmForward.input), timeMajor, &input));
    NN_RET_CHECK(loadAuxSequence(context.input(hal::kBidirectionalLstmForward.auxInput), timeMajor, input, &aux));
    const auto& fwAuxWeights = context.input(hal::kBidirectionalLstmForward.auxInputToGate[hal::kForgetGate]);
    const bool parallel = !aux.values.empty() && isAbsent(fwAuxWeights);
    const Sequence none;
    const bool merge = context.scalar<bool>(hal::kBidirectionalLstmMergeOutputs);
    FinalStates fw;
    FinalStates bw;
    NN_RET_CHECK(runBothDirections(
            context, input, timeMajor, merge, &fw, &bw,
            [&](bool backward, SequenceOutput& out, uint32_t column, uint32_t* features, FinalStates* final) {
                const auto& layout = backward ? hal::kBidirectionalLstmBackward : hal::kBidirectionalLstmForward;
                const Sequence& steps = backward && parallel ? aux : input;
                return runLstm(context, layout, steps, parallel ? none : aux, backward, out, column, features, final);
            }));
    return storeStates(context, merge ? 1 : 2, {&fw.output, &fw.cell, &bw.output, &bw.cell});
}

}  // namespace nnemu::cpu
