// FULLY_CONNECTED in its hybrid form (TFLite's dynamic-range quantization: float32 input and
// output, int8 weights with one scale per tensor or per output unit and zero point 0, optional
// float32 bias), which NNAPI has no operation for, computed as TFLite's kernel computes it:
// - each input row is quantized on the fly (HybridQuantization.h): symmetrically or, with
//   asymmetric_quantize_inputs, asymmetrically;
// - each output is the bias plus (the integer dot product of the row and the unit's weights, less
//   the zero point times the weights' sum) times the row's scale times the weights' scale, in
//   float, then the fused activation; an input that is all zeros gives the activated bias.
// And the int8 form (int8 input, weights and output), which NNAPI expresses but TFLite's x86
// build rounds as ruy does: on the int8 GEMM of ConvInt8.cpp, each input row one GEMM row, the
// multiplier from the double product of the scales with per-channel weights and from their float
// product with one weight scale (fully_connected.cc; conv::MultiplierFrom). And the float form, in
// the summation order of TFLite's Eigen GEMM (FloatConv.cpp).
#include <algorithm>
#include <cmath>

#include "ConvInt8.h"
#include "ConvInt8Gemm.h"
#include "CpuKernelList.h"
#include "FloatConv.h"
#include "HybridQuantization.h"

namespace nnemu::tflite {
namespace kernels::hybrid {
namespace {

const TfLiteFullyConnectedParams* options(const CpuKernelCall& call) { return call.params<TfLiteFullyConnectedParams>(); }

bool planInt8FullyConnected(const CpuKernelCall& call, conv::Int8ConvPlan* plan) {
    const std::vector<int32_t>& w = call.in(1).shape();
    const conv::MultiplierFrom from = call.in(1).tensor->isPerChannel() ? conv::MultiplierFrom::DoubleProduct
                                                                        : conv::MultiplierFrom::FloatProduct;
    return conv::planInt8Gemm(call, static_cast<size_t>(w[0]), static_cast<size_t>(w[1]), from, plan);
}

bool isHybridFullyConnected(const CpuKernelCall& call) {
    return call.in(0).type() == ElementType::FLOAT32 && call.in(1).type() == ElementType::INT8;
}

}  // namespace

bool prepareFullyConnected(const CpuKernelCall& call) {
    if (!call.expectCounts(2, 3, 1)) return false;
    if (floatconv::isFloatForm(call)) return floatconv::prepareFullyConnected(call);
    const CpuOperand &input = call.in(0), &weights = call.in(1), &output = call.out(0);
    const bool int8 = conv::isInt8Conv(call);
    if (!isHybridFullyConnected(call) && !int8) {
        return call.fail("the tools' CPU kernel computes the float32, hybrid (float32 input, int8 weights) and int8 forms only");
    }
    if (!int8 && !call.expectType(output, {ElementType::FLOAT32}, "output")) return false;
    const Tensor& w = *weights.tensor;
    if (weights.rank() != 2 || weights.shape()[1] <= 0) return call.fail("weights must have shape [units, depth]");
    const auto units = static_cast<size_t>(weights.shape()[0]), depth = static_cast<size_t>(weights.shape()[1]);
    if (!int8 && w.zeroPoint != 0) return call.fail("hybrid weights must have zero point 0");
    if (w.channelScales.size() > 1 && (w.quantizedDimension != 0 || w.channelScales.size() != units)) {
        return call.fail("weights quantized per channel must have one scale per unit, along dimension 0");
    }
    if (call.inputs.size() > 2 && call.in(2).present() && !int8) {
        const CpuOperand& bias = call.in(2);
        if (!call.expectType(bias, {ElementType::FLOAT32}, "bias")) return false;
        if (bias.count() != units) return call.fail("bias must have one value per unit");
    }
    const auto* o = options(call);
    if (o != nullptr && o->weights_format != kTfLiteFullyConnectedWeightsFormatDefault) {
        return call.fail("shuffled weights are not supported in the hybrid form");
    }
    if (o != nullptr && o->activation > kTfLiteActRelu6) return call.fail("the fused activation is not supported");
    if (input.count() % depth != 0) return call.fail("input size is not a multiple of the weights' depth");
    const auto rows = static_cast<int32_t>(input.count() / depth);
    std::vector<int32_t> shape{rows, static_cast<int32_t>(units)};
    if (o != nullptr && o->keep_num_dims) {
        shape = input.shape();
        shape.back() = static_cast<int32_t>(units);
    }
    return call.expectOutputShape(0, shape) && (!int8 || planInt8FullyConnected(call, nullptr));
}

namespace {

bool runInt8FullyConnected(const CpuKernelCall& call) {
    const auto depth = static_cast<size_t>(call.in(1).shape()[1]);
    const auto* o = options(call);
    return conv::runInt8Gemm(call, planInt8FullyConnected, call.in(0).count() / depth,
                             o != nullptr ? static_cast<int32_t>(o->activation) : 0,
                             [&](size_t first, size_t count, int16_t* rows, size_t rowLength) {
                                 if (rowLength == depth) return conv::widenInput(call.in(0), first * depth, count * depth, rows);
                                 for (size_t r = 0; r < count; ++r) {
                                     conv::widenInput(call.in(0), (first + r) * depth, depth, rows + r * rowLength);
                                 }
                             },
                             call.in(0).data);
}

}  // namespace


bool runFullyConnected(const CpuKernelCall& call) {
    if (!prepareFullyConnected(call)) return false;
    if (conv::isInt8Conv(call)) return runInt8FullyConnected(call);
    if (floatconv::isFloatForm(call)) return floatconv::runFullyConnected(call);
    const CpuOperand &input = call.in(0), &weights = call.in(1), &output = call.out(0);
    const Tensor& w = *weights.tensor;
    const auto units = static_cast<size_t>(weights.shape()[0]), depth = static_cast<size_t>(weights.shape()[1]);
    const size_t rows = input.count() / depth;
    const auto* o = options(call);
    const TfLiteFusedActivation activation = o != nullptr ? o->activation : kTfLiteActNone;
    const bool asymmetric = o != nullptr && o->asymmetric_quantize_inputs;
    const bool hasBias = call.inputs.size() > 2 && call.in(2).present();
    std::vector<float> values(input.count());
    if (!values.empty()) std::memcpy(values.data(), input.data, values.size() * sizeof(float));
    const auto* weightBytes = reinterpret_cast<const int8_t*>(weights.data);
    std::vector<float> result(rows * units);
    for (size_t r = 0; r < rows; ++r) {
        for (size_t u = 0; u < units; ++u) result[r * units + u] = hasBias ? call.in(2).at<float>(u) : 0.0f;
    }
    // TFLite leaves an all-zero input at the bias.
    const bool zero = std::all_of(values.begin(), values.end(), [](float v) { return v == 0.0f; });
    std::vector<int8_t> quantized(depth);
    const bool perChannel = w.channelScales.size() > 1;
    const float tensorScale = w.channelScales.empty() ? w.scale : w.channelScales[0];
    for (size_t r = 0; r < rows && !zero; ++r) {
        const float* row = values.data() + r * depth;
        RowQuantization q = asymmetric ? quantizeAsymmetric(row, depth, quantized.data())
                                       : quantizeSymmetric(row, depth, quantized.data());
        if (!perChannel) q.scale *= tensorScale;
        for (size_t u = 0; u < units; ++u) {
            const int8_t* unitWeights = weightBytes + u * depth;
            int32_t dot = 0, sum = 0;
            for (size_t k = 0; k < depth; ++k) {
                dot += int32_t{unitWeights[k]} * quantized[k];
                sum += unitWeights[k];
            }
            if (asymmetric) dot -= sum * q.offset;
            const float scale = perChannel ? q.scale * w.channelScales[u] : q.scale;
            result[r * units + u] += static_cast<float>(dot) * scale;
        }
    }
    for (size_t i = 0; i < result.size(); ++i) output.set<float>(i, activated(result[i], activation));
    return true;
}

}  // namespace kernels::hybrid
}  // namespace nnemu::tflite
