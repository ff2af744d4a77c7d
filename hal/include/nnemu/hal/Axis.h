// Axis arguments of the operations that work along one dimension (ARGMAX, GATHER, LOG_SOFTMAX,
// CHANNEL_SHUFFLE, ...): resolving a possibly negative axis, and viewing a row-major tensor as
// [outer, axis, inner] around it. Shared by signatures and reference kernels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace nnemu::hal {

// Resolves `axis` in [-rank, rank) (negative counts from the end) into [0, rank).
inline bool resolveAxis(int32_t axis, uint32_t rank, uint32_t* resolved) {
    const auto r = static_cast<int64_t>(rank);
    if (axis < -r || axis >= r) return false;
    *resolved = static_cast<uint32_t>(axis < 0 ? axis + r : axis);
    return true;
}

// A row-major tensor seen as [outer, size, inner] around one axis.
struct AxisSplit {
    uint64_t outer = 1;
    uint32_t size = 1;
    uint64_t inner = 1;

    // Element offset of (o, a, i).
    uint64_t at(uint64_t o, uint32_t a, uint64_t i) const { return (o * size + a) * inner + i; }
};

// `axis` must be below dims.size().
inline AxisSplit splitAtAxis(const std::vector<uint32_t>& dims, uint32_t axis) {
    AxisSplit split;
    for (uint32_t d = 0; d < axis; ++d) split.outer *= dims[d];
    split.size = dims[axis];
    for (size_t d = axis + 1; d < dims.size(); ++d) split.inner *= dims[d];
    return split;
}

}  // namespace nnemu::hal
