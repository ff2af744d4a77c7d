// PReLU with any broadcasting slope, and quantized maximum and minimum, which the core's XNNPACK
// lacks: numpy-style broadcasting, in the arithmetic NNAPI defines (fixed-point rescaling for
// uint8 PRELU; real values compared and the chosen one requantized for MAXIMUM and MINIMUM).
#include <algorithm>
#include <cmath>

#include "NativeLayers.h"
#include "nnemu/kernels/QuantMath.h"
#include "nnemu/hal/Broadcast.h"

namespace nnemu::synap {
namespace {

struct Binary {
    const npu::Tensor& a;
    const npu::Tensor& b;
    const npu::Tensor& out;
    std::vector<uint32_t> aDims, bDims, outDims;
};

Binary binaryOf(const NativeLayer& layer) {
    const npu::Tensor& a = layer.inputTensor(0);
    const npu::Tensor& b = layer.inputTensor(1);
    const npu::Tensor& out = layer.outputTensor();
    return {a, b, out, dimsOf(a), dimsOf(b), dimsOf(out)};
}

// Two inputs and an output of `type` (positive scales if uint8), the output of broadcast shape.
bool binaryFits(const npu::Program& program, const npu::Layer& layer, npu::DataType type) {
    if (layer.inputs()->size() != 2) return false;
    const npu::Tensor& a = tensorAt(program, layer.inputs()->Get(0));
    const npu::Tensor& b = tensorAt(program, layer.inputs()->Get(1));
    const npu::Tensor& out = outputOf(program, layer);
    for (const npu::Tensor* t : {&a, &b, &out}) {
        if (t->type() != type || (type == npu::DataType::QUINT8 && !(t->scale() > 0.0f))) return false;
    }
    std::vector<uint32_t> dims;
    return hal::broadcastShape(dimsOf(a), dimsOf(b), &dims) && dims == dimsOf(out);
}

// The real value of a uint8 element: exact in double (33 significant bits at most).
double realValue(const npu::Tensor& tensor, uint8_t q) {
    return (static_cast<double>(q) - tensor.zero_point()) * static_cast<double>(tensor.scale());
}

// zeroPoint + round(real / scale), half away from zero, clamped to uint8.
uint8_t quantize(const npu::Tensor& tensor, double real) {
    const double q = std::round(real / tensor.scale()) + tensor.zero_point();
    return static_cast<uint8_t>(std::clamp(q, 0.0, 255.0));
}

template <bool kMaximum>
bool runMaxMin(const NativeLayer& layer) {
    const Binary op = binaryOf(layer);
    const uint8_t* x = layer.inputs[0];
    const uint8_t* y = layer.inputs[1];
    hal::forEachBroadcast(op.outDims, op.aDims, op.bDims, [&](uint64_t o, uint64_t i, uint64_t j) {
        const double a = realValue(op.a, x[i]), b = realValue(op.b, y[j]);
        // Strict comparisons: on ties the first input's value is the one requantized.
        const bool second = kMaximum ? b > a : b < a;
        layer.output[o] = quantize(op.out, second ? b : a);
    });
    return true;
}

void preluFloat(const NativeLayer& layer, const Binary& op) {
    const auto* x = reinterpret_cast<const float*>(layer.inputs[0]);
    const auto* slope = reinterpret_cast<const float*>(layer.inputs[1]);
    auto* out = reinterpret_cast<float*>(layer.output);
    hal::forEachBroadcast(op.outDims, op.aDims, op.bDims, [&](uint64_t o, uint64_t i, uint64_t j) {
        out[o] = x[i] >= 0.0f ? x[i] : x[i] * slope[j];
    });
}

// x >= 0 is rescaled by inScale / outScale; x < 0 is multiplied by the slope and rescaled by
// inScale * slopeScale / outScale.
void preluQuantized(const NativeLayer& layer, const Binary& op) {
    int32_t positiveMultiplier, negativeMultiplier;
    int positiveShift, negativeShift;
    quant::quantizeMultiplier(static_cast<double>(op.a.scale()) / op.out.scale(), &positiveMultiplier, &positiveShift);
    quant::quantizeMultiplier(static_cast<double>(op.a.scale()) * op.b.scale() / op.out.scale(), &negativeMultiplier,
                            &negativeShift);
    const uint8_t* x = layer.inputs[0];
    const uint8_t* slope = layer.inputs[1];
    hal::forEachBroadcast(op.outDims, op.aDims, op.bDims, [&](uint64_t o, uint64_t i, uint64_t j) {
        const int32_t value = static_cast<int32_t>(x[i]) - op.a.zero_point();
        const int32_t scaled =
                value >= 0 ? quant::multiplyByQuantizedMultiplier(value, positiveMultiplier, positiveShift)
                           : quant::multiplyByQuantizedMultiplier(
                                     value * (static_cast<int32_t>(slope[j]) - op.b.zero_point()),
                                     negativeMultiplier, negativeShift);
        layer.output[o] = static_cast<uint8_t>(std::clamp(quant::saturatingAdd(scaled, op.out.zero_point()), 0, 255));
    });
}

}  // namespace

bool checkBroadcastPrelu(const npu::Program& program, const npu::Layer& layer) {
    return binaryFits(program, layer, npu::DataType::FLOAT32) || binaryFits(program, layer, npu::DataType::QUINT8);
}

bool runBroadcastPrelu(const NativeLayer& layer) {
    const Binary op = binaryOf(layer);
    if (op.out.type() == npu::DataType::FLOAT32) {
        preluFloat(layer, op);
    } else {
        preluQuantized(layer, op);
    }
    return true;
}

bool checkQuantizedMaxMin(const npu::Program& program, const npu::Layer& layer) {
    return binaryFits(program, layer, npu::DataType::QUINT8);
}

bool runQuantizedMaximum(const NativeLayer& layer) { return runMaxMin<true>(layer); }
bool runQuantizedMinimum(const NativeLayer& layer) { return runMaxMin<false>(layer); }

}  // namespace nnemu::synap
