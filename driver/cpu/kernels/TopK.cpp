// Reference kernel of TOPK_V2: for every row along the last dimension, the k largest elements
// in descending order with their indexes; equal elements come in index order.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include "nnemu/cpu/ElementAccess.h"
#include "nnemu/cpu/Kernels.h"
#include "KernelList.h"

namespace nnemu::cpu {
namespace {

// Strict weak order of (value, index) pairs: larger values first, NaNs after every number,
// equal values (and NaNs) by index.
bool comesBefore(double va, uint32_t a, double vb, uint32_t b) {
    const bool nanA = std::isnan(va);
    const bool nanB = std::isnan(vb);
    if (nanA != nanB) return nanB;
    if (!nanA && va != vb) return va > vb;
    return a < b;
}

}  // namespace

bool kernels::topK(OperationContext& context) {
    const OperandView& input = context.input(0);
    OperandView& values = context.output(0);
    OperandView& indices = context.output(1);
    NN_RET_CHECK(isPlainTensorType(input.type) && input.rank() >= 1);
    const uint32_t rowSize = input.dim(input.rank() - 1);
    const int32_t k = context.scalar<int32_t>(1);
    NN_RET_CHECK(k >= 1 && static_cast<uint32_t>(k) <= rowSize);
    const uint64_t rows = input.elements() / rowSize;
    const size_t size = hal::elementSize(input.type);
    NN_RET_CHECK(values.length >= rows * k * size);
    NN_RET_CHECK(indices.length >= rows * k * sizeof(int32_t));
    std::vector<uint32_t> order(rowSize);
    for (uint64_t r = 0; r < rows; ++r) {
        const uint64_t base = r * rowSize;
        std::iota(order.begin(), order.end(), 0u);
        std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](uint32_t a, uint32_t b) {
            return comesBefore(orderedValue(input, base + a), a, orderedValue(input, base + b), b);
        });
        for (int32_t j = 0; j < k; ++j) {
            const uint64_t to = r * k + j;
            std::memcpy(values.data + to * size, input.data + (base + order[j]) * size, size);
            indices.as<int32_t>()[to] = static_cast<int32_t>(order[j]);
        }
    }
    return true;
}

}  // namespace nnemu::cpu
