// Signatures of ARGMAX and ARGMIN: in (F16, F32, I32, Q8 or Q8S), INT32 axis (negative counts from
// the end) -> TENSOR_INT32 indexes with the axis removed.
#include <vector>

#include "nnemu/hal/Axis.h"
#include "nnemu/hal/Operations.h"
#include "SignatureList.h"

namespace nnemu::hal {

bool signatures::validateArgMinMax(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {2}, 1));
    NN_RET_CHECK(inputIsDataTensor(context, 0));
    NN_RET_CHECK(inputTypeIs(context, 1, {OperandType::INT32}));
    NN_RET_CHECK(context.output(0).type == OperandType::TENSOR_INT32);
    return true;
}

bool signatures::prepareArgMinMax(OperationContext& context) {
    const OperandView& input = context.input(0);
    uint32_t axis = 0;
    NN_RET_CHECK(input.rank() >= 1);
    NN_RET_CHECK(resolveAxis(context.scalar<int32_t>(1), input.rank(), &axis));
    std::vector<uint32_t> dims;
    for (uint32_t d = 0; d < input.rank(); ++d) {
        if (d != axis) dims.push_back(input.dim(d));
    }
    // A 1-D input reduces to one index; tensors here have at least one dimension.
    if (dims.empty()) dims.push_back(1);
    context.output(0).dims = dims;
    return true;
}

}  // namespace nnemu::hal
