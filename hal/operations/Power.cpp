// POW (base ^ exponent) and PRELU (x >= 0 ? x : alpha * x): two tensors of one type combined
// element by element with numpy-style broadcasting; the output has the broadcast shape.
#include "nnemu/hal/Broadcast.h"
#include "nnemu/hal/Operations.h"
#include "SignatureList.h"

namespace nnemu::hal {
namespace {

bool validateSameTypes(const OperationContext& context, std::initializer_list<OperandType> types) {
    NN_RET_CHECK(checkCounts(context, {2}, 1));
    NN_RET_CHECK(inputTypeIs(context, 0, types));
    NN_RET_CHECK(context.inputType(1) == context.inputType(0));
    NN_RET_CHECK(context.output(0).type == context.inputType(0));
    return true;
}

}  // namespace

bool signatures::validatePow(const OperationContext& context) {
    return validateSameTypes(context, {OperandType::TENSOR_FLOAT16, OperandType::TENSOR_FLOAT32});
}

// Quant8 input, alpha and output each carry their own scale and zero point.
bool signatures::validatePrelu(const OperationContext& context) {
    return validateSameTypes(context, {OperandType::TENSOR_FLOAT16, OperandType::TENSOR_FLOAT32,
                                       OperandType::TENSOR_QUANT8_ASYMM,
                                       OperandType::TENSOR_QUANT8_ASYMM_SIGNED});
}

}  // namespace nnemu::hal
