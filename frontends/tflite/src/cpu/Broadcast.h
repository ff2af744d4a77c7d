// NumPy-style broadcasting of two operands, as TFLite's binary operators do it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "CpuKernel.h"

namespace nnemu::tflite {

// The broadcast shape of a and b; false when a dimension pair is neither equal nor has a 1.
bool broadcastShape(const std::vector<int32_t>& a, const std::vector<int32_t>& b, std::vector<int32_t>* out);

// A binary builtin's checks: two inputs, one output, all of one type among `types`; the inputs'
// shapes broadcast and the output declares the broadcast shape.
bool prepareBroadcastBinary(const CpuKernelCall& call, std::initializer_list<ElementType> types);

// Calls f(outIndex, aIndex, bIndex) for every element of the broadcast shape `out`.
template <typename F>
void forEachBroadcast(const std::vector<int32_t>& a, const std::vector<int32_t>& b, const std::vector<int32_t>& out,
                      F&& f) {
    const size_t rank = out.size();
    // Per dimension, the flat step in a and b (0 where broadcast).
    std::vector<size_t> stepA(rank, 0), stepB(rank, 0);
    size_t strideA = 1, strideB = 1;
    for (size_t k = rank; k-- > 0;) {
        const size_t da = k + a.size() >= rank ? static_cast<size_t>(a[k + a.size() - rank]) : 1;
        const size_t db = k + b.size() >= rank ? static_cast<size_t>(b[k + b.size() - rank]) : 1;
        stepA[k] = da == 1 ? 0 : strideA;
        stepB[k] = db == 1 ? 0 : strideB;
        strideA *= da;
        strideB *= db;
    }
    size_t total = 1;
    for (int32_t d : out) total *= static_cast<size_t>(d);
    std::vector<int32_t> index(rank, 0);
    size_t ia = 0, ib = 0;
    for (size_t o = 0; o < total; ++o) {
        f(o, ia, ib);
        for (size_t k = rank; k-- > 0;) {
            ia += stepA[k];
            ib += stepB[k];
            if (++index[k] < out[k]) break;
            ia -= stepA[k] * static_cast<size_t>(out[k]);
            ib -= stepB[k] * static_cast<size_t>(out[k]);
            index[k] = 0;
        }
    }
}

}  // namespace nnemu::tflite
