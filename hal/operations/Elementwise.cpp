// ADD, MUL, SUB, DIV: two tensors combined element by element with numpy-style broadcasting
// (rank <= 4) and a fused activation.
#include <vector>

#include "nnemu/hal/Broadcast.h"
#include "nnemu/hal/OperandTypes.h"
#include "nnemu/hal/Operations.h"
#include "SignatureList.h"

namespace nnemu::hal {
namespace {

constexpr uint32_t kMaxRank = 4;

bool typeAllowed(OperationType op, OperandType type) {
    switch (op) {
        case OperationType::ADD:
        case OperationType::MUL:
        case OperationType::SUB:
            return type == OperandType::TENSOR_FLOAT32 || type == OperandType::TENSOR_FLOAT16 ||
                   type == OperandType::TENSOR_INT32 || isQuant8Asymm(type);
        case OperationType::DIV:
            return type == OperandType::TENSOR_FLOAT32 || type == OperandType::TENSOR_FLOAT16 ||
                   type == OperandType::TENSOR_INT32;
        default:
            return false;
    }
}

}  // namespace

bool signatures::validateBinary(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {3}, 1));
    const OperandType type = context.inputType(0);
    NN_RET_CHECK(typeAllowed(context.type, type));
    NN_RET_CHECK(context.inputType(1) == type);
    NN_RET_CHECK(inputTypeIs(context, 2, {OperandType::INT32}));
    NN_RET_CHECK(context.output(0).type == type);
    NN_RET_CHECK(rankAtMostOrUnknown(context.input(0), kMaxRank));
    NN_RET_CHECK(rankAtMostOrUnknown(context.input(1), kMaxRank));
    NN_RET_CHECK(rankAtMostOrUnknown(context.output(0), kMaxRank));
    return true;
}

bool signatures::prepareBinary(OperationContext& context) {
    const std::vector<uint32_t>& a = context.input(0).dims;
    const std::vector<uint32_t>& b = context.input(1).dims;
    NN_RET_CHECK(a.size() <= kMaxRank && b.size() <= kMaxRank);
    std::vector<uint32_t> out;
    NN_RET_CHECK(broadcastShape(a, b, &out));
    context.output(0).dims = std::move(out);
    return true;
}

// TENSOR_INT32 operands came with feature level 30 (as did the signed quantized type).
int64_t signatures::binaryFeatureLevel(const OperationContext& context) {
    const OperandType type = context.inputType(0);
    const bool later = type == OperandType::TENSOR_INT32 || type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
    return later ? kFeatureLevel30 : operationFeatureLevel(context.type);
}

// Execution stage: the fuse code, MUL's output scale (and in prepare, shapes that broadcast).
bool signatures::checkBinaryValues(const OperationContext& context) {
    const OperandType type = context.inputType(0);
    if (context.hasValue(2)) {
        const int32_t fuse = context.scalar<int32_t>(2);
        NN_RET_CHECK(fuse >= 0 && fuse <= 3);
        NN_RET_CHECK(type != OperandType::TENSOR_INT32 || fuse == 0);  // no activation on integers
    }
    if (isQuant8Asymm(type) && context.type == OperationType::MUL) {
        // The requantization multiplier in1 * in2 / out must be below one.
        const double product = static_cast<double>(context.input(0).scale) * context.input(1).scale;
        NN_RET_CHECK(static_cast<double>(context.output(0).scale) > product);
    }
    return true;
}

}  // namespace nnemu::hal
