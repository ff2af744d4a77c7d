// Real values of quant8 (TENSOR_QUANT8_ASYMM) elements, for kernels that compare or pick values
// across operands with different scales and zero points.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "nnemu/hal/Operations.h"

namespace nnemu::cpu {

// The real value of element i. An integer in [-255, 255] times a float32 scale has at most 33
// significant bits, so the product is exact in double: values of operands with different
// scales or zero points compare exactly, and equal reals compare equal.
inline double quant8RealValue(const hal::OperandView& v, uint64_t i) {
    return (static_cast<double>(v.as<uint8_t>()[i]) - v.zeroPoint) * static_cast<double>(v.scale);
}

// `real` in the output's quantization: zeroPoint + round(real / scale) (half away from zero),
// clamped to [0, 255].
inline uint8_t quant8FromReal(double real, const hal::OperandView& out) {
    const double q = std::round(real / out.scale) + out.zeroPoint;
    return static_cast<uint8_t>(std::clamp(q, 0.0, 255.0));
}

}  // namespace nnemu::cpu
