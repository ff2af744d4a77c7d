// CONV_2D, DEPTHWISE_CONV_2D and GROUPED_CONV_2D.
//
// Operands: input [N,H,W,Cin] (or NCHW), filter, bias [Cout], then the window operands
// (see Padding.h). CONV_2D's filter is [Cout,kH,kW,Cin]; DEPTHWISE_CONV_2D's is [1,kH,kW,Cout]
// with Cout = Cin * depthMultiplier; GROUPED_CONV_2D's is [Cout,kH,kW,Cin/groups], output
// channels split into `groups` equal runs, each reading its own run of input channels.
// Types: F32 (bias F32), F16 (bias F16), Q8 or Q8S (input and output) with a filter of the
// input's type or a per-channel Q8 filter (channelDim 3 for DEPTHWISE_CONV_2D, else 0) and an
// INT32 bias whose scale is inScale * filterScale (per-channel: ignored). Since feature level 29
// the output scale is free: the requantization multiplier inScale * filterScale / outScale may
// exceed 1.
#include <cmath>

#include "nnemu/hal/Operations.h"
#include "nnemu/hal/Padding.h"
#include "nnemu/hal/ShapeUtils.h"
#include "SignatureList.h"

namespace nnemu::hal {
namespace {

bool validateConvTypes(const OperationContext& context, WindowKind kind) {
    const OperandView& input = context.input(0);
    const OperandView& filter = context.input(1);
    const OperandView& bias = context.input(2);
    const OperandView& output = context.output(0);
    switch (input.type) {
        case OperandType::TENSOR_FLOAT32:
        case OperandType::TENSOR_FLOAT16:
            NN_RET_CHECK(filter.type == input.type);
            NN_RET_CHECK(bias.type == input.type);
            break;
        case OperandType::TENSOR_QUANT8_ASYMM:
        case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
            NN_RET_CHECK(filter.type == input.type ||
                         filter.type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL);
            NN_RET_CHECK(bias.type == OperandType::TENSOR_INT32);
            if (filter.type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
                // The per-channel parameters may be attached after the operation is added;
                // model validation requires them before it is finished.
                if (filter.channelQuant == nullptr) break;
                const uint32_t channelDim = kind == WindowKind::DEPTHWISE ? 3 : 0;
                NN_RET_CHECK(filter.channelQuant->channelDim == channelDim);
                if (filter.rank() == 4 && filter.dim(channelDim) != 0) {
                    NN_RET_CHECK(filter.channelQuant->scales.size() == filter.dim(channelDim));
                }
            }
            break;
        default:
            NN_RET_CHECK(false && "unsupported input type");
    }
    NN_RET_CHECK(output.type == input.type);
    NN_RET_CHECK(rankIsOrUnknown(input, 4));
    NN_RET_CHECK(rankIsOrUnknown(filter, 4));
    NN_RET_CHECK(rankIsOrUnknown(bias, 1));
    NN_RET_CHECK(rankIsOrUnknown(output, 4));
    return true;
}

// Execution stage: the window values; a per-tensor quantized bias's scale is inScale * filterScale.
bool checkConvValues(const OperationContext& context, WindowKind kind) {
    const OperandView& input = context.input(0);
    const OperandView& filter = context.input(1);
    const OperandView& bias = context.input(2);
    if (isQuant8Asymm(input.type) && filter.type == input.type) {
        const double product = static_cast<double>(input.scale) * filter.scale;
        NN_RET_CHECK(std::fabs(product - bias.scale) <= 1e-6 * std::fmin(product, static_cast<double>(bias.scale)));
    }
    return windowValuesValid(context, kind);
}

bool validateWindowConv(const OperationContext& context, WindowKind kind) {
    NN_RET_CHECK(context.numOutputs() == 1);
    NN_RET_CHECK(windowCountAllowed(kind, context.numInputs()));
    NN_RET_CHECK(windowScalarTypesValid(context, kind));
    NN_RET_CHECK(validateConvTypes(context, kind));
    return true;
}

bool prepareWindowConv(OperationContext& context, WindowKind kind) {
    const OperandView& input = context.input(0);
    const OperandView& filter = context.input(1);
    const OperandView& bias = context.input(2);
    NN_RET_CHECK(input.rank() == 4);
    NN_RET_CHECK(filter.rank() == 4);
    NN_RET_CHECK(bias.rank() == 1);
    const WindowParams params = readWindowParams(context, kind);
    const Image4 in = makeImage4(input.dims, params.nchw);

    uint32_t outChannels = 0;
    if (kind != WindowKind::DEPTHWISE) {
        const auto groups = static_cast<uint32_t>(params.groups);
        outChannels = filter.dim(0);
        NN_RET_CHECK(static_cast<uint64_t>(filter.dim(3)) * groups == in.channels);
        NN_RET_CHECK(outChannels % groups == 0);
    } else {
        NN_RET_CHECK(filter.dim(0) == 1);
        outChannels = filter.dim(3);
        NN_RET_CHECK(static_cast<uint64_t>(in.channels) * params.depthMultiplier == outChannels);
    }
    NN_RET_CHECK(outChannels > 0);
    NN_RET_CHECK(bias.dim(0) == outChannels);
    if (filter.type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
        NN_RET_CHECK(filter.channelQuant != nullptr);
        NN_RET_CHECK(filter.channelQuant->scales.size() == outChannels);
    }

    WindowGeometry geometry;
    NN_RET_CHECK(resolveWindow(params, in.height, in.width, filter.dim(1), filter.dim(2),
                               &geometry));
    Image4 out = in;
    out.height = geometry.outHeight;
    out.width = geometry.outWidth;
    out.channels = outChannels;
    context.output(0).dims = out.dims();
    return true;
}

}  // namespace

bool signatures::validateConv2D(const OperationContext& context) {
    return validateWindowConv(context, WindowKind::CONV);
}

bool signatures::prepareConv2D(OperationContext& context) {
    return prepareWindowConv(context, WindowKind::CONV);
}

bool signatures::checkConv2DValues(const OperationContext& context) { return checkConvValues(context, WindowKind::CONV); }

bool signatures::validateDepthwiseConv2D(const OperationContext& context) {
    return validateWindowConv(context, WindowKind::DEPTHWISE);
}

bool signatures::prepareDepthwiseConv2D(OperationContext& context) {
    return prepareWindowConv(context, WindowKind::DEPTHWISE);
}

bool signatures::checkDepthwiseValues(const OperationContext& context) { return checkConvValues(context, WindowKind::DEPTHWISE); }

bool signatures::validateGroupedConv2D(const OperationContext& context) {
    return validateWindowConv(context, WindowKind::GROUPED);
}

bool signatures::prepareGroupedConv2D(OperationContext& context) {
    return prepareWindowConv(context, WindowKind::GROUPED);
}

bool signatures::checkGroupedValues(const OperationContext& context) { return checkConvValues(context, WindowKind::GROUPED); }

}  // namespace nnemu::hal
