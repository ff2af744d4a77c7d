// PACK (feature level 6), MIRROR_PAD and REVERSE (feature level 7): data movement operations on
// FLOAT16, FLOAT32, QUANT8_ASYMM(_SIGNED) and INT32 tensors; quantized outputs keep the input's
// quantization.
#include "nnemu/hal/Operations.h"
#include "nnemu/hal/ShapeUtils.h"
#include "SignatureList.h"

namespace nnemu::hal {
namespace {

// Execution stage: quantized operands that move values share one quantization.
bool quantizationMatches(const OperandView& a, const OperandView& b) {
    return !isQuant8Asymm(a.type) || sameQuantization(a, b);
}

}  // namespace

// PACK: input 0 the axis, inputs 1..N the tensors, all of one type, shape and quantization.
bool signatures::validatePack(const OperationContext& context) {
    NN_RET_CHECK(context.numInputs() >= 2 && context.numOutputs() == 1);
    NN_RET_CHECK(inputTypeIs(context, 0, {OperandType::INT32}));
    NN_RET_CHECK(inputIsDataTensor(context, 1));
    for (uint32_t i = 2; i < context.numInputs(); ++i) NN_RET_CHECK(context.inputType(i) == context.inputType(1));
    NN_RET_CHECK(context.output(0).type == context.inputType(1));
    return true;
}

bool signatures::preparePack(OperationContext& context) {
    const std::vector<uint32_t>& dims = context.input(1).dims;
    NN_RET_CHECK(!dims.empty());
    for (uint32_t i = 2; i < context.numInputs(); ++i) {
        NN_RET_CHECK(context.input(i).dims == dims && quantizationMatches(context.input(i), context.input(1)));
    }
    NN_RET_CHECK(quantizationMatches(context.output(0), context.input(1)));
    const int32_t axis = context.scalar<int32_t>(0);
    NN_RET_CHECK(axis >= 0 && static_cast<size_t>(axis) <= dims.size());
    std::vector<uint32_t> out = dims;
    out.insert(out.begin() + axis, context.numInputs() - 1);
    context.output(0).dims = std::move(out);
    return true;
}

// MIRROR_PAD: input 1 paddings [rank, 2], input 2 the mode (0 REFLECT, 1 SYMMETRIC).
bool signatures::validateMirrorPad(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {3}, 1));
    NN_RET_CHECK(inputIsDataTensor(context, 0));
    NN_RET_CHECK(inputTypeIs(context, 1, {OperandType::TENSOR_INT32}));
    NN_RET_CHECK(inputTypeIs(context, 2, {OperandType::INT32}));
    NN_RET_CHECK(rankIsOrUnknown(context.input(1), 2));
    NN_RET_CHECK(context.output(0).type == context.inputType(0));
    return true;
}

bool signatures::prepareMirrorPad(OperationContext& context) {
    const OperandView& input = context.input(0);
    const OperandView& paddings = context.input(1);
    const uint32_t rank = input.rank();
    NN_RET_CHECK(rank >= 1);
    NN_RET_CHECK(quantizationMatches(context.output(0), input));
    NN_RET_CHECK(paddings.dims == std::vector<uint32_t>({rank, 2}) && paddings.data != nullptr);
    NN_RET_CHECK(paddings.length >= uint64_t{rank} * 2 * sizeof(int32_t));
    const int32_t mode = context.scalar<int32_t>(2);
    NN_RET_CHECK(mode == 0 || mode == 1);
    std::vector<uint32_t> out;
    for (uint32_t d = 0; d < rank; ++d) {
        const int64_t dim = input.dim(d);
        const int64_t limit = mode == 0 ? dim - 1 : dim;  // REFLECT does not repeat the border
        int64_t size = dim;
        for (int side = 0; side < 2; ++side) {
            const int32_t pad = paddings.as<int32_t>()[2 * d + side];
            NN_RET_CHECK(pad >= 0 && (pad == 0 || pad <= limit));
            size += pad;
        }
        NN_RET_CHECK(size <= UINT32_MAX);
        out.push_back(static_cast<uint32_t>(size));
    }
    context.output(0).dims = std::move(out);
    return true;
}

// REVERSE: input 1 a [1] tensor with the axis to reverse.
bool signatures::validateReverse(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {2}, 1));
    NN_RET_CHECK(inputIsDataTensor(context, 0));
    NN_RET_CHECK(rankAtMostOrUnknown(context.input(0), 8));
    NN_RET_CHECK(inputTypeIs(context, 1, {OperandType::TENSOR_INT32}));
    NN_RET_CHECK(rankIsOrUnknown(context.input(1), 1));
    NN_RET_CHECK(context.output(0).type == context.inputType(0));
    return true;
}

bool signatures::prepareReverse(OperationContext& context) {
    const OperandView& input = context.input(0);
    const OperandView& axis = context.input(1);
    NN_RET_CHECK(input.rank() >= 1 && input.rank() <= 8);
    NN_RET_CHECK(quantizationMatches(context.output(0), input));
    NN_RET_CHECK(axis.dims == std::vector<uint32_t>({1}) && axis.data != nullptr && axis.length >= sizeof(int32_t));
    const int32_t a = axis.as<int32_t>()[0];
    NN_RET_CHECK(a >= 0 && static_cast<uint32_t>(a) < input.rank());
    context.output(0).dims = input.dims;
    return true;
}

}  // namespace nnemu::hal
