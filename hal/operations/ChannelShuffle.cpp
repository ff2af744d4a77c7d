// Signature of CHANNEL_SHUFFLE: in (F16, F32, Q8, Q8S; rank <= 4), INT32 number of groups, INT32 axis
// (negative counts from the end). The axis size must be a multiple of the number of groups; the
// output has the input's shape and, for Q8 and Q8S, its quantization.
#include "nnemu/hal/Axis.h"
#include "nnemu/hal/Operations.h"
#include "nnemu/hal/ShapeUtils.h"
#include "SignatureList.h"

namespace nnemu::hal {

bool signatures::validateChannelShuffle(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {3}, 1));
    NN_RET_CHECK(inputTypeIs(context, 0, {OperandType::TENSOR_FLOAT16, OperandType::TENSOR_FLOAT32,
                                          OperandType::TENSOR_QUANT8_ASYMM,
                                          OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
    NN_RET_CHECK(inputTypeIs(context, 1, {OperandType::INT32}));
    NN_RET_CHECK(inputTypeIs(context, 2, {OperandType::INT32}));
    NN_RET_CHECK(context.output(0).type == context.inputType(0));
    NN_RET_CHECK(rankAtMostOrUnknown(context.input(0), 4));
    return true;
}

bool signatures::prepareChannelShuffle(OperationContext& context) {
    const OperandView& input = context.input(0);
    NN_RET_CHECK(sameQuantization(input, context.output(0)));
    NN_RET_CHECK(input.rank() >= 1 && input.rank() <= 4);
    const int32_t groups = context.scalar<int32_t>(1);
    uint32_t axis = 0;
    NN_RET_CHECK(resolveAxis(context.scalar<int32_t>(2), input.rank(), &axis));
    NN_RET_CHECK(groups >= 1 && input.dim(axis) % static_cast<uint32_t>(groups) == 0);
    context.output(0).dims = input.dims;
    return true;
}

}  // namespace nnemu::hal
