// NaN and infinities on synap-npu. The core's float layers end in XNNPACK's min/max clamps,
// which turn a NaN into a bound (-inf, 0, -1 or 6) even without a fused activation; nnapi-reference
// keeps it (see docs/api.md, "NaN and infinities"). So the device does not claim operations whose
// float constants are not finite, and runs an inference whose float inputs are not all finite
// on the reference kernels, which define the result. Constants given by their file's identity
// (ModelKey.h), which a warm start never reads, are checked by the JIT before it compiles
// instead: a network with such a constant not finite runs every inference on the reference
// kernels and is not cached.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "nnemu/hal/Types.h"

namespace nnemu::synap {

// True when `bytes` of a float operand (FLOAT32 or FLOAT16, scalar or tensor) hold a NaN or an
// infinity; false for every other type.
bool holdsNonFinite(hal::OperandType type, const uint8_t* bytes, size_t length);

// True when one of `operation`'s constant inputs holds a NaN or an infinity. Operands marked in
// `unread` (constantsGivenByFile, ModelKey.h: what a warm start never reads) are skipped: the
// JIT checks them before it compiles (anyNonFiniteConstant), so a cached program vouches for them.
bool readsNonFiniteConstant(const hal::Model& model, const hal::Operation& operation,
                            const std::vector<bool>& unread = {});

// True when a constant input of any of `model`'s operations holds a NaN or an infinity.
bool anyNonFiniteConstant(const hal::Model& model);

}  // namespace nnemu::synap
