// Reference kernels of the single-step recurrent operations: LSTM, RNN, SVDF.
// FLOAT16 operands are converted to float, computed in float and converted back.
#include <algorithm>
#include <cmath>
#include <vector>

#include "nnemu/cpu/Kernels.h"
#include "nnemu/cpu/QuantMath.h"

namespace nnemu::cpu {
namespace {

using hal::OperandType;
using hal::OperandView;
using hal::OperationContext;

bool isFloatTensor(OperandType type) {
    return type == OperandType::TENSOR_FLOAT32 || type == OperandType::TENSOR_FLOAT16;
}

bool isAbsent(const OperandView& operand) {
    return operand.omitted || operand.data == nullptr ||
           (!operand.dims.empty() && operand.elements() == 0);
}

// The values of a float tensor as float; empty when the operand is absent.
std::vector<float> load(const OperandView& operand) {
    std::vector<float> values;
    if (isAbsent(operand)) return values;
    const size_t count = operand.elements();
    values.resize(count);
    if (operand.type == OperandType::TENSOR_FLOAT16) {
        const uint16_t* data = operand.as<uint16_t>();
        for (size_t i = 0; i < count; ++i) values[i] = hal::halfToFloat(data[i]);
    } else {
        const float* data = operand.as<float>();
        std::copy(data, data + count, values.begin());
    }
    return values;
}

bool store(const std::vector<float>& values, OperandView& operand) {
    const size_t count = values.size();
    if (operand.type == OperandType::TENSOR_FLOAT16) {
        NN_RET_CHECK(operand.length >= count * sizeof(uint16_t));
        uint16_t* data = operand.as<uint16_t>();
        for (size_t i = 0; i < count; ++i) data[i] = hal::floatToHalf(values[i]);
    } else {
        NN_RET_CHECK(operand.type == OperandType::TENSOR_FLOAT32);
        NN_RET_CHECK(operand.length >= count * sizeof(float));
        std::copy(values.begin(), values.end(), operand.as<float>());
    }
    return true;
}

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// Activation codes shared with TFLite: 0 none, 1 relu, 2 relu1, 3 relu6, 4 tanh, 6 sigmoid.
float activate(float x, int32_t activation) {
    switch (activation) {
        case 1: return std::max(0.0f, x);
        case 2: return std::min(1.0f, std::max(-1.0f, x));
        case 3: return std::min(6.0f, std::max(0.0f, x));
        case 4: return std::tanh(x);
        case 6: return sigmoid(x);
        default: return x;
    }
}

// out[b][r] += sum_c matrix[r][c] * vectors[b][c]; matrix is [rows, cols], vectors [batch, cols].
void addMatrixTimesVectors(const std::vector<float>& matrix, uint32_t rows, uint32_t cols,
                           const float* vectors, uint32_t batch, float* out) {
    for (uint32_t b = 0; b < batch; ++b) {
        const float* v = vectors + static_cast<size_t>(b) * cols;
        float* o = out + static_cast<size_t>(b) * rows;
        for (uint32_t r = 0; r < rows; ++r) {
            const float* m = matrix.data() + static_cast<size_t>(r) * cols;
            float sum = 0.0f;
            for (uint32_t c = 0; c < cols; ++c) sum += m[c] * v[c];
            o[r] += sum;
        }
    }
}

float clip(float x, float limit) { return std::min(limit, std::max(-limit, x)); }

// ---- LSTM (input positions as in hal/operations/Recurrent.cpp)

constexpr float kLayerNormEpsilon = 1e-8f;

// Normalizes each row of gate [batch, units] to zero mean and unit variance.
void normalizeRows(std::vector<float>& gate, uint32_t batch, uint32_t units) {
    for (uint32_t b = 0; b < batch; ++b) {
        float* row = gate.data() + static_cast<size_t>(b) * units;
        float sum = 0.0f;
        float sumSquares = 0.0f;
        for (uint32_t u = 0; u < units; ++u) {
            sum += row[u];
            sumSquares += row[u] * row[u];
        }
        const float mean = sum / static_cast<float>(units);
        const float variance = sumSquares / static_cast<float>(units) - mean * mean;
        const float inverseDeviation =
                1.0f / std::sqrt(variance == 0.0f ? kLayerNormEpsilon : variance);
        for (uint32_t u = 0; u < units; ++u) row[u] = (row[u] - mean) * inverseDeviation;
    }
}

bool lstm(OperationContext& context) {
    const OperandType type = context.inputType(0);
    NN_RET_CHECK(isFloatTensor(type));
    const uint32_t batch = context.input(0).dim(0);
    const uint32_t inputSize = context.input(0).dim(1);
    const uint32_t units = context.input(4).dim(0);
    const uint32_t outputSize = context.input(8).dim(1);
    const int32_t activation = context.scalar<int32_t>(20);
    const float cellClip = context.scalar<float>(21);
    const float projClip = context.scalar<float>(22);

    std::vector<std::vector<float>> in(context.numInputs());
    for (uint32_t i = 0; i < context.numInputs(); ++i) {
        if (i < 20 || i > 22) in[i] = load(context.input(i));
    }
    const bool cifg = in[1].empty();
    const bool peephole = !in[10].empty();
    const bool layerNorm = context.numInputs() == 27 && !in[24].empty();
    const bool projection = !in[16].empty();
    const bool projectionBias = !in[17].empty();
    const std::vector<float>& x = in[0];
    const std::vector<float>& outputStateIn = in[18];
    const std::vector<float>& cellStateIn = in[19];

    // Pre-activation of gate g (0 input, 1 forget, 2 cell, 3 output), without the peephole
    // term: bias (unless layer-normalized) + input part + recurrent part.
    const size_t gateSize = static_cast<size_t>(batch) * units;
    auto gateSum = [&](uint32_t g) {
        std::vector<float> gate(gateSize, 0.0f);
        if (!layerNorm) {
            for (uint32_t b = 0; b < batch; ++b) {
                std::copy(in[12 + g].begin(), in[12 + g].end(), gate.begin() + b * units);
            }
        }
        addMatrixTimesVectors(in[1 + g], units, inputSize, x.data(), batch, gate.data());
        addMatrixTimesVectors(in[5 + g], units, outputSize, outputStateIn.data(), batch, gate.data());
        return gate;
    };
    auto addPeephole = [&](std::vector<float>& gate, const std::vector<float>& weights,
                           const std::vector<float>& cell) {
        for (uint32_t b = 0; b < batch; ++b) {
            for (uint32_t u = 0; u < units; ++u) gate[b * units + u] += weights[u] * cell[b * units + u];
        }
    };
    auto finishLayerNorm = [&](std::vector<float>& gate, uint32_t g) {
        if (!layerNorm) return;
        normalizeRows(gate, batch, units);
        const std::vector<float>& weights = in[23 + g];
        const std::vector<float>& bias = in[12 + g];
        for (uint32_t b = 0; b < batch; ++b) {
            for (uint32_t u = 0; u < units; ++u) {
                gate[b * units + u] = gate[b * units + u] * weights[u] + bias[u];
            }
        }
    };

    std::vector<float> inputGate;
    if (!cifg) {
        inputGate = gateSum(0);
        if (peephole) addPeephole(inputGate, in[9], cellStateIn);
        finishLayerNorm(inputGate, 0);
        for (float& v : inputGate) v = sigmoid(v);
    }
    std::vector<float> forgetGate = gateSum(1);
    if (peephole) addPeephole(forgetGate, in[10], cellStateIn);
    finishLayerNorm(forgetGate, 1);
    for (float& v : forgetGate) v = sigmoid(v);
    if (cifg) {
        inputGate.resize(gateSize);
        for (size_t i = 0; i < gateSize; ++i) inputGate[i] = 1.0f - forgetGate[i];
    }
    std::vector<float> cellGate = gateSum(2);
    finishLayerNorm(cellGate, 2);

    std::vector<float> cellState(gateSize);
    for (size_t i = 0; i < gateSize; ++i) {
        float c = forgetGate[i] * cellStateIn[i] + inputGate[i] * activate(cellGate[i], activation);
        if (cellClip > 0.0f) c = clip(c, cellClip);
        cellState[i] = c;
    }

    std::vector<float> outputGate = gateSum(3);
    if (peephole) addPeephole(outputGate, in[11], cellState);
    finishLayerNorm(outputGate, 3);
    for (float& v : outputGate) v = sigmoid(v);

    std::vector<float> hidden(gateSize);
    for (size_t i = 0; i < gateSize; ++i) hidden[i] = outputGate[i] * activate(cellState[i], activation);

    std::vector<float> output;
    if (projection) {
        output.assign(static_cast<size_t>(batch) * outputSize, 0.0f);
        if (projectionBias) {
            for (uint32_t b = 0; b < batch; ++b) {
                std::copy(in[17].begin(), in[17].end(), output.begin() + b * outputSize);
            }
        }
        addMatrixTimesVectors(in[16], outputSize, units, hidden.data(), batch, output.data());
        if (projClip > 0.0f) {
            for (float& v : output) v = clip(v, projClip);
        }
    } else {
        output = hidden;
    }

    // The scratch buffer holds the gate activations (its contents are not specified).
    std::vector<float> scratch;
    scratch.reserve(gateSize * 4);
    if (!cifg) scratch.insert(scratch.end(), inputGate.begin(), inputGate.end());
    scratch.insert(scratch.end(), forgetGate.begin(), forgetGate.end());
    scratch.insert(scratch.end(), cellGate.begin(), cellGate.end());
    scratch.insert(scratch.end(), outputGate.begin(), outputGate.end());

    NN_RET_CHECK(store(scratch, context.output(0)));
    NN_RET_CHECK(store(output, context.output(1)));
    NN_RET_CHECK(store(cellState, context.output(2)));
    NN_RET_CHECK(store(output, context.output(3)));
    return true;
}

// ---- RNN: output = fuse(weights * input + recurrent * hidden + bias); both outputs = output.

bool rnn(OperationContext& context) {
    NN_RET_CHECK(isFloatTensor(context.inputType(0)));
    const uint32_t batch = context.input(0).dim(0);
    const uint32_t inputSize = context.input(0).dim(1);
    const uint32_t units = context.input(1).dim(0);
    const std::vector<float> input = load(context.input(0));
    const std::vector<float> weights = load(context.input(1));
    const std::vector<float> recurrent = load(context.input(2));
    const std::vector<float> bias = load(context.input(3));
    const std::vector<float> hidden = load(context.input(4));
    float low, high;
    floatActivationRange(context.scalar<int32_t>(5), &low, &high);

    std::vector<float> output(static_cast<size_t>(batch) * units);
    for (uint32_t b = 0; b < batch; ++b) std::copy(bias.begin(), bias.end(), output.begin() + b * units);
    addMatrixTimesVectors(weights, units, inputSize, input.data(), batch, output.data());
    addMatrixTimesVectors(recurrent, units, units, hidden.data(), batch, output.data());
    for (float& v : output) v = std::min(high, std::max(low, v));
    NN_RET_CHECK(store(output, context.output(0)));
    NN_RET_CHECK(store(output, context.output(1)));
    return true;
}

// ---- SVDF
// The state keeps, per batch and filter, the last memorySize feature activations (oldest
// first). Each step appends the new activation, takes the dot product with the filter's time
// weights, sums the `rank` filters of each unit, adds the bias, applies the activation, then
// drops the oldest entry (the newest slot of the returned state is 0).

bool svdf(OperationContext& context) {
    NN_RET_CHECK(isFloatTensor(context.inputType(0)));
    const uint32_t batch = context.input(0).dim(0);
    const uint32_t inputSize = context.input(0).dim(1);
    const uint32_t filters = context.input(1).dim(0);
    const uint32_t memorySize = context.input(2).dim(1);
    const auto rank = static_cast<uint32_t>(context.scalar<int32_t>(5));
    NN_RET_CHECK(rank >= 1 && filters % rank == 0);
    const uint32_t units = filters / rank;
    const std::vector<float> input = load(context.input(0));
    const std::vector<float> weightsFeature = load(context.input(1));
    const std::vector<float> weightsTime = load(context.input(2));
    const std::vector<float> bias = load(context.input(3));
    std::vector<float> state = load(context.input(4));
    float low, high;
    floatActivationRange(context.scalar<int32_t>(6), &low, &high);

    std::vector<float> output(static_cast<size_t>(batch) * units, 0.0f);
    for (uint32_t b = 0; b < batch; ++b) {
        const float* x = input.data() + static_cast<size_t>(b) * inputSize;
        float* batchState = state.data() + static_cast<size_t>(b) * memorySize * filters;
        float* out = output.data() + static_cast<size_t>(b) * units;
        for (uint32_t u = 0; u < units; ++u) out[u] = bias.empty() ? 0.0f : bias[u];
        for (uint32_t f = 0; f < filters; ++f) {
            float* memory = batchState + static_cast<size_t>(f) * memorySize;
            const float* feature = weightsFeature.data() + static_cast<size_t>(f) * inputSize;
            float activationValue = 0.0f;
            for (uint32_t i = 0; i < inputSize; ++i) activationValue += feature[i] * x[i];
            memory[memorySize - 1] = activationValue;
            const float* time = weightsTime.data() + static_cast<size_t>(f) * memorySize;
            float filterOutput = 0.0f;
            for (uint32_t m = 0; m < memorySize; ++m) filterOutput += time[m] * memory[m];
            out[f / rank] += filterOutput;
        }
        for (uint32_t u = 0; u < units; ++u) out[u] = std::min(high, std::max(low, out[u]));
        for (uint32_t f = 0; f < filters; ++f) {
            float* memory = batchState + static_cast<size_t>(f) * memorySize;
            for (uint32_t m = 0; m + 1 < memorySize; ++m) memory[m] = memory[m + 1];
            memory[memorySize - 1] = 0.0f;
        }
    }
    NN_RET_CHECK(store(state, context.output(0)));
    NN_RET_CHECK(store(output, context.output(1)));
    return true;
}

}  // namespace

NN_REGISTER_KERNEL(LSTM, lstm);
NN_REGISTER_KERNEL(RNN, rnn);
NN_REGISTER_KERNEL(SVDF, svdf);

}  // namespace nnemu::cpu
