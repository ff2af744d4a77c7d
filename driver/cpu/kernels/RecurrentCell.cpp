// The LSTM and RNN cell steps shared by the single-step and the sequence kernels
// (RecurrentCell.h).
#include "RecurrentCell.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "nnemu/kernels/QuantMath.h"

namespace nnemu::cpu {

namespace recurrent {

using hal::kLstmGates;
using hal::OperandType;
using hal::OperandView;
using hal::OperationContext;

bool isFloatTensor(OperandType type) {
    return type == OperandType::TENSOR_FLOAT32 || type == OperandType::TENSOR_FLOAT16;
}

bool loadFloats(const OperandView& operand, std::vector<float>* values) {
    values->clear();
    if (operand.omitted || operand.data == nullptr || operand.elements() == 0) return true;
    NN_RET_CHECK(isFloatTensor(operand.type));
    const size_t count = operand.elements();
    values->resize(count);
    if (operand.type == OperandType::TENSOR_FLOAT16) {
        NN_RET_CHECK(operand.length >= count * sizeof(uint16_t));
        const uint16_t* data = operand.as<uint16_t>();
        for (size_t i = 0; i < count; ++i) (*values)[i] = base::halfToFloat(data[i]);
    } else {
        NN_RET_CHECK(operand.length >= count * sizeof(float));
        const float* data = operand.as<float>();
        std::copy(data, data + count, values->begin());
    }
    return true;
}

bool loadFloats(const OperandView& operand, size_t count, std::vector<float>* values) {
    NN_RET_CHECK(loadFloats(operand, values));
    NN_RET_CHECK(values->size() == count);
    return true;
}

bool storeFloats(const std::vector<float>& values, OperandView& operand) {
    const size_t count = values.size();
    NN_RET_CHECK(operand.elements() == count);
    if (operand.type == OperandType::TENSOR_FLOAT16) {
        NN_RET_CHECK(operand.length >= count * sizeof(uint16_t));
        uint16_t* data = operand.as<uint16_t>();
        for (size_t i = 0; i < count; ++i) data[i] = base::floatToHalf(values[i]);
    } else {
        NN_RET_CHECK(operand.type == OperandType::TENSOR_FLOAT32);
        NN_RET_CHECK(operand.length >= count * sizeof(float));
        std::copy(values.begin(), values.end(), operand.as<float>());
    }
    return true;
}

namespace {

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// Activation codes shared with TFLite: 0 none, 1 relu, 2 relu1, 3 relu6, 4 tanh, 6 sigmoid.
float activate(float x, int32_t activation) {
    switch (activation) {
        case 1: return quant::activationClamp(x, 0.0f, std::numeric_limits<float>::infinity());
        case 2: return quant::activationClamp(x, -1.0f, 1.0f);
        case 3: return quant::activationClamp(x, 0.0f, 6.0f);
        case 4: return std::tanh(x);
        case 6: return sigmoid(x);
        default: return x;
    }
}

float clip(float x, float limit) { return std::min(limit, std::max(-limit, x)); }

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

// Copies `row` into each of the `batch` rows of out.
void broadcastRows(const std::vector<float>& row, uint32_t batch, float* out) {
    for (uint32_t b = 0; b < batch; ++b) std::copy(row.begin(), row.end(), out + static_cast<size_t>(b) * row.size());
}

bool exists(const OperationContext& context, uint32_t position) {
    return position != hal::kNoOperand && position < context.numInputs();
}

// An operand that may be absent: empty, or exactly `count` values.
bool loadOptional(const OperationContext& context, uint32_t position, size_t count, std::vector<float>* values) {
    values->clear();
    if (!exists(context, position)) return true;
    NN_RET_CHECK(loadFloats(context.input(position), values));
    NN_RET_CHECK(values->empty() || values->size() == count);
    return true;
}

// Every gate the cell computes has a value in this group (the input gate none under CIFG).
bool gatesPresent(const std::vector<float> (&group)[kLstmGates], bool cifg, bool peepholeGroup) {
    for (uint32_t gate = 0; gate < kLstmGates; ++gate) {
        if (cifg && gate == hal::kInputGate) continue;
        if (peepholeGroup && gate == hal::kCellGate) continue;
        if (group[gate].empty()) return false;
    }
    return true;
}

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
        const float inverseDeviation = 1.0f / std::sqrt(variance == 0.0f ? kLayerNormEpsilon : variance);
        for (uint32_t u = 0; u < units; ++u) row[u] = (row[u] - mean) * inverseDeviation;
    }
}

}  // namespace

bool loadLstmCell(const OperationContext& context, const hal::LstmLayout& layout, LstmCell* cell) {
    const OperandView& inputToOutput = context.input(layout.inputToGate[hal::kOutputGate]);
    const OperandView& recurrentToOutput = context.input(layout.recurrentToGate[hal::kOutputGate]);
    NN_RET_CHECK(inputToOutput.rank() == 2 && recurrentToOutput.rank() == 2);
    cell->units = inputToOutput.dim(0);
    cell->inputSize = inputToOutput.dim(1);
    cell->outputSize = recurrentToOutput.dim(1);
    cell->auxInputSize = 0;
    if (exists(context, layout.auxInputToGate[hal::kOutputGate])) {
        const OperandView& auxToOutput = context.input(layout.auxInputToGate[hal::kOutputGate]);
        if (!auxToOutput.omitted && auxToOutput.rank() == 2) cell->auxInputSize = auxToOutput.dim(1);
    }
    const size_t units = cell->units;
    for (uint32_t g = 0; g < kLstmGates; ++g) {
        NN_RET_CHECK(loadOptional(context, layout.inputToGate[g], units * cell->inputSize, &cell->inputToGate[g]));
        NN_RET_CHECK(loadOptional(context, layout.recurrentToGate[g], units * cell->outputSize,
                                  &cell->recurrentToGate[g]));
        NN_RET_CHECK(loadOptional(context, layout.auxInputToGate[g], units * cell->auxInputSize,
                                  &cell->auxInputToGate[g]));
        NN_RET_CHECK(loadOptional(context, layout.cellToGate[g], units, &cell->cellToGate[g]));
        NN_RET_CHECK(loadOptional(context, layout.gateBias[g], units, &cell->gateBias[g]));
        NN_RET_CHECK(loadOptional(context, layout.layerNormWeights[g], units, &cell->layerNormWeights[g]));
    }
    NN_RET_CHECK(loadOptional(context, layout.projectionWeights, cell->outputSize * units, &cell->projectionWeights));
    NN_RET_CHECK(loadOptional(context, layout.projectionBias, cell->outputSize, &cell->projectionBias));

    cell->cifg = cell->inputToGate[hal::kInputGate].empty();
    cell->peephole = !cell->cellToGate[hal::kForgetGate].empty();
    cell->layerNorm = !cell->layerNormWeights[hal::kForgetGate].empty();
    cell->projection = !cell->projectionWeights.empty();
    NN_RET_CHECK(gatesPresent(cell->inputToGate, cell->cifg, false));
    NN_RET_CHECK(gatesPresent(cell->recurrentToGate, cell->cifg, false));
    NN_RET_CHECK(gatesPresent(cell->gateBias, cell->cifg, false));
    if (cell->peephole) NN_RET_CHECK(gatesPresent(cell->cellToGate, cell->cifg, true));
    if (cell->layerNorm) NN_RET_CHECK(gatesPresent(cell->layerNormWeights, cell->cifg, false));
    if (cell->auxInputSize > 0) NN_RET_CHECK(gatesPresent(cell->auxInputToGate, cell->cifg, false));
    NN_RET_CHECK(cell->projection || cell->outputSize == cell->units);

    cell->activation = context.scalar<int32_t>(layout.activation);
    cell->cellClip = context.scalar<float>(layout.cellClip);
    cell->projClip = context.scalar<float>(layout.projClip);
    return true;
}

bool loadLstmState(const OperationContext& context, const hal::LstmLayout& layout, const LstmCell& cell,
                   uint32_t batch, std::vector<float>* outputState, std::vector<float>* cellState) {
    NN_RET_CHECK(loadFloats(context.input(layout.outputStateIn), size_t{batch} * cell.outputSize, outputState));
    NN_RET_CHECK(loadFloats(context.input(layout.cellStateIn), size_t{batch} * cell.units, cellState));
    return true;
}

void lstmStep(const LstmCell& cell, uint32_t batch, const float* input, const float* auxInput,
              float* outputState, float* cellState, std::vector<float>* gates) {
    const uint32_t units = cell.units;
    const size_t gateSize = static_cast<size_t>(batch) * units;

    // Pre-activation of a gate without its peephole term: bias (added after the layer
    // normalization when there is one) + input, auxiliary input and recurrent parts.
    auto gateSum = [&](uint32_t g) {
        std::vector<float> gate(gateSize, 0.0f);
        if (!cell.layerNorm) broadcastRows(cell.gateBias[g], batch, gate.data());
        addMatrixTimesVectors(cell.inputToGate[g], units, cell.inputSize, input, batch, gate.data());
        if (auxInput != nullptr && cell.auxInputSize > 0) {
            addMatrixTimesVectors(cell.auxInputToGate[g], units, cell.auxInputSize, auxInput, batch, gate.data());
        }
        addMatrixTimesVectors(cell.recurrentToGate[g], units, cell.outputSize, outputState, batch, gate.data());
        return gate;
    };
    auto addPeephole = [&](std::vector<float>& gate, uint32_t g, const float* state) {
        if (!cell.peephole) return;
        for (size_t i = 0; i < gateSize; ++i) gate[i] += cell.cellToGate[g][i % units] * state[i];
    };
    auto finishLayerNorm = [&](std::vector<float>& gate, uint32_t g) {
        if (!cell.layerNorm) return;
        normalizeRows(gate, batch, units);
        for (size_t i = 0; i < gateSize; ++i) {
            gate[i] = gate[i] * cell.layerNormWeights[g][i % units] + cell.gateBias[g][i % units];
        }
    };

    std::vector<float> inputGate;
    if (!cell.cifg) {
        inputGate = gateSum(hal::kInputGate);
        addPeephole(inputGate, hal::kInputGate, cellState);
        finishLayerNorm(inputGate, hal::kInputGate);
        for (float& v : inputGate) v = sigmoid(v);
    }
    std::vector<float> forgetGate = gateSum(hal::kForgetGate);
    addPeephole(forgetGate, hal::kForgetGate, cellState);
    finishLayerNorm(forgetGate, hal::kForgetGate);
    for (float& v : forgetGate) v = sigmoid(v);
    if (cell.cifg) {
        inputGate.resize(gateSize);
        for (size_t i = 0; i < gateSize; ++i) inputGate[i] = 1.0f - forgetGate[i];
    }
    std::vector<float> cellGate = gateSum(hal::kCellGate);
    finishLayerNorm(cellGate, hal::kCellGate);

    for (size_t i = 0; i < gateSize; ++i) {
        const float c = forgetGate[i] * cellState[i] + inputGate[i] * activate(cellGate[i], cell.activation);
        cellState[i] = cell.cellClip > 0.0f ? clip(c, cell.cellClip) : c;
    }

    std::vector<float> outputGate = gateSum(hal::kOutputGate);
    addPeephole(outputGate, hal::kOutputGate, cellState);
    finishLayerNorm(outputGate, hal::kOutputGate);
    for (float& v : outputGate) v = sigmoid(v);

    std::vector<float> hidden(gateSize);
    for (size_t i = 0; i < gateSize; ++i) hidden[i] = outputGate[i] * activate(cellState[i], cell.activation);

    const size_t outputCount = static_cast<size_t>(batch) * cell.outputSize;
    if (cell.projection) {
        std::fill(outputState, outputState + outputCount, 0.0f);
        if (!cell.projectionBias.empty()) broadcastRows(cell.projectionBias, batch, outputState);
        addMatrixTimesVectors(cell.projectionWeights, cell.outputSize, units, hidden.data(), batch, outputState);
        if (cell.projClip > 0.0f) {
            for (size_t i = 0; i < outputCount; ++i) outputState[i] = clip(outputState[i], cell.projClip);
        }
    } else {
        std::copy(hidden.begin(), hidden.end(), outputState);
    }

    if (gates != nullptr) {
        gates->clear();
        if (!cell.cifg) gates->insert(gates->end(), inputGate.begin(), inputGate.end());
        for (const auto* gate : {&forgetGate, &cellGate, &outputGate}) {
            gates->insert(gates->end(), gate->begin(), gate->end());
        }
    }
}

bool loadRnnCell(const OperationContext& context, const hal::RnnLayout& layout, RnnCell* cell) {
    const OperandView& weights = context.input(layout.weights);
    NN_RET_CHECK(weights.rank() == 2);
    cell->units = weights.dim(0);
    cell->inputSize = weights.dim(1);
    cell->auxInputSize = 0;
    if (exists(context, layout.auxWeights)) {
        const OperandView& auxWeights = context.input(layout.auxWeights);
        if (!auxWeights.omitted && auxWeights.rank() == 2) cell->auxInputSize = auxWeights.dim(1);
    }
    const size_t units = cell->units;
    NN_RET_CHECK(loadFloats(weights, units * cell->inputSize, &cell->weights));
    NN_RET_CHECK(loadFloats(context.input(layout.recurrentWeights), units * units, &cell->recurrentWeights));
    NN_RET_CHECK(loadFloats(context.input(layout.bias), units, &cell->bias));
    NN_RET_CHECK(loadOptional(context, layout.auxWeights, units * cell->auxInputSize, &cell->auxWeights));
    NN_RET_CHECK(cell->auxWeights.size() == units * cell->auxInputSize);
    cell->fuse = context.scalar<int32_t>(layout.activation);
    return true;
}

void rnnStep(const RnnCell& cell, uint32_t batch, const float* input, const float* auxInput, float* hidden) {
    float low, high;
    quant::floatActivationRange(cell.fuse, &low, &high);
    std::vector<float> next(static_cast<size_t>(batch) * cell.units);
    broadcastRows(cell.bias, batch, next.data());
    addMatrixTimesVectors(cell.weights, cell.units, cell.inputSize, input, batch, next.data());
    if (auxInput != nullptr && cell.auxInputSize > 0) {
        addMatrixTimesVectors(cell.auxWeights, cell.units, cell.auxInputSize, auxInput, batch, next.data());
    }
    addMatrixTimesVectors(cell.recurrentWeights, cell.units, cell.units, hidden, batch, next.data());
    for (size_t i = 0; i < next.size(); ++i) hidden[i] = quant::activationClamp(next[i], low, high);
}

}  // namespace recurrent

}  // namespace nnemu::cpu
