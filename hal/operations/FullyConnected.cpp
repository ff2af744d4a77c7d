// FULLY_CONNECTED.
//
// Operands: input (rank 2..4, flattened to [batch, inputSize]), weights [units, inputSize],
// bias [units], INT32 fuse code. Output [batch, units]. Types: F32, F16 (weights and bias of
// the same type), Q8 or Q8S with weights of that type and an INT32 bias of scale
// inScale * weightsScale.
#include <cmath>

#include "nnemu/hal/Operations.h"
#include "SignatureList.h"

namespace nnemu::hal {

bool signatures::validateFullyConnected(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {4}, 1));
    const OperandView& input = context.input(0);
    const OperandView& weights = context.input(1);
    const OperandView& bias = context.input(2);
    const OperandView& output = context.output(0);
    NN_RET_CHECK(inputTypeIs(context, 0,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
    NN_RET_CHECK(weights.type == input.type);
    if (isQuant8Asymm(input.type)) {
        NN_RET_CHECK(bias.type == OperandType::TENSOR_INT32);
    } else {
        NN_RET_CHECK(bias.type == input.type);
    }
    NN_RET_CHECK(inputTypeIs(context, 3, {OperandType::INT32}));
    NN_RET_CHECK(output.type == input.type);
    NN_RET_CHECK(input.dims.empty() || (input.rank() >= 2 && input.rank() <= 4));
    NN_RET_CHECK(rankIsOrUnknown(weights, 2));
    NN_RET_CHECK(rankIsOrUnknown(bias, 1));
    NN_RET_CHECK(rankIsOrUnknown(output, 2));
    return true;
}

bool signatures::prepareFullyConnected(OperationContext& context) {
    const OperandView& input = context.input(0);
    const OperandView& weights = context.input(1);
    const OperandView& bias = context.input(2);
    NN_RET_CHECK(input.rank() >= 2 && input.rank() <= 4);
    NN_RET_CHECK(weights.rank() == 2);
    NN_RET_CHECK(bias.rank() == 1);
    const uint32_t units = weights.dim(0);
    const uint32_t inputSize = weights.dim(1);
    NN_RET_CHECK(units > 0 && inputSize > 0);
    NN_RET_CHECK(bias.dim(0) == units);
    const uint64_t elements = input.elements();
    NN_RET_CHECK(elements % inputSize == 0);
    context.output(0).dims = {static_cast<uint32_t>(elements / inputSize), units};
    return true;
}

// Execution stage: a quantized bias's scale is inScale * weightsScale; the fuse code.
bool signatures::checkFullyConnectedValues(const OperationContext& context) {
    const OperandView& input = context.input(0);
    if (isQuant8Asymm(input.type)) {
        const double product = static_cast<double>(input.scale) * context.input(1).scale;
        const double bias = context.input(2).scale;
        NN_RET_CHECK(std::fabs(product - bias) <= 1e-6 * std::fmin(product, bias));
    }
    if (context.hasValue(3)) {
        const int32_t activation = context.scalar<int32_t>(3);
        NN_RET_CHECK(activation >= 0 && activation <= 3);
    }
    return true;
}

}  // namespace nnemu::hal
