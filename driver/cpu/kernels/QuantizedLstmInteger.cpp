// Reference kernel of QUANTIZED_LSTM (operands in hal/operations/QuantizedLstmInteger.cpp):
// one step of TensorFlow Lite's fully integer LSTM cell.
//
// Each gate is the sum of 8x8-bit matmuls (input, previous output state) and of the peephole
// product with the cell state, each requantized on its own into 16 bits at the gate's
// intermediate scale (inputs 26-29) and added with saturation. With layer normalization the
// gate is then normalized in integer arithmetic, scaled by its weights, shifted by its bias
// and brought to Q3.12; without it the bias joins the input matmul and the intermediate scale
// must already be 2^-12. Sigmoid and tanh run in 16-bit fixed point (FixedPoint16.h). The cell
// state has scale 2^k; the hidden state (output gate times tanh of the cell) is requantized to
// 8 bits with inputs 30/31, then projected into the output state's quantization or, without
// projection, is the output state. Zero points enter the matmuls as precomputed corrections
// of their bias (zero point times the sum of a weight row).
#include <algorithm>
#include <cmath>
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
using hal::kNoOperand;

constexpr const hal::LstmLayout& kLayout = hal::kQuantizedLstmLayout;
constexpr int kGateIntegerBits = 3;

// A real multiplier as a Q31 integer and a power-of-two exponent (QuantMath.h).
struct Multiplier {
    int32_t quantized = 0;
    int shift = 0;

    static Multiplier of(double real) {
        Multiplier m;
        quant::quantizeMultiplier(real, &m.quantized, &m.shift);
        return m;
    }
    int32_t apply(int32_t x) const { return quant::multiplyByQuantizedMultiplier(x, quantized, shift); }
};

int16_t saturate16(int64_t value) { return static_cast<int16_t>(std::clamp<int64_t>(value, INT16_MIN, INT16_MAX)); }
int8_t saturate8(int64_t value) { return static_cast<int8_t>(std::clamp<int64_t>(value, INT8_MIN, INT8_MAX)); }

// 1 / sqrt(value) as a Q31 multiplier and exponent, for an integer value: Newton's iteration
// x <- x (3 - v x^2) / 2 in 32-bit fixed point with 3 integer bits, on v normalized into
// [2^27, 2^29) by even shifts. Values up to 1 (a degenerate variance) give the largest
// multiplier.
Multiplier inverseSqrt(int32_t value) {
    if (value <= 1) return {INT32_MAX, 0};
    int rightShift = 11;
    while (value >= (1 << 29)) {
        value /= 4;
        ++rightShift;
    }
    const int leadingZeros = __builtin_clz(static_cast<uint32_t>(value));
    const int shiftPairs = (leadingZeros - 1) / 2 - 1;
    rightShift -= shiftPairs;
    value <<= 2 * shiftPairs;
    // Saturating multiplication by 2^exponent of a raw 32-bit fixed-point value.
    auto timesPowerOfTwo = [](int32_t x, int exponent) {
        const int32_t limit = static_cast<int32_t>((int64_t{1} << (31 - exponent)) - 1);
        if (x > limit) return INT32_MAX;
        if (x < -limit) return INT32_MIN;
        return static_cast<int32_t>(static_cast<uint32_t>(x) << exponent);
    };
    auto mul = quant::saturatingRoundingDoublingHighMul;  // Qa * Qb -> Q(a+b)
    const int32_t halfInput = quant::roundingDivideByPOT(value >> 1, 1);  // v/2 with 3 integer bits
    constexpr int32_t kThreeHalves = (1 << 28) + (1 << 27);
    int32_t x = 1 << 28;  // 1.0 with 3 integer bits
    for (int i = 0; i < 5; ++i) {
        const int32_t x3 = timesPowerOfTwo(mul(mul(x, x), x), 6);  // Q9 -> Q3
        const auto difference = static_cast<int32_t>(static_cast<uint32_t>(mul(kThreeHalves, x)) -
                                                     static_cast<uint32_t>(mul(halfInput, x3)));
        x = timesPowerOfTwo(difference, 3);  // Q6 -> Q3
    }
    constexpr int32_t kHalfSqrt2 = 1518500250;  // sqrt(2) / 2 in Q0
    Multiplier result{mul(x, kHalfSqrt2), 0};
    if (rightShift < 0) {
        result.quantized = static_cast<int32_t>(static_cast<uint32_t>(result.quantized) << -rightShift);
        rightShift = 0;
    }
    result.shift = -rightShift;
    return result;
}

// The optional tensor at `position`: *data stays nullptr when it is omitted or empty.
template <typename T>
bool optionalData(const OperationContext& context, uint32_t position, OperandType type, size_t count,
                  const T** data) {
    *data = nullptr;
    if (position == kNoOperand) return true;
    const OperandView& operand = context.input(position);
    if (operand.omitted || (!operand.dims.empty() && operand.elements() == 0)) return true;
    return typedData(operand, type, count, data);
}

// bias[r] (0 without bias) - zeroPoint * sum of row r of the weights.
std::vector<int32_t> foldZeroPoint(const int8_t* weights, uint32_t rows, uint32_t columns, int32_t zeroPoint,
                                   const int32_t* bias) {
    std::vector<int32_t> folded(rows);
    for (uint32_t r = 0; r < rows; ++r) {
        int64_t sum = 0;
        for (uint32_t c = 0; c < columns; ++c) sum += weights[size_t{r} * columns + c];
        folded[r] = quant::saturateToInt32((bias != nullptr ? bias[r] : 0) - int64_t{zeroPoint} * sum);
    }
    return folded;
}

struct Gate {
    const int8_t* inputWeights = nullptr;
    const int8_t* recurrentWeights = nullptr;
    const int16_t* cellWeights = nullptr;  // peephole
    const int16_t* layerNormWeights = nullptr;
    const int32_t* bias = nullptr;
    std::vector<int32_t> inputBias;  // zero point correction, plus the bias without layer norm
    std::vector<int32_t> recurrentBias;
    Multiplier inputScale;
    Multiplier recurrentScale;
    Multiplier cellScale;
    Multiplier layerNormScale;
    int32_t varianceGuard = 1;  // the variance used when the computed one is below 1
};

struct Cell {
    uint32_t batch = 0;
    uint32_t inputSize = 0;
    uint32_t units = 0;
    uint32_t outputSize = 0;
    bool cifg = false;
    int cellScaleLog2 = 0;
    int16_t cellClip = 0;  // 0: none
    int8_t projClip = 0;
    const int8_t* input = nullptr;
    const int8_t* outputStateIn = nullptr;
    const int16_t* cellStateIn = nullptr;
    Gate gates[kLstmGates];
    const int8_t* projectionWeights = nullptr;
    std::vector<int32_t> projectionBias;
    Multiplier projectionScale;
    Multiplier hiddenScale;
    int32_t hiddenZeroPoint = 0;
    int32_t outputStateZeroPoint = 0;
};

bool loadGate(const OperationContext& context, uint32_t g, Cell& cell, bool layerNorm) {
    Gate& gate = cell.gates[g];
    const size_t units = cell.units;
    NN_RET_CHECK(optionalData(context, kLayout.inputToGate[g], OperandType::TENSOR_QUANT8_SYMM,
                              units * cell.inputSize, &gate.inputWeights));
    NN_RET_CHECK(optionalData(context, kLayout.recurrentToGate[g], OperandType::TENSOR_QUANT8_SYMM,
                              units * cell.outputSize, &gate.recurrentWeights));
    NN_RET_CHECK(optionalData(context, kLayout.cellToGate[g], OperandType::TENSOR_QUANT16_SYMM, units,
                              &gate.cellWeights));
    NN_RET_CHECK(optionalData(context, kLayout.layerNormWeights[g], OperandType::TENSOR_QUANT16_SYMM, units,
                              &gate.layerNormWeights));
    NN_RET_CHECK(optionalData(context, kLayout.gateBias[g], OperandType::TENSOR_INT32, units, &gate.bias));
    if (g == hal::kInputGate && cell.cifg) return true;
    NN_RET_CHECK(gate.inputWeights != nullptr && gate.recurrentWeights != nullptr && gate.bias != nullptr);
    NN_RET_CHECK((gate.layerNormWeights != nullptr) == layerNorm);

    const float intermediateScale = context.scalar<float>(hal::kQuantizedLstmIntermediateScale + g);
    NN_RET_CHECK(intermediateScale > 0.0f);
    const OperandView& input = context.input(kLayout.input);
    const OperandView& outputState = context.input(kLayout.outputStateIn);
    gate.inputScale = Multiplier::of(context.input(kLayout.inputToGate[g]).scale * input.scale / intermediateScale);
    gate.recurrentScale =
            Multiplier::of(context.input(kLayout.recurrentToGate[g]).scale * outputState.scale / intermediateScale);
    if (gate.cellWeights != nullptr) {
        gate.cellScale = Multiplier::of(std::ldexp(1.0, cell.cellScaleLog2) *
                                        context.input(kLayout.cellToGate[g]).scale / intermediateScale);
    }
    if (layerNorm) {
        const float scale = context.input(kLayout.layerNormWeights[g]).scale;
        gate.layerNormScale = Multiplier::of(scale);
        gate.varianceGuard = std::max(1, static_cast<int32_t>(10000 * scale));
    }
    gate.inputBias = foldZeroPoint(gate.inputWeights, cell.units, cell.inputSize, input.zeroPoint,
                                   layerNorm ? nullptr : gate.bias);
    gate.recurrentBias =
            foldZeroPoint(gate.recurrentWeights, cell.units, cell.outputSize, outputState.zeroPoint, nullptr);
    return true;
}

bool loadProjection(const OperationContext& context, Cell& cell) {
    const int32_t* bias = nullptr;
    NN_RET_CHECK(optionalData(context, kLayout.projectionWeights, OperandType::TENSOR_QUANT8_SYMM,
                              size_t{cell.outputSize} * cell.units, &cell.projectionWeights));
    NN_RET_CHECK(optionalData(context, kLayout.projectionBias, OperandType::TENSOR_INT32, cell.outputSize, &bias));
    if (cell.projectionWeights == nullptr) {
        NN_RET_CHECK(bias == nullptr && cell.outputSize == cell.units);
        return true;
    }
    const OperandView& outputState = context.input(kLayout.outputStateIn);
    cell.projectionBias =
            foldZeroPoint(cell.projectionWeights, cell.outputSize, cell.units, cell.hiddenZeroPoint, bias);
    cell.projectionScale = Multiplier::of(context.input(kLayout.projectionWeights).scale *
                                          context.scalar<float>(hal::kQuantizedLstmHiddenScale) / outputState.scale);
    return true;
}

bool loadScalars(const OperationContext& context, Cell& cell) {
    const OperandView& cellState = context.input(kLayout.cellStateIn);
    const OperandView& outputState = context.input(kLayout.outputStateIn);
    NN_RET_CHECK(cellState.scale > 0.0f && outputState.scale > 0.0f);
    cell.cellScaleLog2 = static_cast<int>(std::lround(std::log2(cellState.scale)));
    NN_RET_CHECK(cell.cellScaleLog2 >= -15 && cell.cellScaleLog2 <= -9);
    // Clips are quantized like the state they bound, truncated toward zero.
    if (context.hasValue(hal::kQuantizedLstmCellClip)) {
        const float clip = context.scalar<float>(hal::kQuantizedLstmCellClip) / cellState.scale;
        cell.cellClip = static_cast<int16_t>(std::clamp(clip, -32768.0f, 32767.0f));
    }
    if (context.hasValue(hal::kQuantizedLstmProjClip)) {
        const float clip = context.scalar<float>(hal::kQuantizedLstmProjClip) / outputState.scale;
        cell.projClip = static_cast<int8_t>(std::clamp(clip, -128.0f, 127.0f));
    }
    const float hiddenScale = context.scalar<float>(hal::kQuantizedLstmHiddenScale);
    NN_RET_CHECK(hiddenScale > 0.0f);
    // The hidden state is the product of two Q0.15 values.
    cell.hiddenScale = Multiplier::of(std::ldexp(1.0, -30) / hiddenScale);
    cell.hiddenZeroPoint = context.scalar<int32_t>(hal::kQuantizedLstmHiddenZeroPoint);
    cell.outputStateZeroPoint = outputState.zeroPoint;
    return true;
}

bool loadCell(const OperationContext& context, Cell& cell) {
    const OperandView& input = context.input(kLayout.input);
    const OperandView& inputToOutput = context.input(kLayout.inputToGate[hal::kOutputGate]);
    const OperandView& recurrentToOutput = context.input(kLayout.recurrentToGate[hal::kOutputGate]);
    NN_RET_CHECK(input.rank() == 2 && inputToOutput.rank() == 2 && recurrentToOutput.rank() == 2);
    cell.batch = input.dim(0);
    cell.inputSize = input.dim(1);
    cell.units = inputToOutput.dim(0);
    cell.outputSize = recurrentToOutput.dim(1);
    NN_RET_CHECK(cell.inputSize > 0 && cell.units > 0 && cell.outputSize > 0);
    const size_t batch = cell.batch;
    NN_RET_CHECK(typedData(input, OperandType::TENSOR_QUANT8_ASYMM_SIGNED, batch * cell.inputSize, &cell.input));
    NN_RET_CHECK(typedData(context.input(kLayout.outputStateIn), OperandType::TENSOR_QUANT8_ASYMM_SIGNED,
                           batch * cell.outputSize, &cell.outputStateIn));
    NN_RET_CHECK(typedData(context.input(kLayout.cellStateIn), OperandType::TENSOR_QUANT16_SYMM,
                           batch * cell.units, &cell.cellStateIn));
    NN_RET_CHECK(loadScalars(context, cell));
    const int8_t* inputToInput = nullptr;
    NN_RET_CHECK(optionalData(context, kLayout.inputToGate[hal::kInputGate], OperandType::TENSOR_QUANT8_SYMM,
                              size_t{cell.units} * cell.inputSize, &inputToInput));
    cell.cifg = inputToInput == nullptr;
    const OperandView& forgetLayerNorm = context.input(kLayout.layerNormWeights[hal::kForgetGate]);
    const bool layerNorm = !forgetLayerNorm.omitted && forgetLayerNorm.elements() > 0;
    for (uint32_t g = 0; g < kLstmGates; ++g) NN_RET_CHECK(loadGate(context, g, cell, layerNorm));
    return loadProjection(context, cell);
}

// gate[b][u] += requantized(bias[u] + sum over i of x[b][i] * weights[u][i]), saturating.
void accumulateMatmul(const int8_t* x, uint32_t batch, uint32_t size, const int8_t* weights,
                      const std::vector<int32_t>& bias, const Multiplier& scale, uint32_t units, int16_t* gate) {
    for (uint32_t b = 0; b < batch; ++b) {
        for (uint32_t u = 0; u < units; ++u) {
            int64_t sum = bias[u];
            for (uint32_t i = 0; i < size; ++i) sum += int32_t{x[size_t{b} * size + i]} * weights[size_t{u} * size + i];
            int16_t& value = gate[size_t{b} * units + u];
            value = saturate16(int64_t{value} + scale.apply(quant::saturateToInt32(sum)));
        }
    }
}

// One row of a gate normalized to zero mean and unit variance with 10 fractional bits, times
// the layer normalization weights plus the bias (scale: weights' / 2^10), into Q3.12.
void layerNormalize(int16_t* row, uint32_t units, const Gate& gate) {
    int64_t sum = 0;
    int64_t sumOfSquares = 0;
    for (uint32_t u = 0; u < units; ++u) {
        sum += row[u];
        sumOfSquares += int64_t{row[u]} * row[u];
    }
    const auto mean = static_cast<int32_t>(sum * 1024 / units);  // 10 fractional bits
    constexpr int64_t kTwoToThe20 = int64_t{1} << 20;
    const int64_t variance20 = sumOfSquares * (kTwoToThe20 / units) - int64_t{mean} * mean;
    auto variance = static_cast<int32_t>(variance20 / kTwoToThe20);
    if (variance < 1) variance = gate.varianceGuard;
    const Multiplier inverseDeviation = inverseSqrt(variance);
    for (uint32_t u = 0; u < units; ++u) {
        const int32_t normalized = inverseDeviation.apply(quant::saturateToInt32(int64_t{1024} * row[u] - mean));
        const int64_t weighted = int64_t{normalized} * gate.layerNormWeights[u] + gate.bias[u];
        const int64_t rounded = (weighted > 0 ? weighted + 512 : weighted - 512) / 1024;
        const Multiplier toQ312{gate.layerNormScale.quantized, gate.layerNormScale.shift + 12};
        row[u] = saturate16(toQ312.apply(quant::saturateToInt32(rounded)));
    }
}

// The gate's activation input from the inputs and `cellState` (peephole), then its
// activation: sigmoid, or tanh for the cell gate.
std::vector<int16_t> computeGate(const Cell& cell, uint32_t g, const int16_t* cellState) {
    const Gate& gate = cell.gates[g];
    std::vector<int16_t> values(size_t{cell.batch} * cell.units, 0);
    accumulateMatmul(cell.input, cell.batch, cell.inputSize, gate.inputWeights, gate.inputBias, gate.inputScale,
                     cell.units, values.data());
    accumulateMatmul(cell.outputStateIn, cell.batch, cell.outputSize, gate.recurrentWeights, gate.recurrentBias,
                     gate.recurrentScale, cell.units, values.data());
    for (size_t i = 0; gate.cellWeights != nullptr && i < values.size(); ++i) {
        const int32_t product = int32_t{gate.cellWeights[i % cell.units]} * cellState[i];
        values[i] = saturate16(int64_t{values[i]} + gate.cellScale.apply(product));
    }
    for (uint32_t b = 0; gate.layerNormWeights != nullptr && b < cell.batch; ++b) {
        layerNormalize(values.data() + size_t{b} * cell.units, cell.units, gate);
    }
    for (int16_t& v : values) {
        v = g == hal::kCellGate ? quant::fixed16::tanh(v, kGateIntegerBits) : quant::fixed16::logistic(v, kGateIntegerBits);
    }
    return values;
}

// New cell state: forget * old + input * candidate (input = 1 - forget under CIFG); the gates
// are Q0.15, the state has scale 2^cellScaleLog2.
std::vector<int16_t> updateCellState(const Cell& cell, const std::vector<int16_t>& forget,
                                     const std::vector<int16_t>& input, const std::vector<int16_t>& candidate) {
    std::vector<int16_t> state(forget.size());
    for (size_t i = 0; i < state.size(); ++i) {
        const int32_t kept = quant::roundingDivideByPOT(int32_t{forget[i]} * cell.cellStateIn[i], 15);
        const int32_t inputGate = cell.cifg ? quant::fixed16::kOneQ0 - forget[i] : input[i];
        const int32_t added = quant::roundingDivideByPOT(inputGate * candidate[i], 30 + cell.cellScaleLog2);
        int16_t value = saturate16(int64_t{saturate16(kept)} + saturate16(added));
        if (cell.cellClip > 0) value = std::clamp<int16_t>(value, -cell.cellClip, cell.cellClip);
        state[i] = value;
    }
    return state;
}

// The output state: the hidden state (output gate * tanh(cell state), requantized to 8 bits),
// projected when the cell has a projection.
std::vector<int8_t> computeOutputState(const Cell& cell, const std::vector<int16_t>& outputGate,
                                       const std::vector<int16_t>& cellState) {
    std::vector<int8_t> hidden(cellState.size());
    for (size_t i = 0; i < hidden.size(); ++i) {
        const int16_t cellTanh = quant::fixed16::tanh(cellState[i], 15 + cell.cellScaleLog2);
        const int32_t scaled = cell.hiddenScale.apply(int32_t{outputGate[i]} * cellTanh);
        hidden[i] = saturate8(int64_t{scaled} + cell.hiddenZeroPoint);
    }
    if (cell.projectionWeights == nullptr) return hidden;
    std::vector<int8_t> projected(size_t{cell.batch} * cell.outputSize);
    const int32_t zeroPoint = cell.outputStateZeroPoint;
    for (uint32_t b = 0; b < cell.batch; ++b) {
        for (uint32_t o = 0; o < cell.outputSize; ++o) {
            int64_t sum = cell.projectionBias[o];
            const int8_t* row = cell.projectionWeights + size_t{o} * cell.units;
            for (uint32_t u = 0; u < cell.units; ++u) sum += int32_t{hidden[size_t{b} * cell.units + u]} * row[u];
            const int32_t scaled = cell.projectionScale.apply(quant::saturateToInt32(sum));
            int32_t value = std::clamp<int32_t>(scaled + zeroPoint, -128, 127);
            // The clip bounds the real value, so the stored one around the zero point.
            if (cell.projClip > 0) value = std::clamp(value, zeroPoint - cell.projClip, zeroPoint + cell.projClip);
            projected[size_t{b} * cell.outputSize + o] = saturate8(value);
        }
    }
    return projected;
}

}  // namespace

bool kernels::quantizedLstmInteger(OperationContext& context) {
    Cell cell;
    NN_RET_CHECK(loadCell(context, cell));
    const size_t outputCount = size_t{cell.batch} * cell.outputSize;
    const size_t cellCount = size_t{cell.batch} * cell.units;
    int8_t* outputStateOut = nullptr;
    int16_t* cellStateOut = nullptr;
    int8_t* output = nullptr;
    NN_RET_CHECK(typedOutput(context.output(0), OperandType::TENSOR_QUANT8_ASYMM_SIGNED, outputCount, &outputStateOut));
    NN_RET_CHECK(typedOutput(context.output(1), OperandType::TENSOR_QUANT16_SYMM, cellCount, &cellStateOut));
    NN_RET_CHECK(typedOutput(context.output(2), OperandType::TENSOR_QUANT8_ASYMM_SIGNED, outputCount, &output));

    // The peepholes of the forget and input gates see the previous cell state, the output
    // gate's the new one.
    const std::vector<int16_t> forget = computeGate(cell, hal::kForgetGate, cell.cellStateIn);
    const std::vector<int16_t> input = cell.cifg ? std::vector<int16_t>{}
                                                 : computeGate(cell, hal::kInputGate, cell.cellStateIn);
    const std::vector<int16_t> candidate = computeGate(cell, hal::kCellGate, cell.cellStateIn);
    const std::vector<int16_t> cellState = updateCellState(cell, forget, input, candidate);
    const std::vector<int16_t> outputGate = computeGate(cell, hal::kOutputGate, cellState.data());
    const std::vector<int8_t> outputState = computeOutputState(cell, outputGate, cellState);
    NN_RET_CHECK(outputState.size() == outputCount);
    std::copy(cellState.begin(), cellState.end(), cellStateOut);
    std::copy(outputState.begin(), outputState.end(), outputStateOut);
    std::copy(outputState.begin(), outputState.end(), output);
    return true;
}

}  // namespace nnemu::cpu
