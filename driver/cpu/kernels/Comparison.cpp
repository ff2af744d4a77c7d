// Reference kernels for EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS, LESS_EQUAL with
// numpy-style broadcasting; the output is TENSOR_BOOL8 (1 or 0). Quant8 inputs compare by their
// real values, computed exactly (see quant8RealValue), not by requantizing one into the other.
#include <cstdint>

#include "Broadcast.h"
#include "QuantValue.h"
#include "nnemu/cpu/Kernels.h"
#include "KernelList.h"

namespace nnemu::cpu {
namespace {

template <typename T>
bool holds(OperationType op, T a, T b) {
    switch (op) {
        case OperationType::EQUAL:
            return a == b;
        case OperationType::NOT_EQUAL:
            return a != b;
        case OperationType::GREATER:
            return a > b;
        case OperationType::GREATER_EQUAL:
            return a >= b;
        case OperationType::LESS:
            return a < b;
        default:
            return a <= b;
    }
}

// read(operand, flatIndex) gives an element as a value of one type for both inputs.
template <typename Read>
bool compareWith(OperationContext& context, Read read) {
    const OperandView& a = context.input(0);
    const OperandView& b = context.input(1);
    uint8_t* out = context.output(0).as<uint8_t>();
    const OperationType op = context.type;
    forEachBroadcast(context.output(0).dims, a.dims, b.dims, [&](uint64_t o, uint64_t i, uint64_t j) {
        out[o] = holds(op, read(a, i), read(b, j)) ? 1 : 0;
    });
    return true;
}

}  // namespace

bool kernels::comparisonKernel(OperationContext& context) {
    if (!broadcastFits(context.input(0), context.input(1), context.output(0))) return false;
    if (context.inputType(1) != context.inputType(0)) return false;
    switch (context.inputType(0)) {
        case OperandType::TENSOR_FLOAT32:
            return compareWith(context, [](const OperandView& v, uint64_t i) { return v.as<float>()[i]; });
        case OperandType::TENSOR_FLOAT16:
            return compareWith(context, [](const OperandView& v, uint64_t i) {
                return base::halfToFloat(v.as<uint16_t>()[i]);
            });
        case OperandType::TENSOR_INT32:
            return compareWith(context, [](const OperandView& v, uint64_t i) { return v.as<int32_t>()[i]; });
        case OperandType::TENSOR_BOOL8:  // any non-zero byte is true; false < true
            return compareWith(context, [](const OperandView& v, uint64_t i) { return v.as<uint8_t>()[i] != 0; });
        case OperandType::TENSOR_QUANT8_ASYMM:
        case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
            return compareWith(context, quant8RealValue);
        default:
            return false;
    }
}

}  // namespace nnemu::cpu
