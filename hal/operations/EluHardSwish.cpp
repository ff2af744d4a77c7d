// ELU and HARD_SWISH (feature level 30): one tensor in, one tensor of the same shape out.
#include "nnemu/hal/Operations.h"
#include "SignatureList.h"

namespace nnemu::hal {

// ELU: input 1 is the alpha scalar, FLOAT16 for a FLOAT16 tensor and FLOAT32 otherwise.
bool signatures::validateElu(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {2}, 1));
    NN_RET_CHECK(inputTypeIs(context, 0, {kF32, kF16}));
    const OperandType alpha = context.inputType(0) == kF16 ? OperandType::FLOAT16 : OperandType::FLOAT32;
    NN_RET_CHECK(context.inputType(1) == alpha);
    NN_RET_CHECK(context.output(0).type == context.inputType(0));
    return true;
}

bool signatures::prepareEluHardSwish(OperationContext& context) {
    NN_RET_CHECK(context.input(0).rank() >= 1);
    context.output(0).dims = context.input(0).dims;
    return true;
}

// HARD_SWISH: a quantized output may have its own scale and zero point.
bool signatures::validateHardSwish(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {1}, 1));
    NN_RET_CHECK(inputTypeIs(context, 0, {kF32, kF16, OperandType::TENSOR_QUANT8_ASYMM,
                                          OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
    NN_RET_CHECK(context.output(0).type == context.inputType(0));
    return true;
}

}  // namespace nnemu::hal
