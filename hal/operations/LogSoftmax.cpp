// Signature of LOG_SOFTMAX: in (F32 or F16), beta (FLOAT32, or FLOAT16 for F16), INT32 axis
// (negative counts from the end). The output has the input's shape and type.
#include "nnemu/hal/Axis.h"
#include "nnemu/hal/Operations.h"
#include "SignatureList.h"

namespace nnemu::hal {

bool signatures::validateLogSoftmax(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {3}, 1));
    NN_RET_CHECK(inputTypeIs(context, 0, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16}));
    const bool half = context.inputType(0) == OperandType::TENSOR_FLOAT16;
    NN_RET_CHECK(inputTypeIs(context, 1, {half ? OperandType::FLOAT16 : OperandType::FLOAT32}));
    NN_RET_CHECK(inputTypeIs(context, 2, {OperandType::INT32}));
    NN_RET_CHECK(context.output(0).type == context.inputType(0));
    return true;
}

bool signatures::prepareLogSoftmax(OperationContext& context) {
    const OperandView& input = context.input(0);
    NN_RET_CHECK(input.rank() >= 1);
    uint32_t axis = 0;
    NN_RET_CHECK(resolveAxis(context.scalar<int32_t>(2), input.rank(), &axis));
    context.output(0).dims = input.dims;
    return true;
}

}  // namespace nnemu::hal
