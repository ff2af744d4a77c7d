#include "OwnSpecs.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "nnemu/kernels/QuantMath.h"

namespace nnemu::synap::own {

// NNEMU_NPU_KERNELS: "xnnpack" (none of the own kernels), "all" (every own kernel wherever it
// computes exactly, even where it measures slower than XNNPACK), otherwise the default set.
// Read at every load, so that one process can build several cores (benchmarks).
std::string_view kernelChoice() {
    const char* choice = std::getenv("NNEMU_NPU_KERNELS");
    return choice == nullptr ? std::string_view() : std::string_view(choice);
}

bool ownKernelsEnabled() { return kernelChoice() != "xnnpack"; }

// Bytes of the tensor's size, or a filter held packed (used in place, PackedFilters.h).
bool hasData(const npu::Tensor& tensor) {
    if (tensor.packed() && (tensor.data() == nullptr || tensor.data()->size() == 0)) return byteSize(tensor) > 0;
    return tensor.data() != nullptr && tensor.data()->size() == byteSize(tensor) && byteSize(tensor) > 0;
}

// The layer's clamp in its output's quantized values, as the reference derives it from the
// fused activation (the program keeps the activation's real bounds).
void quantizedBounds(const npu::Layer& layer, const npu::Tensor& output, int32_t qmin, int32_t* low, int32_t* high) {
    auto quantize = [&](float bound) {
        return quant::quantizeSaturated(bound / output.scale(), output.zero_point(), qmin, qmin + 255);
    };
    *low = std::isfinite(layer.output_min()) ? std::max(qmin, quantize(layer.output_min())) : qmin;
    *high = std::isfinite(layer.output_max()) ? std::min(qmin + 255, quantize(layer.output_max())) : qmin + 255;
}

// What the kernels' specs share, from the operands (which must outlive the spec).
void fillSpec(const Operands& o, kernels::QuantLayerSpec* spec) {
    spec->signedValues = o.isSigned;
    spec->inputZeroPoint = o.input->zero_point();
    spec->filterZeroPoint = o.filter->type() == npu::DataType::QUINT8 ? o.filter->zero_point() : 0;
    spec->outputZeroPoint = o.output->zero_point();
    spec->inputScale = o.input->scale();
    spec->outputScale = o.output->scale();
    spec->filterScales = o.filterScales;
    spec->low = o.low;
    spec->high = o.high;
    spec->weights = o.filter->data() != nullptr && o.filter->data()->size() > 0 ? o.filter->data()->data() : nullptr;
    spec->bias = o.bias32.data();
}

bool readOperands(const npu::Program& program, const npu::Layer& layer, uint32_t channels, uint32_t channelDim,
                  Operands* o) {
    if (layer.inputs()->size() != 3) return false;
    o->input = &tensorAt(program, layer.inputs()->Get(0));
    o->filter = &tensorAt(program, layer.inputs()->Get(1));
    o->bias = &tensorAt(program, layer.inputs()->Get(2));
    o->output = &outputOf(program, layer);
    o->isSigned = o->input->type() == npu::DataType::QINT8;
    const bool perChannel = o->filter->type() == npu::DataType::QCINT8;
    if (!o->isSigned && (o->input->type() != npu::DataType::QUINT8 || o->filter->type() != npu::DataType::QUINT8)) {
        return false;
    }
    if (o->isSigned && !perChannel && (o->filter->type() != npu::DataType::QINT8 || o->filter->zero_point() != 0)) {
        return false;
    }
    if (o->bias->type() != (perChannel ? npu::DataType::QCINT32 : npu::DataType::QINT32)) return false;
    if (o->output->type() != o->input->type() || !hasData(*o->filter) || !hasData(*o->bias)) return false;
    if (o->bias->dims()->size() != 1 || o->bias->dims()->Get(0) != channels) return false;
    o->filterScales.assign(1, o->filter->scale());
    if (perChannel) {
        const auto* scales = o->filter->channel_scales();
        if (scales == nullptr || scales->size() != channels || o->filter->channel_dim() != channelDim) return false;
        o->filterScales.assign(scales->begin(), scales->end());
    }
    o->bias32.resize(channels);
    std::memcpy(o->bias32.data(), o->bias->data()->data(), channels * sizeof(int32_t));
    quantizedBounds(layer, *o->output, o->isSigned ? -128 : 0, &o->low, &o->high);
    return true;
}

// The spec's weights: the program's, or `filter` (held outside the program) if it has the size.
bool weightsOf(std::span<const uint8_t> filter, size_t size, kernels::QuantLayerSpec* spec) {
    if (spec->weights != nullptr) return true;
    spec->weights = filter.data();
    return filter.size() == size;
}

// Dilation is moot for a 1x1 kernel.
bool isPointwise(const npu::Layer& layer) {
    if (layer.params_type() == npu::LayerParams::FullyConnected) return true;
    const auto* p = layer.params_as_Conv2D();
    if (p == nullptr || p->depthwise() || p->padding() == nullptr) return false;
    const auto* pad = p->padding();
    return p->kernel_height() == 1 && p->kernel_width() == 1 && p->stride_height() == 1 && p->stride_width() == 1 &&
           pad->top() == 0 && pad->bottom() == 0 && pad->left() == 0 && pad->right() == 0;
}

bool gemmSpec(const npu::Program& program, const npu::Layer& layer, Operands* o, kernels::QuantGemmSpec* spec) {
    // The shapes passed the kind's check: filter [N, (1, 1,) K], bias [N], rows of K inputs.
    const auto* filterDims = tensorAt(program, layer.inputs()->Get(1)).dims();
    if (filterDims->size() == 0) return false;
    const uint32_t channels = filterDims->Get(0), depth = filterDims->Get(filterDims->size() - 1);
    if (!readOperands(program, layer, channels, 0, o) || depth == 0 || elementCount(*o->input) % depth != 0) {
        return false;
    }
    spec->depth = depth;
    spec->channels = channels;
    fillSpec(*o, spec);
    return true;
}

namespace {

// What a convolution-like spec takes from an NHWC layer whose kind's check held: the image's
// geometry, the padding before it, and what the kernels' specs share.
template <typename Spec>
void fillImageSpec(const Operands& o, const npu::Conv2D& p, uint32_t channels, Spec* spec) {
    const auto* in = o.input->dims();
    const auto* out = o.output->dims();
    spec->batches = in->Get(0);
    spec->inHeight = in->Get(1);
    spec->inWidth = in->Get(2);
    spec->outHeight = out->Get(1);
    spec->outWidth = out->Get(2);
    spec->channels = channels;
    spec->padTop = p.padding()->top();
    spec->padLeft = p.padding()->left();
    fillSpec(o, spec);
}

}  // namespace

bool floatGemmSpec(const npu::Program& program, const npu::Layer& layer, kernels::FloatGemmSpec* spec) {
    if (!isPointwise(layer) || layer.inputs()->size() != 3) return false;
    const npu::Tensor& input = tensorAt(program, layer.inputs()->Get(0));
    const npu::Tensor& filter = tensorAt(program, layer.inputs()->Get(1));
    const npu::Tensor& bias = tensorAt(program, layer.inputs()->Get(2));
    for (const npu::Tensor* t : {&input, &filter, &bias, &outputOf(program, layer)}) {
        if (t->type() != npu::DataType::FLOAT32) return false;
    }
    // The kind's check holds: filter [N, (1, 1,) K], bias [N], rows of K inputs.
    const auto* filterDims = filter.dims();
    if (filterDims->size() == 0 || !hasData(filter) || !hasData(bias)) return false;
    spec->channels = filterDims->Get(0);
    spec->depth = filterDims->Get(filterDims->size() - 1);
    if (spec->depth == 0 || elementCount(input) % spec->depth != 0 || bias.dims()->size() != 1 ||
        bias.dims()->Get(0) != spec->channels) {
        return false;
    }
    spec->weights = filter.data() != nullptr && filter.data()->size() > 0 ? filter.data()->data() : nullptr;
    spec->bias = bias.data()->data();
    return true;
}

// A convolution with few input channels (the first layer of image networks, small detectors):
// im2col + GEMM, measured as fast as XNNPACK's or faster from 3 to 64 input channels
// (BENCHMARKS.md). Any kernel size, stride, dilation.
constexpr uint32_t kMaxUnfoldedInputChannels = 64;

bool unfoldedSpec(const npu::Program& program, const npu::Layer& layer, Operands* o, kernels::QuantConvSpec* spec) {
    const auto* p = layer.params_as_Conv2D();
    if (p == nullptr || p->depthwise() || p->padding() == nullptr || p->input_channels() > kMaxUnfoldedInputChannels) {
        return false;
    }
    // The kind's check holds: input [B, H, W, C], filter [N, KH, KW, C], output [B, OH, OW, N].
    const uint32_t channels = p->output_channels();
    if (!readOperands(program, layer, channels, 0, o)) return false;
    fillImageSpec(*o, *p, channels, spec);
    spec->inChannels = o->input->dims()->Get(3);
    spec->kernelHeight = p->kernel_height();
    spec->kernelWidth = p->kernel_width();
    spec->strideHeight = p->stride_height();
    spec->strideWidth = p->stride_width();
    spec->dilationHeight = p->dilation_height();
    spec->dilationWidth = p->dilation_width();
    return true;
}

// The float few-channel convolutions the own kernel (FloatConv.h) takes by default, where it
// measured ahead of XNNPACK's (BENCHMARKS.md, "The own float first convolution"): the first layer
// of image networks. With NNEMU_NPU_KERNELS=all: up to kMaxUnfoldedInputChannels, any geometry.
namespace {
constexpr uint32_t kFirstConvolutionChannels = 4, kFirstConvolutionKernel = 7;
bool firstConvolution(const npu::Conv2D& p) {
    return p.input_channels() <= kFirstConvolutionChannels && p.kernel_height() <= kFirstConvolutionKernel &&
           p.kernel_width() <= kFirstConvolutionKernel && p.stride_height() <= 2 && p.stride_width() <= 2 &&
           p.dilation_height() == 1 && p.dilation_width() == 1;
}
}  // namespace

bool floatConvSpec(const npu::Program& program, const npu::Layer& layer, FloatConvSpec* spec) {
    const auto* p = layer.params_as_Conv2D();
    if (p == nullptr || p->padding() == nullptr || isPointwise(layer) || layer.inputs()->size() != 3) return false;
    const npu::Tensor& input = tensorAt(program, layer.inputs()->Get(0));
    const npu::Tensor& filter = tensorAt(program, layer.inputs()->Get(1));
    const npu::Tensor& bias = tensorAt(program, layer.inputs()->Get(2));
    const npu::Tensor& output = outputOf(program, layer);
    for (const npu::Tensor* t : {&input, &filter, &bias, &output}) {
        if (t->type() != npu::DataType::FLOAT32) return false;
    }
    if (!hasData(filter) || !hasData(bias) || input.dims()->size() != 4 || output.dims()->size() != 4) return false;
    spec->depthwise = p->depthwise();
    if (spec->depthwise) {
        if (p->kernel_height() != 3 || p->kernel_width() != 3 || p->stride_height() != p->stride_width() ||
            p->stride_height() == 0 || p->stride_height() > 2 || p->dilation_height() != 1 ||
            p->dilation_width() != 1 || p->depth_multiplier() != 1 || p->padding()->left() > 2 ||
            p->padding()->top() > 2) {
            return false;
        }
    } else if (!(kernelChoice() == "all" ? p->input_channels() <= kMaxUnfoldedInputChannels : firstConvolution(*p))) {
        return false;
    }
    // The kind's check holds: input [B, H, W, C], filter [1 or N, KH, KW, C or 1], output [B, OH, OW, N].
    kernels::FloatImage& g = spec->image;
    g.batches = input.dims()->Get(0);
    g.inHeight = input.dims()->Get(1);
    g.inWidth = input.dims()->Get(2);
    g.inChannels = input.dims()->Get(3);
    g.outHeight = output.dims()->Get(1);
    g.outWidth = output.dims()->Get(2);
    g.channels = output.dims()->Get(3);
    g.kernelHeight = p->kernel_height();
    g.kernelWidth = p->kernel_width();
    g.strideHeight = p->stride_height();
    g.strideWidth = p->stride_width();
    g.dilationHeight = p->dilation_height();
    g.dilationWidth = p->dilation_width();
    g.padTop = p->padding()->top();
    g.padLeft = p->padding()->left();
    g.low = layer.output_min();
    g.high = layer.output_max();
    if ((spec->depthwise && g.channels != g.inChannels) || g.channels == 0 || g.inChannels == 0 ||
        byteSize(filter) != spec->filterBytes() || bias.dims()->size() != 1 || bias.dims()->Get(0) != g.channels) {
        return false;
    }
    spec->filter = filter.data() != nullptr && filter.data()->size() > 0 ? filter.data()->data() : nullptr;
    spec->bias = bias.data()->data();
    return true;
}

bool packFloatConv(const FloatConvSpec& spec, const uint8_t* filter, std::vector<uint8_t>* packed) {
    const kernels::FloatImage& g = spec.image;
    if (spec.depthwise) return kernels::packFloatDepthwise(filter, spec.bias, g.channels, packed);
    kernels::FloatGemmSpec gemm;
    gemm.depth = g.kernelHeight * g.kernelWidth * g.inChannels;
    gemm.channels = g.channels;
    gemm.weights = filter;
    gemm.bias = spec.bias;
    return kernels::packFloatGemm(gemm, packed);
}

// 3x3, stride 1 or 2 both ways, no dilation, one output channel per input channel. On every ISA
// and requantization: XNNPACK's 8-bit depthwise rounds in float and can be one step off the
// reference, so the own kernel runs also where it is slower (portable loop, saturating
// requantization).
bool depthwiseSpec(const npu::Program& program, const npu::Layer& layer, Operands* o, kernels::DepthwiseSpec* spec) {
    const auto* p = layer.params_as_Conv2D();
    if (p == nullptr || !p->depthwise() || p->padding() == nullptr || p->kernel_height() != 3 ||
        p->kernel_width() != 3 || p->stride_height() != p->stride_width() || p->stride_height() > 2 ||
        p->dilation_height() != 1 || p->dilation_width() != 1 || p->depth_multiplier() != 1) {
        return false;
    }
    // The kind's check holds: input [B, H, W, C], filter [1, 3, 3, C], output [B, OH, OW, C].
    const uint32_t channels = p->input_channels();
    if (!readOperands(program, layer, channels, 3, o)) return false;
    fillImageSpec(*o, *p, channels, spec);
    spec->stride = p->stride_height();
    return true;
}

std::unique_ptr<kernels::PackedDepthwise> packDepthwise(const kernels::DepthwiseSpec& spec, kernels::Isa isa) {
    auto packed = std::make_unique<kernels::PackedDepthwise>(spec.channels);
    if (!kernels::packDepthwise(spec, packed.get())) return nullptr;
    kernels::keepDepthwiseFor(isa, packed.get());
    return packed;
}

// The program's packed weights for `layer` if they are the running kernel's: packed by `kernel`
// in layout `version` for `isa`; empty otherwise. Unchecked: the caller checks them.
std::span<const uint8_t> storedWeights(const npu::Program& program, const npu::Layer& layer, npu::PackedKernel kernel,
                                       uint32_t version, kernels::Isa isa) {
    if (program.packed_weights() == nullptr) return {};
    for (const npu::PackedWeights* entry : *program.packed_weights()) {
        if (entry->layer() >= program.layers()->size() || program.layers()->Get(entry->layer()) != &layer) continue;
        if (entry->kernel() != kernel || entry->data() == nullptr || entry->layout_version() != version ||
            entry->isa() != static_cast<uint32_t>(kernels::baseIsa(isa))) {
            return {};
        }
        return {entry->data()->data(), entry->data()->size()};
    }
    return {};
}

}  // namespace nnemu::synap::own
