// Facts about operand types and shapes shared by validation, the runtime and drivers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nnemu/hal/Types.h"

namespace nnemu::hal {

bool isValidOperandType(int32_t code);  // 0..14 or the two OEM codes
bool isScalarType(OperandType type);
bool isTensorType(OperandType type) ;
bool isQuantizedType(OperandType type);  // types whose scale must be > 0
uint32_t elementSize(OperandType type);  // bytes per element; 0 for OEM scalar
// The feature level (API level) that introduced the type: 27, 29 or 30.
int64_t operandTypeFeatureLevel(OperandType type);
// The feature level that introduced an operation (before any later per-operand changes).
int64_t operationFeatureLevel(OperationType type);

// The two 8-bit asymmetric types: TENSOR_QUANT8_ASYMM (uint8) and, from feature level 30,
// TENSOR_QUANT8_ASYMM_SIGNED (int8), which every operation taking the first also takes, with the
// same constraints.
bool isQuant8Asymm(OperandType type);
// Range of a stored value of an 8-bit asymmetric type: [0, 255] or [-128, 127].
int32_t quant8Min(OperandType type);
int32_t quant8Max(OperandType type);
// A zero point stated for TENSOR_QUANT8_ASYMM, in `type`'s terms (128 lower for the signed type),
// for the operations whose output quantization is fixed.
int32_t quant8ZeroPoint(OperandType type, int32_t unsignedZeroPoint);

const char* operandTypeName(OperandType type);
const char* operationName(OperationType type);  // "CONV_2D"; "UNKNOWN" when out of range
bool operationFromName(const std::string& name, OperationType* type);
bool operandTypeFromName(const std::string& name, OperandType* type);

// Product of the dims; a scalar (rank 0) has 1 element. 0 if any dim is 0.
uint64_t elementCount(const std::vector<uint32_t>& dims);
// Byte size of a fully specified operand, 0 when unknown (some dim 0, or a tensor of unknown rank).
uint64_t byteSize(OperandType type, const std::vector<uint32_t>& dims);
bool isFullySpecified(OperandType type, const std::vector<uint32_t>& dims);

// `refined` agrees with `declared` where `declared` is known (rank 0 of a tensor = unknown rank).
bool dimsCompatible(const std::vector<uint32_t>& declared, const std::vector<uint32_t>& refined);

std::string dimsToString(const std::vector<uint32_t>& dims);

}  // namespace nnemu::hal
