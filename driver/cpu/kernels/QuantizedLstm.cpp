// Reference kernel of QUANTIZED_16BIT_LSTM (operands in hal/operations/QuantizedLstm.cpp).
//
// Each gate's accumulator is its bias plus the dot product of a row of 8-bit weights with the
// activations, both offset by their zero points; it has the bias scale and is requantized to
// 16 bits with 3 integer bits (scale 2^-12). The gates and the cell update then run in 16-bit
// fixed point (FixedPoint16.h): the cell state has 4 integer bits (its scale 2^-11), the
// output is the Q0 product of the output gate and tanh(cell state), divided by 2^8 into 8 bits
// around 128.
//
// The row and the activations are laid out as in Android's reference implementation, which
// defines the operation's results: the activations are [input, previous output] and a gate's
// weight row is [recurrent-to-gate row, input-to-gate row]. (TensorFlow Lite's NNAPI delegate
// splits its concatenated LSTM weights by the same layout, so its models get the numbers of
// TensorFlow Lite's own kernel.) The two layouts line up only in their total length.
#include <algorithm>
#include <vector>

#include "nnemu/kernels/FixedPoint16.h"
#include "OperandData.h"
#include "nnemu/cpu/Kernels.h"
#include "nnemu/kernels/QuantMath.h"
#include "nnemu/hal/RecurrentLayout.h"
#include "KernelList.h"

namespace nnemu::cpu {
namespace {

using hal::kLstmGates;

using namespace hal::quantized16BitLstm;  // operand positions (RecurrentLayout.h)

constexpr int kGateIntegerBits = 3;
constexpr int kCellIntegerBits = 4;

// sum over i of (activations[i] - 128) * (weights[i] - weightsZeroPoint).
int64_t dot(const uint8_t* activations, const uint8_t* weights, size_t size, int32_t weightsZeroPoint) {
    int64_t sum = 0;
    for (size_t i = 0; i < size; ++i) {
        sum += int64_t{activations[i] - kActivationZeroPoint} * (weights[i] - weightsZeroPoint);
    }
    return sum;
}

// Row u of a gate's weights as the reference lays them out: [recurrent row, input row].
std::vector<uint8_t> gateRow(const uint8_t* inputWeights, const uint8_t* recurrentWeights, uint32_t u,
                             uint32_t inputSize, uint32_t outputSize) {
    const uint8_t* recurrent = recurrentWeights + size_t{u} * outputSize;
    const uint8_t* input = inputWeights + size_t{u} * inputSize;
    std::vector<uint8_t> row(recurrent, recurrent + outputSize);
    row.insert(row.end(), input, input + inputSize);
    return row;
}

}  // namespace

bool kernels::quantizedLstm(OperationContext& context) {
    const OperandView& inputOperand = context.input(0);
    NN_RET_CHECK(inputOperand.rank() == 2 && context.input(kFirstWeights).rank() == 2);
    const uint32_t batch = inputOperand.dim(0);
    const uint32_t inputSize = inputOperand.dim(1);
    const uint32_t outputSize = context.input(kFirstWeights).dim(0);
    const size_t stateCount = size_t{batch} * outputSize;

    const uint8_t* input = nullptr;
    const uint8_t* prevOutput = nullptr;
    const int16_t* prevCellState = nullptr;
    const uint8_t* weights[kLstmGates] = {};
    const uint8_t* recurrentWeights[kLstmGates] = {};
    const int32_t* bias[kLstmGates] = {};
    NN_RET_CHECK(typedData(inputOperand, OperandType::TENSOR_QUANT8_ASYMM, size_t{batch} * inputSize, &input));
    NN_RET_CHECK(typedData(context.input(kPrevOutput), OperandType::TENSOR_QUANT8_ASYMM, stateCount, &prevOutput));
    NN_RET_CHECK(
            typedData(context.input(kPrevCellState), OperandType::TENSOR_QUANT16_SYMM, stateCount, &prevCellState));
    for (uint32_t g = 0; g < kLstmGates; ++g) {
        NN_RET_CHECK(typedData(context.input(kFirstWeights + g), OperandType::TENSOR_QUANT8_ASYMM,
                               size_t{outputSize} * inputSize, &weights[g]));
        NN_RET_CHECK(typedData(context.input(kFirstRecurrentWeights + g), OperandType::TENSOR_QUANT8_ASYMM,
                               size_t{outputSize} * outputSize, &recurrentWeights[g]));
        NN_RET_CHECK(typedData(context.input(kFirstBias + g), OperandType::TENSOR_INT32, outputSize, &bias[g]));
    }
    OperandView& cellStateOut = context.output(0);
    OperandView& output = context.output(1);
    NN_RET_CHECK(cellStateOut.elements() == stateCount && cellStateOut.length >= stateCount * sizeof(int16_t));
    NN_RET_CHECK(output.elements() == stateCount && output.length >= stateCount);

    // Accumulators have the bias scale; gate inputs have 12 fractional bits.
    int32_t multiplier = 0;
    int shift = 0;
    quant::quantizeMultiplier(4096.0 * context.input(kFirstBias).scale, &multiplier, &shift);
    const int32_t weightsZeroPoint = context.input(kFirstWeights).zeroPoint;

    std::vector<std::vector<uint8_t>> rows(size_t{kLstmGates} * outputSize);
    for (uint32_t g = 0; g < kLstmGates; ++g) {
        for (uint32_t u = 0; u < outputSize; ++u) {
            rows[g * outputSize + u] = gateRow(weights[g], recurrentWeights[g], u, inputSize, outputSize);
        }
    }
    const size_t rowSize = size_t{inputSize} + outputSize;
    std::vector<uint8_t> activations(rowSize);
    for (uint32_t b = 0; b < batch; ++b) {
        std::copy(input + size_t{b} * inputSize, input + size_t{b + 1} * inputSize, activations.begin());
        std::copy(prevOutput + size_t{b} * outputSize, prevOutput + size_t{b + 1} * outputSize,
                  activations.begin() + inputSize);
        for (uint32_t u = 0; u < outputSize; ++u) {
            int16_t gateInput[kLstmGates];
            for (uint32_t g = 0; g < kLstmGates; ++g) {
                const int64_t sum = bias[g][u] + dot(activations.data(), rows[g * outputSize + u].data(), rowSize,
                                                     weightsZeroPoint);
                const int32_t scaled = quant::multiplyByQuantizedMultiplier(quant::saturateToInt32(sum), multiplier, shift);
                gateInput[g] = static_cast<int16_t>(std::clamp<int32_t>(scaled, quant::fixed16::kMin, quant::fixed16::kMax));
            }
            const int16_t inputGate = quant::fixed16::logistic(gateInput[hal::kInputGate], kGateIntegerBits);
            const int16_t forgetGate = quant::fixed16::logistic(gateInput[hal::kForgetGate], kGateIntegerBits);
            const int16_t cellCandidate = quant::fixed16::tanh(gateInput[hal::kCellGate], kGateIntegerBits);
            const int16_t outputGate = quant::fixed16::logistic(gateInput[hal::kOutputGate], kGateIntegerBits);

            const size_t i = size_t{b} * outputSize + u;
            const int16_t kept = quant::fixed16::multiply(forgetGate, prevCellState[i]);  // Q0 * Q4 = Q4
            const int16_t added = quant::fixed16::rescale(quant::fixed16::multiply(inputGate, cellCandidate), 0, kCellIntegerBits);
            const int16_t cell = quant::fixed16::saturatingAdd(kept, added);
            // tanh takes the cell state with 3 integer bits (saturating beyond +-8).
            const int16_t cellTanh = quant::fixed16::tanh(quant::fixed16::rescale(cell, kCellIntegerBits, 3), 3);
            const int16_t hidden = quant::fixed16::multiply(outputGate, cellTanh);
            const int32_t out8 = std::clamp<int32_t>(quant::roundingDivideByPOT(hidden, 8), -128, 127);
            cellStateOut.as<int16_t>()[i] = cell;
            output.as<uint8_t>()[i] = static_cast<uint8_t>(out8 + kActivationZeroPoint);
        }
    }
    return true;
}

}  // namespace nnemu::cpu
