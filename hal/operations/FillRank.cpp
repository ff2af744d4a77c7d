// FILL and RANK (feature level 30): shape queries and construction.
#include "nnemu/hal/Operations.h"
#include "SignatureList.h"

namespace nnemu::hal {
namespace {

// The output tensor type each FILL value scalar type makes.
bool fillOutputType(OperandType value, OperandType* tensor) {
    switch (value) {
        case OperandType::FLOAT16: *tensor = OperandType::TENSOR_FLOAT16; return true;
        case OperandType::FLOAT32: *tensor = OperandType::TENSOR_FLOAT32; return true;
        case OperandType::INT32: *tensor = OperandType::TENSOR_INT32; return true;
        default: return false;
    }
}

}  // namespace

bool signatures::validateFill(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {2}, 1));
    NN_RET_CHECK(inputTypeIs(context, 0, {OperandType::TENSOR_INT32}));
    NN_RET_CHECK(rankIsOrUnknown(context.input(0), 1));
    OperandType tensor;
    NN_RET_CHECK(fillOutputType(context.inputType(1), &tensor));
    NN_RET_CHECK(context.output(0).type == tensor);
    return true;
}

// The output dims are the values of input 0, each >= 0; the output has rank >= 1.
bool signatures::prepareFill(OperationContext& context) {
    const OperandView& shape = context.input(0);
    NN_RET_CHECK(shape.rank() == 1 && shape.dim(0) >= 1 && shape.data != nullptr);
    NN_RET_CHECK(shape.length >= shape.elements() * sizeof(int32_t));
    std::vector<uint32_t> dims;
    for (uint32_t i = 0; i < shape.dim(0); ++i) {
        const int32_t d = shape.as<int32_t>()[i];
        NN_RET_CHECK(d >= 0);
        dims.push_back(static_cast<uint32_t>(d));
    }
    context.output(0).dims = std::move(dims);
    return true;
}

bool signatures::validateRank(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {1}, 1));
    NN_RET_CHECK(inputTypeIs(context, 0,
                             {OperandType::TENSOR_FLOAT16, OperandType::TENSOR_FLOAT32,
                              OperandType::TENSOR_INT32, OperandType::TENSOR_QUANT8_ASYMM,
                              OperandType::TENSOR_QUANT16_SYMM, OperandType::TENSOR_BOOL8,
                              OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL,
                              OperandType::TENSOR_QUANT16_ASYMM, OperandType::TENSOR_QUANT8_SYMM,
                              OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
    NN_RET_CHECK(context.output(0).type == OperandType::INT32);
    return true;
}

// A scalar output: rank 0.
bool signatures::prepareRank(OperationContext& context) {
    NN_RET_CHECK(context.input(0).rank() >= 1);
    context.output(0).dims.clear();
    return true;
}

}  // namespace nnemu::hal
