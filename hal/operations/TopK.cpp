// Signature of TOPK_V2: in (F16, F32, I32, Q8, Q8S), INT32 k -> values (input type, Q8 and Q8S
// keep the input's quantization) and TENSOR_INT32 indices, both shaped like the input with the last
// dimension replaced by k (1 <= k <= last dimension).
#include <vector>

#include "nnemu/hal/Operations.h"
#include "nnemu/hal/ShapeUtils.h"
#include "SignatureList.h"

namespace nnemu::hal {

bool signatures::validateTopK(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {2}, 2));
    NN_RET_CHECK(inputIsDataTensor(context, 0));
    NN_RET_CHECK(inputTypeIs(context, 1, {OperandType::INT32}));
    NN_RET_CHECK(context.output(0).type == context.inputType(0));
    NN_RET_CHECK(context.output(1).type == OperandType::TENSOR_INT32);
    return true;
}

bool signatures::prepareTopK(OperationContext& context) {
    const OperandView& input = context.input(0);
    NN_RET_CHECK(sameQuantization(input, context.output(0)));
    NN_RET_CHECK(input.rank() >= 1);
    const int32_t k = context.scalar<int32_t>(1);
    NN_RET_CHECK(k >= 1 && static_cast<uint32_t>(k) <= input.dim(input.rank() - 1));
    std::vector<uint32_t> dims = input.dims;
    dims.back() = static_cast<uint32_t>(k);
    context.output(0).dims = dims;
    context.output(1).dims = dims;
    return true;
}

}  // namespace nnemu::hal
