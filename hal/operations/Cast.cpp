// CAST: converts each element to the output's type; the output has the input's shape. Quant8
// operands take part by their stored uint8 values (scale and zero point are ignored).
// Feature level 30 adds identity casts (a copy) of BOOL8, QUANT16_ASYMM, QUANT16_SYMM,
// QUANT8_ASYMM_SIGNED and QUANT8_SYMM, which cast to nothing else.
#include "nnemu/hal/OperandTypes.h"
#include "nnemu/hal/Operations.h"
#include "SignatureList.h"

namespace nnemu::hal {
namespace {

bool convertible(OperandType type) {
    return type == OperandType::TENSOR_FLOAT16 || type == OperandType::TENSOR_FLOAT32 ||
           type == OperandType::TENSOR_INT32 || type == OperandType::TENSOR_QUANT8_ASYMM;
}

bool identityOnly(OperandType type) {
    switch (type) {
        case OperandType::TENSOR_BOOL8:
        case OperandType::TENSOR_QUANT16_ASYMM:
        case OperandType::TENSOR_QUANT16_SYMM:
        case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
        case OperandType::TENSOR_QUANT8_SYMM:
            return true;
        default:
            return false;
    }
}

}  // namespace

bool signatures::validateCast(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {1}, 1));
    const OperandType in = context.inputType(0);
    const OperandType out = context.output(0).type;
    if (identityOnly(in)) {
        NN_RET_CHECK(out == in);
    } else {
        NN_RET_CHECK(convertible(in) && convertible(out));
    }
    return true;
}

bool signatures::prepareCast(OperationContext& context) {
    context.output(0).dims = context.input(0).dims;
    return true;
}

int64_t signatures::castFeatureLevel(const OperationContext& context) {
    return identityOnly(context.inputType(0)) ? kFeatureLevel30 : operationFeatureLevel(context.type);
}

}  // namespace nnemu::hal
