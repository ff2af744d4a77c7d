// Signature of CONCATENATION: n >= 1 tensors of one type followed by an INT32 axis.
#include <vector>

#include "nnemu/hal/Operations.h"
#include "nnemu/hal/ShapeUtils.h"
#include "SignatureList.h"

namespace nnemu::hal {

bool signatures::validateConcatenation(const OperationContext& context) {
    NN_RET_CHECK(context.numInputs() >= 2);
    NN_RET_CHECK(context.numOutputs() == 1);
    const uint32_t axisIndex = context.numInputs() - 1;
    NN_RET_CHECK(inputTypeIs(context, axisIndex, {OperandType::INT32}));
    const OperandType type = context.inputType(0);
    NN_RET_CHECK(inputTypeIs(context, 0, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                                          OperandType::TENSOR_QUANT8_ASYMM,
                                          OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
    NN_RET_CHECK(context.output(0).type == type);
    uint32_t rank = 0;  // 0 = not known yet
    for (uint32_t i = 0; i < axisIndex; ++i) {
        const OperandView& input = context.input(i);
        NN_RET_CHECK(input.type == type);
        NN_RET_CHECK(rankAtMostOrUnknown(input, 4));
        if (input.rank() == 0) continue;
        if (rank == 0) rank = input.rank();
        NN_RET_CHECK(input.rank() == rank);
    }
    return true;
}

bool signatures::prepareConcatenation(OperationContext& context) {
    const uint32_t axisIndex = context.numInputs() - 1;
    const std::vector<uint32_t>& first = context.input(0).dims;
    const auto rank = static_cast<uint32_t>(first.size());
    const int32_t axis = context.scalar<int32_t>(axisIndex);
    NN_RET_CHECK(axis >= 0 && static_cast<uint32_t>(axis) < rank);
    std::vector<uint32_t> dims = first;
    uint64_t along = 0;
    for (uint32_t i = 0; i < axisIndex; ++i) {
        const std::vector<uint32_t>& d = context.input(i).dims;
        NN_RET_CHECK(d.size() == rank);
        for (uint32_t k = 0; k < rank; ++k) {
            if (k != static_cast<uint32_t>(axis)) NN_RET_CHECK(d[k] == first[k]);
        }
        along += d[axis];
    }
    NN_RET_CHECK(toDimension(along, &dims[axis]));
    context.output(0).dims = dims;
    return true;
}

}  // namespace nnemu::hal
