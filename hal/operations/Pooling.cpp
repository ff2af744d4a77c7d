// AVERAGE_POOL_2D, MAX_POOL_2D and L2_POOL_2D.
//
// Operands: input [N,H,W,C] (or NCHW), then the window operands (see Padding.h) with the filter
// width and height as INT32 scalars. Types: F32, F16, and Q8 or Q8S for the average and max pools
// (output scale and zero point equal the input's). The output has the input's batch and
// channel counts.
#include "nnemu/hal/Operations.h"
#include "nnemu/hal/Padding.h"
#include "nnemu/hal/ShapeUtils.h"
#include "SignatureList.h"

namespace nnemu::hal {
namespace {

bool validatePool(const OperationContext& context, bool allowQuant8) {
    NN_RET_CHECK(context.numOutputs() == 1);
    NN_RET_CHECK(windowCountAllowed(WindowKind::POOL, context.numInputs()));
    NN_RET_CHECK(windowScalarTypesValid(context, WindowKind::POOL));
    const OperandView& input = context.input(0);
    const OperandView& output = context.output(0);
    if (allowQuant8) {
        NN_RET_CHECK(inputTypeIs(context, 0,
                                 {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                                  OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
    } else {
        NN_RET_CHECK(inputTypeIs(context, 0,
                                 {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16}));
    }
    NN_RET_CHECK(output.type == input.type);
    NN_RET_CHECK(rankIsOrUnknown(input, 4));
    NN_RET_CHECK(rankIsOrUnknown(output, 4));
    return true;
}

}  // namespace

bool signatures::validateQuantizablePool(const OperationContext& context) { return validatePool(context, true); }

bool signatures::preparePool(OperationContext& context) {
    const OperandView& input = context.input(0);
    NN_RET_CHECK(input.rank() == 4);
    const WindowParams params = readWindowParams(context, WindowKind::POOL);
    const Image4 in = makeImage4(input.dims, params.nchw);
    WindowGeometry geometry;
    NN_RET_CHECK(resolveWindow(params, in.height, in.width, static_cast<uint32_t>(params.filterH),
                               static_cast<uint32_t>(params.filterW), &geometry));
    Image4 out = in;
    out.height = geometry.outHeight;
    out.width = geometry.outWidth;
    context.output(0).dims = out.dims();
    return true;
}

// Execution stage: the window values; the output keeps the input's quantization.
bool signatures::checkPoolValues(const OperationContext& context) {
    NN_RET_CHECK(sameQuantization(context.input(0), context.output(0)));
    return windowValuesValid(context, WindowKind::POOL);
}

bool signatures::validateFloatPool(const OperationContext& context) { return validatePool(context, false); }

}  // namespace nnemu::hal
