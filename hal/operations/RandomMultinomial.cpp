// Signature of RANDOM_MULTINOMIAL: logits [batches, classes] (F32 or F16), INT32 number of
// samples, TENSOR_INT32 seeds [2] -> TENSOR_INT32 class indexes [batches, samples].
#include "nnemu/hal/Operations.h"
#include "SignatureList.h"

namespace nnemu::hal {

bool signatures::validateRandomMultinomial(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {3}, 1));
    NN_RET_CHECK(inputTypeIs(context, 0, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16}));
    NN_RET_CHECK(inputTypeIs(context, 1, {OperandType::INT32}));
    NN_RET_CHECK(inputTypeIs(context, 2, {OperandType::TENSOR_INT32}));
    NN_RET_CHECK(context.output(0).type == OperandType::TENSOR_INT32);
    NN_RET_CHECK(rankIsOrUnknown(context.input(0), 2));
    NN_RET_CHECK(rankIsOrUnknown(context.input(2), 1));
    return true;
}

bool signatures::prepareRandomMultinomial(OperationContext& context) {
    const OperandView& logits = context.input(0);
    const OperandView& seeds = context.input(2);
    NN_RET_CHECK(logits.rank() == 2);
    NN_RET_CHECK(seeds.rank() == 1 && seeds.dim(0) == 2);
    const int32_t samples = context.scalar<int32_t>(1);
    NN_RET_CHECK(samples >= 0);  // 0 gives an empty output, as in TensorFlow
    context.output(0).dims = {logits.dim(0), static_cast<uint32_t>(samples)};
    return true;
}

}  // namespace nnemu::hal
