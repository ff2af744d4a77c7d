// Reference kernels of the single-step recurrent operations: LSTM, RNN (their cell steps, shared
// with the sequence kernels, are in RecurrentCell.cpp) and SVDF.
#include <algorithm>
#include <cmath>
#include <vector>

#include "RecurrentCell.h"
#include "nnemu/cpu/Kernels.h"
#include "nnemu/kernels/QuantMath.h"
#include "KernelList.h"

namespace nnemu::cpu {
namespace {

using namespace recurrent;

// ---- LSTM (positions in hal::kLstmLayout). The scratch output holds the gate values (its
// contents are not specified).

// ---- RNN: output = fuse(weights * input + recurrent * hidden + bias); both outputs = output.

// ---- SVDF
// The state keeps, per batch and filter, the last memorySize feature activations (oldest
// first). Each step appends the new activation, takes the dot product with the filter's time
// weights, sums the `rank` filters of each unit, adds the bias, applies the activation, then
// drops the oldest entry (the newest slot of the returned state is 0).

}  // namespace

bool kernels::lstm(OperationContext& context) {
    LstmCell cell;
    NN_RET_CHECK(loadLstmCell(context, hal::kLstmLayout, &cell));
    NN_RET_CHECK(context.input(0).rank() == 2);
    const uint32_t batch = context.input(0).dim(0);
    std::vector<float> input;
    std::vector<float> outputState;
    std::vector<float> cellState;
    NN_RET_CHECK(loadFloats(context.input(0), size_t{batch} * cell.inputSize, &input));
    NN_RET_CHECK(loadLstmState(context, hal::kLstmLayout, cell, batch, &outputState, &cellState));
    std::vector<float> gates;
    lstmStep(cell, batch, input.data(), nullptr, outputState.data(), cellState.data(), &gates);
    NN_RET_CHECK(storeFloats(gates, context.output(0)));
    NN_RET_CHECK(storeFloats(outputState, context.output(1)));
    NN_RET_CHECK(storeFloats(cellState, context.output(2)));
    NN_RET_CHECK(storeFloats(outputState, context.output(3)));
    return true;
}

bool kernels::rnn(OperationContext& context) {
    RnnCell cell;
    NN_RET_CHECK(loadRnnCell(context, hal::kRnnLayout, &cell));
    NN_RET_CHECK(context.input(0).rank() == 2);
    const uint32_t batch = context.input(0).dim(0);
    std::vector<float> input;
    std::vector<float> hidden;
    NN_RET_CHECK(loadFloats(context.input(0), size_t{batch} * cell.inputSize, &input));
    NN_RET_CHECK(loadFloats(context.input(hal::kRnnLayout.hiddenStateIn), size_t{batch} * cell.units, &hidden));
    rnnStep(cell, batch, input.data(), nullptr, hidden.data());
    NN_RET_CHECK(storeFloats(hidden, context.output(0)));
    NN_RET_CHECK(storeFloats(hidden, context.output(1)));
    return true;
}

bool kernels::svdf(OperationContext& context) {
    NN_RET_CHECK(isFloatTensor(context.inputType(0)));
    const uint32_t batch = context.input(0).dim(0);
    const uint32_t inputSize = context.input(0).dim(1);
    const uint32_t filters = context.input(1).dim(0);
    const uint32_t memorySize = context.input(2).dim(1);
    const auto rank = static_cast<uint32_t>(context.scalar<int32_t>(5));
    NN_RET_CHECK(rank >= 1 && filters % rank == 0 && memorySize >= 1);
    const uint32_t units = filters / rank;
    std::vector<float> input, weightsFeature, weightsTime, bias, state;
    NN_RET_CHECK(loadFloats(context.input(0), size_t{batch} * inputSize, &input));
    NN_RET_CHECK(loadFloats(context.input(1), size_t{filters} * inputSize, &weightsFeature));
    NN_RET_CHECK(loadFloats(context.input(2), size_t{filters} * memorySize, &weightsTime));
    NN_RET_CHECK(loadFloats(context.input(3), &bias));
    NN_RET_CHECK(bias.empty() || bias.size() == units);
    NN_RET_CHECK(loadFloats(context.input(4), size_t{batch} * memorySize * filters, &state));
    float low, high;
    quant::floatActivationRange(context.scalar<int32_t>(6), &low, &high);

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
        for (uint32_t u = 0; u < units; ++u) out[u] = quant::activationClamp(out[u], low, high);
        for (uint32_t f = 0; f < filters; ++f) {
            float* memory = batchState + static_cast<size_t>(f) * memorySize;
            for (uint32_t m = 0; m + 1 < memorySize; ++m) memory[m] = memory[m + 1];
            memory[memorySize - 1] = 0.0f;
        }
    }
    NN_RET_CHECK(storeFloats(state, context.output(0)));
    NN_RET_CHECK(storeFloats(output, context.output(1)));
    return true;
}

}  // namespace nnemu::cpu
