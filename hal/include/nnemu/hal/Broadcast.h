// Numpy-style broadcasting of two shapes, shared by the signatures of every element-wise
// operation with two tensor inputs (ADD, comparisons, MAXIMUM, POW, PRELU, ...). Shapes are
// aligned at their trailing end; a missing leading dim counts as 1.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "nnemu/hal/Operations.h"

namespace nnemu::hal {

// For validate(): the declared dims agree where both are known; 0 (unknown) agrees with anything.
inline bool broadcastCompatible(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
    const size_t n = std::min(a.size(), b.size());
    for (size_t i = 1; i <= n; ++i) {
        const uint32_t da = a[a.size() - i];
        const uint32_t db = b[b.size() - i];
        if (da == 0 || db == 0 || da == 1 || db == 1) continue;
        if (da != db) return false;
    }
    return true;
}

// For prepare(): the broadcast shape of two known shapes; false when a pair of dims differs and
// neither is 1.
inline bool broadcastShape(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b,
                           std::vector<uint32_t>* out) {
    const size_t rank = std::max(a.size(), b.size());
    std::vector<uint32_t> dims(rank);
    for (size_t i = 1; i <= rank; ++i) {
        const uint32_t da = i <= a.size() ? a[a.size() - i] : 1;
        const uint32_t db = i <= b.size() ? b[b.size() - i] : 1;
        if (da != db && da != 1 && db != 1) return false;
        dims[rank - i] = da == 1 ? db : da;
    }
    *out = std::move(dims);
    return true;
}

// prepare() of an operation whose output 0 has the broadcast shape of inputs 0 and 1.
inline bool prepareBroadcastOutput(OperationContext& context) {
    std::vector<uint32_t> dims;
    NN_RET_CHECK(broadcastShape(context.input(0).dims, context.input(1).dims, &dims));
    context.output(0).dims = std::move(dims);
    return true;
}

}  // namespace nnemu::hal
