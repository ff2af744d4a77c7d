// SOFTMAX: input, beta (FLOAT32, or FLOAT16 for a TENSOR_FLOAT16 input), optional axis
// (INT32, default -1). The output has the input's shape.
#include "nnemu/hal/Operations.h"
#include "SignatureList.h"

namespace nnemu::hal {

bool signatures::validateSoftmax(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {2, 3}, 1));
    NN_RET_CHECK(inputTypeIs(context, 0,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
    const OperandType type = context.inputType(0);
    NN_RET_CHECK(context.output(0).type == type);
    NN_RET_CHECK(inputTypeIs(context, 1,
                             {type == OperandType::TENSOR_FLOAT16 ? OperandType::FLOAT16
                                                                  : OperandType::FLOAT32}));
    if (context.numInputs() == 3) NN_RET_CHECK(inputTypeIs(context, 2, {OperandType::INT32}));
    NN_RET_CHECK(rankAtMostOrUnknown(context.input(0), 4));
    return true;
}

bool signatures::prepareSoftmax(OperationContext& context) {
    const OperandType type = context.inputType(0);
    if (isQuant8Asymm(type)) {  // fixed: (1/256, 0), or (1/256, -128) signed
        NN_RET_CHECK(context.output(0).scale == 1.0f / 256);
        NN_RET_CHECK(context.output(0).zeroPoint == quant8ZeroPoint(type, 0));
    }
    const int32_t rank = static_cast<int32_t>(context.input(0).rank());
    NN_RET_CHECK(rank >= 1 && rank <= 4);
    NN_RET_CHECK(context.scalar<float>(1) > 0.0f);
    if (context.numInputs() == 3) {
        const int32_t axis = context.scalar<int32_t>(2);
        NN_RET_CHECK(axis >= -rank && axis < rank);
    }
    context.output(0).dims = context.input(0).dims;
    return true;
}

}  // namespace nnemu::hal
