// DEQUANTIZE (Q8 / Q8 signed / Q8 symmetric / Q8PC -> F32 / F16) and QUANTIZE (F32 / F16 -> Q8
// or Q8 signed). Same shape.
#include "nnemu/hal/Operations.h"
#include "SignatureList.h"

namespace nnemu::hal {

bool signatures::validateDequantize(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {1}, 1));
    NN_RET_CHECK(inputTypeIs(context, 0,
                             {OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED,
                              OperandType::TENSOR_QUANT8_SYMM, OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL}));
    const OperandType out = context.output(0).type;
    NN_RET_CHECK(out == OperandType::TENSOR_FLOAT32 || out == OperandType::TENSOR_FLOAT16);
    const OperandView& input = context.input(0);
    if (input.type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
        NN_RET_CHECK(input.channelQuant != nullptr);
        if (input.rank() > 0) {
            NN_RET_CHECK(input.channelQuant->channelDim < input.rank());
            const uint32_t channels = input.dim(input.channelQuant->channelDim);
            NN_RET_CHECK(channels == 0 || channels == input.channelQuant->scales.size());
        }
    }
    return true;
}

bool signatures::prepareDequantize(OperationContext& context) {
    const OperandView& input = context.input(0);
    if (input.type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
        NN_RET_CHECK(input.channelQuant != nullptr);
        NN_RET_CHECK(input.channelQuant->channelDim < input.rank());
        NN_RET_CHECK(input.dim(input.channelQuant->channelDim) == input.channelQuant->scales.size());
    }
    context.output(0).dims = input.dims;
    return true;
}

bool signatures::validateQuantize(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {1}, 1));
    NN_RET_CHECK(inputTypeIs(context, 0, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16}));
    NN_RET_CHECK(isQuant8Asymm(context.output(0).type));
    return true;
}

bool signatures::prepareQuantize(OperationContext& context) {
    context.output(0).dims = context.input(0).dims;
    return true;
}

}  // namespace nnemu::hal
