#include "LayerKinds.h"

#include <algorithm>
#include <iterator>
#include <limits>

#include "BandedLayers.h"
#include "LayerShapes.h"
#include "NativeLayers.h"
#include "OwnKernelLayers.h"

namespace nnemu::synap {

namespace {

using npu::LayerParams;

constexpr auto kInvalid = xnn_status_invalid_parameter;

xnn_status defineConv2D(const XnnLayer& x) {
    const auto* p = x.layer.params_as_Conv2D();
    const auto* pad = p->padding();
    if (pad == nullptr || x.layer.inputs()->size() != 3) return kInvalid;
    if (p->depthwise()) {
        return xnn_define_depthwise_convolution_2d(
                x.subgraph, pad->top(), pad->right(), pad->bottom(), pad->left(), p->kernel_height(),
                p->kernel_width(), p->stride_height(), p->stride_width(), p->dilation_height(), p->dilation_width(),
                p->depth_multiplier(), p->input_channels(), x.low, x.high, x.input(0), x.input(1), x.input(2),
                x.output(), 0);
    }
    return xnn_define_convolution_2d(x.subgraph, pad->top(), pad->right(), pad->bottom(), pad->left(),
                                     p->kernel_height(), p->kernel_width(), p->stride_height(), p->stride_width(),
                                     p->dilation_height(), p->dilation_width(), 1, p->input_channels(),
                                     p->output_channels(), x.low, x.high, x.input(0), x.input(1), x.input(2),
                                     x.output(), 0);
}

xnn_status defineFullyConnected(const XnnLayer& x) {
    if (x.layer.inputs()->size() != 3) return kInvalid;
    return xnn_define_fully_connected(x.subgraph, x.low, x.high, x.input(0), x.input(1), x.input(2), x.output(),
                                      XNN_FLAG_TENSORFLOW_RESHAPE_2D);
}

xnn_status defineAdd(const XnnLayer& x) {
    return xnn_define_add2(x.subgraph, x.low, x.high, x.input(0), x.input(1), x.output(), 0);
}

xnn_status defineMultiply(const XnnLayer& x) {
    return xnn_define_multiply2(x.subgraph, x.low, x.high, x.input(0), x.input(1), x.output(), 0);
}

xnn_status defineSubtract(const XnnLayer& x) {
    return xnn_define_subtract(x.subgraph, x.low, x.high, x.input(0), x.input(1), x.output(), 0);
}

xnn_status defineAveragePool2D(const XnnLayer& x) {
    const auto* p = x.layer.params_as_AveragePool2D();
    const auto* pad = p->padding();
    if (pad == nullptr) return kInvalid;
    return xnn_define_average_pooling_2d(x.subgraph, pad->top(), pad->right(), pad->bottom(), pad->left(),
                                         p->pool_height(), p->pool_width(), p->stride_height(), p->stride_width(),
                                         x.low, x.high, x.input(0), x.output(), 0);
}

xnn_status defineMaxPool2D(const XnnLayer& x) {
    const auto* p = x.layer.params_as_MaxPool2D();
    const auto* pad = p->padding();
    if (pad == nullptr) return kInvalid;
    return xnn_define_max_pooling_2d(x.subgraph, pad->top(), pad->right(), pad->bottom(), pad->left(),
                                     p->pool_height(), p->pool_width(), p->stride_height(), p->stride_width(), 1, 1,
                                     x.low, x.high, x.input(0), x.output(), 0);
}

xnn_status defineGlobalAveragePool2D(const XnnLayer& x) {
    return xnn_define_global_average_pooling_2d(x.subgraph, x.low, x.high, x.input(0), x.output(), 0);
}

xnn_status defineClamp(const XnnLayer& x) {
    return xnn_define_clamp(x.subgraph, x.low, x.high, x.input(0), x.output(), 0);
}

xnn_status defineSigmoid(const XnnLayer& x) { return xnn_define_sigmoid(x.subgraph, x.input(0), x.output(), 0); }

xnn_status defineSoftmax(const XnnLayer& x) { return xnn_define_softmax(x.subgraph, x.input(0), x.output(), 0); }

xnn_status defineReshape(const XnnLayer& x) {
    const auto* dims = x.outputTensor().dims();
    std::vector<size_t> shape(dims->begin(), dims->end());
    return xnn_define_static_reshape(x.subgraph, shape.size(), shape.data(), x.input(0), x.output(), 0);
}

xnn_status defineConstantPad(const XnnLayer& x) {
    const auto* p = x.layer.params_as_ConstantPad();
    if (p->before() == nullptr || p->after() == nullptr || p->before()->size() != p->after()->size() ||
        p->before()->size() > XNN_MAX_TENSOR_DIMS) {
        return kInvalid;
    }
    std::vector<size_t> before(p->before()->begin(), p->before()->end());
    std::vector<size_t> after(p->after()->begin(), p->after()->end());
    return xnn_define_static_constant_pad(x.subgraph, before.data(), after.data(), 0.0f, x.input(0), x.output(), 0);
}

xnn_status defineResizeBilinear(const XnnLayer& x) {
    const auto* p = x.layer.params_as_ResizeBilinear();
    return xnn_define_static_resize_bilinear_2d(x.subgraph, p->output_height(), p->output_width(), x.input(0),
                                                x.output(), XNN_FLAG_TENSORFLOW_LEGACY_MODE);
}

xnn_status defineHardSwish(const XnnLayer& x) { return xnn_define_hardswish(x.subgraph, x.input(0), x.output(), 0); }

xnn_status defineConvert(const XnnLayer& x) { return xnn_define_convert(x.subgraph, x.input(0), x.output(), 0); }

xnn_status definePrelu(const XnnLayer& x) { return xnn_define_prelu(x.subgraph, x.input(0), x.input(1), x.output(), 0); }

xnn_status defineMaximum(const XnnLayer& x) {
    return xnn_define_maximum2(x.subgraph, x.input(0), x.input(1), x.output(), 0);
}

xnn_status defineMinimum(const XnnLayer& x) {
    return xnn_define_minimum2(x.subgraph, x.input(0), x.input(1), x.output(), 0);
}

xnn_status defineDeconvolution2D(const XnnLayer& x) {
    const auto* p = x.layer.params_as_Deconvolution2D();
    const auto* pad = p->padding();
    if (pad == nullptr || x.layer.inputs()->size() != 3) return kInvalid;
    return xnn_define_deconvolution_2d(x.subgraph, pad->top(), pad->right(), pad->bottom(), pad->left(),
                                       p->adjustment_height(), p->adjustment_width(), p->kernel_height(),
                                       p->kernel_width(), p->stride_height(), p->stride_width(), 1, 1, 1,
                                       p->input_channels(), p->output_channels(), x.low, x.high, x.input(0),
                                       x.input(1), x.input(2), x.output(), 0);
}

// Output elements times filter elements per output channel.
uint64_t filterMultiplyAccumulates(const npu::Program& program, const npu::Layer& layer) {
    if (layer.inputs()->size() < 2) return 0;
    const npu::Tensor& output = *program.tensors()->Get(layer.outputs()->Get(0));
    const npu::Tensor& filter = *program.tensors()->Get(layer.inputs()->Get(1));
    const uint32_t channels = output.dims()->size() ? output.dims()->Get(output.dims()->size() - 1) : 1;
    return channels == 0 ? 0 : uint64_t{elementCount(output)} * elementCount(filter) / channels;
}

// Every input element meets every filter element of its input channel.
uint64_t deconvolutionMultiplyAccumulates(const npu::Program& program, const npu::Layer& layer) {
    if (layer.inputs()->size() < 2) return 0;
    const npu::Tensor& input = *program.tensors()->Get(layer.inputs()->Get(0));
    const npu::Tensor& filter = *program.tensors()->Get(layer.inputs()->Get(1));
    const uint32_t channels = input.dims()->size() ? input.dims()->Get(input.dims()->size() - 1) : 1;
    return channels == 0 ? 0 : uint64_t{elementCount(input)} * elementCount(filter) / channels;
}

// In the order of the LayerParams union.
constexpr LayerKind kLayerKinds[] = {
        {LayerParams::Conv2D, "NN", defineConv2D, checkConv2DShapes, runOwnLayer, filterMultiplyAccumulates,
         ownConvolution, bandedWithReader},
        {LayerParams::FullyConnected, "NN", defineFullyConnected, checkFullyConnectedShapes, runOwnLayer,
         filterMultiplyAccumulates, ownConvolution},
        {LayerParams::Add, "SH", defineAdd, checkBroadcastShapes, runOwnLayer, nullptr, ownAdd},
        {LayerParams::Multiply, "SH", defineMultiply, checkBroadcastShapes, runOwnLayer, nullptr, ownMultiply},
        {LayerParams::Subtract, "SH", defineSubtract, checkBroadcastShapes, runOwnLayer, nullptr, ownAdd},
        {LayerParams::AveragePool2D, "NN", defineAveragePool2D, checkPool2DShapes, nullptr, nullptr},
        {LayerParams::MaxPool2D, "NN", defineMaxPool2D, checkPool2DShapes, runOwnLayer, nullptr, ownMaxPool},
        {LayerParams::GlobalAveragePool2D, "NN", defineGlobalAveragePool2D, checkGlobalPoolShapes, runOwnLayer, nullptr,
         ownGlobalAverage},
        {LayerParams::Clamp, "SH", defineClamp, checkSameShape, nullptr, nullptr},
        {LayerParams::Sigmoid, "SH", defineSigmoid, checkSameShape, nullptr, nullptr},
        {LayerParams::Softmax, "SH", defineSoftmax, checkSameShape, runOwnLayer, nullptr, ownSoftmax},
        {LayerParams::Reshape, "TP", defineReshape, checkReshapeShapes, runOwnLayer, nullptr, ownReshape},
        {LayerParams::ConstantPad, "TP", defineConstantPad, checkConstantPadShapes, nullptr, nullptr},
        {LayerParams::ResizeBilinear, "TP", defineResizeBilinear, checkResizeBilinearShapes, nullptr, nullptr},
        {LayerParams::Convert, "SH", defineConvert, checkConvertShapes, runOwnLayer, nullptr, ownConvert},
        {LayerParams::Concatenation, "TP", nullptr, checkConcatenation, runConcatenation, nullptr},
        {LayerParams::FlipSign, "SH", nullptr, checkFlipSign, runFlipSignStage, nullptr, nullptr,
         convolutionOfFlipSource},
        {LayerParams::Prelu, "SH", definePrelu, checkPreluShapes, nullptr, nullptr},
        {LayerParams::Maximum, "SH", defineMaximum, checkBroadcastShapes, nullptr, nullptr},
        {LayerParams::Minimum, "SH", defineMinimum, checkBroadcastShapes, nullptr, nullptr},
        {LayerParams::BroadcastPrelu, "SH", nullptr, checkBroadcastPrelu, runBroadcastPrelu, nullptr},
        {LayerParams::QuantizedMaximum, "SH", nullptr, checkQuantizedMaxMin, runQuantizedMaximum, nullptr},
        {LayerParams::QuantizedMinimum, "SH", nullptr, checkQuantizedMaxMin, runQuantizedMinimum, nullptr},
        {LayerParams::ChannelShuffle, "TP", nullptr, checkChannelShuffle, runChannelShuffle, nullptr},
        {LayerParams::ArgMax, "SH", nullptr, checkArgMinMax, runArgMax, nullptr},
        {LayerParams::ArgMin, "SH", nullptr, checkArgMinMax, runArgMin, nullptr},
        {LayerParams::Deconvolution2D, "NN", defineDeconvolution2D, checkDeconvolution2DShapes, nullptr,
         deconvolutionMultiplyAccumulates},
        {LayerParams::HardSwish, "SH", defineHardSwish, checkSameShape, nullptr, nullptr},
        {LayerParams::QuantizedAveragePool2D, "NN", nullptr, checkPool2DShapes, runQuantizedAveragePool, nullptr},
};

constexpr bool oneEntryPerKindInSchemaOrder() {
    if (std::size(kLayerKinds) != static_cast<size_t>(LayerParams::MAX)) return false;
    for (size_t i = 0; i < std::size(kLayerKinds); ++i) {
        const LayerKind& kind = kLayerKinds[i];
        if (kind.params != static_cast<LayerParams>(i + 1)) return false;
        const bool xnnpack = kind.define != nullptr;
        const bool native = kind.run != nullptr;
        const bool own = kind.ownKernel != nullptr;  // an XNNPACK kind the core may also run itself
        if (kind.check == nullptr || !(xnnpack || native) || (xnnpack && native != own) || (!xnnpack && own)) {
            return false;
        }
    }
    return true;
}
static_assert(oneEntryPerKindInSchemaOrder(), "every LayerParams member needs its entry, in schema order");

}  // namespace

const LayerKind* layerKind(npu::LayerParams params) {
    const auto index = static_cast<size_t>(params);
    if (index == 0 || index > std::size(kLayerKinds)) return nullptr;
    return &kLayerKinds[index - 1];
}

}  // namespace nnemu::synap
