// Layers of XNNPACK kinds that only move, convert or normalize values, run by the core itself:
// reshapes, and up to kMaxScalarElements converts between 8-bit and float and float softmax. An 8-bit classifier's tail
// (reshape, 8-bit to float, softmax, float to 8-bit) was the one XNNPACK stage of the 8-bit
// MobileNets, and a process paid XNNPACK's start (xnn_initialize, with cpuinfo's probe of the CPU,
// 0.25-0.35 ms on a VM where each CPUID is an exit) in its first inference for it.
// NNEMU_NPU_KERNELS=xnnpack leaves them to XNNPACK.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "OwnKernelLayers.h"
#include "OwnLayerSupport.h"
#include "nnemu/kernels/QuantMath.h"

namespace nnemu::synap {
namespace {

using namespace own;

bool isEightBit(npu::DataType type) { return type == npu::DataType::QUINT8 || type == npu::DataType::QINT8; }

// Converts between 8-bit and float and softmax run here up to this many elements (a classifier's
// scores), in plain loops; larger tensors (a segmentation map, a float section inside an 8-bit
// network) stay with XNNPACK's vector kernels.
constexpr size_t kMaxScalarElements = 16384;

// The same bytes under other dims (the kind's check: same type and element count).
struct ReshapeLayer : OwnLayer {
    bool run(const NativeLayer& layer) override {
        std::memmove(layer.output, layer.inputs[0], byteSize(layer.outputTensor()));
        return true;
    }
};

// Converts that only move 8-bit values to the other signedness: runFlipSign, in vectors.
struct SignFlipLayer : OwnLayer {
    bool run(const NativeLayer& layer) override { return runFlipSign(layer); }
};

// 8-bit to float: (q - zero point) * scale, as DEQUANTIZE computes it.
struct DequantizeLayer : OwnLayer {
    bool signedValues = false;
    int32_t zeroPoint = 0;
    float scale = 0.0f;

    bool run(const NativeLayer& layer) override {
        const size_t count = elementCount(layer.outputTensor());
        const uint8_t* in = layer.inputs[0];
        for (size_t i = 0; i < count; ++i) {
            const int32_t q = signedValues ? static_cast<int8_t>(in[i]) : in[i];
            const float real = static_cast<float>(q - zeroPoint) * scale;
            std::memcpy(layer.output + i * sizeof real, &real, sizeof real);
        }
        return true;
    }
};

// Float to 8-bit: round(x / scale) + zero point (half away from zero), saturated, as QUANTIZE
// computes it.
struct QuantizeLayer : OwnLayer {
    int32_t low = 0, high = 255;
    int32_t zeroPoint = 0;
    float scale = 1.0f;

    bool run(const NativeLayer& layer) override {
        const size_t count = elementCount(layer.outputTensor());
        for (size_t i = 0; i < count; ++i) {
            float real;
            std::memcpy(&real, layer.inputs[0] + i * sizeof real, sizeof real);
            layer.output[i] = static_cast<uint8_t>(quant::quantizeSaturatedFloat(real / scale, zeroPoint, low, high));
        }
        return true;
    }
};

// Softmax along the last axis of float values (beta is a layer before it): exp(x - max) / sum,
// as the reference computes it.
struct SoftmaxLayer : OwnLayer {
    size_t rows = 0, size = 0;

    static float load(const uint8_t* at, size_t i) {
        float value;
        std::memcpy(&value, at + i * sizeof value, sizeof value);
        return value;
    }
    static void store(uint8_t* at, size_t i, float value) { std::memcpy(at + i * sizeof value, &value, sizeof value); }

    bool run(const NativeLayer& layer) override {
        for (size_t r = 0; r < rows; ++r) {
            const uint8_t* in = layer.inputs[0] + r * size * sizeof(float);
            uint8_t* out = layer.output + r * size * sizeof(float);
            float max = load(in, 0);
            for (size_t c = 1; c < size; ++c) max = std::max(max, load(in, c));
            float sum = 0.0f;
            for (size_t c = 0; c < size; ++c) {
                const float e = std::exp(load(in, c) - max);
                store(out, c, e);
                sum += e;
            }
            for (size_t c = 0; c < size; ++c) store(out, c, load(out, c) / sum);
        }
        return true;
    }
};

}  // namespace

std::unique_ptr<LayerState> ownReshape(const npu::Program& /*program*/, const npu::Layer& layer) {
    if (!ownKernelsEnabled() || layer.inputs()->size() != 1) return nullptr;
    return std::make_unique<ReshapeLayer>();
}

std::unique_ptr<LayerState> ownConvert(const npu::Program& program, const npu::Layer& layer) {
    if (!ownKernelsEnabled() || layer.inputs()->size() != 1) return nullptr;
    const npu::Tensor& input = tensorAt(program, layer.inputs()->Get(0));
    const npu::Tensor& output = outputOf(program, layer);
    const bool toSigned = input.type() == npu::DataType::QUINT8 && output.type() == npu::DataType::QINT8;
    const bool toUnsigned = input.type() == npu::DataType::QINT8 && output.type() == npu::DataType::QUINT8;
    if (toSigned || toUnsigned) {
        if (input.scale() != output.scale() || output.zero_point() != input.zero_point() + (toSigned ? -128 : 128)) {
            return nullptr;
        }
        return std::make_unique<SignFlipLayer>();
    }
    if (elementCount(output) > kMaxScalarElements) return nullptr;
    if (isEightBit(input.type()) && output.type() == npu::DataType::FLOAT32) {
        auto state = std::make_unique<DequantizeLayer>();
        state->signedValues = input.type() == npu::DataType::QINT8;
        state->zeroPoint = input.zero_point();
        state->scale = input.scale();
        return state;
    }
    if (input.type() == npu::DataType::FLOAT32 && isEightBit(output.type())) {
        if (!(output.scale() > 0.0f) || !std::isfinite(output.scale())) return nullptr;
        auto state = std::make_unique<QuantizeLayer>();
        const bool signedValues = output.type() == npu::DataType::QINT8;
        state->low = signedValues ? -128 : 0;
        state->high = state->low + 255;
        state->zeroPoint = output.zero_point();
        state->scale = output.scale();
        return state;
    }
    return nullptr;
}

std::unique_ptr<LayerState> ownSoftmax(const npu::Program& program, const npu::Layer& layer) {
    if (!ownKernelsEnabled() || layer.inputs()->size() != 1) return nullptr;
    const npu::Tensor& input = tensorAt(program, layer.inputs()->Get(0));
    const npu::Tensor& output = outputOf(program, layer);
    if (input.type() != npu::DataType::FLOAT32 || output.type() != npu::DataType::FLOAT32 ||
        elementCount(input) > kMaxScalarElements) {
        return nullptr;
    }
    const std::vector<uint32_t> dims = dimsOf(input);
    const size_t size = dims.empty() ? 1 : dims.back();
    if (size == 0) return nullptr;
    auto state = std::make_unique<SoftmaxLayer>();
    state->size = size;
    state->rows = elementCount(input) / size;
    return state;
}

}  // namespace nnemu::synap
