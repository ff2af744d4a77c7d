// CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED on the NPU's convolution core.
#include <cmath>

#include "../Lowering.h"
#include "nnemu/hal/Padding.h"
#include "LoweringList.h"

namespace nnemu::synap {
namespace {

using hal::OperandType;
using hal::OperationContext;
using hal::WindowKind;

bool isPerChannel(const OperationContext& context) {
    return context.inputType(1) == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
}

// Every per-channel (or the one per-tensor) requantization factor must be one the core computes.
bool requantizationInRange(const OperationContext& context) {
    if (!isQuant8(context.inputType(0))) return true;
    std::vector<float> filterScales{context.input(1).scale};
    if (isPerChannel(context)) filterScales = context.input(1).channelQuant->scales;
    for (float filterScale : filterScales) {
        if (!requantizationFactorSupported(context.input(0).scale, filterScale, context.output(0).scale)) return false;
    }
    return true;
}

// Input, constant filter and bias of one quantization family; quantized filters per tensor or
// per channel along the output channels (`channelDim`).
bool operandsSupported(const OperationContext& context, uint32_t channelDim) {
    const OperandType type = context.inputType(0);
    NN_RET_CHECK(isFloatOrAnyQuant8(type));
    if (isPerChannel(context)) {
        NN_RET_CHECK(isQuant8(type) && context.input(1).channelQuant != nullptr);
        NN_RET_CHECK(context.input(1).channelQuant->channelDim == channelDim);
    } else {
        NN_RET_CHECK(context.inputType(1) == type);
    }
    NN_RET_CHECK(context.inputType(2) ==
                 (type == OperandType::TENSOR_FLOAT32 ? OperandType::TENSOR_FLOAT32 : OperandType::TENSOR_INT32));
    NN_RET_CHECK(context.output(0).type == type);
    NN_RET_CHECK(context.hasValue(1) && context.hasValue(2));  // the core packs static weights
    return requantizationInRange(context);
}

bool windowSupported(const OperationContext& context, WindowKind kind) {
    if (!hal::windowCountAllowed(kind, context.numInputs()) || !hal::windowScalarTypesValid(context, kind)) return false;
    for (uint32_t i = hal::windowFirstOperand(kind); i < context.numInputs(); ++i) {
        if (!context.hasValue(i)) return false;
    }
    const hal::WindowParams params = hal::readWindowParams(context, kind);
    return hal::windowParamsValid(params, kind) && !params.nchw && hal::rankIsOrUnknown(context.input(0), 4);
}

// The program tensors of a convolution-like layer, as the core's kernels take them.
struct LayerTensors {
    uint32_t input, filter, bias, output;
};

// An intermediate for `tensor`'s values with the other signedness (zero point moved by 128).
uint32_t flippedCopy(ProgramBuilder& builder, uint32_t tensor) {
    const npu::TensorT& t = builder.tensor(tensor);
    const bool toSigned = t.type == npu::DataType::QUINT8;
    return builder.intermediate(toSigned ? npu::DataType::QINT8 : npu::DataType::QUINT8, std::vector<uint32_t>(t.dims),
                                t.scale, t.zero_point + (toSigned ? -128 : 128));
}

// Per-channel kernels take int8 activations and per-channel int32 biases. The int8 kernels
// ignore a per-tensor filter's zero point, so an int8 layer whose filter has one runs on the
// uint8 kernels, which take it. Activations of the other type go through sign flips (exact).
LayerTensors layerTensors(const OperationContext& context, ProgramBuilder& builder) {
    LayerTensors t{builder.input(0), 0, builder.input(2), builder.output(0)};
    const npu::DataType activations = builder.tensor(t.input).type;
    npu::DataType coreType = activations;
    const auto& filter = context.input(1);
    if (isPerChannel(context)) {
        coreType = npu::DataType::QINT8;
        t.filter = builder.input(1);
        std::vector<float> biasScales;
        for (float filterScale : filter.channelQuant->scales) biasScales.push_back(context.input(0).scale * filterScale);
        const auto& bias = context.input(2);
        t.bias = builder.perChannelConstant(npu::DataType::QCINT32, bias.dims, bias.data, bias.length,
                                            std::move(biasScales), 0);
    } else if (activations == npu::DataType::QINT8 && filter.zeroPoint != 0) {
        coreType = npu::DataType::QUINT8;
        std::vector<uint8_t> flipped(filter.data, filter.data + filter.length);
        for (uint8_t& value : flipped) value ^= 0x80;
        t.filter = builder.constant(npu::DataType::QUINT8, filter.dims, flipped.data(), flipped.size(), filter.scale,
                                    filter.zeroPoint + 128);
    } else {
        t.filter = builder.input(1);
    }
    if (coreType != activations) {
        t.input = flippedCopy(builder, builder.input(0));
        flipSign(builder, builder.input(0), t.input);
        t.output = flippedCopy(builder, builder.output(0));
    }
    return t;
}

// Adds the layer on `t`, then the flip back into the operation's output where needed.
void addConvolutionLayer(ProgramBuilder& builder, const std::string& name, npu::LayerParamsUnion params,
                         const LayerTensors& t, int32_t fuseCode) {
    auto& added = builder.addLayer(name, std::move(params), {t.input, t.filter, t.bias}, {t.output});
    activationBounds(fuseCode, &added.output_min, &added.output_max);
    if (t.output != builder.output(0)) flipSign(builder, t.output, builder.output(0));
}

bool lowerWindowed(const OperationContext& context, ProgramBuilder& builder, WindowKind kind) {
    const hal::WindowParams params = hal::readWindowParams(context, kind);
    const auto& in = context.input(0).dims;
    const auto& filter = context.input(1).dims;
    hal::WindowGeometry g;
    if (!hal::resolveWindow(params, in[1], in[2], filter[1], filter[2], &g)) return false;
    npu::Conv2DT conv;
    conv.padding = std::make_unique<npu::PaddingT>();
    conv.padding->top = g.padTop;
    conv.padding->right = g.padRight;
    conv.padding->bottom = g.padBottom;
    conv.padding->left = g.padLeft;
    conv.kernel_height = g.filterHeight;
    conv.kernel_width = g.filterWidth;
    conv.stride_height = g.strideH;
    conv.stride_width = g.strideW;
    conv.dilation_height = g.dilationH;
    conv.dilation_width = g.dilationW;
    conv.depthwise = kind == WindowKind::DEPTHWISE;
    conv.input_channels = in[3];
    conv.output_channels = conv.depthwise ? filter[3] : filter[0];
    conv.depth_multiplier = static_cast<uint32_t>(params.depthMultiplier);
    npu::LayerParamsUnion layer;
    layer.Set(std::move(conv));
    const std::string layerName = std::string(kind == WindowKind::DEPTHWISE ? "DepthwiseConvolution" : "Convolution") +
                                  activationName(params.activation);
    addConvolutionLayer(builder, layerName, std::move(layer), layerTensors(context, builder), params.activation);
    return true;
}

}  // namespace

bool lowering::supportsConvolution(const OperationContext& context) {
    return context.numInputs() >= 7 && operandsSupported(context, 0) && windowSupported(context, WindowKind::CONV);
}

bool lowering::lowerConvolution(const OperationContext& context, ProgramBuilder& builder) {
    return lowerWindowed(context, builder, WindowKind::CONV);
}

bool lowering::supportsDepthwise(const OperationContext& context) {
    return context.numInputs() >= 8 && operandsSupported(context, 3) &&
           windowSupported(context, WindowKind::DEPTHWISE);
}

bool lowering::lowerDepthwise(const OperationContext& context, ProgramBuilder& builder) {
    return lowerWindowed(context, builder, WindowKind::DEPTHWISE);
}

bool lowering::supportsFullyConnected(const OperationContext& context) {
    NN_RET_CHECK(context.numInputs() == 4 && !isPerChannel(context) && operandsSupported(context, 0) &&
                 fuseCodeValid(context, 3));
    const auto& input = context.input(0);
    return input.dims.empty() || (input.rank() >= 2 && input.rank() <= 4);
}

bool lowering::lowerFullyConnected(const OperationContext& context, ProgramBuilder& builder) {
    npu::LayerParamsUnion layer;
    layer.Set(npu::FullyConnectedT{});
    const auto fuse = context.scalar<int32_t>(3);
    addConvolutionLayer(builder, std::string("FullyConnected") + activationName(fuse), std::move(layer),
                        layerTensors(context, builder), fuse);
    return true;
}

}  // namespace nnemu::synap
