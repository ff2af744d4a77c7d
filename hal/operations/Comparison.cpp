// EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS, LESS_EQUAL: two tensors of one type compared
// element by element with numpy-style broadcasting into a TENSOR_BOOL8. Quant8 inputs may have
// different scales and zero points (their real values are compared).
#include "nnemu/hal/Broadcast.h"
#include "nnemu/hal/Operations.h"
#include "SignatureList.h"

namespace nnemu::hal {

bool signatures::validateComparison(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {2}, 1));
    NN_RET_CHECK(inputTypeIs(context, 0,
                             {OperandType::TENSOR_BOOL8, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_FLOAT32, OperandType::TENSOR_INT32,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
    NN_RET_CHECK(context.inputType(1) == context.inputType(0));
    NN_RET_CHECK(context.output(0).type == OperandType::TENSOR_BOOL8);
    return true;
}

}  // namespace nnemu::hal
