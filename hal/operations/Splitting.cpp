// Signature of SPLIT: in, INT32 axis (negative counts from the end), INT32 number of outputs;
// the input is cut into that many equal pieces along the axis.
#include <vector>

#include "nnemu/hal/Operations.h"
#include "nnemu/hal/ShapeUtils.h"
#include "SignatureList.h"

namespace nnemu::hal {

bool signatures::validateSplit(const OperationContext& context) {
    NN_RET_CHECK(context.numInputs() == 3);
    NN_RET_CHECK(context.numOutputs() >= 1);
    const OperandType type = context.inputType(0);
    NN_RET_CHECK(inputTypeIs(context, 0, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                                          OperandType::TENSOR_INT32, OperandType::TENSOR_QUANT8_ASYMM,
                                          OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
    NN_RET_CHECK(inputTypeIs(context, 1, {OperandType::INT32}));
    NN_RET_CHECK(inputTypeIs(context, 2, {OperandType::INT32}));
    for (uint32_t i = 0; i < context.numOutputs(); ++i) NN_RET_CHECK(context.output(i).type == type);
    return true;
}

bool signatures::prepareSplit(OperationContext& context) {
    const OperandView& input = context.input(0);
    const auto rank = static_cast<int32_t>(input.rank());
    NN_RET_CHECK(rank >= 1);
    int32_t axis = context.scalar<int32_t>(1);
    NN_RET_CHECK(axis >= -rank && axis < rank);
    if (axis < 0) axis += rank;
    const int32_t count = context.scalar<int32_t>(2);
    NN_RET_CHECK(count >= 1 && static_cast<uint32_t>(count) == context.numOutputs());
    NN_RET_CHECK(input.dim(axis) % static_cast<uint32_t>(count) == 0);
    std::vector<uint32_t> dims = input.dims;
    dims[axis] = input.dim(axis) / static_cast<uint32_t>(count);
    for (uint32_t i = 0; i < context.numOutputs(); ++i) {
        // Each piece is a copy of input values, so Q8 pieces keep the input's parameters.
        NN_RET_CHECK(sameQuantization(input, context.output(i)));
        context.output(i).dims = dims;
    }
    return true;
}

}  // namespace nnemu::hal
