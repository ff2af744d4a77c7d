// Reference kernel of FULLY_CONNECTED (F32, F16, Q8, Q8S): output[b][u] = sum_i input[b][i] *
// weights[u][i] + bias[u], the input read as [batch, inputSize]. The float sums run in 16 lanes
// (one build per vector unit, base/Clones.h; no FMA contraction, see CMakeLists.txt).
#include <cstdint>
#include <vector>

#include "ConvPoolUtils.h"
#include "DotProduct.h"
#include "nnemu/cpu/Kernels.h"
#include "nnemu/base/Clones.h"
#include "nnemu/kernels/QuantMath.h"
#include "KernelList.h"

namespace nnemu::cpu {
namespace {

struct FcShape {
    uint32_t batches = 0;
    uint32_t units = 0;
    uint32_t inputSize = 0;
};

// 16 float lanes: one AVX-512 register, two AVX2 or four SSE registers (GCC's vector extension).
typedef float FloatLanes __attribute__((vector_size(64)));
constexpr uint32_t kLanes = 16;
constexpr uint32_t kUnitBlock = 4;

// sum_i x[i] * w[u][i] for kUnits units of inputSize elements, rows `stride` apart: lane l of a
// unit's vector sums the products i = l, l + 16, ... in order, the 16 lanes are then added as a
// fixed tree and the remaining inputSize % 16 products in order after. The same order in every
// build (the lanes are the source's, not the vector unit's), so every build gives the same bits.
template <uint32_t kUnits>
[[gnu::always_inline]] inline void unitSums(const float* x, const float* w, size_t stride, uint32_t inputSize,
                                            float* sums) {
    FloatLanes acc[kUnits] = {};
    const uint32_t vectorEnd = inputSize / kLanes * kLanes;
    for (uint32_t i = 0; i < vectorEnd; i += kLanes) {
        FloatLanes xi;
        __builtin_memcpy(&xi, x + i, sizeof xi);
        for (uint32_t k = 0; k < kUnits; ++k) {
            FloatLanes wi;
            __builtin_memcpy(&wi, w + k * stride + i, sizeof wi);
            acc[k] += xi * wi;
        }
    }
    for (uint32_t k = 0; k < kUnits; ++k) {
        float lanes[kLanes];
        __builtin_memcpy(lanes, &acc[k], sizeof lanes);
        for (uint32_t width = kLanes / 2; width > 0; width /= 2) {
            for (uint32_t l = 0; l < width; ++l) lanes[l] += lanes[l + width];
        }
        float sum = lanes[0];
        for (uint32_t i = vectorEnd; i < inputSize; ++i) sum += x[i] * w[k * stride + i];
        sums[k] = sum;
    }
}

// Blocks of units outside, batches inside: a block's weights are read from memory once and
// from the cache for the other batches.
NNEMU_CLONES void fullyConnectedFloat(const FcShape& s, int32_t activation, const float* input,
                                      const float* weights, const float* bias, float* output) {
    float low, high;
    quant::floatActivationRange(activation, &low, &high);
    const size_t stride = s.inputSize;
    uint32_t u = 0;
    const auto store = [&](uint32_t b, uint32_t first, const float* sums, uint32_t count) {
        for (uint32_t k = 0; k < count; ++k) {
            output[static_cast<size_t>(b) * s.units + first + k] =
                    convpool::clampFloat(sums[k] + bias[first + k], low, high);
        }
    };
    for (; u + kUnitBlock <= s.units; u += kUnitBlock) {
        for (uint32_t b = 0; b < s.batches; ++b) {
            float sums[kUnitBlock];
            unitSums<kUnitBlock>(input + b * stride, weights + u * stride, stride, s.inputSize, sums);
            store(b, u, sums, kUnitBlock);
        }
    }
    for (; u < s.units; ++u) {
        for (uint32_t b = 0; b < s.batches; ++b) {
            float sum;
            unitSums<1>(input + b * stride, weights + u * stride, stride, s.inputSize, &sum);
            store(b, u, &sum, 1);
        }
    }
}

// T: uint8_t (Q8) or int8_t (Q8S), the type of input, weights and output.
template <typename T>
bool fullyConnectedQuant8(const FcShape& s, int32_t activation, const OperationContext& context,
                          OperandView& outputView) {
    const OperandView& inputView = context.input(0);
    const OperandView& weightsView = context.input(1);
    NN_RET_CHECK(weightsView.type == inputView.type && context.input(2).type == OperandType::TENSOR_INT32);
    NN_RET_CHECK(convpool::fits(outputView, outputView.elements(), sizeof(T)));
    convpool::Requantizer<T> requantize;
    NN_RET_CHECK(requantize.init(inputView, weightsView, outputView, activation, 1));
    const T* input = inputView.as<T>();
    const T* weights = weightsView.as<T>();
    const int32_t* bias = context.input(2).as<int32_t>();
    T* output = outputView.as<T>();
    const int32_t inputZeroPoint = inputView.zeroPoint;
    const int32_t weightsZeroPoint = weightsView.zeroPoint;
    std::vector<int32_t> weightSums(s.units, 0);
    for (uint32_t u = 0; u < s.units; ++u) {
        weightSums[u] = elementSum(weights + static_cast<size_t>(u) * s.inputSize, s.inputSize);
    }
    for (uint32_t b = 0; b < s.batches; ++b) {
        const T* row = input + static_cast<size_t>(b) * s.inputSize;
        const int32_t inputSum = elementSum(row, s.inputSize);
        for (uint32_t u = 0; u < s.units; ++u) {
            const T* w = weights + static_cast<size_t>(u) * s.inputSize;
            // sum((x - zx) * (w - zw)) as an 8-bit dot product and two corrections (exact).
            const int32_t acc = dotProduct(row, w, s.inputSize) - weightsZeroPoint * inputSum -
                                inputZeroPoint * weightSums[u] +
                                static_cast<int32_t>(s.inputSize) * inputZeroPoint * weightsZeroPoint;
            output[static_cast<size_t>(b) * s.units + u] = requantize(acc, bias[u], 0);
        }
    }
    return true;
}

}  // namespace

bool kernels::fullyConnected(OperationContext& context) {
    const OperandView& input = context.input(0);
    const OperandView& weights = context.input(1);
    const OperandView& bias = context.input(2);
    OperandView& output = context.output(0);
    NN_RET_CHECK(weights.rank() == 2 && bias.rank() == 1 && output.rank() == 2);
    FcShape s;
    s.units = weights.dim(0);
    s.inputSize = weights.dim(1);
    NN_RET_CHECK(s.inputSize > 0);
    NN_RET_CHECK(input.elements() % s.inputSize == 0);
    s.batches = static_cast<uint32_t>(input.elements() / s.inputSize);
    NN_RET_CHECK(output.dim(0) == s.batches && output.dim(1) == s.units);
    NN_RET_CHECK(bias.dim(0) == s.units);
    const int32_t activation = context.scalar<int32_t>(3);
    NN_RET_CHECK(activation >= 0 && activation <= 3);
    const uint64_t outCount = output.elements();
    switch (input.type) {
        case OperandType::TENSOR_FLOAT32:
            NN_RET_CHECK(weights.type == input.type && bias.type == input.type);
            NN_RET_CHECK(convpool::fits(output, outCount, sizeof(float)));
            fullyConnectedFloat(s, activation, input.as<float>(), weights.as<float>(),
                                bias.as<float>(), output.as<float>());
            return true;
        case OperandType::TENSOR_FLOAT16: {
            NN_RET_CHECK(weights.type == input.type && bias.type == input.type);
            NN_RET_CHECK(convpool::fits(output, outCount, sizeof(uint16_t)));
            const std::vector<float> in = convpool::halfToFloatVector(input);
            const std::vector<float> w = convpool::halfToFloatVector(weights);
            const std::vector<float> b = convpool::halfToFloatVector(bias);
            std::vector<float> out(static_cast<size_t>(outCount));
            fullyConnectedFloat(s, activation, in.data(), w.data(), b.data(), out.data());
            convpool::storeAsHalf(out, output);
            return true;
        }
        case OperandType::TENSOR_QUANT8_ASYMM:
            return fullyConnectedQuant8<uint8_t>(s, activation, context, output);
        case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
            return fullyConnectedQuant8<int8_t>(s, activation, context, output);
        default:
            return false;
    }
}

}  // namespace nnemu::cpu
