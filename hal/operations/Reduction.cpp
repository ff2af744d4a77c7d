// Signatures of MEAN (keepDims INT32) and REDUCE_SUM / PROD / MAX / MIN / ANY / ALL (keepDims
// BOOL): in, I32 axes (negative counts from the end, repeats allowed), keepDims.
#include <vector>

#include "nnemu/hal/Operations.h"
#include "nnemu/hal/ShapeUtils.h"
#include "SignatureList.h"

namespace nnemu::hal {
namespace {

bool validateAxesAndOutput(const OperationContext& context, OperandType keepDimsType) {
    NN_RET_CHECK(checkCounts(context, {3}, 1));
    NN_RET_CHECK(context.output(0).type == context.inputType(0));
    NN_RET_CHECK(rankAtMostOrUnknown(context.input(0), 4));
    NN_RET_CHECK(inputTypeIs(context, 1, {OperandType::TENSOR_INT32}));
    NN_RET_CHECK(rankIsOrUnknown(context.input(1), 1));
    NN_RET_CHECK(inputTypeIs(context, 2, {keepDimsType}));
    return true;
}

}  // namespace

bool signatures::validateMean(const OperationContext& context) {
    NN_RET_CHECK(inputTypeIs(context, 0, {kF32, kF16, kQ8, kQ8S}));
    return validateAxesAndOutput(context, OperandType::INT32);
}

// Output dims: reduced axes become 1 (keepDims) or disappear; removing every axis gives [1].
bool signatures::prepareReduction(OperationContext& context) {
    const OperandView& input = context.input(0);
    const OperandView& axes = context.input(1);
    NN_RET_CHECK(axes.rank() == 1);
    NN_RET_CHECK(axes.dim(0) == 0 || axes.data != nullptr);
    std::vector<bool> reduced;
    NN_RET_CHECK(resolveReductionAxes(axes.as<int32_t>(), axes.dim(0), input.rank(), &reduced));
    const bool keepDims = context.scalar<int32_t>(2) != 0;  // INT32 (MEAN) or BOOL
    std::vector<uint32_t> dims;
    for (uint32_t i = 0; i < input.rank(); ++i) {
        if (!reduced[i]) {
            dims.push_back(input.dim(i));
        } else if (keepDims) {
            dims.push_back(1);
        }
    }
    if (dims.empty()) dims.push_back(1);
    context.output(0).dims = dims;
    return true;
}

bool signatures::validateSumProd(const OperationContext& context) {
    NN_RET_CHECK(inputTypeIs(context, 0, {kF32, kF16}));
    return validateAxesAndOutput(context, OperandType::BOOL);
}

bool signatures::validateReduceMaxMin(const OperationContext& context) {
    NN_RET_CHECK(inputTypeIs(context, 0, {kF32, kF16, kQ8, kQ8S}));
    return validateAxesAndOutput(context, OperandType::BOOL);
}

// REDUCE_MAX / REDUCE_MIN select input values, so Q8 outputs keep the input's parameters.
bool signatures::prepareMaxMin(OperationContext& context) {
    NN_RET_CHECK(sameQuantization(context.input(0), context.output(0)));
    return prepareReduction(context);
}

bool signatures::validateAnyAll(const OperationContext& context) {
    NN_RET_CHECK(inputTypeIs(context, 0, {kB8}));
    return validateAxesAndOutput(context, OperandType::BOOL);
}

}  // namespace nnemu::hal
