// TRANSPOSE_CONV_2D on the NPU's convolution core (XNNPACK's deconvolution): NHWC, float or
// uint8 with a per-tensor filter, constant weights and window operands.
//
// Both place input pixel i's contributions at output pixels i * stride - padHead + k. NNAPI's
// tail padding may be negative (its implicit SAME scheme picks the larger of the sizes a strided
// transpose could produce): the core adds those rows as its adjustment, which must stay below the
// stride.
#include "../Lowering.h"
#include "nnemu/hal/TransposeWindow.h"
#include "LoweringList.h"

namespace nnemu::synap {
namespace {

using hal::OperandType;
using hal::OperationContext;

bool readWindow(const OperationContext& context, hal::TransposeWindow* window) {
    const auto& filter = context.input(1);
    return filter.rank() == 4 && hal::readTransposeWindow(context, filter.dim(1), filter.dim(2), window);
}

bool tailFits(int32_t tail, int32_t stride) { return tail >= 0 || -tail < stride; }

bool operandsSupported(const OperationContext& context) {
    const OperandType type = context.inputType(0);
    NN_RET_CHECK(isFloatOrQuant8(type) && context.inputType(1) == type && context.output(0).type == type);
    NN_RET_CHECK(context.inputType(2) ==
                 (type == OperandType::TENSOR_FLOAT32 ? OperandType::TENSOR_FLOAT32 : OperandType::TENSOR_INT32));
    NN_RET_CHECK(context.hasValue(1) && context.hasValue(2));  // the core packs static weights
    if (type == OperandType::TENSOR_QUANT8_ASYMM) {
        NN_RET_CHECK(requantizationFactorSupported(context.input(0).scale, context.input(1).scale,
                                                   context.output(0).scale));
    }
    return hal::rankIsOrUnknown(context.input(0), 4);
}

}  // namespace

bool lowering::supportsTransposeConvolution(const OperationContext& context) {
    NN_RET_CHECK(hal::transposeScalarTypesValid(context) && operandsSupported(context));
    for (uint32_t i = 3; i < context.numInputs(); ++i) NN_RET_CHECK(context.hasValue(i));
    hal::TransposeWindow window;
    NN_RET_CHECK(readWindow(context, &window) && !window.nchw);
    return tailFits(window.padBottom, window.strideH) && tailFits(window.padRight, window.strideW);
}

bool lowering::lowerTransposeConvolution(const OperationContext& context, ProgramBuilder& builder) {
    hal::TransposeWindow w;
    if (!readWindow(context, &w)) return false;
    const auto& filter = context.input(1).dims;
    npu::Deconvolution2DT deconvolution;
    deconvolution.padding = std::make_unique<npu::PaddingT>();
    deconvolution.padding->top = static_cast<uint32_t>(w.padTop);
    deconvolution.padding->left = static_cast<uint32_t>(w.padLeft);
    deconvolution.padding->bottom = static_cast<uint32_t>(std::max(w.padBottom, 0));
    deconvolution.padding->right = static_cast<uint32_t>(std::max(w.padRight, 0));
    deconvolution.adjustment_height = static_cast<uint32_t>(std::max(-w.padBottom, 0));
    deconvolution.adjustment_width = static_cast<uint32_t>(std::max(-w.padRight, 0));
    deconvolution.kernel_height = filter[1];
    deconvolution.kernel_width = filter[2];
    deconvolution.stride_height = static_cast<uint32_t>(w.strideH);
    deconvolution.stride_width = static_cast<uint32_t>(w.strideW);
    deconvolution.input_channels = filter[3];
    deconvolution.output_channels = filter[0];
    npu::LayerParamsUnion params;
    params.Set(std::move(deconvolution));
    auto& layer = builder.addLayer(std::string("TransposeConvolution") + activationName(w.activation),
                                   std::move(params), {builder.input(0), builder.input(1), builder.input(2)},
                                   {builder.output(0)});
    activationBounds(w.activation, &layer.output_min, &layer.output_max);
    return true;
}

}  // namespace nnemu::synap
