// EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS, LESS_EQUAL: two tensors of one type compared
// element by element with numpy-style broadcasting into a TENSOR_BOOL8. Quant8 inputs may have
// different scales and zero points (their real values are compared).
#include "nnemu/hal/Broadcast.h"
#include "nnemu/hal/Operations.h"
#include "SignatureFamilies.h"

namespace nnemu::hal {
namespace {

bool validateComparison(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {2}, 1));
    NN_RET_CHECK(inputTypeIs(context, 0,
                             {OperandType::TENSOR_BOOL8, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_FLOAT32, OperandType::TENSOR_INT32,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
    NN_RET_CHECK(context.inputType(1) == context.inputType(0));
    NN_RET_CHECK(context.output(0).type == OperandType::TENSOR_BOOL8);
    return true;
}

}  // namespace

std::span<const OperationSignature> comparisonSignatures() {
    static constexpr OperationSignature kSignatures[] = {
        {OperationType::EQUAL, validateComparison, prepareBroadcastOutput, false, false},
        {OperationType::NOT_EQUAL, validateComparison, prepareBroadcastOutput, false, false},
        {OperationType::GREATER, validateComparison, prepareBroadcastOutput, false, false},
        {OperationType::GREATER_EQUAL, validateComparison, prepareBroadcastOutput, false, false},
        {OperationType::LESS, validateComparison, prepareBroadcastOutput, false, false},
        {OperationType::LESS_EQUAL, validateComparison, prepareBroadcastOutput, false, false},
    };
    return kSignatures;
}

}  // namespace nnemu::hal
