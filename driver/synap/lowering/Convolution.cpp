// CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED on the NPU's convolution core.
#include <cmath>

#include "../Lowering.h"
#include "nnemu/hal/Padding.h"

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
    if (context.inputType(0) != OperandType::TENSOR_QUANT8_ASYMM) return true;
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
    NN_RET_CHECK(isFloatOrQuant8(type));
    if (isPerChannel(context)) {
        NN_RET_CHECK(type == OperandType::TENSOR_QUANT8_ASYMM && context.input(1).channelQuant != nullptr);
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

bool supportsConvolution(const OperationContext& context) {
    return context.numInputs() >= 7 && operandsSupported(context, 0) && windowSupported(context, WindowKind::CONV);
}

bool supportsDepthwise(const OperationContext& context) {
    return context.numInputs() >= 8 && operandsSupported(context, 3) &&
           windowSupported(context, WindowKind::DEPTHWISE);
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
    uint32_t input = builder.input(0), bias = builder.input(2), output = builder.output(0);
    if (isPerChannel(context)) {
        // The core's per-channel kernels take int8 activations and per-channel int32 biases.
        const auto& in = builder.tensor(input);
        const auto& out = builder.tensor(output);
        const uint32_t signedInput = builder.intermediate(npu::DataType::QINT8, in.dims, in.scale, in.zero_point - 128);
        flipSign(builder, input, signedInput);
        input = signedInput;
        std::vector<float> biasScales;
        for (float filterScale : context.input(1).channelQuant->scales) biasScales.push_back(in.scale * filterScale);
        const auto& biasOperand = context.input(2);
        bias = builder.perChannelConstant(npu::DataType::QCINT32, biasOperand.dims, biasOperand.data,
                                          biasOperand.length, std::move(biasScales), 0);
        output = builder.intermediate(npu::DataType::QINT8, out.dims, out.scale, out.zero_point - 128);
    }
    auto& added = builder.addLayer(layerName, std::move(layer), {input, builder.input(1), bias}, {output});
    activationBounds(params.activation, &added.output_min, &added.output_max);
    if (output != builder.output(0)) flipSign(builder, output, builder.output(0));
    return true;
}

bool lowerConvolution(const OperationContext& context, ProgramBuilder& builder) {
    return lowerWindowed(context, builder, WindowKind::CONV);
}

bool lowerDepthwise(const OperationContext& context, ProgramBuilder& builder) {
    return lowerWindowed(context, builder, WindowKind::DEPTHWISE);
}

bool supportsFullyConnected(const OperationContext& context) {
    NN_RET_CHECK(context.numInputs() == 4 && !isPerChannel(context) && operandsSupported(context, 0) &&
                 fuseCodeValid(context, 3));
    const auto& input = context.input(0);
    return input.dims.empty() || (input.rank() >= 2 && input.rank() <= 4);
}

bool lowerFullyConnected(const OperationContext& context, ProgramBuilder& builder) {
    npu::LayerParamsUnion layer;
    layer.Set(npu::FullyConnectedT{});
    const auto fuse = context.scalar<int32_t>(3);
    auto& added = builder.addLayer(std::string("FullyConnected") + activationName(fuse), std::move(layer),
                                   {builder.input(0), builder.input(1), builder.input(2)}, {builder.output(0)});
    activationBounds(fuse, &added.output_min, &added.output_max);
    return true;
}

}  // namespace

NPU_REGISTER_LOWERING(CONV_2D, supportsConvolution, lowerConvolution);
NPU_REGISTER_LOWERING(DEPTHWISE_CONV_2D, supportsDepthwise, lowerDepthwise);
NPU_REGISTER_LOWERING(FULLY_CONNECTED, supportsFullyConnected, lowerFullyConnected);

}  // namespace nnemu::synap
