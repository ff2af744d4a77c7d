// Feature level 30 forms of the sequence operations on the reference executor: the optional
// final-state outputs equal the sequence's last step (exactly: the same float computation),
// and parallel linking of a bidirectional LSTM equals two unidirectional runs, the backward
// one over the reversed auxiliary input.
#include <gtest/gtest.h>

#include <vector>

#include "SingleOperation.h"

namespace nnemu {
namespace {

using hal::OperandType;
using hal::OperationType;
using testing::omitted;
using testing::scalar;
using testing::SingleOperation;
using testing::sizedOutput;
using testing::tensor;

constexpr auto F32 = OperandType::TENSOR_FLOAT32;
constexpr uint32_t kTime = 3;
constexpr uint32_t kBatch = 2;
constexpr uint32_t kUnits = 4;
constexpr int32_t kTanh = 4;

std::vector<float> numbers(size_t count, uint32_t seed) {
    std::vector<float> values(count);
    uint32_t state = seed;
    for (float& v : values) {
        state = state * 1664525u + 1013904223u;
        v = static_cast<float>(static_cast<int32_t>((state >> 8) % 201) - 100) / 100.0f;
    }
    return values;
}

// Rows [t] of a time-major [kTime, kBatch, features] sequence.
std::vector<float> step(const std::vector<float>& sequence, uint32_t t, uint32_t features) {
    const auto from = sequence.begin() + static_cast<ptrdiff_t>(t) * kBatch * features;
    return {from, from + static_cast<ptrdiff_t>(kBatch) * features};
}

std::vector<float> reversedSteps(const std::vector<float>& sequence, uint32_t steps, uint32_t features) {
    std::vector<float> reversed;
    for (uint32_t i = steps; i-- > 0;) {
        const auto from = sequence.begin() + static_cast<ptrdiff_t>(i) * kBatch * features;
        reversed.insert(reversed.end(), from, from + static_cast<ptrdiff_t>(kBatch) * features);
    }
    return reversed;
}

// The model input, its value given to run().
testing::TestOperand modelInput(std::vector<uint32_t> dims) { return tensor<float>(F32, std::move(dims), {}); }

void constant(SingleOperation& m, std::vector<uint32_t> dims, const std::vector<float>& values) {
    m.inputs.push_back(tensor(F32, std::move(dims), values, false));
}

// Each output's values, none when the run fails.
std::vector<std::vector<float>> run(SingleOperation m, const std::vector<float>& input) {
    m.inputs[0].bytes = testing::bytesOf(input);
    const testing::RunResult r = m.run();
    EXPECT_EQ(r.status, hal::ErrorStatus::NONE) << r.why;
    std::vector<std::vector<float>> outputs;
    if (r.status != hal::ErrorStatus::NONE) return outputs;
    for (size_t i = 0; i < r.outputs.size(); ++i) outputs.push_back(r.values<float>(i));
    return outputs;
}

// The weights, biases and initial states of one LSTM direction (no CIFG, peephole,
// projection or layer normalization) at `seed`.
void addLstmWeights(SingleOperation& m, uint32_t inputSize, uint32_t seed) {
    for (uint32_t g = 0; g < 4; ++g) constant(m, {kUnits, inputSize}, numbers(kUnits * inputSize, seed + g));
    for (uint32_t g = 0; g < 4; ++g) constant(m, {kUnits, kUnits}, numbers(kUnits * kUnits, seed + 10 + g));
    for (int i = 0; i < 3; ++i) m.inputs.push_back(omitted(F32, {kUnits}));
    for (uint32_t g = 0; g < 4; ++g) constant(m, {kUnits}, numbers(kUnits, seed + 20 + g));
    m.inputs.push_back(omitted(F32, {kUnits, kUnits}));
    m.inputs.push_back(omitted(F32, {kUnits}));
}

void addLstmStates(SingleOperation& m, const std::vector<float>& output, const std::vector<float>& cell) {
    constant(m, {kBatch, kUnits}, output);
    constant(m, {kBatch, kUnits}, cell);
}

void addLstmParameters(SingleOperation& m) {
    m.inputs.push_back(scalar(OperandType::INT32, kTanh));
    m.inputs.push_back(scalar(OperandType::FLOAT32, 0.0f));
    m.inputs.push_back(scalar(OperandType::FLOAT32, 0.0f));
}

// UNIDIRECTIONAL_SEQUENCE_LSTM, time-major, over `steps` steps, with final states when asked.
SingleOperation unidirectionalLstm(uint32_t steps, uint32_t inputSize, uint32_t seed,
                                   const std::vector<float>& outputState, const std::vector<float>& cellState,
                                   bool stateOutputs) {
    SingleOperation m{OperationType::UNIDIRECTIONAL_SEQUENCE_LSTM, {}, {}};
    m.inputs.push_back(modelInput({steps, kBatch, inputSize}));
    addLstmWeights(m, inputSize, seed);
    addLstmStates(m, outputState, cellState);
    addLstmParameters(m);
    m.inputs.push_back(scalar(OperandType::BOOL, uint8_t{1}));
    for (int i = 0; i < 4; ++i) m.inputs.push_back(omitted(F32, {kUnits}));
    m.outputs.push_back(sizedOutput(F32, {steps, kBatch, kUnits}));
    if (stateOutputs) {
        m.outputs.push_back(sizedOutput(F32, {kBatch, kUnits}));
        m.outputs.push_back(sizedOutput(F32, {kBatch, kUnits}));
    }
    return m;
}

TEST(SequenceStateOutputs, UnidirectionalLstmFinalStatesAreTheLastStepsStates) {
    const std::vector<float> input = numbers(kTime * kBatch * 3, 7);
    const std::vector<float> zeros(kBatch * kUnits, 0.0f);
    const SingleOperation whole = unidirectionalLstm(kTime, 3, 100, zeros, zeros, true);
    ASSERT_TRUE(whole.valid());
    const auto out = run(whole, input);
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(out[1], step(out[0], kTime - 1, kUnits));

    // The first kTime - 1 steps, then the last one from their final states.
    const std::vector<float> head(input.begin(), input.end() - kBatch * 3);
    const auto first = run(unidirectionalLstm(kTime - 1, 3, 100, zeros, zeros, true), head);
    ASSERT_EQ(first.size(), 3u);
    const auto last = run(unidirectionalLstm(1, 3, 100, first[1], first[2], true), step(input, kTime - 1, 3));
    ASSERT_EQ(last.size(), 3u);
    EXPECT_EQ(last[0], out[1]);
    EXPECT_EQ(last[2], out[2]);
}

TEST(SequenceStateOutputs, UnidirectionalLstmNeedsBothStateOutputs) {
    const std::vector<float> zeros(kBatch * kUnits, 0.0f);
    SingleOperation m = unidirectionalLstm(kTime, 3, 100, zeros, zeros, false);
    m.outputs.push_back(sizedOutput(F32, {kBatch, kUnits}));  // output 1 without output 2
    EXPECT_FALSE(m.valid());
}

SingleOperation unidirectionalRnn(bool stateOutput) {
    SingleOperation m{OperationType::UNIDIRECTIONAL_SEQUENCE_RNN, {}, {}};
    m.inputs.push_back(modelInput({kTime, kBatch, 3}));
    constant(m, {kUnits, 3}, numbers(kUnits * 3, 1));
    constant(m, {kUnits, kUnits}, numbers(kUnits * kUnits, 2));
    constant(m, {kUnits}, numbers(kUnits, 3));
    constant(m, {kBatch, kUnits}, numbers(kBatch * kUnits, 4));
    m.inputs.push_back(scalar(OperandType::INT32, int32_t{1}));
    m.inputs.push_back(scalar(OperandType::INT32, int32_t{1}));
    m.outputs.push_back(sizedOutput(F32, {kTime, kBatch, kUnits}));
    if (stateOutput) m.outputs.push_back(sizedOutput(F32, {kBatch, kUnits}));
    return m;
}

TEST(SequenceStateOutputs, UnidirectionalRnnFinalHiddenStateIsTheLastStep) {
    const SingleOperation m = unidirectionalRnn(true);
    ASSERT_TRUE(m.valid());
    const auto out = run(m, numbers(kTime * kBatch * 3, 9));
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[1], step(out[0], kTime - 1, kUnits));
    EXPECT_EQ(run(unidirectionalRnn(false), numbers(kTime * kBatch * 3, 9)).at(0), out[0]);
}

// BIDIRECTIONAL_SEQUENCE_RNN, time-major, with final states; `auxSize` 0: no auxiliary input.
SingleOperation bidirectionalRnn(bool merge, uint32_t auxSize, bool auxWeights) {
    SingleOperation m{OperationType::BIDIRECTIONAL_SEQUENCE_RNN, {}, {}};
    m.inputs.push_back(modelInput({kTime, kBatch, 3}));
    for (uint32_t direction = 0; direction < 2; ++direction) {
        const uint32_t inputSize = direction == 1 && auxSize > 0 && !auxWeights ? auxSize : 3;
        constant(m, {kUnits, inputSize}, numbers(kUnits * inputSize, 11 + direction));
        constant(m, {kUnits, kUnits}, numbers(kUnits * kUnits, 13 + direction));
        constant(m, {kUnits}, numbers(kUnits, 15 + direction));
        constant(m, {kBatch, kUnits}, numbers(kBatch * kUnits, 17 + direction));
    }
    if (auxSize > 0) {
        constant(m, {kTime, kBatch, auxSize}, numbers(kTime * kBatch * auxSize, 19));
    } else {
        m.inputs.push_back(omitted(F32, {0, 0, 0}));
    }
    for (uint32_t direction = 0; direction < 2; ++direction) {
        if (auxWeights) {
            constant(m, {kUnits, auxSize}, numbers(kUnits * auxSize, 21 + direction));
        } else {
            m.inputs.push_back(omitted(F32, {kUnits, 1}));
        }
    }
    m.inputs.push_back(scalar(OperandType::INT32, int32_t{1}));
    m.inputs.push_back(scalar(OperandType::BOOL, uint8_t{1}));
    m.inputs.push_back(scalar(OperandType::BOOL, static_cast<uint8_t>(merge)));
    if (merge) {
        m.outputs.push_back(sizedOutput(F32, {kTime, kBatch, 2 * kUnits}));
    } else {
        m.outputs.push_back(sizedOutput(F32, {kTime, kBatch, kUnits}));
        m.outputs.push_back(sizedOutput(F32, {kTime, kBatch, kUnits}));
    }
    m.outputs.push_back(sizedOutput(F32, {kBatch, kUnits}));
    m.outputs.push_back(sizedOutput(F32, {kBatch, kUnits}));
    return m;
}

// Columns [column, column + kUnits) of each row of a [.., rows, rowSize] step.
std::vector<float> columns(const std::vector<float>& rows, uint32_t rowSize, uint32_t column) {
    std::vector<float> out;
    for (size_t r = 0; r < rows.size() / rowSize; ++r) {
        out.insert(out.end(), rows.begin() + r * rowSize + column, rows.begin() + r * rowSize + column + kUnits);
    }
    return out;
}

TEST(SequenceStateOutputs, BidirectionalRnnFinalStatesAreEachDirectionsLastStep) {
    const std::vector<float> input = numbers(kTime * kBatch * 3, 23);
    for (bool parallel : {false, true}) {
        SCOPED_TRACE(parallel);
        const SingleOperation separate = bidirectionalRnn(false, parallel ? 2 : 0, false);
        ASSERT_TRUE(separate.valid());
        const auto out = run(separate, input);
        ASSERT_EQ(out.size(), 4u);
        EXPECT_EQ(out[2], step(out[0], kTime - 1, kUnits));
        EXPECT_EQ(out[3], step(out[1], 0, kUnits));  // backward ends at the first step

        const auto merged = run(bidirectionalRnn(true, parallel ? 2 : 0, false), input);
        ASSERT_EQ(merged.size(), 3u);
        EXPECT_EQ(merged[1], out[2]);
        EXPECT_EQ(merged[2], out[3]);
        EXPECT_EQ(columns(step(merged[0], 0, 2 * kUnits), 2 * kUnits, kUnits), step(out[1], 0, kUnits));
    }
}

// BIDIRECTIONAL_SEQUENCE_LSTM, time-major, separate outputs and final states, its backward
// direction linked in parallel to an auxiliary input of size 2.
SingleOperation parallelBidirectionalLstm(const std::vector<float>& aux) {
    SingleOperation m{OperationType::BIDIRECTIONAL_SEQUENCE_LSTM, {}, {}};
    const std::vector<float> zeros(kBatch * kUnits, 0.0f);
    m.inputs.push_back(modelInput({kTime, kBatch, 3}));
    addLstmWeights(m, 3, 100);
    addLstmWeights(m, 2, 200);
    addLstmStates(m, zeros, zeros);
    addLstmStates(m, zeros, zeros);
    constant(m, {kTime, kBatch, 2}, aux);
    for (int i = 0; i < 8; ++i) m.inputs.push_back(omitted(F32, {kUnits, 2}));
    addLstmParameters(m);
    m.inputs.push_back(scalar(OperandType::BOOL, uint8_t{0}));  // merge outputs
    m.inputs.push_back(scalar(OperandType::BOOL, uint8_t{1}));  // time-major
    for (int i = 0; i < 8; ++i) m.inputs.push_back(omitted(F32, {kUnits}));
    m.outputs.push_back(sizedOutput(F32, {kTime, kBatch, kUnits}));
    m.outputs.push_back(sizedOutput(F32, {kTime, kBatch, kUnits}));
    for (int i = 0; i < 4; ++i) m.outputs.push_back(sizedOutput(F32, {kBatch, kUnits}));
    return m;
}

TEST(SequenceStateOutputs, ParallelLinkedBidirectionalLstmIsTwoUnidirectionalRuns) {
    const std::vector<float> input = numbers(kTime * kBatch * 3, 31);
    const std::vector<float> aux = numbers(kTime * kBatch * 2, 37);
    const std::vector<float> zeros(kBatch * kUnits, 0.0f);
    const SingleOperation bidirectional = parallelBidirectionalLstm(aux);
    ASSERT_TRUE(bidirectional.valid());
    const auto out = run(bidirectional, input);
    ASSERT_EQ(out.size(), 6u);

    const auto fw = run(unidirectionalLstm(kTime, 3, 100, zeros, zeros, true), input);
    const auto bw = run(unidirectionalLstm(kTime, 2, 200, zeros, zeros, true), reversedSteps(aux, kTime, 2));
    ASSERT_EQ(fw.size(), 3u);
    ASSERT_EQ(bw.size(), 3u);
    EXPECT_EQ(out[0], fw[0]);
    EXPECT_EQ(out[1], reversedSteps(bw[0], kTime, kUnits));
    EXPECT_EQ(out[2], fw[1]);
    EXPECT_EQ(out[3], fw[2]);
    EXPECT_EQ(out[4], bw[1]);
    EXPECT_EQ(out[5], bw[2]);
}

TEST(SequenceStateOutputs, BidirectionalLstmStateOutputsAreAllOrNone) {
    SingleOperation m = parallelBidirectionalLstm(numbers(kTime * kBatch * 2, 37));
    m.outputs.pop_back();
    // 5 outputs is the merged form's count: a valid model, refused by the execution (merge is off).
    m.inputs[0].bytes = testing::bytesOf(numbers(kTime * kBatch * 3, 1));
    EXPECT_TRUE(m.run().failsAtExecution());
    m.outputs.pop_back();
    EXPECT_FALSE(m.valid());  // 4 outputs: no form has that many
}

TEST(SequenceStateOutputs, MalformedBidirectionalFormsAreRejected) {
    // Merged outputs with one final state instead of two.
    // (2 outputs: the separate form's count, so the merge flag refuses it at execution.)
    SingleOperation oneState = bidirectionalRnn(true, 0, false);
    oneState.outputs.pop_back();
    oneState.inputs[0].bytes = testing::bytesOf(numbers(kTime * kBatch * 3, 1));
    EXPECT_TRUE(oneState.run().failsAtExecution());

    // Parallel linking with backward weights sized for the input, not the auxiliary input.
    SingleOperation wrongSize = bidirectionalRnn(false, 2, false);
    wrongSize.inputs[5].dims = {kUnits, 3};
    wrongSize.inputs[5].bytes.resize(kUnits * 3 * sizeof(float));
    wrongSize.inputs[0].bytes = testing::bytesOf(numbers(kTime * kBatch * 3, 1));
    ASSERT_TRUE(wrongSize.valid());  // shapes are checked against each other at prepare()
    EXPECT_NE(wrongSize.run().status, hal::ErrorStatus::NONE);
}

}  // namespace
}  // namespace nnemu
