// Writing values at indices, as TFLite 2.21: SCATTER_ND (int32 indices and shape; a zeroed
// output of that shape, sized at invoke when the shape is not constant, where each update slice
// is added at its index; float32, int32, int64, int8, uint8, bool), SPARSE_TO_DENSE (an output of
// output_shape filled with default_value, values set at 0-D to 2-D indices; rank up to 4) and
// DYNAMIC_UPDATE_SLICE (the operand with `update` written at start indices clamped into it).
#include <algorithm>

#include "CpuKernelList.h"

namespace nnemu::tflite {
namespace kernels::scatter {

// The output shape from a 1-D int32/int64 shape input; `known` false: it comes at invoke.
bool shapeFromInput(const CpuKernelCall& call, size_t input, std::vector<int32_t>* shape, bool* known) {
    std::vector<int64_t> dims;
    if (!call.ints(input, &dims, known)) return false;
    if (!*known) return true;
    shape->clear();
    for (int64_t d : dims) {
        if (d < 0 || d > INT32_MAX) return call.fail("shape value " + std::to_string(d) + " is not a dimension");
        shape->push_back(static_cast<int32_t>(d));
    }
    return true;
}

bool scatterNdShape(const CpuKernelCall& call, std::vector<int32_t>* shape, bool* known) {
    if (!call.expectCounts(3, 3, 1)) return false;
    const CpuOperand& indices = call.in(0);
    const CpuOperand& updates = call.in(1);
    if (!call.expectType(indices, {ElementType::INT32}, "indices")) return false;
    if (!call.expectType(updates, {ElementType::FLOAT32, ElementType::UINT8, ElementType::BOOL, ElementType::INT8,
                                   ElementType::INT32, ElementType::INT64},
                         "updates")) {
        return false;
    }
    if (call.in(2).type() != indices.type()) return call.fail("indices and shape must have the same type");
    if (call.out(0).type() != updates.type()) return call.fail("output type differs from the updates'");
    if (indices.rank() < 1 || updates.rank() < 1 || call.in(2).rank() != 1) {
        return call.fail("indices and updates must have rank 1 or more, shape rank 1");
    }
    if (!shapeFromInput(call, 2, shape, known)) return false;
    if (!*known) return true;
    const size_t outer = indices.rank() - 1;
    const auto depth = static_cast<size_t>(indices.shape()[outer]);
    const bool fits = updates.rank() >= outer && depth <= shape->size() &&
                      updates.rank() - outer == shape->size() - depth &&
                      std::equal(indices.shape().begin(), indices.shape().begin() + static_cast<std::ptrdiff_t>(outer),
                                 updates.shape().begin()) &&
                      std::equal(updates.shape().begin() + static_cast<std::ptrdiff_t>(outer), updates.shape().end(),
                                 shape->begin() + static_cast<std::ptrdiff_t>(depth));
    if (!fits) {
        return call.fail("indices " + shapeText(indices.shape()) + " and updates " + shapeText(updates.shape()) +
                         " do not fit the shape " + shapeText(*shape));
    }
    return true;
}

bool prepareScatterNd(const CpuKernelCall& call) { return expectComputedShape(call, scatterNdShape); }

template <typename T>
void accumulate(const CpuOperand& out, size_t to, const CpuOperand& updates, size_t from) {
    if constexpr (std::is_same_v<T, bool>) {
        out.set<uint8_t>(to, (out.at<uint8_t>(to) != 0 || updates.at<uint8_t>(from) != 0) ? 1 : 0);
    } else if constexpr (std::is_integral_v<T>) {   // two's complement wrap, as TFLite's += on x86
        using U = std::make_unsigned_t<T>;
        out.set<T>(to, static_cast<T>(static_cast<U>(out.at<T>(to)) + static_cast<U>(updates.at<T>(from))));
    } else {
        out.set<T>(to, out.at<T>(to) + updates.at<T>(from));
    }
}

bool runScatterNd(const CpuKernelCall& call) {
    std::vector<int32_t> shape;
    if (!resizeToComputedShape(call, scatterNdShape, "the shape input has no data", &shape)) return false;
    const CpuOperand& indices = call.in(0);
    const CpuOperand& updates = call.in(1);
    CpuOperand out = call.out(0);   // read back while adding: its data is its output buffer
    out.data = out.out;
    const size_t outer = indices.rank() - 1;
    const auto depth = static_cast<size_t>(indices.shape()[outer]);
    const size_t slices = elementCount({indices.shape().begin(), indices.shape().end() - 1});
    const size_t slice = elementCount({updates.shape().begin() + static_cast<std::ptrdiff_t>(outer), updates.shape().end()});
    const size_t total = out.count();
    // TFLite checks the flat offset only: an index past its dimension that stays inside the
    // output writes where the flat offset lands, as there.
    std::vector<int64_t> stride(depth, 0);
    size_t remaining = total;
    for (size_t d = 0; d < depth; ++d) {
        remaining = shape[d] == 0 ? 0 : remaining / static_cast<size_t>(shape[d]);
        stride[d] = static_cast<int64_t>(remaining);
    }
    if (total != 0) std::memset(out.out, 0, total * elementSize(out.type()));
    for (size_t n = 0; n < slices; ++n) {
        int64_t at = 0;
        for (size_t d = 0; d < depth; ++d) at += static_cast<int64_t>(indices.at<int32_t>(n * depth + d)) * stride[d];
        if (at < 0 || static_cast<size_t>(at) + slice > total) return call.fail("scatter_nd index out of bounds");
        for (size_t j = 0; j < slice; ++j) {
            const size_t to = static_cast<size_t>(at) + j, from = n * slice + j;
            switch (out.type()) {
                case ElementType::FLOAT32: accumulate<float>(out, to, updates, from); break;
                case ElementType::INT32: accumulate<int32_t>(out, to, updates, from); break;
                case ElementType::INT64: accumulate<int64_t>(out, to, updates, from); break;
                case ElementType::INT8: accumulate<int8_t>(out, to, updates, from); break;
                case ElementType::BOOL: accumulate<bool>(out, to, updates, from); break;
                default: accumulate<uint8_t>(out, to, updates, from); break;
            }
        }
    }
    return true;
}

bool sparseToDenseShape(const CpuKernelCall& call, std::vector<int32_t>* shape, bool* known) {
    if (!call.expectCounts(4, 4, 1)) return false;
    const CpuOperand& indices = call.in(0);
    const CpuOperand& values = call.in(2);
    if (!call.expectType(indices, {ElementType::INT32, ElementType::INT64}, "indices")) return false;
    if (!call.expectType(call.in(1), {ElementType::INT32, ElementType::INT64}, "output_shape")) return false;
    if (!call.expectType(values, {ElementType::INT32, ElementType::INT64, ElementType::INT8, ElementType::UINT8,
                                  ElementType::FLOAT32},
                         "values")) {
        return false;
    }
    if (call.in(3).type() != values.type() || call.out(0).type() != values.type()) {
        return call.fail("default_value and output must have the values' type");
    }
    if (indices.rank() > 2 || call.in(1).rank() != 1 || values.rank() > 1 || call.in(3).count() != 1) {
        return call.fail("indices must be 0-D to 2-D, output_shape 1-D, values 0-D or 1-D, default_value one value");
    }
    const size_t rank = call.in(1).count();
    const size_t depth = indices.rank() == 2 ? static_cast<size_t>(indices.shape()[1]) : 1;
    if (rank > 4 || depth != rank) {
        return call.fail("output_shape has " + std::to_string(rank) + " values; indices must give as many (and 4 at most)");
    }
    const size_t count = indices.rank() == 0 ? 1 : static_cast<size_t>(indices.shape()[0]);
    // TFLite's check: a scalar value goes with exactly one index.
    if (values.rank() == 0 && count != 1) return call.fail("a scalar value needs exactly one index, got " + std::to_string(count));
    if (values.rank() == 1 && values.count() < count) {
        return call.fail("values has " + std::to_string(values.count()) + " elements for " + std::to_string(count) +
                         " indices");
    }
    return shapeFromInput(call, 1, shape, known);
}

bool prepareSparseToDense(const CpuKernelCall& call) { return expectComputedShape(call, sparseToDenseShape); }

bool runSparseToDense(const CpuKernelCall& call) {
    std::vector<int32_t> shape;
    if (!resizeToComputedShape(call, sparseToDenseShape, "output_shape has no data", &shape)) return false;
    const CpuOperand& indices = call.in(0);
    const CpuOperand& values = call.in(2);
    const CpuOperand& out = call.out(0);
    const size_t size = elementSize(out.type());
    for (size_t k = 0; k < out.count(); ++k) std::memcpy(out.out + k * size, call.in(3).data, size);
    const size_t count = indices.rank() == 0 ? 1 : static_cast<size_t>(indices.shape()[0]);
    const size_t rank = shape.size();
    for (size_t n = 0; n < count; ++n) {
        size_t at = 0;
        for (size_t d = 0; d < rank; ++d) {
            const size_t k = n * rank + d;
            const int64_t index = indices.type() == ElementType::INT32 ? indices.at<int32_t>(k) : indices.at<int64_t>(k);
            if (index < 0 || index >= shape[d]) {
                return call.fail("index " + std::to_string(index) + " out of range [0, " + std::to_string(shape[d]) + ")");
            }
            at = at * static_cast<size_t>(shape[d]) + static_cast<size_t>(index);
        }
        std::memcpy(out.out + at * size, values.data + (values.rank() == 0 ? 0 : n) * size, size);
    }
    return true;
}

bool prepareDynamicUpdateSlice(const CpuKernelCall& call) {
    if (!call.expectCounts(3, 3, 1)) return false;
    const CpuOperand& operand = call.in(0);
    const CpuOperand& update = call.in(1);
    if (elementSize(operand.type()) == 0) return call.fail("operand type is not supported");
    if (update.type() != operand.type() || call.out(0).type() != operand.type()) {
        return call.fail("update and output must have the operand's type");
    }
    if (!call.expectType(call.in(2), {ElementType::INT32, ElementType::INT64}, "start_indices")) return false;
    if (operand.rank() > 8) return call.fail("supports rank 8 or less");
    if (call.in(2).rank() != 1 || call.in(2).count() != operand.rank() || update.rank() != operand.rank()) {
        return call.fail("start_indices must hold one value per operand dimension, update the operand's rank");
    }
    for (size_t d = 0; d < operand.rank(); ++d) {
        if (update.shape()[d] > operand.shape()[d]) {
            return call.fail("update " + shapeText(update.shape()) + " is larger than the operand " +
                             shapeText(operand.shape()));
        }
    }
    return call.expectOutputShape(0, operand.shape());
}

bool runDynamicUpdateSlice(const CpuKernelCall& call) {
    if (!prepareDynamicUpdateSlice(call)) return false;
    const CpuOperand& operand = call.in(0);
    const CpuOperand& update = call.in(1);
    const size_t size = elementSize(operand.type());
    if (operand.count() != 0) std::memcpy(call.out(0).out, operand.data, operand.count() * size);
    const std::vector<int32_t>& dims = operand.shape();
    const size_t rank = dims.size();
    std::vector<int64_t> start(rank);
    for (size_t d = 0; d < rank; ++d) {
        const int64_t value = call.in(2).type() == ElementType::INT32 ? call.in(2).at<int32_t>(d) : call.in(2).at<int64_t>(d);
        start[d] = std::min<int64_t>(std::max<int64_t>(0, value), dims[d] - update.shape()[d]);
    }
    // Element by element of the update: its index plus the start, flattened in the operand.
    std::vector<int32_t> index(rank, 0);
    for (size_t u = 0; u < update.count(); ++u) {
        size_t at = 0;
        for (size_t d = 0; d < rank; ++d) at = at * static_cast<size_t>(dims[d]) + static_cast<size_t>(start[d] + index[d]);
        std::memcpy(call.out(0).out + at * size, update.data + u * size, size);
        for (size_t d = rank; d-- > 0;) {
            if (++index[d] < update.shape()[d]) break;
            index[d] = 0;
        }
    }
    return true;
}

}  // namespace kernels::scatter

}  // namespace nnemu::tflite
