// Signature of INSTANCE_NORMALIZATION: in (F32 or F16, rank 4), gamma, beta, epsilon (FLOAT32,
// or FLOAT16 for F16), BOOL layout (true = NCHW). The output has the input's shape and type.
#include "nnemu/hal/Operations.h"
#include "SignatureList.h"

namespace nnemu::hal {

bool signatures::validateInstanceNormalization(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {5}, 1));
    NN_RET_CHECK(inputTypeIs(context, 0, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16}));
    const OperandType scalar =
            context.inputType(0) == OperandType::TENSOR_FLOAT16 ? OperandType::FLOAT16 : OperandType::FLOAT32;
    for (uint32_t i = 1; i <= 3; ++i) NN_RET_CHECK(inputTypeIs(context, i, {scalar}));
    NN_RET_CHECK(inputTypeIs(context, 4, {OperandType::BOOL}));
    NN_RET_CHECK(context.output(0).type == context.inputType(0));
    NN_RET_CHECK(rankIsOrUnknown(context.input(0), 4));
    return true;
}

bool signatures::prepareInstanceNormalization(OperationContext& context) {
    NN_RET_CHECK(context.input(0).rank() == 4);
    context.output(0).dims = context.input(0).dims;
    return true;
}

}  // namespace nnemu::hal
