// CAST: converts each element to the output's type; the output has the input's shape. Quant8
// operands take part by their stored uint8 values (scale and zero point are ignored).
#include "nnemu/hal/Operations.h"

namespace nnemu::hal {
namespace {

bool validateCast(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {1}, 1));
    NN_RET_CHECK(inputTypeIs(context, 0,
                             {OperandType::TENSOR_FLOAT16, OperandType::TENSOR_FLOAT32,
                              OperandType::TENSOR_INT32, OperandType::TENSOR_QUANT8_ASYMM}));
    const OperandType out = context.output(0).type;
    NN_RET_CHECK(out == OperandType::TENSOR_FLOAT16 || out == OperandType::TENSOR_FLOAT32 ||
                 out == OperandType::TENSOR_INT32 || out == OperandType::TENSOR_QUANT8_ASYMM);
    return true;
}

bool prepareCast(OperationContext& context) {
    context.output(0).dims = context.input(0).dims;
    return true;
}

}  // namespace

NN_REGISTER_SIGNATURE(CAST, validateCast, prepareCast, false, false);

}  // namespace nnemu::hal
