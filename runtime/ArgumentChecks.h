// Argument checks shared by several entry points. Every function checks in Android's order:
// null pointer arguments (UNEXPECTED_NULL) in NeuralNetworks.cpp, before any count, index or
// range is read; then the object's state (BAD_STATE); then the argument values (BAD_DATA).
#pragma once

#include <android/NeuralNetworks.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace nnemu::runtime {

// A data pointer may be null only with a zero length (an omitted value); otherwise the
// caller answers UNEXPECTED_NULL.
inline bool isNullWithLength(const void* data, size_t length) { return data == nullptr && length != 0; }

// Copies the dimensions of an operand type. False, which callers answer with BAD_DATA, when
// dimensionCount and the dimensions pointer disagree (a count without an array or an array
// without a count); the struct is a value, so this is not a null argument.
inline bool dimensionsOf(const ANeuralNetworksOperandType& type, std::vector<uint32_t>* dims) {
    if ((type.dimensionCount == 0) != (type.dimensions == nullptr)) return false;
    dims->assign(type.dimensions, type.dimensions + type.dimensionCount);
    return true;
}

}  // namespace nnemu::runtime
