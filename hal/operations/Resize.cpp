// Signatures of RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR: in, width, height [, layout
// [, align_corners [, half_pixel_centers]]] (the two BOOL flags from feature level 30).
// Width and height are both INT32 output sizes, or both scale factors (FLOAT32 for F32/Q8
// inputs, FLOAT16 for F16 inputs) applied to the input size. Q8 stands for Q8 and Q8S here.
#include <cmath>

#include "nnemu/hal/OperandTypes.h"
#include "nnemu/hal/Operations.h"
#include "nnemu/hal/ShapeUtils.h"
#include "SignatureList.h"

namespace nnemu::hal {
namespace {

bool validateResize(const OperationContext& context) {
    // Operand counts are checked by the per-operation wrappers below.
    const OperandType type = context.inputType(0);
    NN_RET_CHECK(inputTypeIs(context, 0, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                                          OperandType::TENSOR_QUANT8_ASYMM,
                                          OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
    NN_RET_CHECK(context.output(0).type == type);
    NN_RET_CHECK(rankIsOrUnknown(context.input(0), 4));
    const OperandType scaleType =
            type == OperandType::TENSOR_FLOAT16 ? OperandType::FLOAT16 : OperandType::FLOAT32;
    NN_RET_CHECK(inputTypeIs(context, 1, {OperandType::INT32, scaleType}));
    NN_RET_CHECK(context.inputType(2) == context.inputType(1));
    for (uint32_t i = 3; i < context.numInputs(); ++i) NN_RET_CHECK(inputTypeIs(context, i, {OperandType::BOOL}));
    return true;
}

}  // namespace

bool signatures::validateBilinear(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {3, 4, 5, 6}, 1));
    return validateResize(context);
}

bool signatures::prepareResize(OperationContext& context) {
    const OperandView& input = context.input(0);
    NN_RET_CHECK(sameQuantization(input, context.output(0)));
    NN_RET_CHECK(input.rank() == 4);
    // half_pixel_centers excludes align_corners.
    if (context.numInputs() == 6) NN_RET_CHECK(!(context.scalar<bool>(4) && context.scalar<bool>(5)));
    const Image4 in = makeImage4(input.dims, layoutIsNchw(context, 3));
    int64_t width = 0;
    int64_t height = 0;
    if (context.inputType(1) == OperandType::INT32) {
        width = context.scalar<int32_t>(1);
        height = context.scalar<int32_t>(2);
    } else {  // FLOAT32 or FLOAT16 scale factors, read as float
        const float widthScale = context.scalar<float>(1);
        const float heightScale = context.scalar<float>(2);
        NN_RET_CHECK(widthScale > 0.0f && heightScale > 0.0f);
        NN_RET_CHECK(std::isfinite(widthScale) && std::isfinite(heightScale));
        const float w = static_cast<float>(in.width) * widthScale;
        const float h = static_cast<float>(in.height) * heightScale;
        NN_RET_CHECK(w < 2147483648.0f && h < 2147483648.0f);
        width = static_cast<int32_t>(w);
        height = static_cast<int32_t>(h);
    }
    NN_RET_CHECK(width > 0 && height > 0);
    context.output(0).dims = makeImage4(in.batches, static_cast<uint32_t>(height),
                                        static_cast<uint32_t>(width), in.channels, in.nchw)
                                     .dims();
    return true;
}

// The flags (more than 4 inputs) and the signed type came with feature level 30; the layout
// input, FLOAT16 and scale factors with 29.
int64_t signatures::resizeFeatureLevel(const OperationContext& context) {
    if (context.numInputs() > 4 || context.inputType(0) == OperandType::TENSOR_QUANT8_ASYMM_SIGNED) {
        return kFeatureLevel30;
    }
    const bool api29 = context.numInputs() > 3 || context.inputType(0) == OperandType::TENSOR_FLOAT16 ||
                       context.inputType(1) != OperandType::INT32;
    return api29 ? kFeatureLevel29 : operationFeatureLevel(context.type);
}

bool signatures::validateNearest(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {4, 5, 6}, 1));
    return validateResize(context);
}

}  // namespace nnemu::hal
