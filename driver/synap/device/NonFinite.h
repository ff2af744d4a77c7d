// NaN and infinities on synap-npu. The core's float layers end in XNNPACK's min/max clamps,
// which turn a NaN into a bound (-inf, 0, -1 or 6) even without a fused activation; nnapi-reference
// keeps it (see docs/api.md, "NaN and infinities"). So the device does not claim operations whose
// float constants are not finite, and runs an inference whose float inputs are not all finite
// on the reference kernels, which define the result.
#pragma once

#include <cstddef>
#include <cstdint>

#include "nnemu/hal/Types.h"

namespace nnemu::synap {

// True when `bytes` of a float operand (FLOAT32 or FLOAT16, scalar or tensor) hold a NaN or an
// infinity; false for every other type.
bool holdsNonFinite(hal::OperandType type, const uint8_t* bytes, size_t length);

// True when one of `operation`'s constant inputs holds a NaN or an infinity.
bool readsNonFiniteConstant(const hal::Model& model, const hal::Operation& operation);

}  // namespace nnemu::synap
