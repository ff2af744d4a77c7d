// Signature of TILE: in (F16, F32, I32, Q8, Q8S), TENSOR_INT32 multiples (one per input
// dimension). Output dimension d is in.dims[d] * multiples[d]; Q8 and Q8S keep the input's
// quantization.
#include <limits>
#include <vector>

#include "nnemu/hal/Operations.h"
#include "nnemu/hal/ShapeUtils.h"
#include "SignatureList.h"

namespace nnemu::hal {

bool signatures::validateTile(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {2}, 1));
    NN_RET_CHECK(inputIsDataTensor(context, 0));
    NN_RET_CHECK(inputTypeIs(context, 1, {OperandType::TENSOR_INT32}));
    NN_RET_CHECK(rankIsOrUnknown(context.input(1), 1));
    NN_RET_CHECK(context.output(0).type == context.inputType(0));
    return true;
}

bool signatures::prepareTile(OperationContext& context) {
    const OperandView& input = context.input(0);
    const OperandView& multiples = context.input(1);
    NN_RET_CHECK(sameQuantization(input, context.output(0)));
    NN_RET_CHECK(input.rank() >= 1);
    NN_RET_CHECK(multiples.rank() == 1 && multiples.dim(0) == input.rank());
    NN_RET_CHECK(multiples.data != nullptr);
    std::vector<uint32_t> dims(input.rank());
    for (uint32_t d = 0; d < input.rank(); ++d) {
        const int32_t multiple = multiples.as<int32_t>()[d];
        NN_RET_CHECK(multiple >= 0);  // 0 gives an empty output, as in TensorFlow
        const uint64_t size = static_cast<uint64_t>(input.dim(d)) * static_cast<uint64_t>(multiple);
        NN_RET_CHECK(size <= std::numeric_limits<uint32_t>::max());
        dims[d] = static_cast<uint32_t>(size);
    }
    context.output(0).dims = dims;
    return true;
}

}  // namespace nnemu::hal
