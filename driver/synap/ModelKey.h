// The SyNAP cache's key for a compiled network: SHA-256 (its first 128 bits) over a canonical serialization of what the
// program is compiled from (operands with their constant bytes, operations, inputs and outputs),
// the input shapes of the first inference and the compiler version. Where a constant lives
// (operand values or a memory pool, at which offset) does not matter, so the same network built
// by another process or application finds the same entry.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nnemu/hal/Types.h"

namespace nnemu::synap {

// 32 hexadecimal digits; empty when the digest is unavailable.
std::string compiledNetworkKey(const hal::Model& model, const std::vector<std::vector<uint32_t>>& inputDims,
                               uint32_t compilerVersion);

}  // namespace nnemu::synap
