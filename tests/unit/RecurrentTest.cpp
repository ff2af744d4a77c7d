// Recurrent operations: prepare() rejects malformed operands cleanly and infers the output
// shapes; the 16-bit fixed-point math of QUANTIZED_16BIT_LSTM; kernels refuse short buffers.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <deque>
#include <vector>

#include "nnemu/kernels/FixedPoint16.h"
#include "nnemu/cpu/Kernels.h"
#include "nnemu/hal/Operations.h"

namespace nnemu {
namespace {

using hal::OperandType;
using hal::OperationType;
using Dims = std::vector<uint32_t>;

constexpr auto F32 = OperandType::TENSOR_FLOAT32;

// Builds the operands of one operation; scalars carry their values, tensors only their dims
// unless given data.
class Operation {
public:
    explicit Operation(OperationType type) { context_.type = type; }
    // Views point into storage_: moving keeps the buffers, copying would not.
    Operation(Operation&&) = default;
    Operation(const Operation&) = delete;

    Operation& tensor(Dims dims, OperandType type = F32) {
        hal::OperandView view;
        view.type = type;
        view.dims = std::move(dims);
        context_.inputs.push_back(view);
        return *this;
    }
    // An optional operand bound with no value; its declared dims stay.
    Operation& omitted(Dims dims = {0}) {
        tensor(std::move(dims));
        context_.inputs.back().omitted = true;
        return *this;
    }
    Operation& i32(int32_t value) { return scalar(OperandType::INT32, value); }
    Operation& f32(float value) { return scalar(OperandType::FLOAT32, value); }
    Operation& boolean(bool value) { return scalar(OperandType::BOOL, static_cast<uint8_t>(value)); }
    Operation& outputs(uint32_t count, OperandType type = F32) {
        context_.outputs.assign(count, hal::OperandView{});
        for (auto& output : context_.outputs) output.type = type;
        return *this;
    }

    hal::OperandView& input(uint32_t i) { return context_.inputs[i]; }
    void setData(uint32_t i, std::vector<uint8_t> bytes) {
        storage_.push_back(std::move(bytes));
        context_.inputs[i].data = storage_.back().data();
        context_.inputs[i].length = storage_.back().size();
    }
    template <typename T>
    void setScalar(uint32_t i, T value) {
        std::vector<uint8_t> bytes(sizeof value);
        std::memcpy(bytes.data(), &value, sizeof value);
        setData(i, std::move(bytes));
    }

    bool validate() const { return signature().validate(context_); }
    bool prepare() { return hal::prepareOperation(signature(), context_); }  // the execution stage
    Dims outputDims(uint32_t i) const { return context_.outputs[i].dims; }
    hal::OperationContext& context() { return context_; }

private:
    template <typename T>
    Operation& scalar(OperandType type, T value) {
        hal::OperandView view;
        view.type = type;
        context_.inputs.push_back(view);
        setScalar(context_.numInputs() - 1, value);
        return *this;
    }
    const hal::OperationSignature& signature() const {
        const hal::OperationSignature* signature = hal::findSignature(context_.type);
        EXPECT_NE(signature, nullptr);
        return *signature;
    }

    hal::OperationContext context_;
    std::deque<std::vector<uint8_t>> storage_;
};

// ---- UNIDIRECTIONAL_SEQUENCE_RNN: batch 2, maxTime 3, inputSize 4, units 5.

Operation unidirectionalRnn(bool timeMajor) {
    Operation op(OperationType::UNIDIRECTIONAL_SEQUENCE_RNN);
    op.tensor(timeMajor ? Dims{3, 2, 4} : Dims{2, 3, 4}).tensor({5, 4}).tensor({5, 5}).tensor({5}).tensor({2, 5});
    op.i32(1).i32(timeMajor ? 1 : 0).outputs(1);
    return op;
}

TEST(UnidirectionalSequenceRnn, OutputFollowsTheInputsLayout) {
    Operation timeMajor = unidirectionalRnn(true);
    ASSERT_TRUE(timeMajor.validate());
    ASSERT_TRUE(timeMajor.prepare());
    EXPECT_EQ(timeMajor.outputDims(0), (Dims{3, 2, 5}));
    Operation batchMajor = unidirectionalRnn(false);
    ASSERT_TRUE(batchMajor.prepare());
    EXPECT_EQ(batchMajor.outputDims(0), (Dims{2, 3, 5}));
}

TEST(UnidirectionalSequenceRnn, PrepareRejectsMalformedShapes) {
    auto rejects = [](auto mutate) {
        Operation op = unidirectionalRnn(true);
        mutate(op);
        return !op.prepare();
    };
    EXPECT_TRUE(rejects([](Operation& op) { op.input(0).dims = {6, 4}; }));        // not a sequence
    EXPECT_TRUE(rejects([](Operation& op) { op.input(1).dims = {5, 3}; }));        // weights vs input size
    EXPECT_TRUE(rejects([](Operation& op) { op.input(2).dims = {5, 4}; }));        // recurrent not square
    EXPECT_TRUE(rejects([](Operation& op) { op.input(3).dims = {4}; }));           // bias
    EXPECT_TRUE(rejects([](Operation& op) { op.input(4).dims = {3, 5}; }));        // hidden state batch
    EXPECT_TRUE(rejects([](Operation& op) { op.setScalar<int32_t>(6, 2); }));      // time-major flag
    EXPECT_TRUE(rejects([](Operation& op) { op.setScalar<int32_t>(5, 4); }));      // not a fuse code
}

// ---- BIDIRECTIONAL_SEQUENCE_RNN: batch 2, maxTime 3, inputSize 4, fw units 5, bw units 6,
// auxiliary input size 7.

Operation bidirectionalRnn(bool aux, bool merge) {
    Operation op(OperationType::BIDIRECTIONAL_SEQUENCE_RNN);
    op.tensor({2, 3, 4});
    op.tensor({5, 4}).tensor({5, 5}).tensor({5}).tensor({2, 5});
    op.tensor({6, 4}).tensor({6, 6}).tensor({6}).tensor({2, 6});
    if (aux) {
        op.tensor({2, 3, 7}).tensor({5, 7}).tensor({6, 7});
    } else {
        op.omitted().omitted().omitted();
    }
    op.i32(0).boolean(false).boolean(merge).outputs(merge ? 1 : 2);
    return op;
}

TEST(BidirectionalSequenceRnn, OutputsSeparateOrMerged) {
    Operation separate = bidirectionalRnn(true, false);
    ASSERT_TRUE(separate.validate());
    ASSERT_TRUE(separate.prepare());
    EXPECT_EQ(separate.outputDims(0), (Dims{2, 3, 5}));
    EXPECT_EQ(separate.outputDims(1), (Dims{2, 3, 6}));
    Operation merged = bidirectionalRnn(false, true);
    ASSERT_TRUE(merged.validate());
    ASSERT_TRUE(merged.prepare());
    EXPECT_EQ(merged.outputDims(0), (Dims{2, 3, 11}));
}

// The merge flag is a value: the model takes any possible output count, the execution holds the
// count to the flag.
TEST(BidirectionalSequenceRnn, OutputCountAgainstTheMergeFlagIsCheckedAtExecution) {
    Operation mergedWithTwo = bidirectionalRnn(false, true);
    mergedWithTwo.outputs(2);
    EXPECT_TRUE(mergedWithTwo.validate());
    EXPECT_FALSE(mergedWithTwo.prepare());
    Operation five = bidirectionalRnn(false, false);
    five.outputs(5);  // neither 1 or 2 sequences, nor those and the 2 final states
    EXPECT_FALSE(five.validate());
}

TEST(BidirectionalSequenceRnn, PrepareRejectsMalformedOperands) {
    auto rejects = [](bool aux, auto mutate) {
        Operation op = bidirectionalRnn(aux, false);
        mutate(op);
        return !op.prepare();
    };
    EXPECT_TRUE(rejects(true, [](Operation& op) { op.input(10).omitted = true; }));    // aux input, no weights
    EXPECT_TRUE(rejects(false, [](Operation& op) { op.input(10).omitted = false; op.input(10).dims = {5, 7}; }));
    EXPECT_TRUE(rejects(true, [](Operation& op) { op.input(9).dims = {2, 4, 7}; }));   // aux steps
    EXPECT_TRUE(rejects(true, [](Operation& op) { op.input(11).dims = {6, 6}; }));     // bw aux weights
    EXPECT_TRUE(rejects(false, [](Operation& op) { op.input(8).dims = {2, 5}; }));     // bw hidden state
    EXPECT_TRUE(rejects(false, [](Operation& op) { op.input(4).omitted = true; }));    // required state
    EXPECT_TRUE(rejects(false, [](Operation& op) { op.setScalar<uint8_t>(14, 1); }));  // merged, two outputs
}

// ---- UNIDIRECTIONAL_SEQUENCE_LSTM: batch 2, maxTime 3, inputSize 4, units 5; output size 3
// with projection, 5 without.

struct LstmShape {
    bool cifg = false;
    bool peephole = false;
    bool projection = false;
    bool layerNorm = false;
};

// Appends one direction's 17 weight operands (LSTM inputs 1-17).
void addLstmWeights(Operation& op, const LstmShape& shape, uint32_t inputSize, uint32_t units, uint32_t outputSize) {
    for (int gate = 0; gate < 4; ++gate) {
        if (gate == 0 && shape.cifg) op.omitted({0, 0}); else op.tensor({units, inputSize});
    }
    for (int gate = 0; gate < 4; ++gate) {
        if (gate == 0 && shape.cifg) op.omitted({0, 0}); else op.tensor({units, outputSize});
    }
    for (int gate = 0; gate < 3; ++gate) {
        if (shape.peephole && !(gate == 0 && shape.cifg)) op.tensor({units}); else op.omitted();
    }
    for (int gate = 0; gate < 4; ++gate) {
        if (gate == 0 && shape.cifg) op.omitted(); else op.tensor({units});
    }
    if (shape.projection) op.tensor({outputSize, units}); else op.omitted({0, 0});
    op.omitted();  // projection bias
}

void addLayerNormWeights(Operation& op, const LstmShape& shape, uint32_t units) {
    for (int gate = 0; gate < 4; ++gate) {
        if (shape.layerNorm && !(gate == 0 && shape.cifg)) op.tensor({units}); else op.omitted();
    }
}

Operation unidirectionalLstm(const LstmShape& shape) {
    const uint32_t outputSize = shape.projection ? 3 : 5;
    Operation op(OperationType::UNIDIRECTIONAL_SEQUENCE_LSTM);
    op.tensor({3, 2, 4});
    addLstmWeights(op, shape, 4, 5, outputSize);
    op.tensor({2, outputSize}).tensor({2, 5}).i32(4).f32(0.0f).f32(0.0f).boolean(true);
    addLayerNormWeights(op, shape, 5);
    op.outputs(1);
    return op;
}

TEST(UnidirectionalSequenceLstm, OptionalGroupsShapeTheOutput) {
    for (const LstmShape& shape : {LstmShape{}, LstmShape{true, true, true, true}, LstmShape{false, true, false, true}}) {
        Operation op = unidirectionalLstm(shape);
        ASSERT_TRUE(op.validate());
        ASSERT_TRUE(op.prepare()) << shape.cifg << shape.peephole << shape.projection << shape.layerNorm;
        EXPECT_EQ(op.outputDims(0), (Dims{3, 2, shape.projection ? 3u : 5u}));
    }
}

TEST(UnidirectionalSequenceLstm, PrepareRejectsMalformedOperands) {
    auto rejects = [](const LstmShape& shape, auto mutate) {
        Operation op = unidirectionalLstm(shape);
        mutate(op);
        return !op.prepare();
    };
    const LstmShape plain;
    const LstmShape full{false, true, true, true};
    EXPECT_TRUE(rejects(plain, [](Operation& op) { op.input(2).omitted = true; }));     // forget weights
    EXPECT_TRUE(rejects(plain, [](Operation& op) { op.input(19).omitted = true; }));    // cell state
    EXPECT_TRUE(rejects(plain, [](Operation& op) { op.input(0).omitted = true; }));     // the input
    EXPECT_TRUE(rejects(plain, [](Operation& op) { op.input(3).dims = {5, 3}; }));      // input size
    EXPECT_TRUE(rejects(plain, [](Operation& op) { op.input(7).dims = {5, 4}; }));      // recurrent width
    EXPECT_TRUE(rejects(plain, [](Operation& op) { op.input(5).omitted = true; }));     // half a CIFG
    EXPECT_TRUE(rejects(full, [](Operation& op) { op.input(11).omitted = true; }));     // partial peephole
    EXPECT_TRUE(rejects(full, [](Operation& op) { op.input(26).omitted = true; }));     // partial layer norm
    EXPECT_TRUE(rejects(full, [](Operation& op) { op.input(16).dims = {3, 4}; }));      // projection
    EXPECT_TRUE(rejects(plain, [](Operation& op) {                                      // bias, no weights
        op.input(17).omitted = false;
        op.input(17).dims = {5};
    }));
    EXPECT_TRUE(rejects(plain, [](Operation& op) { op.input(18).dims = {2, 3}; }));     // output state width
    EXPECT_TRUE(rejects(plain, [](Operation& op) { op.input(19).dims = {1, 5}; }));     // cell state batch
    EXPECT_TRUE(rejects(plain, [](Operation& op) { op.setScalar<int32_t>(20, 5); }));   // activation
    EXPECT_TRUE(rejects(plain, [](Operation& op) { op.setScalar<float>(21, -1.0f); })); // cell clip
    EXPECT_TRUE(rejects(plain, [](Operation& op) { op.input(0).dims = {3, 8}; }));      // not a sequence
}

// ---- BIDIRECTIONAL_SEQUENCE_LSTM: batch 2, maxTime 3, inputSize 4; forward 5 units with no
// projection, backward 6 units projected to 2; auxiliary input size 7.

Operation bidirectionalLstm(bool aux, bool merge) {
    Operation op(OperationType::BIDIRECTIONAL_SEQUENCE_LSTM);
    op.tensor({3, 2, 4});
    addLstmWeights(op, LstmShape{}, 4, 5, 5);
    addLstmWeights(op, LstmShape{true, true, true, false}, 4, 6, 2);
    op.tensor({2, 5}).tensor({2, 5}).tensor({2, 2}).tensor({2, 6});
    if (aux) {
        op.tensor({3, 2, 7});
        for (int gate = 0; gate < 4; ++gate) op.tensor({5, 7});
        op.omitted();  // the backward cell has no input gate (CIFG)
        for (int gate = 1; gate < 4; ++gate) op.tensor({6, 7});
    } else {
        for (int i = 0; i < 9; ++i) op.omitted();
    }
    op.i32(4).f32(0.0f).f32(0.0f).boolean(merge).boolean(true);
    addLayerNormWeights(op, LstmShape{}, 5);
    addLayerNormWeights(op, LstmShape{}, 6);
    op.outputs(merge ? 1 : 2);
    return op;
}

TEST(BidirectionalSequenceLstm, OutputsSeparateOrMerged) {
    Operation separate = bidirectionalLstm(false, false);
    ASSERT_EQ(separate.context().numInputs(), 61u);
    ASSERT_TRUE(separate.validate());
    ASSERT_TRUE(separate.prepare());
    EXPECT_EQ(separate.outputDims(0), (Dims{3, 2, 5}));
    EXPECT_EQ(separate.outputDims(1), (Dims{3, 2, 2}));
    Operation merged = bidirectionalLstm(true, true);
    ASSERT_TRUE(merged.validate());
    ASSERT_TRUE(merged.prepare());
    EXPECT_EQ(merged.outputDims(0), (Dims{3, 2, 7}));
}

TEST(BidirectionalSequenceLstm, PrepareRejectsMalformedOperands) {
    auto rejects = [](bool aux, auto mutate) {
        Operation op = bidirectionalLstm(aux, false);
        mutate(op);
        return !op.prepare();
    };
    EXPECT_TRUE(rejects(false, [](Operation& op) { op.input(20).dims = {6, 3}; }));   // bw input size
    EXPECT_TRUE(rejects(false, [](Operation& op) { op.input(37).dims = {2, 6}; }));   // bw output state
    EXPECT_TRUE(rejects(true, [](Operation& op) { op.input(39).omitted = true; }));   // aux weights, no aux input
    EXPECT_TRUE(rejects(true, [](Operation& op) { op.input(42).omitted = true; }));   // partial aux weights
    EXPECT_TRUE(rejects(true, [](Operation& op) { op.input(39).dims = {3, 1, 7}; })); // aux batch
    EXPECT_TRUE(rejects(false, [](Operation& op) { op.setScalar<uint8_t>(51, 1); })); // merged, two outputs
}

// ---- LSTM and SVDF (single step): omitted required operands are refused before the kernel.

TEST(Lstm, PrepareRejectsAnOmittedRequiredOperand) {
    auto lstm = [] {
        Operation op(OperationType::LSTM);
        op.tensor({2, 4});
        addLstmWeights(op, LstmShape{}, 4, 5, 5);
        op.tensor({2, 5}).tensor({2, 5}).i32(4).f32(0.0f).f32(0.0f).outputs(4);
        return op;
    };
    Operation valid = lstm();
    ASSERT_TRUE(valid.prepare());
    EXPECT_EQ(valid.outputDims(0), (Dims{2, 20}));
    for (uint32_t required : {0u, 2u, 7u, 14u, 18u, 19u}) {
        Operation op = lstm();
        op.input(required).omitted = true;
        EXPECT_FALSE(op.prepare()) << required;
    }
}

TEST(Svdf, PrepareRejectsAnOmittedState) {
    Operation op(OperationType::SVDF);
    op.tensor({2, 4}).tensor({6, 4}).tensor({6, 3}).omitted().tensor({2, 18}).i32(2).i32(0).outputs(2);
    ASSERT_TRUE(op.prepare());
    EXPECT_EQ(op.outputDims(1), (Dims{2, 3}));
    op.input(4).omitted = true;
    EXPECT_FALSE(op.prepare());
}

// ---- QUANTIZED_16BIT_LSTM: batch 2, inputSize 3, outputSize 4.

Operation quantizedLstm() {
    constexpr auto Q8 = OperandType::TENSOR_QUANT8_ASYMM;
    Operation op(OperationType::QUANTIZED_16BIT_LSTM);
    auto quant = [&](Dims dims, OperandType type, float scale, int32_t zeroPoint) {
        op.tensor(std::move(dims), type);
        op.input(op.context().numInputs() - 1).scale = scale;
        op.input(op.context().numInputs() - 1).zeroPoint = zeroPoint;
    };
    const float weightsScale = 0.005f;
    quant({2, 3}, Q8, 1.0f / 128, 128);
    for (int i = 0; i < 4; ++i) quant({4, 3}, Q8, weightsScale, 120);
    for (int i = 0; i < 4; ++i) quant({4, 4}, Q8, weightsScale, 120);
    for (int i = 0; i < 4; ++i) quant({4}, OperandType::TENSOR_INT32, weightsScale / 128, 0);
    quant({2, 4}, OperandType::TENSOR_QUANT16_SYMM, 1.0f / 2048, 0);
    quant({2, 4}, Q8, 1.0f / 128, 128);
    op.outputs(2);
    auto& outputs = op.context().outputs;
    outputs[0] = op.input(13);
    outputs[1] = op.input(14);
    return op;
}

TEST(QuantizedLstm, ValidatesTheFixedScales) {
    Operation valid = quantizedLstm();
    ASSERT_TRUE(valid.validate());
    Operation inputScale = quantizedLstm();
    inputScale.input(0).scale = 1.0f / 256;
    EXPECT_FALSE(inputScale.validate());
    // Relations between operands' quantizations are checked at execution.
    Operation biasScale = quantizedLstm();
    biasScale.input(10).scale *= 2.0f;
    EXPECT_TRUE(biasScale.validate());
    EXPECT_FALSE(biasScale.prepare());
    Operation weightsZeroPoint = quantizedLstm();
    weightsZeroPoint.input(6).zeroPoint = 121;
    EXPECT_TRUE(weightsZeroPoint.validate());
    EXPECT_FALSE(weightsZeroPoint.prepare());
    Operation cellScale = quantizedLstm();
    cellScale.context().outputs[0].scale = 1.0f / 4096;
    EXPECT_FALSE(cellScale.validate());
}

TEST(QuantizedLstm, PrepareRejectsMalformedShapes) {
    Operation valid = quantizedLstm();
    ASSERT_TRUE(valid.prepare());
    EXPECT_EQ(valid.outputDims(0), (Dims{2, 4}));
    EXPECT_EQ(valid.outputDims(1), (Dims{2, 4}));
    auto rejects = [](uint32_t i, Dims dims) {
        Operation op = quantizedLstm();
        op.input(i).dims = std::move(dims);
        return !op.prepare();
    };
    EXPECT_TRUE(rejects(0, {6}));
    EXPECT_TRUE(rejects(3, {4, 2}));
    EXPECT_TRUE(rejects(7, {4, 3}));
    EXPECT_TRUE(rejects(12, {3}));
    EXPECT_TRUE(rejects(13, {1, 4}));
    EXPECT_TRUE(rejects(14, {2, 5}));
}

// With every weight at its zero point the gates see only their biases: the fixed-point cell
// must agree with the float formulas within the error of its 16-bit logistic and tanh (a few
// 1e-4, two units of the cell state's 2^-11 scale) and one unit of the 8-bit output.
TEST(QuantizedLstm, BiasOnlyGatesMatchTheFloatFormulas) {
    Operation op = quantizedLstm();
    const float biasScale = op.input(9).scale;
    const std::vector<float> gateInputs[4] = {{-2.0f, 0.5f, 1.5f, 3.0f},    // input
                                              {1.0f, -1.0f, 0.2f, 4.0f},    // forget
                                              {0.7f, -3.0f, 2.5f, -0.1f},   // cell
                                              {-0.5f, 2.0f, 0.0f, 1.2f}};   // output
    for (uint32_t i = 0; i < 15; ++i) {
        const auto& view = op.input(i);
        std::vector<uint8_t> bytes(hal::byteSize(view.type, view.dims));
        if (i >= 1 && i <= 8) std::fill(bytes.begin(), bytes.end(), 120);
        if (i >= 9 && i <= 12) {
            auto* bias = reinterpret_cast<int32_t*>(bytes.data());
            for (int u = 0; u < 4; ++u) bias[u] = static_cast<int32_t>(std::lround(gateInputs[i - 9][u] / biasScale));
        }
        if (i == 13) {
            auto* cell = reinterpret_cast<int16_t*>(bytes.data());
            for (int k = 0; k < 8; ++k) cell[k] = static_cast<int16_t>(k * 1500 - 6000);
        }
        if (i == 14 || i == 0) std::fill(bytes.begin(), bytes.end(), 77);
        op.setData(i, std::move(bytes));
    }
    std::vector<int16_t> cellOut(8);
    std::vector<uint8_t> output(8);
    auto& outputs = op.context().outputs;
    outputs[0].dims = outputs[1].dims = {2, 4};
    outputs[0].data = reinterpret_cast<uint8_t*>(cellOut.data());
    outputs[0].length = 16;
    outputs[1].data = output.data();
    outputs[1].length = 8;
    const cpu::Kernel kernel = cpu::findKernel(OperationType::QUANTIZED_16BIT_LSTM);
    ASSERT_NE(kernel, nullptr);
    ASSERT_TRUE(kernel(op.context()));

    auto sigmoid = [](float x) { return 1.0f / (1.0f + std::exp(-x)); };
    for (int b = 0; b < 2; ++b) {
        for (int u = 0; u < 4; ++u) {
            const float previous = (b * 4 + u) * 1500 - 6000;
            const float cell = sigmoid(gateInputs[1][u]) * previous / 2048 +
                               sigmoid(gateInputs[0][u]) * std::tanh(gateInputs[2][u]);
            const float hidden = sigmoid(gateInputs[3][u]) * std::tanh(cell);
            EXPECT_NEAR(cellOut[b * 4 + u], cell * 2048, 2.0) << b << " " << u;
            EXPECT_NEAR(output[b * 4 + u], 128 + hidden * 128, 1.0) << b << " " << u;
        }
    }
}

// ---- 16-bit fixed point

// The polynomial and Newton-Raphson approximations stay within a few 1e-4 over the whole range.
TEST(FixedPoint16, LogisticAndTanhFollowTheFloatFunctions) {
    for (int raw = -32768; raw <= 32767; ++raw) {
        const auto x = static_cast<int16_t>(raw);
        const double real = raw / 4096.0;  // 3 integer bits
        EXPECT_NEAR(quant::fixed16::logistic(x, 3) / 32768.0, 1.0 / (1.0 + std::exp(-real)), 2e-4) << raw;
        EXPECT_NEAR(quant::fixed16::tanh(x, 3) / 32768.0, std::tanh(real), 4e-4) << raw;
    }
    EXPECT_EQ(quant::fixed16::logistic(0, 3), 16384);
    EXPECT_EQ(quant::fixed16::tanh(0, 3), 0);
}

TEST(FixedPoint16, SaturatesAndRoundsLikeGemmlowp) {
    EXPECT_EQ(quant::fixed16::multiply(-32768, -32768), 32767);
    EXPECT_EQ(quant::fixed16::multiply(16384, 16384), 8192);   // 1/2 * 1/2
    EXPECT_EQ(quant::fixed16::multiplyByPOT(20000, 1), 32767);
    EXPECT_EQ(quant::fixed16::multiplyByPOT(-20000, 1), -32768);
    EXPECT_EQ(quant::fixed16::multiplyByPOT(5, -1), 3);
    EXPECT_EQ(quant::fixed16::multiplyByPOT(-5, -1), -3);
    EXPECT_EQ(quant::fixed16::saturatingAdd(30000, 30000), 32767);
    EXPECT_EQ(quant::fixed16::roundingHalfSum(3, 4), 4);
    EXPECT_EQ(quant::fixed16::roundingHalfSum(-3, -4), -4);
}

// ---- Kernels check buffer sizes before reading.

TEST(SequenceKernels, RefuseAnInputShorterThanItsDims) {
    Operation op = unidirectionalRnn(true);
    ASSERT_TRUE(op.prepare());
    for (uint32_t i = 0; i < 5; ++i) {
        const auto& view = op.input(i);
        op.setData(i, std::vector<uint8_t>(hal::byteSize(view.type, view.dims)));
    }
    op.setData(0, std::vector<uint8_t>(8));  // far fewer bytes than [3, 2, 4] floats
    std::vector<float> output(30);
    auto& out = op.context().outputs[0];
    out.data = reinterpret_cast<uint8_t*>(output.data());
    out.length = output.size() * sizeof(float);
    const cpu::Kernel kernel = cpu::findKernel(OperationType::UNIDIRECTIONAL_SEQUENCE_RNN);
    ASSERT_NE(kernel, nullptr);
    EXPECT_FALSE(kernel(op.context()));
}

}  // namespace
}  // namespace nnemu
