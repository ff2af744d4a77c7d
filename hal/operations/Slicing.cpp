// Signatures of STRIDED_SLICE, SLICE, PAD and PAD_V2.
#include <vector>

#include "nnemu/hal/Operations.h"
#include "nnemu/hal/ShapeUtils.h"
#include "SignatureList.h"

namespace nnemu::hal {
namespace {

// A 1-D I32 operand of `length` elements with its data present (prepare time).
bool isIndexVector(const OperandView& operand, uint32_t length) {
    NN_RET_CHECK(operand.rank() == 1 && operand.dim(0) == length);
    NN_RET_CHECK(length == 0 || operand.data != nullptr);
    return true;
}

// ---- STRIDED_SLICE ----

// ---- SLICE ----

// ---- PAD / PAD_V2 ----

bool validatePadCommon(const OperationContext& context) {
    NN_RET_CHECK(inputTypeIs(context, 0, {kF32, kF16, kQ8, kQ8S}));
    NN_RET_CHECK(context.output(0).type == context.inputType(0));
    NN_RET_CHECK(rankAtMostOrUnknown(context.input(0), 4));
    NN_RET_CHECK(inputTypeIs(context, 1, {kI32}));
    NN_RET_CHECK(rankIsOrUnknown(context.input(1), 2));
    return true;
}

}  // namespace

bool signatures::validateStridedSlice(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {7}, 1));
    NN_RET_CHECK(inputTypeIs(context, 0, {kF32, kF16, kQ8, kQ8S}));
    NN_RET_CHECK(context.output(0).type == context.inputType(0));
    NN_RET_CHECK(rankAtMostOrUnknown(context.input(0), 4));
    for (uint32_t i = 1; i <= 3; ++i) {
        NN_RET_CHECK(inputTypeIs(context, i, {kI32}));
        NN_RET_CHECK(rankIsOrUnknown(context.input(i), 1));
    }
    for (uint32_t i = 4; i <= 6; ++i) NN_RET_CHECK(inputTypeIs(context, i, {OperandType::INT32}));
    return true;
}

bool signatures::prepareStridedSlice(OperationContext& context) {
    const OperandView& input = context.input(0);
    NN_RET_CHECK(sameQuantization(input, context.output(0)));
    const uint32_t rank = input.rank();
    for (uint32_t i = 1; i <= 3; ++i) NN_RET_CHECK(isIndexVector(context.input(i), rank));
    std::vector<SliceAxis> axes;
    std::vector<uint32_t> dims;
    NN_RET_CHECK(resolveStridedSlice(input.dims, context.input(1).as<int32_t>(),
                                     context.input(2).as<int32_t>(), context.input(3).as<int32_t>(),
                                     context.scalar<int32_t>(4), context.scalar<int32_t>(5),
                                     context.scalar<int32_t>(6), &axes, &dims));
    context.output(0).dims = dims;
    return true;
}

bool signatures::validateSlice(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {3}, 1));
    NN_RET_CHECK(inputTypeIs(context, 0, {kF32, kF16, kQ8, kQ8S, kI32}));
    NN_RET_CHECK(context.output(0).type == context.inputType(0));
    for (uint32_t i = 1; i <= 2; ++i) {
        NN_RET_CHECK(inputTypeIs(context, i, {kI32}));
        NN_RET_CHECK(rankIsOrUnknown(context.input(i), 1));
    }
    return true;
}

bool signatures::prepareSlice(OperationContext& context) {
    const OperandView& input = context.input(0);
    NN_RET_CHECK(sameQuantization(input, context.output(0)));
    const uint32_t rank = input.rank();
    NN_RET_CHECK(isIndexVector(context.input(1), rank));
    NN_RET_CHECK(isIndexVector(context.input(2), rank));
    const int32_t* begin = context.input(1).as<int32_t>();
    const int32_t* size = context.input(2).as<int32_t>();
    std::vector<uint32_t> dims(rank);
    for (uint32_t i = 0; i < rank; ++i) {
        const int64_t dim = input.dim(i);
        NN_RET_CHECK(begin[i] >= 0 && begin[i] <= dim);
        if (size[i] == -1) {
            dims[i] = static_cast<uint32_t>(dim - begin[i]);
        } else {
            NN_RET_CHECK(size[i] >= 0 && static_cast<int64_t>(begin[i]) + size[i] <= dim);
            dims[i] = static_cast<uint32_t>(size[i]);
        }
    }
    context.output(0).dims = dims;
    return true;
}

bool signatures::validatePad(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {2}, 1));
    return validatePadCommon(context);
}

bool signatures::preparePad(OperationContext& context) {
    const OperandView& input = context.input(0);
    NN_RET_CHECK(sameQuantization(input, context.output(0)));
    const uint32_t rank = input.rank();
    const OperandView& paddings = context.input(1);
    NN_RET_CHECK(paddings.rank() == 2 && paddings.dim(0) == rank && paddings.dim(1) == 2);
    NN_RET_CHECK(rank == 0 || paddings.data != nullptr);
    const int32_t* pads = paddings.as<int32_t>();
    std::vector<uint32_t> dims(rank);
    for (uint32_t i = 0; i < rank; ++i) {
        NN_RET_CHECK(pads[2 * i] >= 0 && pads[2 * i + 1] >= 0);
        NN_RET_CHECK(toDimension(uint64_t{input.dim(i)} + static_cast<uint64_t>(pads[2 * i]) +
                                         static_cast<uint64_t>(pads[2 * i + 1]),
                                 &dims[i]));
    }
    context.output(0).dims = dims;
    return true;
}

bool signatures::validatePadV2(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {3}, 1));
    NN_RET_CHECK(validatePadCommon(context));
    switch (context.inputType(0)) {
        case kF32:
            NN_RET_CHECK(inputTypeIs(context, 2, {OperandType::FLOAT32}));
            break;
        case kF16:
            NN_RET_CHECK(inputTypeIs(context, 2, {OperandType::FLOAT16}));
            break;
        default:  // Q8, Q8S: the pad value is given already quantized
            NN_RET_CHECK(inputTypeIs(context, 2, {OperandType::INT32}));
            break;
    }
    return true;
}

bool signatures::preparePadV2(OperationContext& context) {
    const OperandType type = context.inputType(0);
    if (isQuant8Asymm(type)) {
        const int32_t padValue = context.scalar<int32_t>(2);
        NN_RET_CHECK(padValue >= quant8Min(type) && padValue <= quant8Max(type));
    }
    return preparePad(context);
}

}  // namespace nnemu::hal
