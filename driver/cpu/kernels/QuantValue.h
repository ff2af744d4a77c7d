// Stored and real values of 8-bit asymmetric elements: TENSOR_QUANT8_ASYMM (uint8_t) and
// TENSOR_QUANT8_ASYMM_SIGNED (int8_t). Kernels template their quantized paths on the element
// type T and take its range from here, so both types share one arithmetic.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "nnemu/kernels/QuantMath.h"
#include "nnemu/hal/Operations.h"

namespace nnemu::cpu {

template <typename T>
constexpr int32_t kQuantMin = std::numeric_limits<T>::min();
template <typename T>
constexpr int32_t kQuantMax = std::numeric_limits<T>::max();

// Element i of a Q8 or Q8S operand as stored.
inline int32_t quant8At(const hal::OperandView& v, uint64_t i) {
    if (v.type == hal::OperandType::TENSOR_QUANT8_ASYMM_SIGNED) return v.as<int8_t>()[i];
    return v.as<uint8_t>()[i];
}

// The real value of element i. An integer in [-255, 255] times a float32 scale has at most 33
// significant bits, so the product is exact in double: values of operands with different
// scales or zero points compare exactly, and equal reals compare equal.
inline double quant8RealValue(const hal::OperandView& v, uint64_t i) {
    return (static_cast<double>(quant8At(v, i)) - v.zeroPoint) * static_cast<double>(v.scale);
}

// Stores the quantized value q (in the type's range) into element i of a Q8 or Q8S operand.
inline void storeQuant8(int32_t q, hal::OperandView& out, uint64_t i) {
    if (out.type == hal::OperandType::TENSOR_QUANT8_ASYMM_SIGNED) {
        out.as<int8_t>()[i] = static_cast<int8_t>(q);
    } else {
        out.as<uint8_t>()[i] = static_cast<uint8_t>(q);
    }
}

// Stores `real` into element i of a Q8 or Q8S operand: zeroPoint + round(real / scale) (half away
// from zero), clamped to the type's range; NaN gives the zero point.
inline void storeQuant8FromReal(double real, hal::OperandView& out, uint64_t i) {
    storeQuant8(quant::quantizeSaturated(real / out.scale, out.zeroPoint, hal::quant8Min(out.type), hal::quant8Max(out.type)),
                out, i);
}

}  // namespace nnemu::cpu
