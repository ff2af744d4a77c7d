// Signatures of the operations that only rearrange elements: RESHAPE, SQUEEZE, EXPAND_DIMS,
// TRANSPOSE, DEPTH_TO_SPACE, SPACE_TO_DEPTH, BATCH_TO_SPACE_ND, SPACE_TO_BATCH_ND.
#include <vector>

#include "nnemu/hal/OperandTypes.h"
#include "nnemu/hal/Operations.h"
#include "nnemu/hal/ShapeUtils.h"
#include "SignatureList.h"

namespace nnemu::hal {
namespace {

// Checks shared by every operation here: input 0 is the data tensor (F32, F16, Q8 or Q8S) and
// the single output has its type.
bool validateData(const OperationContext& context) {
    NN_RET_CHECK(inputTypeIs(context, 0, {kF32, kF16, kQ8, kQ8S}));
    NN_RET_CHECK(context.output(0).type == context.inputType(0));
    return true;
}

// Number of elements of a 1-D I32 operand at prepare time (its data must be present).
bool vectorLength(const OperandView& operand, uint32_t* length) {
    NN_RET_CHECK(operand.rank() == 1);
    *length = operand.dim(0);
    NN_RET_CHECK(*length == 0 || operand.data != nullptr);
    return true;
}

// ---- RESHAPE ----

// ---- SQUEEZE ----

// ---- EXPAND_DIMS: in (F16, F32, I32, Q8, Q8S), INT32 axis in [-rank - 1, rank] ----

// Position of the new dimension in the output of rank `rank` + 1.
bool expandedAxis(int32_t axis, uint32_t rank, uint32_t* resolved) {
    const int64_t outRank = static_cast<int64_t>(rank) + 1;
    NN_RET_CHECK(axis >= -outRank && axis < outRank);
    *resolved = static_cast<uint32_t>(axis < 0 ? axis + outRank : axis);
    return true;
}

// ---- TRANSPOSE ----


// ---- DEPTH_TO_SPACE / SPACE_TO_DEPTH ----

// ---- BATCH_TO_SPACE_ND / SPACE_TO_BATCH_ND ----

// Reads the [2] block shape (height, width) of input 1; both at least 1.
bool readBlockShape(const OperationContext& context, uint32_t* blockH, uint32_t* blockW) {
    const OperandView& block = context.input(1);
    NN_RET_CHECK(block.rank() == 1 && block.dim(0) == 2 && block.data != nullptr);
    const int32_t* values = block.as<int32_t>();
    NN_RET_CHECK(values[0] >= 1 && values[1] >= 1);
    *blockH = static_cast<uint32_t>(values[0]);
    *blockW = static_cast<uint32_t>(values[1]);
    return true;
}

}  // namespace

// RESHAPE also moves TENSOR_INT32 data, from feature level 6.
bool signatures::validateReshape(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {2}, 1));
    NN_RET_CHECK(inputTypeIs(context, 0, {kF32, kF16, kQ8, kQ8S, kI32}));
    NN_RET_CHECK(context.output(0).type == context.inputType(0));
    NN_RET_CHECK(rankAtMostOrUnknown(context.input(0), 4));
    NN_RET_CHECK(inputTypeIs(context, 1, {kI32}));
    NN_RET_CHECK(rankIsOrUnknown(context.input(1), 1));
    return true;
}

bool signatures::prepareReshape(OperationContext& context) {
    const OperandView& input = context.input(0);
    NN_RET_CHECK(sameQuantization(input, context.output(0)));
    uint32_t length = 0;
    NN_RET_CHECK(vectorLength(context.input(1), &length));
    const int32_t* shape = context.input(1).as<int32_t>();
    const uint64_t inputCount = input.elements();
    int stretchAxis = -1;
    std::vector<uint32_t> dims(length, 1);
    for (uint32_t i = 0; i < length; ++i) {
        if (shape[i] == -1) {
            NN_RET_CHECK(stretchAxis == -1);  // at most one -1
            stretchAxis = static_cast<int>(i);
            continue;
        }
        NN_RET_CHECK(shape[i] >= 0);
        dims[i] = static_cast<uint32_t>(shape[i]);
    }
    // elementCount saturates, so a shape whose product would wrap to the input's count is refused.
    if (stretchAxis >= 0) {
        const uint64_t knownCount = elementCount(dims);
        NN_RET_CHECK(knownCount > 0 && inputCount % knownCount == 0);
        NN_RET_CHECK(toDimension(inputCount / knownCount, &dims[stretchAxis]));
    }
    NN_RET_CHECK(elementCount(dims) == inputCount);
    context.output(0).dims = dims;
    return true;
}

int64_t signatures::reshapeFeatureLevel(const OperationContext& context) {
    if (context.inputType(0) == kI32) return kFeatureLevel6;
    return context.inputType(0) == kQ8S ? kFeatureLevel30 : operationFeatureLevel(context.type);
}

// SQUEEZE and TRANSPOSE: a tensor of rank <= 4 and an omittable 1-D TENSOR_INT32 (axes, perm).
bool signatures::validateWithAxisList(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {2}, 1));
    NN_RET_CHECK(validateData(context));
    NN_RET_CHECK(rankAtMostOrUnknown(context.input(0), 4));
    NN_RET_CHECK(inputTypeIs(context, 1, {kI32}));
    NN_RET_CHECK(context.input(1).omitted || rankIsOrUnknown(context.input(1), 1));
    return true;
}

bool signatures::prepareSqueeze(OperationContext& context) {
    const OperandView& input = context.input(0);
    NN_RET_CHECK(sameQuantization(input, context.output(0)));
    const uint32_t rank = input.rank();
    std::vector<bool> squeezed(rank, false);
    const OperandView& axes = context.input(1);
    uint32_t length = 0;
    if (!axes.omitted && axes.data != nullptr) NN_RET_CHECK(vectorLength(axes, &length));
    if (length == 0) {
        // No axes: every dimension of size 1 goes.
        for (uint32_t i = 0; i < rank; ++i) squeezed[i] = input.dim(i) == 1;
    } else {
        const int32_t* values = axes.as<int32_t>();
        const auto r = static_cast<int32_t>(rank);
        for (uint32_t i = 0; i < length; ++i) {
            int32_t axis = values[i];
            NN_RET_CHECK(axis >= -r && axis < r);
            if (axis < 0) axis += r;
            NN_RET_CHECK(input.dim(axis) == 1);
            squeezed[axis] = true;
        }
    }
    std::vector<uint32_t> dims;
    for (uint32_t i = 0; i < rank; ++i) {
        if (!squeezed[i]) dims.push_back(input.dim(i));
    }
    context.output(0).dims = dims;
    return true;
}

bool signatures::validateExpandDims(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {2}, 1));
    NN_RET_CHECK(inputTypeIs(context, 0, {kF32, kF16, kI32, kQ8, kQ8S}));
    NN_RET_CHECK(context.output(0).type == context.inputType(0));
    NN_RET_CHECK(inputTypeIs(context, 1, {OperandType::INT32}));
    return true;
}

bool signatures::prepareExpandDims(OperationContext& context) {
    const OperandView& input = context.input(0);
    NN_RET_CHECK(sameQuantization(input, context.output(0)));
    NN_RET_CHECK(input.rank() >= 1);
    uint32_t axis = 0;
    NN_RET_CHECK(expandedAxis(context.scalar<int32_t>(1), input.rank(), &axis));
    std::vector<uint32_t> dims = input.dims;
    dims.insert(dims.begin() + axis, 1);
    context.output(0).dims = dims;
    return true;
}

bool signatures::prepareTranspose(OperationContext& context) {
    const OperandView& input = context.input(0);
    NN_RET_CHECK(sameQuantization(input, context.output(0)));
    const uint32_t rank = input.rank();
    const OperandView& permOperand = context.input(1);
    uint32_t length = 0;
    if (!permOperand.omitted && permOperand.data != nullptr) {
        NN_RET_CHECK(vectorLength(permOperand, &length));
    }
    std::vector<uint32_t> dims(rank);
    if (length == 0) {  // omitted: reverse the dimensions
        for (uint32_t i = 0; i < rank; ++i) dims[i] = input.dim(rank - 1 - i);
    } else {
        NN_RET_CHECK(length == rank);
        const int32_t* perm = permOperand.as<int32_t>();
        std::vector<bool> used(rank, false);
        for (uint32_t i = 0; i < rank; ++i) {
            NN_RET_CHECK(perm[i] >= 0 && static_cast<uint32_t>(perm[i]) < rank);
            NN_RET_CHECK(!used[perm[i]]);
            used[perm[i]] = true;
            dims[i] = input.dim(perm[i]);
        }
    }
    context.output(0).dims = dims;
    return true;
}

bool signatures::validateBlockOp(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {2, 3}, 1));
    NN_RET_CHECK(validateData(context));
    NN_RET_CHECK(rankIsOrUnknown(context.input(0), 4));
    NN_RET_CHECK(inputTypeIs(context, 1, {OperandType::INT32}));
    if (context.numInputs() == 3) NN_RET_CHECK(inputTypeIs(context, 2, {OperandType::BOOL}));
    return true;
}

bool signatures::prepareDepthToSpace(OperationContext& context) {
    const OperandView& input = context.input(0);
    NN_RET_CHECK(sameQuantization(input, context.output(0)));
    NN_RET_CHECK(input.rank() == 4);
    const int32_t block = context.scalar<int32_t>(1);
    NN_RET_CHECK(block >= 1);
    const auto b = static_cast<uint32_t>(block);
    const Image4 in = makeImage4(input.dims, layoutIsNchw(context, 2));
    const uint64_t area = uint64_t{b} * b;
    NN_RET_CHECK(in.channels % area == 0);
    uint32_t height = 0, width = 0;
    NN_RET_CHECK(toDimension(uint64_t{in.height} * b, &height) && toDimension(uint64_t{in.width} * b, &width));
    context.output(0).dims =
            makeImage4(in.batches, height, width, static_cast<uint32_t>(in.channels / area), in.nchw).dims();
    return true;
}

bool signatures::prepareSpaceToDepth(OperationContext& context) {
    const OperandView& input = context.input(0);
    NN_RET_CHECK(sameQuantization(input, context.output(0)));
    NN_RET_CHECK(input.rank() == 4);
    const int32_t block = context.scalar<int32_t>(1);
    NN_RET_CHECK(block >= 1);
    const auto b = static_cast<uint32_t>(block);
    const Image4 in = makeImage4(input.dims, layoutIsNchw(context, 2));
    NN_RET_CHECK(in.height % b == 0 && in.width % b == 0);
    uint32_t channels = 0;
    NN_RET_CHECK(toDimension(uint64_t{in.channels} * b * b, &channels));
    context.output(0).dims = makeImage4(in.batches, in.height / b, in.width / b, channels, in.nchw).dims();
    return true;
}

bool signatures::validateBatchToSpace(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {2, 3}, 1));
    NN_RET_CHECK(validateData(context));
    NN_RET_CHECK(rankIsOrUnknown(context.input(0), 4));
    NN_RET_CHECK(inputTypeIs(context, 1, {kI32}));
    NN_RET_CHECK(rankIsOrUnknown(context.input(1), 1));
    if (context.numInputs() == 3) NN_RET_CHECK(inputTypeIs(context, 2, {OperandType::BOOL}));
    return true;
}

bool signatures::prepareBatchToSpace(OperationContext& context) {
    const OperandView& input = context.input(0);
    NN_RET_CHECK(sameQuantization(input, context.output(0)));
    NN_RET_CHECK(input.rank() == 4);
    uint32_t blockH = 0, blockW = 0;
    NN_RET_CHECK(readBlockShape(context, &blockH, &blockW));
    const Image4 in = makeImage4(input.dims, layoutIsNchw(context, 2));
    const uint64_t blocks = uint64_t{blockH} * blockW;
    NN_RET_CHECK(in.batches % blocks == 0);
    uint32_t height = 0, width = 0;
    NN_RET_CHECK(toDimension(uint64_t{in.height} * blockH, &height) &&
                 toDimension(uint64_t{in.width} * blockW, &width));
    context.output(0).dims =
            makeImage4(static_cast<uint32_t>(in.batches / blocks), height, width, in.channels, in.nchw).dims();
    return true;
}

bool signatures::validateSpaceToBatch(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {3, 4}, 1));
    NN_RET_CHECK(validateData(context));
    NN_RET_CHECK(rankIsOrUnknown(context.input(0), 4));
    NN_RET_CHECK(inputTypeIs(context, 1, {kI32}));
    NN_RET_CHECK(rankIsOrUnknown(context.input(1), 1));
    NN_RET_CHECK(inputTypeIs(context, 2, {kI32}));
    NN_RET_CHECK(rankIsOrUnknown(context.input(2), 2));
    if (context.numInputs() == 4) NN_RET_CHECK(inputTypeIs(context, 3, {OperandType::BOOL}));
    return true;
}

bool signatures::prepareSpaceToBatch(OperationContext& context) {
    const OperandView& input = context.input(0);
    NN_RET_CHECK(sameQuantization(input, context.output(0)));
    NN_RET_CHECK(input.rank() == 4);
    uint32_t blockH = 0, blockW = 0;
    NN_RET_CHECK(readBlockShape(context, &blockH, &blockW));
    const OperandView& paddings = context.input(2);
    NN_RET_CHECK(paddings.rank() == 2 && paddings.dim(0) == 2 && paddings.dim(1) == 2);
    NN_RET_CHECK(paddings.data != nullptr);
    const int32_t* pads = paddings.as<int32_t>();
    for (int i = 0; i < 4; ++i) NN_RET_CHECK(pads[i] >= 0);
    const Image4 in = makeImage4(input.dims, layoutIsNchw(context, 3));
    const uint64_t paddedH = static_cast<uint64_t>(in.height) + pads[0] + pads[1];
    const uint64_t paddedW = static_cast<uint64_t>(in.width) + pads[2] + pads[3];
    NN_RET_CHECK(paddedH % blockH == 0 && paddedW % blockW == 0);
    uint32_t batches = 0, height = 0, width = 0;
    NN_RET_CHECK(toDimension(uint64_t{in.batches} * blockH * blockW, &batches) &&
                 toDimension(paddedH / blockH, &height) && toDimension(paddedW / blockW, &width));
    context.output(0).dims = makeImage4(batches, height, width, in.channels, in.nchw).dims();
    return true;
}

}  // namespace nnemu::hal
