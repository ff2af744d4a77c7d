// Element reads and writes for kernels that compute in float whatever the storage type:
// TENSOR_FLOAT16 is read and written as float (rounded to nearest even on the way back).
#pragma once

#include <cstdint>
#include <vector>

#include "nnemu/hal/Operations.h"

namespace nnemu::cpu {

// Element i of a F32, F16, I32, Q8 or Q8S tensor as a number that orders like the element: the
// value itself for floats and I32 (exact in double), the raw code for Q8 and Q8S (positive scale).
inline double orderedValue(const hal::OperandView& operand, uint64_t i) {
    switch (operand.type) {
        case hal::OperandType::TENSOR_FLOAT32: return operand.as<float>()[i];
        case hal::OperandType::TENSOR_FLOAT16: return base::halfToFloat(operand.as<uint16_t>()[i]);
        case hal::OperandType::TENSOR_INT32: return operand.as<int32_t>()[i];
        case hal::OperandType::TENSOR_QUANT8_ASYMM: return operand.as<uint8_t>()[i];
        case hal::OperandType::TENSOR_QUANT8_ASYMM_SIGNED: return operand.as<int8_t>()[i];
        default: return 0.0;
    }
}

// F32, F16, I32, Q8 or Q8S: the element types of the operations that move or compare elements.
inline bool isPlainTensorType(hal::OperandType type) {
    return type == hal::OperandType::TENSOR_FLOAT32 || type == hal::OperandType::TENSOR_FLOAT16 ||
           type == hal::OperandType::TENSOR_INT32 || hal::isQuant8Asymm(type);
}

inline bool isFloatTensor(hal::OperandType type) {
    return type == hal::OperandType::TENSOR_FLOAT32 || type == hal::OperandType::TENSOR_FLOAT16;
}

// Every element of a F32 or F16 tensor as float.
inline std::vector<float> readFloats(const hal::OperandView& operand) {
    const uint64_t n = operand.elements();
    std::vector<float> values(n);
    for (uint64_t i = 0; i < n; ++i) values[i] = static_cast<float>(orderedValue(operand, i));
    return values;
}

// Stores `values` into a F32 or F16 tensor of as many elements.
inline void writeFloats(const std::vector<float>& values, hal::OperandView& operand) {
    for (size_t i = 0; i < values.size(); ++i) {
        if (operand.type == hal::OperandType::TENSOR_FLOAT16) {
            operand.as<uint16_t>()[i] = base::floatToHalf(values[i]);
        } else {
            operand.as<float>()[i] = values[i];
        }
    }
}

}  // namespace nnemu::cpu
