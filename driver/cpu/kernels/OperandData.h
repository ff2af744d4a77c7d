// Typed access to an operand's values for kernels that read many fixed-type operands (the
// quantized LSTMs): checks before the kernel touches memory.
#pragma once

#include <cstddef>

#include "nnemu/hal/Operations.h"

namespace nnemu::cpu {

// The operand's values as T, after checking its type and that it holds `count` of them.
template <typename T>
bool typedData(const hal::OperandView& operand, hal::OperandType type, size_t count, const T** data) {
    NN_RET_CHECK(operand.type == type && !operand.omitted && operand.data != nullptr);
    NN_RET_CHECK(operand.elements() == count && operand.length >= count * sizeof(T));
    *data = operand.as<T>();
    return true;
}

// The same for an output, which the kernel writes.
template <typename T>
bool typedOutput(hal::OperandView& operand, hal::OperandType type, size_t count, T** data) {
    NN_RET_CHECK(operand.type == type && operand.data != nullptr);
    NN_RET_CHECK(operand.elements() == count && operand.length >= count * sizeof(T));
    *data = operand.as<T>();
    return true;
}

}  // namespace nnemu::cpu
