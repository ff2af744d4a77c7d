// One-input, one-output element-wise operations: RELU, RELU1, RELU6, LOGISTIC, TANH, FLOOR and
// the API 29 ABS, EXP, LOG, NEG, RSQRT, SIN, SQRT. The output has the input's shape.
#include "nnemu/hal/OperandTypes.h"
#include "nnemu/hal/Operations.h"
#include "SignatureList.h"

namespace nnemu::hal {
namespace {

// Ops that only accept ranks up to 4.
bool hasRankLimit(OperationType op) {
    switch (op) {
        case OperationType::RELU:
        case OperationType::RELU1:
        case OperationType::RELU6:
        case OperationType::LOGISTIC:
        case OperationType::TANH:
        case OperationType::FLOOR:
            return true;
        default:
            return false;
    }
}

bool validateCommon(const OperationContext& context, std::initializer_list<OperandType> types) {
    NN_RET_CHECK(checkCounts(context, {1}, 1));
    NN_RET_CHECK(inputTypeIs(context, 0, types));
    NN_RET_CHECK(context.output(0).type == context.inputType(0));
    if (hasRankLimit(context.type)) {
        NN_RET_CHECK(rankAtMostOrUnknown(context.input(0), 4));
        NN_RET_CHECK(rankAtMostOrUnknown(context.output(0), 4));
    }
    return true;
}

}  // namespace

bool signatures::validateQuantizable(const OperationContext& context) {
    return validateCommon(context, {kF32, kF16, kQ8, kQ8S});
}

bool signatures::prepareSameShape(OperationContext& context) {
    if (hasRankLimit(context.type)) NN_RET_CHECK(context.input(0).rank() <= 4);
    context.output(0).dims = context.input(0).dims;
    return true;
}

// The signed type came with feature level 30.
int64_t signatures::signedFeatureLevel(const OperationContext& context) {
    return context.inputType(0) == kQ8S ? kFeatureLevel30 : operationFeatureLevel(context.type);
}

// Execution stage, as Android's prepare: a quant8 output's quantization is what the operation
// gives, never a check of the declared one: the RELU family keeps the input's, LOGISTIC and TANH
// have a fixed one, (1/256, 0) and (1/128, 128), zero points 128 lower for the signed type.
void signatures::activationQuantization(OperationContext& context) {
    const OperandView& input = context.input(0);
    OperandView& output = context.output(0);
    if (!isQuant8Asymm(input.type)) return;
    switch (context.type) {
        case OperationType::LOGISTIC:
            output.scale = 1.0f / 256;
            output.zeroPoint = quant8ZeroPoint(input.type, 0);
            break;
        case OperationType::TANH:
            output.scale = 1.0f / 128;
            output.zeroPoint = quant8ZeroPoint(input.type, 128);
            break;
        default:
            output.scale = input.scale;
            output.zeroPoint = input.zeroPoint;
            break;
    }
}

bool signatures::validateFloatOnly(const OperationContext& context) {
    return validateCommon(context, {kF32, kF16});
}

// ABS takes TENSOR_INT32 from feature level 30.
bool signatures::validateAbs(const OperationContext& context) {
    return validateCommon(context, {kF32, kF16, kI32});
}

int64_t signatures::absFeatureLevel(const OperationContext& context) {
    return context.inputType(0) == kI32 ? kFeatureLevel30 : kFeatureLevel29;
}

// RSQRT takes the quant8 types from feature level 7; the output has its own quantization.
bool signatures::validateRsqrt(const OperationContext& context) {
    return validateCommon(context, {kF32, kF16, kQ8, kQ8S});
}

int64_t signatures::rsqrtFeatureLevel(const OperationContext& context) {
    return isQuant8Asymm(context.inputType(0)) ? kFeatureLevel7 : kFeatureLevel29;
}

bool signatures::validateNeg(const OperationContext& context) {
    return validateCommon(context, {kF32, kF16, kI32});
}

}  // namespace nnemu::hal
