// Signature of GATHER: in (F16, F32, I32, Q8, Q8S), INT32 axis (negative counts from the end),
// TENSOR_INT32 indices of any rank. The output replaces the axis by the indices' dims:
// in.dims[:axis] + indices.dims + in.dims[axis + 1:]; Q8 and Q8S keep the input's quantization.
#include <vector>

#include "nnemu/hal/Axis.h"
#include "nnemu/hal/Operations.h"
#include "nnemu/hal/ShapeUtils.h"
#include "SignatureList.h"

namespace nnemu::hal {

bool signatures::validateGather(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {3}, 1));
    NN_RET_CHECK(inputIsDataTensor(context, 0));
    NN_RET_CHECK(inputTypeIs(context, 1, {OperandType::INT32}));
    NN_RET_CHECK(inputTypeIs(context, 2, {OperandType::TENSOR_INT32}));
    NN_RET_CHECK(context.output(0).type == context.inputType(0));
    return true;
}

bool signatures::prepareGather(OperationContext& context) {
    const OperandView& input = context.input(0);
    const OperandView& indices = context.input(2);
    NN_RET_CHECK(sameQuantization(input, context.output(0)));
    NN_RET_CHECK(input.rank() >= 1 && indices.rank() >= 1);
    uint32_t axis = 0;
    NN_RET_CHECK(resolveAxis(context.scalar<int32_t>(1), input.rank(), &axis));
    std::vector<uint32_t> dims(input.dims.begin(), input.dims.begin() + axis);
    dims.insert(dims.end(), indices.dims.begin(), indices.dims.end());
    dims.insert(dims.end(), input.dims.begin() + axis + 1, input.dims.end());
    context.output(0).dims = dims;
    return true;
}

}  // namespace nnemu::hal
