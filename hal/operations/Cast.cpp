// CAST: converts each element to the output's type; the output has the input's shape. Quant8
// operands take part by their stored uint8 values (scale and zero point are ignored).
// TENSOR_QUANT8_ASYMM_SIGNED only casts to itself (feature level 30's identity casts).
#include "nnemu/hal/Operations.h"

namespace nnemu::hal {
namespace {

bool convertible(OperandType type) {
    return type == OperandType::TENSOR_FLOAT16 || type == OperandType::TENSOR_FLOAT32 ||
           type == OperandType::TENSOR_INT32 || type == OperandType::TENSOR_QUANT8_ASYMM;
}

bool validateCast(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {1}, 1));
    const OperandType in = context.inputType(0);
    const OperandType out = context.output(0).type;
    if (in == OperandType::TENSOR_QUANT8_ASYMM_SIGNED) {
        NN_RET_CHECK(out == in);
    } else {
        NN_RET_CHECK(convertible(in) && convertible(out));
    }
    return true;
}

bool prepareCast(OperationContext& context) {
    context.output(0).dims = context.input(0).dims;
    return true;
}

}  // namespace

NN_REGISTER_SIGNATURE(CAST, validateCast, prepareCast, false, false);

}  // namespace nnemu::hal
