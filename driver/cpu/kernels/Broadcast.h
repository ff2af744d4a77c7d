// Numpy-style broadcast iteration for the reference kernels of two-input element-wise
// operations, and the size checks to make before it.
#pragma once

#include <cstdint>
#include <vector>

#include "nnemu/hal/Broadcast.h"
#include "nnemu/hal/OperandTypes.h"
#include "nnemu/hal/Operations.h"

namespace nnemu::cpu {

// `view` has data for all the elements its dims name.
inline bool holdsElements(const hal::OperandView& view) {
    return view.data != nullptr && view.length >= view.elements() * hal::elementSize(view.type);
}

// The output dims are the broadcast of the input dims and every buffer is large enough, so a
// forEachBroadcast over them stays in bounds.
inline bool broadcastFits(const hal::OperandView& a, const hal::OperandView& b,
                          const hal::OperandView& out) {
    std::vector<uint32_t> dims;
    return hal::broadcastShape(a.dims, b.dims, &dims) && dims == out.dims && holdsElements(a) &&
           holdsElements(b) && holdsElements(out);
}

// Calls fn(outIndex, aIndex, bIndex) for every output element, in row-major output order.
// The input dims are right-aligned against the output dims; a size-1 dim is repeated.
template <typename Fn>
void forEachBroadcast(const std::vector<uint32_t>& outDims, const std::vector<uint32_t>& aDims,
                      const std::vector<uint32_t>& bDims, Fn fn) {
    const size_t rank = outDims.size();
    uint64_t total = 1;
    for (uint32_t d : outDims) total *= d;
    if (total == 0) return;
    // Per output axis, the step of each input's flat index (0 where broadcast).
    std::vector<uint64_t> aStride(rank, 0), bStride(rank, 0);
    auto fillStrides = [rank](const std::vector<uint32_t>& dims, std::vector<uint64_t>& stride) {
        uint64_t step = 1;
        for (size_t i = 1; i <= dims.size(); ++i) {
            const uint32_t d = dims[dims.size() - i];
            stride[rank - i] = d == 1 ? 0 : step;
            step *= d;
        }
    };
    fillStrides(aDims, aStride);
    fillStrides(bDims, bStride);
    std::vector<uint32_t> index(rank, 0);
    uint64_t ai = 0, bi = 0;
    for (uint64_t oi = 0; oi < total; ++oi) {
        fn(oi, ai, bi);
        // Advance the odometer from the innermost axis.
        for (size_t k = rank; k-- > 0;) {
            ++index[k];
            ai += aStride[k];
            bi += bStride[k];
            if (index[k] < outDims[k]) break;
            ai -= aStride[k] * index[k];
            bi -= bStride[k] * index[k];
            index[k] = 0;
        }
    }
}

}  // namespace nnemu::cpu
