// Operations that pick one of two values per element: MAXIMUM and MINIMUM (numpy-style
// broadcasting) and SELECT (a TENSOR_BOOL8 condition and two tensors, all of one shape). Quant8
// inputs and the output may each have their own scale and zero point.
#include <vector>

#include "nnemu/hal/Broadcast.h"
#include "nnemu/hal/Operations.h"
#include "SignatureList.h"

namespace nnemu::hal {
namespace {

bool isValueType(OperandType type) {
    return type == OperandType::TENSOR_FLOAT16 || type == OperandType::TENSOR_FLOAT32 ||
           type == OperandType::TENSOR_INT32 || isQuant8Asymm(type);
}

}  // namespace

bool signatures::validateMaxMin(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {2}, 1));
    const OperandType type = context.inputType(0);
    NN_RET_CHECK(isValueType(type));
    NN_RET_CHECK(context.inputType(1) == type);
    NN_RET_CHECK(context.output(0).type == type);
    return true;
}

bool signatures::validateSelect(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {3}, 1));
    NN_RET_CHECK(inputTypeIs(context, 0, {OperandType::TENSOR_BOOL8}));
    const OperandType type = context.inputType(1);
    NN_RET_CHECK(isValueType(type));
    NN_RET_CHECK(context.inputType(2) == type);
    NN_RET_CHECK(context.output(0).type == type);
    return true;
}

// SELECT does not broadcast: condition and both value tensors have exactly the same shape.
bool signatures::prepareSelect(OperationContext& context) {
    NN_RET_CHECK(context.input(0).dims == context.input(1).dims);
    NN_RET_CHECK(context.input(1).dims == context.input(2).dims);
    context.output(0).dims = context.input(1).dims;
    return true;
}

}  // namespace nnemu::hal
