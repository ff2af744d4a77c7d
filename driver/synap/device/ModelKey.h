// The SyNAP cache's key for a compiled network: md5 over a canonical serialization of what the
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

// The same in two steps: the model's part (every weight: the expensive one), which a prepared
// model computes once when it is prepared, then the key for the input shapes of the first
// inference. An empty digest (unavailable) gives an empty key.
std::vector<uint8_t> modelDigest(const hal::Model& model, uint32_t compilerVersion);
std::string compiledNetworkKey(const std::vector<uint8_t>& modelDigest,
                               const std::vector<std::vector<uint32_t>>& inputDims);

// What stands for modelDigest without reading the weights that lie in files: the same
// serialization with each constant referenced in a read-only memory of a regular
// file unchanged for two seconds given by the file's identity (device, inode, size,
// modification and change times in nanoseconds) and its place; every other constant by value
// (copies, shared or writable memory, a file changed too recently). Its key
// (compiledNetworkKey) names an alias entry of the SyNAP cache, recorded beside the content key
// once that is known. Empty when no constant is given by its file.
std::vector<uint8_t> fileIdentityDigest(const hal::Model& model, uint32_t compilerVersion);

// Per operand: true for a constant that fileIdentityDigest gives by its file's identity, whose
// bytes a warm start (a hit on that key) never reads.
std::vector<bool> constantsGivenByFile(const hal::Model& model);

}  // namespace nnemu::synap
