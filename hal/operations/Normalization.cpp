// L2_NORMALIZATION (input, optional axis) and LOCAL_RESPONSE_NORMALIZATION (input, radius,
// bias, alpha, beta, optional axis). The output has the input's shape; axis defaults to -1.
#include "nnemu/hal/Operations.h"
#include "SignatureList.h"

namespace nnemu::hal {
namespace {

bool prepareWithAxis(OperationContext& context, uint32_t axisIndex) {
    const int32_t rank = static_cast<int32_t>(context.input(0).rank());
    NN_RET_CHECK(rank >= 1 && rank <= 4);
    if (context.numInputs() > axisIndex) {
        const int32_t axis = context.scalar<int32_t>(axisIndex);
        NN_RET_CHECK(axis >= -rank && axis < rank);
    }
    context.output(0).dims = context.input(0).dims;
    return true;
}

}  // namespace

bool signatures::validateL2Norm(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {1, 2}, 1));
    NN_RET_CHECK(inputTypeIs(context, 0,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
    const OperandType type = context.inputType(0);
    NN_RET_CHECK(context.output(0).type == type);
    if (context.numInputs() == 2) NN_RET_CHECK(inputTypeIs(context, 1, {OperandType::INT32}));
    NN_RET_CHECK(rankAtMostOrUnknown(context.input(0), 4));
    return true;
}

bool signatures::prepareL2Norm(OperationContext& context) {
    const OperandType type = context.inputType(0);
    if (isQuant8Asymm(type)) {  // fixed: (1/128, 128), or (1/128, 0) signed
        NN_RET_CHECK(context.output(0).scale == 1.0f / 128);
        NN_RET_CHECK(context.output(0).zeroPoint == quant8ZeroPoint(type, 128));
    }
    return prepareWithAxis(context, 1);
}

bool signatures::validateLrn(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {5, 6}, 1));
    NN_RET_CHECK(inputTypeIs(context, 0, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16}));
    const OperandType type = context.inputType(0);
    NN_RET_CHECK(context.output(0).type == type);
    const OperandType scalarType =
            type == OperandType::TENSOR_FLOAT16 ? OperandType::FLOAT16 : OperandType::FLOAT32;
    NN_RET_CHECK(inputTypeIs(context, 1, {OperandType::INT32}));
    NN_RET_CHECK(inputTypeIs(context, 2, {scalarType}));
    NN_RET_CHECK(inputTypeIs(context, 3, {scalarType}));
    NN_RET_CHECK(inputTypeIs(context, 4, {scalarType}));
    if (context.numInputs() == 6) NN_RET_CHECK(inputTypeIs(context, 5, {OperandType::INT32}));
    NN_RET_CHECK(rankAtMostOrUnknown(context.input(0), 4));
    return true;
}

bool signatures::prepareLrn(OperationContext& context) {
    NN_RET_CHECK(context.scalar<int32_t>(1) >= 0);
    return prepareWithAxis(context, 5);
}

}  // namespace nnemu::hal
