// Numpy-style broadcasting of two shapes, shared by the signatures of every element-wise
// operation with two tensor inputs (ADD, comparisons, MAXIMUM, POW, PRELU, ...). Shapes are
// aligned at their trailing end; a missing leading dim counts as 1.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <type_traits>
#include <vector>

#include "nnemu/hal/Operations.h"

namespace nnemu::hal {

// The broadcast shape of two known shapes; false when a pair of dims differs and
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
    // Adjacent axes along which each input steps on contiguously (or stays) merge into one, and
    // axes of size 1 drop out, so that rows are as long as they can be; the order of the visits
    // is unchanged. Innermost axis first while merging.
    std::vector<uint64_t> dims, aSteps, bSteps;
    for (size_t k = rank; k-- > 0;) {
        if (outDims[k] == 1) continue;
        if (!dims.empty() && aSteps.back() * dims.back() == aStride[k] && bSteps.back() * dims.back() == bStride[k]) {
            dims.back() *= outDims[k];
            continue;
        }
        dims.push_back(outDims[k]);
        aSteps.push_back(aStride[k]);
        bSteps.push_back(bStride[k]);
    }
    if (dims.empty()) {  // a single element
        fn(uint64_t{0}, uint64_t{0}, uint64_t{0});
        return;
    }
    // Rows of the innermost (merged) axis run as plain loops; the common steps (1 or 0 for each
    // input) are compile-time constants there, so the loops vectorize.
    const uint64_t rowLength = dims[0];
    const uint64_t aStep = aSteps[0], bStep = bSteps[0];
    std::vector<uint64_t> index(dims.size(), 0);
    uint64_t ai = 0, bi = 0;
    const auto row = [&](uint64_t oi, auto aS, auto bS) {
        for (uint64_t k = 0; k < rowLength; ++k) fn(oi + k, ai + k * aS, bi + k * bS);
    };
    using One = std::integral_constant<uint64_t, 1>;
    using Zero = std::integral_constant<uint64_t, 0>;
    for (uint64_t oi = 0; oi < total; oi += rowLength) {
        if (aStep == 1 && bStep == 1) {
            row(oi, One{}, One{});
        } else if (aStep == 1 && bStep == 0) {
            row(oi, One{}, Zero{});
        } else if (aStep == 0 && bStep == 1) {
            row(oi, Zero{}, One{});
        } else {
            row(oi, aStep, bStep);
        }
        // Advance the odometer over the outer axes.
        for (size_t k = 1; k < dims.size(); ++k) {
            ++index[k];
            ai += aSteps[k];
            bi += bSteps[k];
            if (index[k] < dims[k]) break;
            ai -= aSteps[k] * index[k];
            bi -= bSteps[k] * index[k];
            index[k] = 0;
        }
    }
}

}  // namespace nnemu::hal
