// Short names of the tensor operand types, for code that lists them over and over (the operation
// signatures, tests): `using namespace hal::types;`.
#pragma once

#include "nnemu/hal/Types.h"

namespace nnemu::hal::types {

inline constexpr OperandType kF32 = OperandType::TENSOR_FLOAT32;
inline constexpr OperandType kF16 = OperandType::TENSOR_FLOAT16;
inline constexpr OperandType kQ8 = OperandType::TENSOR_QUANT8_ASYMM;
inline constexpr OperandType kQ8S = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
inline constexpr OperandType kI32 = OperandType::TENSOR_INT32;
inline constexpr OperandType kB8 = OperandType::TENSOR_BOOL8;

}  // namespace nnemu::hal::types
