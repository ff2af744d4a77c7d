// TRANSPOSE_CONV_2D.
//
// Operands: input [N,H,W,Cin] (or NCHW), filter [Cout,kH,kW,Cin], bias [Cout], then the window
// operands of TransposeWindow.h (layout mandatory). Types as CONV_2D's: F32, F16, Q8 or Q8S with
// a filter of the input's type or a per-channel Q8 filter (channelDim 0) and an INT32 bias of
// scale inScale * filterScale (per-channel: ignored). The batch may be 0.
#include <cmath>

#include "nnemu/hal/Operations.h"
#include "nnemu/hal/ShapeUtils.h"
#include "nnemu/hal/TransposeWindow.h"
#include "SignatureList.h"

namespace nnemu::hal {
namespace {

bool validateTensorTypes(const OperationContext& context) {
    const OperandView& input = context.input(0);
    const OperandView& filter = context.input(1);
    const OperandView& bias = context.input(2);
    switch (input.type) {
        case OperandType::TENSOR_FLOAT32:
        case OperandType::TENSOR_FLOAT16:
            NN_RET_CHECK(filter.type == input.type && bias.type == input.type);
            break;
        case OperandType::TENSOR_QUANT8_ASYMM:
        case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
            NN_RET_CHECK(bias.type == OperandType::TENSOR_INT32);
            if (filter.type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
                // May be attached after the operation is added; required before finish.
                if (filter.channelQuant != nullptr) NN_RET_CHECK(filter.channelQuant->channelDim == 0);
            } else {
                NN_RET_CHECK(filter.type == input.type);
            }
            break;
        default:
            NN_RET_CHECK(false && "unsupported input type");
    }
    NN_RET_CHECK(context.output(0).type == input.type);
    NN_RET_CHECK(rankIsOrUnknown(input, 4));
    NN_RET_CHECK(rankIsOrUnknown(filter, 4));
    NN_RET_CHECK(rankIsOrUnknown(bias, 1));
    NN_RET_CHECK(rankIsOrUnknown(context.output(0), 4));
    return true;
}

}  // namespace

bool signatures::validateTransposeConv2D(const OperationContext& context) {
    NN_RET_CHECK(context.numOutputs() == 1);
    NN_RET_CHECK(transposeScalarTypesValid(context));
    if (transposeIsImplicit(context)) NN_RET_CHECK(rankIsOrUnknown(context.input(3), 1));
    return validateTensorTypes(context);
}

bool signatures::prepareTransposeConv2D(OperationContext& context) {
    const OperandView& input = context.input(0);
    const OperandView& filter = context.input(1);
    const OperandView& bias = context.input(2);
    NN_RET_CHECK(input.rank() == 4 && filter.rank() == 4 && bias.rank() == 1);
    TransposeWindow w;
    NN_RET_CHECK(readTransposeWindow(context, filter.dim(1), filter.dim(2), &w));
    const Image4 in = makeImage4(input.dims, w.nchw);
    const uint32_t outChannels = filter.dim(0);
    NN_RET_CHECK(in.channels > 0 && filter.dim(3) == in.channels);
    NN_RET_CHECK(outChannels > 0 && bias.dim(0) == outChannels);
    if (filter.type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
        NN_RET_CHECK(filter.channelQuant != nullptr);
        NN_RET_CHECK(filter.channelQuant->scales.size() == outChannels);
    }
    Image4 out = in;
    out.channels = outChannels;
    NN_RET_CHECK(transposeOutputSize(in.height, filter.dim(1), w.strideH, w.padTop, w.padBottom,
                                     &out.height));
    NN_RET_CHECK(transposeOutputSize(in.width, filter.dim(2), w.strideW, w.padLeft, w.padRight,
                                     &out.width));
    context.output(0).dims = out.dims();
    return true;
}

// Execution stage: a per-tensor quantized bias's scale is inScale * filterScale.
bool signatures::checkTransposeConv2DValues(const OperationContext& context) {
    const OperandView& input = context.input(0);
    const OperandView& filter = context.input(1);
    if (isQuant8Asymm(input.type) && filter.type == input.type) {
        const double product = static_cast<double>(input.scale) * filter.scale;
        const double bias = context.input(2).scale;
        NN_RET_CHECK(std::fabs(product - bias) <= 1e-6 * std::fmin(product, bias));
    }
    return true;
}

}  // namespace nnemu::hal
