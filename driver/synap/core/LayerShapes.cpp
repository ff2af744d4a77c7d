#include "LayerShapes.h"

#include "../program/CoreLimits.h"
#include "NativeLayers.h"
#include "nnemu/hal/Broadcast.h"

namespace nnemu::synap {
namespace {

using Dims = std::vector<uint32_t>;

const npu::Tensor& inputOf(const npu::Program& program, const npu::Layer& layer, uint32_t i) {
    return tensorAt(program, layer.inputs()->Get(i));
}

bool isConstant(const npu::Tensor& tensor) { return isStored(tensor); }

// `count` inputs, each of the output's type.
bool sameTypeInputs(const npu::Program& program, const npu::Layer& layer, uint32_t count) {
    if (layer.inputs()->size() != count) return false;
    for (uint32_t i = 0; i < count; ++i) {
        if (inputOf(program, layer, i).type() != outputOf(program, layer).type()) return false;
    }
    return true;
}

// Output size of a window along one axis, as XNNPACK computes it; 0 when the window does not fit
// the padded input (XNNPACK would then read outside it).
uint64_t windowOutput(uint64_t in, uint64_t before, uint64_t after, uint64_t kernel, uint64_t dilation,
                      uint64_t stride) {
    if (kernel == 0 || dilation == 0 || stride == 0) return 0;
    const uint64_t padded = in + before + after, effective = (kernel - 1) * dilation + 1;
    return padded < effective ? 0 : (padded - effective) / stride + 1;
}

// A quantized layer's requantization factors (one per channel for per-channel filters) are ones
// XNNPACK takes: it asserts on a factor below 2^-32 rather than refusing it.
bool requantizationFits(const npu::Program& program, const npu::Layer& layer) {
    const npu::Tensor& input = inputOf(program, layer, 0);
    if (input.type() == npu::DataType::FLOAT32) return true;
    const npu::Tensor& filter = inputOf(program, layer, 1);
    const float outputScale = outputOf(program, layer).scale();
    if (filter.type() == npu::DataType::QCINT8 && filter.channel_scales() != nullptr) {
        for (float scale : *filter.channel_scales()) {
            if (!requantizationFactorSupported(input.scale(), scale, outputScale)) return false;
        }
        return true;
    }
    return requantizationFactorSupported(input.scale(), filter.scale(), outputScale);
}

// Static weights the core packs: elements as wide as the input's, 32-bit biases, both constant.
bool weightsFit(const npu::Program& program, const npu::Layer& layer, const Dims& filterDims, uint32_t outChannels) {
    const npu::Tensor& input = inputOf(program, layer, 0);
    const npu::Tensor& filter = inputOf(program, layer, 1);
    const npu::Tensor& bias = inputOf(program, layer, 2);
    return isConstant(filter) && isConstant(bias) && elementBytes(filter.type()) == elementBytes(input.type()) &&
           elementBytes(bias.type()) == 4 && dimsOf(filter) == filterDims && dimsOf(bias) == Dims{outChannels} &&
           requantizationFits(program, layer);
}

}  // namespace

bool checkConv2DShapes(const npu::Program& program, const npu::Layer& layer) {
    const auto* p = layer.params_as_Conv2D();
    if (p == nullptr || p->padding() == nullptr || layer.inputs()->size() != 3) return false;
    const Dims in = dimsOf(inputOf(program, layer, 0));
    if (in.size() != 4 || inputOf(program, layer, 0).type() != outputOf(program, layer).type()) return false;
    const uint32_t inChannels = p->input_channels();
    const uint64_t outChannels = p->depthwise() ? uint64_t{inChannels} * p->depth_multiplier() : p->output_channels();
    if (in[3] != inChannels || outChannels == 0 || outChannels > UINT32_MAX) return false;
    const auto oc = static_cast<uint32_t>(outChannels);
    const Dims filter = p->depthwise() ? Dims{1, p->kernel_height(), p->kernel_width(), oc}
                                       : Dims{oc, p->kernel_height(), p->kernel_width(), inChannels};
    if (!weightsFit(program, layer, filter, oc)) return false;
    const auto* pad = p->padding();
    const uint64_t height = windowOutput(in[1], pad->top(), pad->bottom(), p->kernel_height(), p->dilation_height(),
                                         p->stride_height());
    const uint64_t width = windowOutput(in[2], pad->left(), pad->right(), p->kernel_width(), p->dilation_width(),
                                        p->stride_width());
    return height != 0 && width != 0 && dimsOf(outputOf(program, layer)) == Dims{in[0], static_cast<uint32_t>(height),
                                                                                static_cast<uint32_t>(width), oc};
}

// XNN_FLAG_TENSORFLOW_RESHAPE_2D: the input read as [elements / input channels, input channels].
bool checkFullyConnectedShapes(const npu::Program& program, const npu::Layer& layer) {
    if (layer.inputs()->size() != 3) return false;
    const npu::Tensor& input = inputOf(program, layer, 0);
    const Dims filter = dimsOf(inputOf(program, layer, 1));
    if (filter.size() != 2 || filter[1] == 0 || input.type() != outputOf(program, layer).type()) return false;
    if (!weightsFit(program, layer, filter, filter[0]) || elementCount(input) % filter[1] != 0) return false;
    return dimsOf(outputOf(program, layer)) == Dims{static_cast<uint32_t>(elementCount(input) / filter[1]), filter[0]};
}

bool checkBroadcastShapes(const npu::Program& program, const npu::Layer& layer) {
    Dims dims;
    return sameTypeInputs(program, layer, 2) &&
           hal::broadcastShape(dimsOf(inputOf(program, layer, 0)), dimsOf(inputOf(program, layer, 1)), &dims) &&
           dims == dimsOf(outputOf(program, layer));
}

bool checkPool2DShapes(const npu::Program& program, const npu::Layer& layer) {
    const npu::Padding* pad = nullptr;
    uint32_t poolHeight = 0, poolWidth = 0, strideHeight = 0, strideWidth = 0;
    if (const auto* p = layer.params_as_AveragePool2D()) {
        pad = p->padding();
        poolHeight = p->pool_height(), poolWidth = p->pool_width();
        strideHeight = p->stride_height(), strideWidth = p->stride_width();
    } else if (const auto* q = layer.params_as_MaxPool2D()) {
        pad = q->padding();
        poolHeight = q->pool_height(), poolWidth = q->pool_width();
        strideHeight = q->stride_height(), strideWidth = q->stride_width();
    } else if (const auto* r = layer.params_as_QuantizedAveragePool2D()) {
        // 8-bit values moved, not rescaled: one quantization on both sides.
        const npu::Tensor& in = inputOf(program, layer, 0);
        const npu::Tensor& out = outputOf(program, layer);
        if ((in.type() != npu::DataType::QUINT8 && in.type() != npu::DataType::QINT8) || in.scale() != out.scale() ||
            in.zero_point() != out.zero_point()) {
            return false;
        }
        pad = r->padding();
        poolHeight = r->pool_height(), poolWidth = r->pool_width();
        strideHeight = r->stride_height(), strideWidth = r->stride_width();
    }
    if (pad == nullptr || !sameTypeInputs(program, layer, 1)) return false;
    const Dims in = dimsOf(inputOf(program, layer, 0));
    if (in.size() != 4) return false;
    const uint64_t height = windowOutput(in[1], pad->top(), pad->bottom(), poolHeight, 1, strideHeight);
    const uint64_t width = windowOutput(in[2], pad->left(), pad->right(), poolWidth, 1, strideWidth);
    return height != 0 && width != 0 &&
           dimsOf(outputOf(program, layer)) ==
                   Dims{in[0], static_cast<uint32_t>(height), static_cast<uint32_t>(width), in[3]};
}

bool checkGlobalPoolShapes(const npu::Program& program, const npu::Layer& layer) {
    if (!sameTypeInputs(program, layer, 1)) return false;
    const Dims in = dimsOf(inputOf(program, layer, 0));
    return in.size() == 4 && dimsOf(outputOf(program, layer)) == Dims{in[0], 1, 1, in[3]};
}

bool checkSameShape(const npu::Program& program, const npu::Layer& layer) {
    return sameTypeInputs(program, layer, 1) && dimsOf(inputOf(program, layer, 0)) == dimsOf(outputOf(program, layer));
}

// The one kind whose output type differs from its input's: only the dims must agree.
bool checkConvertShapes(const npu::Program& program, const npu::Layer& layer) {
    return layer.inputs()->size() == 1 && dimsOf(inputOf(program, layer, 0)) == dimsOf(outputOf(program, layer));
}

bool checkReshapeShapes(const npu::Program& program, const npu::Layer& layer) {
    return sameTypeInputs(program, layer, 1) &&
           elementCount(inputOf(program, layer, 0)) == elementCount(outputOf(program, layer));
}

bool checkConstantPadShapes(const npu::Program& program, const npu::Layer& layer) {
    const auto* p = layer.params_as_ConstantPad();
    if (p == nullptr || p->before() == nullptr || p->after() == nullptr || !sameTypeInputs(program, layer, 1)) {
        return false;
    }
    const Dims in = dimsOf(inputOf(program, layer, 0)), out = dimsOf(outputOf(program, layer));
    if (p->before()->size() != in.size() || p->after()->size() != in.size() || out.size() != in.size()) return false;
    for (uint32_t d = 0; d < in.size(); ++d) {
        if (uint64_t{in[d]} + p->before()->Get(d) + p->after()->Get(d) != out[d]) return false;
    }
    return true;
}

bool checkResizeBilinearShapes(const npu::Program& program, const npu::Layer& layer) {
    const auto* p = layer.params_as_ResizeBilinear();
    if (p == nullptr || !sameTypeInputs(program, layer, 1)) return false;
    const Dims in = dimsOf(inputOf(program, layer, 0));
    return in.size() == 4 && p->output_height() != 0 && p->output_width() != 0 &&
           dimsOf(outputOf(program, layer)) == Dims{in[0], p->output_height(), p->output_width(), in[3]};
}

// XNNPACK reads one constant float slope per channel (the last axis).
bool checkPreluShapes(const npu::Program& program, const npu::Layer& layer) {
    if (!sameTypeInputs(program, layer, 2) || outputOf(program, layer).type() != npu::DataType::FLOAT32) return false;
    const Dims in = dimsOf(inputOf(program, layer, 0));
    const npu::Tensor& slope = inputOf(program, layer, 1);
    return isConstant(slope) && !in.empty() && elementCount(slope) == in.back() &&
           in == dimsOf(outputOf(program, layer));
}

bool checkDeconvolution2DShapes(const npu::Program& program, const npu::Layer& layer) {
    const auto* p = layer.params_as_Deconvolution2D();
    if (p == nullptr || p->padding() == nullptr || layer.inputs()->size() != 3) return false;
    const Dims in = dimsOf(inputOf(program, layer, 0));
    if (in.size() != 4 || in[3] != p->input_channels() || p->output_channels() == 0 ||
        inputOf(program, layer, 0).type() != outputOf(program, layer).type()) {
        return false;
    }
    const Dims filter{p->output_channels(), p->kernel_height(), p->kernel_width(), p->input_channels()};
    if (!weightsFit(program, layer, filter, p->output_channels())) return false;
    if (p->kernel_height() == 0 || p->kernel_width() == 0 || p->stride_height() == 0 || p->stride_width() == 0) {
        return false;
    }
    // stride * (in - 1) + adjustment + kernel - padding, as XNNPACK computes it (dilation 1).
    const auto* pad = p->padding();
    auto along = [](uint32_t size, uint32_t stride, uint32_t adjustment, uint32_t kernel, uint32_t before,
                    uint32_t after) -> int64_t {
        if (size == 0) return 0;
        return int64_t{stride} * (size - 1) + adjustment + kernel - before - after;
    };
    const int64_t height = along(in[1], p->stride_height(), p->adjustment_height(), p->kernel_height(), pad->top(),
                                 pad->bottom());
    const int64_t width = along(in[2], p->stride_width(), p->adjustment_width(), p->kernel_width(), pad->left(),
                                pad->right());
    return height > 0 && width > 0 && height <= UINT32_MAX && width <= UINT32_MAX &&
           dimsOf(outputOf(program, layer)) ==
                   Dims{in[0], static_cast<uint32_t>(height), static_cast<uint32_t>(width), p->output_channels()};
}

}  // namespace nnemu::synap
