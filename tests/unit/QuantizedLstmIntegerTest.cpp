// QUANTIZED_LSTM (95) on the reference executor: one step of the integer cell against a float
// LSTM cell on the dequantized operands (layer normalization, peephole, projection, CIFG and
// clips), and malformed operands rejected at validation or at prepare().
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "SingleOperation.h"

namespace nnemu {
namespace {

using hal::OperandType;
using testing::RunResult;
using testing::SingleOperation;
using testing::TestOperand;

constexpr auto Q8S = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
constexpr auto Q8SYM = OperandType::TENSOR_QUANT8_SYMM;
constexpr auto Q16SYM = OperandType::TENSOR_QUANT16_SYMM;
constexpr auto I32 = OperandType::TENSOR_INT32;

constexpr uint32_t kBatch = 2;
constexpr uint32_t kInputSize = 3;
constexpr uint32_t kUnits = 4;
constexpr int kInput = 0, kForget = 1, kCell = 2, kOutput = 3;

struct Config {
    bool cifg = false;
    bool peephole = false;
    bool projection = false;
    bool layerNorm = false;
    float cellClip = 0.0f;  // < 0: operand omitted
    float projClip = 0.0f;
};

// Deterministic pseudo-random integers.
class Numbers {
public:
    explicit Numbers(uint32_t seed) : state_(seed) {}
    int32_t next(int32_t low, int32_t high) {
        state_ = state_ * 1664525u + 1013904223u;
        return low + static_cast<int32_t>((state_ >> 8) % static_cast<uint32_t>(high - low + 1));
    }
    template <typename T>
    std::vector<T> many(size_t count, int32_t low, int32_t high) {
        std::vector<T> values(count);
        for (T& v : values) v = static_cast<T>(next(low, high));
        return values;
    }

private:
    uint32_t state_;
};

// One quantized tensor: values as stored, with scale and zero point.
template <typename T>
struct Tensor {
    std::vector<T> q;
    float scale = 0.0f;
    int32_t zeroPoint = 0;
    double real(size_t i) const { return (static_cast<double>(q[i]) - zeroPoint) * scale; }
};

// The operands of one QUANTIZED_LSTM step.
struct Step {
    Config config;
    uint32_t outputSize = kUnits;
    Tensor<int8_t> input, outputState;
    Tensor<int16_t> cellState;
    Tensor<int8_t> inputWeights[4], recurrentWeights[4], projectionWeights;
    Tensor<int16_t> peephole[4], layerNorm[4];
    Tensor<int32_t> bias[4], projectionBias;
    float intermediateScale[4] = {};
    float hiddenScale = 0.0f;
    int32_t hiddenZeroPoint = 0;

    bool hasGate(int g) const { return !(config.cifg && g == kInput); }
};

Step makeStep(const Config& config, uint32_t seed) {
    Numbers n(seed);
    Step s;
    s.config = config;
    s.outputSize = config.projection ? 2 : kUnits;
    s.input = {n.many<int8_t>(kBatch * kInputSize, -90, 90), 1.0f / 64, 3};
    s.outputState = {n.many<int8_t>(kBatch * s.outputSize, -100, 100), 1.0f / 128, -2};
    s.cellState = {n.many<int16_t>(kBatch * kUnits, -3000, 3000), 1.0f / 2048, 0};
    const float layerNormIntermediate[4] = {1.0f / 2048, 1.0f / 1500, 1.0f / 2048, 1.0f / 1800};
    for (int g = 0; g < 4; ++g) {
        if (!s.hasGate(g)) continue;
        s.inputWeights[g] = {n.many<int8_t>(kUnits * kInputSize, -100, 100), 1.0f / 100, 0};
        s.recurrentWeights[g] = {n.many<int8_t>(kUnits * s.outputSize, -100, 100), 1.0f / 128, 0};
        if (config.peephole && g != kCell) s.peephole[g] = {n.many<int16_t>(kUnits, -2000, 2000), 1.0f / 4096, 0};
        if (config.layerNorm) {
            s.layerNorm[g] = {n.many<int16_t>(kUnits, 2000, 6000), 1.0f / 4096, 0};
            s.bias[g] = {n.many<int32_t>(kUnits, -(1 << 21), 1 << 21), 1.0f / 4096 / 1024, 0};
            s.intermediateScale[g] = layerNormIntermediate[g];
        } else {
            s.bias[g] = {n.many<int32_t>(kUnits, -3200, 3200), s.input.scale * s.inputWeights[g].scale, 0};
            s.intermediateScale[g] = 1.0f / 4096;
        }
    }
    if (config.projection) {
        s.hiddenScale = 1.0f / 100;
        s.hiddenZeroPoint = 1;
        s.projectionWeights = {n.many<int8_t>(s.outputSize * kUnits, -100, 100), 1.0f / 128, 0};
        s.projectionBias = {n.many<int32_t>(s.outputSize, -2560, 2560), s.hiddenScale / 128, 0};
    } else {
        // Without projection the hidden state is the output state.
        s.hiddenScale = s.outputState.scale;
        s.hiddenZeroPoint = s.outputState.zeroPoint;
    }
    return s;
}

template <typename T>
void addTensor(SingleOperation& m, OperandType type, std::vector<uint32_t> dims, const Tensor<T>& t) {
    if (t.q.empty()) {
        m.inputs.push_back(testing::omitted(type, std::move(dims), type == I32 ? 0.0f : 1.0f));
    } else {
        m.inputs.push_back(testing::tensor(type, std::move(dims), t.q, false, t.scale, t.zeroPoint));
    }
}

// The step's input is the model input, every other operand a constant or omitted.
SingleOperation buildModel(const Step& s) {
    SingleOperation m{hal::OperationType::QUANTIZED_LSTM, {}, {}};
    m.inputs.push_back(testing::tensor(Q8S, {kBatch, kInputSize}, s.input.q, true, s.input.scale, s.input.zeroPoint));
    for (int g = 0; g < 4; ++g) addTensor(m, Q8SYM, {kUnits, kInputSize}, s.inputWeights[g]);
    for (int g = 0; g < 4; ++g) addTensor(m, Q8SYM, {kUnits, s.outputSize}, s.recurrentWeights[g]);
    for (int g : {kInput, kForget, kOutput}) addTensor(m, Q16SYM, {kUnits}, s.peephole[g]);
    for (int g = 0; g < 4; ++g) addTensor(m, I32, {kUnits}, s.bias[g]);
    addTensor(m, Q8SYM, {s.outputSize, kUnits}, s.projectionWeights);
    addTensor(m, I32, {s.outputSize}, s.projectionBias);
    addTensor(m, Q8S, {kBatch, s.outputSize}, s.outputState);
    addTensor(m, Q16SYM, {kBatch, kUnits}, s.cellState);
    for (int g = 0; g < 4; ++g) addTensor(m, Q16SYM, {kUnits}, s.layerNorm[g]);
    for (float clip : {s.config.cellClip, s.config.projClip}) {
        if (clip < 0.0f) {
            m.inputs.push_back(testing::omitted(OperandType::FLOAT32));
        } else {
            m.inputs.push_back(testing::scalar(OperandType::FLOAT32, clip));
        }
    }
    for (int g = 0; g < 4; ++g) m.inputs.push_back(testing::scalar(OperandType::FLOAT32, s.intermediateScale[g]));
    m.inputs.push_back(testing::scalar(OperandType::INT32, s.hiddenZeroPoint));
    m.inputs.push_back(testing::scalar(OperandType::FLOAT32, s.hiddenScale));
    const auto outputState = testing::sizedOutput(Q8S, {kBatch, s.outputSize}, s.outputState.scale,
                                                  s.outputState.zeroPoint);
    m.outputs = {outputState, testing::sizedOutput(Q16SYM, {kBatch, kUnits}, s.cellState.scale), outputState};
    return m;
}

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

double quantizeReal(double value, float scale, int32_t zeroPoint) {
    const double q = std::clamp(std::round(value / scale) + zeroPoint, -128.0, 127.0);
    return (q - zeroPoint) * scale;
}

struct Reference {
    std::vector<double> outputState;  // real values
    std::vector<double> cellState;
};

// Gate g before its activation, for every batch row and unit, in float.
std::vector<double> gateInput(const Step& s, int g, const std::vector<double>& cell) {
    std::vector<double> pre(kBatch * kUnits);
    for (uint32_t b = 0; b < kBatch; ++b) {
        for (uint32_t u = 0; u < kUnits; ++u) {
            double sum = 0.0;
            for (uint32_t i = 0; i < kInputSize; ++i) {
                sum += s.inputWeights[g].real(u * kInputSize + i) * s.input.real(b * kInputSize + i);
            }
            for (uint32_t j = 0; j < s.outputSize; ++j) {
                sum += s.recurrentWeights[g].real(u * s.outputSize + j) * s.outputState.real(b * s.outputSize + j);
            }
            if (!s.peephole[g].q.empty()) sum += s.peephole[g].real(u) * cell[b * kUnits + u];
            pre[b * kUnits + u] = sum;
        }
    }
    for (uint32_t b = 0; b < kBatch; ++b) {
        double* row = pre.data() + b * kUnits;
        if (s.config.layerNorm) {
            double mean = 0.0, variance = 0.0;
            for (uint32_t u = 0; u < kUnits; ++u) mean += row[u] / kUnits;
            for (uint32_t u = 0; u < kUnits; ++u) variance += (row[u] - mean) * (row[u] - mean) / kUnits;
            for (uint32_t u = 0; u < kUnits; ++u) {
                row[u] = (row[u] - mean) / std::sqrt(variance) * s.layerNorm[g].real(u) + s.bias[g].real(u);
            }
        } else {
            for (uint32_t u = 0; u < kUnits; ++u) row[u] += s.bias[g].real(u);
        }
    }
    return pre;
}

Reference floatStep(const Step& s) {
    std::vector<double> cell(kBatch * kUnits);
    for (size_t i = 0; i < cell.size(); ++i) cell[i] = s.cellState.real(i);
    auto activate = [](std::vector<double> v, double (*f)(double)) {
        for (double& x : v) x = f(x);
        return v;
    };
    const auto forget = activate(gateInput(s, kForget, cell), sigmoid);
    const auto input = s.config.cifg ? std::vector<double>{} : activate(gateInput(s, kInput, cell), sigmoid);
    const auto candidate = activate(gateInput(s, kCell, cell), [](double x) { return std::tanh(x); });
    for (size_t i = 0; i < cell.size(); ++i) {
        const double in = s.config.cifg ? 1.0 - forget[i] : input[i];
        cell[i] = forget[i] * cell[i] + in * candidate[i];
        if (s.config.cellClip > 0.0f) cell[i] = std::clamp<double>(cell[i], -s.config.cellClip, s.config.cellClip);
    }
    const auto output = activate(gateInput(s, kOutput, cell), sigmoid);
    std::vector<double> hidden(cell.size());
    for (size_t i = 0; i < cell.size(); ++i) {
        hidden[i] = quantizeReal(output[i] * std::tanh(cell[i]), s.hiddenScale, s.hiddenZeroPoint);
    }
    Reference ref{hidden, cell};
    if (!s.config.projection) return ref;
    ref.outputState.assign(kBatch * s.outputSize, 0.0);
    for (uint32_t b = 0; b < kBatch; ++b) {
        for (uint32_t o = 0; o < s.outputSize; ++o) {
            double sum = s.projectionBias.real(o);
            for (uint32_t u = 0; u < kUnits; ++u) {
                sum += s.projectionWeights.real(o * kUnits + u) * hidden[b * kUnits + u];
            }
            if (s.config.projClip > 0.0f) sum = std::clamp<double>(sum, -s.config.projClip, s.config.projClip);
            ref.outputState[b * s.outputSize + o] = sum;
        }
    }
    return ref;
}

// Runs the step and compares with the float cell: the output state within one of its
// quantization steps, the cell state within four of its (2^-11) steps.
void expectMatchesFloatCell(const Config& config, uint32_t seed) {
    const Step s = makeStep(config, seed);
    const RunResult r = buildModel(s).run();
    ASSERT_TRUE(r.valid) << r.why;
    ASSERT_EQ(r.status, hal::ErrorStatus::NONE);
    const auto outputState = r.values<int8_t>(0);
    const auto cellState = r.values<int16_t>(1);
    EXPECT_EQ(r.outputs[0], r.outputs[2]) << "output 2 repeats output 0";
    const Reference ref = floatStep(s);
    ASSERT_EQ(outputState.size(), ref.outputState.size());
    for (size_t i = 0; i < outputState.size(); ++i) {
        const double actual = (outputState[i] - s.outputState.zeroPoint) * double{s.outputState.scale};
        const double expected = quantizeReal(ref.outputState[i], s.outputState.scale, s.outputState.zeroPoint);
        EXPECT_NEAR(actual, expected, 1.01 * s.outputState.scale) << "output state " << i;
    }
    for (size_t i = 0; i < cellState.size(); ++i) {
        EXPECT_NEAR(cellState[i] * double{s.cellState.scale}, ref.cellState[i], 4.0 * s.cellState.scale)
                << "cell state " << i;
    }
}

TEST(QuantizedLstmInteger, LayerNormPeepholeProjectionMatchesFloatCell) {
    for (uint32_t seed : {1u, 2u, 3u}) {
        SCOPED_TRACE(seed);
        expectMatchesFloatCell({.peephole = true, .projection = true, .layerNorm = true}, seed);
    }
}

TEST(QuantizedLstmInteger, CifgLayerNormMatchesFloatCell) {
    expectMatchesFloatCell({.cifg = true, .layerNorm = true}, 4);
}

TEST(QuantizedLstmInteger, WithoutLayerNormTheBiasJoinsTheInputMatmul) {
    expectMatchesFloatCell({.peephole = true, .cellClip = -1.0f, .projClip = -1.0f}, 5);
    expectMatchesFloatCell({.cifg = true, .projection = true}, 6);
}

TEST(QuantizedLstmInteger, ClipsBoundTheCellAndProjectedStates) {
    expectMatchesFloatCell({.projection = true, .layerNorm = true, .cellClip = 0.5f, .projClip = 0.3f}, 7);
}

// ---- malformed operands

// Valid and run without error once `mutate` altered the operands.
bool accepted(const Config& config, const std::function<void(SingleOperation&)>& mutate) {
    SingleOperation m = buildModel(makeStep(config, 11));
    mutate(m);
    const RunResult r = m.run();
    return r.valid && r.status == hal::ErrorStatus::NONE;
}

TestOperand& operandOf(SingleOperation& m, uint32_t input) { return m.inputs[input]; }

void omit(SingleOperation& m, uint32_t input) { operandOf(m, input).omitted = true; }

TEST(QuantizedLstmInteger, RejectsMalformedOperands) {
    const Config full{.peephole = true, .projection = true, .layerNorm = true};
    EXPECT_TRUE(accepted(full, [](SingleOperation&) {}));
    // A peephole, layer normalization or CIFG group only partly there.
    EXPECT_FALSE(accepted(full, [](SingleOperation& m) { omit(m, 10); }));
    EXPECT_FALSE(accepted(full, [](SingleOperation& m) { omit(m, 22); }));
    EXPECT_FALSE(accepted(full, [](SingleOperation& m) { omit(m, 5); }));
    EXPECT_FALSE(accepted(full, [](SingleOperation& m) { omit(m, 12); }));
    // A projection bias without projection weights.
    EXPECT_FALSE(accepted(full, [](SingleOperation& m) { omit(m, 16); }));
    // Wrong types, shapes and quantizations.
    EXPECT_FALSE(accepted(full, [](SingleOperation& m) { operandOf(m, 2).type = OperandType::TENSOR_QUANT8_ASYMM; }));
    EXPECT_FALSE(accepted(full, [](SingleOperation& m) { operandOf(m, 6).dims = {kUnits, 3}; }));
    EXPECT_FALSE(accepted(full, [](SingleOperation& m) { operandOf(m, 19).scale = 1.0f / 3000; }));  // not 2^k
    EXPECT_FALSE(accepted(full, [](SingleOperation& m) { operandOf(m, 19).scale = 1.0f / 64; }));    // 2^-6: too coarse
    EXPECT_FALSE(accepted(full, [](SingleOperation& m) { m.outputs[0].zeroPoint = 5; }));
    EXPECT_FALSE(accepted(full, [](SingleOperation& m) { m.outputs[1].scale = 1.0f / 1024; }));
    EXPECT_FALSE(accepted(full, [](SingleOperation& m) { operandOf(m, 30).type = OperandType::FLOAT32; }));
}

TEST(QuantizedLstmInteger, RejectsInvalidScalars) {
    const Config config{.layerNorm = true};
    auto withFloat = [](uint32_t input, float value) {
        return [=](SingleOperation& m) { operandOf(m, input).bytes = testing::bytesOf(std::vector<float>{value}); };
    };
    EXPECT_FALSE(accepted(config, withFloat(24, -1.0f)));  // negative cell clip
    EXPECT_FALSE(accepted(config, withFloat(27, 0.0f)));   // forget gate intermediate scale
    EXPECT_FALSE(accepted(config, withFloat(31, 0.0f)));   // hidden state scale
}

}  // namespace
}  // namespace nnemu
