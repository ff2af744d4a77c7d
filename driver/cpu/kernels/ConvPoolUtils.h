// Small helpers shared by the convolution, pooling and fully-connected reference kernels.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "nnemu/hal/Half.h"
#include "nnemu/hal/Operations.h"

namespace nnemu::cpu::convpool {

// The elements of a TENSOR_FLOAT16 operand widened to float.
inline std::vector<float> halfToFloatVector(const hal::OperandView& operand) {
    const size_t count = static_cast<size_t>(operand.elements());
    std::vector<float> values(count);
    const uint16_t* half = operand.as<uint16_t>();
    for (size_t i = 0; i < count; ++i) values[i] = hal::halfToFloat(half[i]);
    return values;
}

// Stores float results into a TENSOR_FLOAT16 operand.
inline void storeAsHalf(const std::vector<float>& values, hal::OperandView& operand) {
    uint16_t* half = operand.as<uint16_t>();
    for (size_t i = 0; i < values.size(); ++i) half[i] = hal::floatToHalf(values[i]);
}

inline float clampFloat(float value, float low, float high) {
    return std::min(std::max(value, low), high);
}

inline int32_t clampInt(int32_t value, int32_t low, int32_t high) {
    return std::min(std::max(value, low), high);
}

// Whether an output buffer can hold `count` elements of `elementSize` bytes.
inline bool fits(const hal::OperandView& operand, uint64_t count, uint32_t elementSize) {
    return count == 0 || (operand.data != nullptr && operand.length >= count * elementSize);
}

}  // namespace nnemu::cpu::convpool
