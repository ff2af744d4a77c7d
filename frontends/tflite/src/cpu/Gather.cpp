// GATHER_ND: output[i..., :] = params[indices[i..., 0], ..., indices[i..., k-1], :], indices
// int32 or int64 in the last dimension; an index out of range fails the node as in TFLite.
#include "CpuKernelList.h"

namespace nnemu::tflite {
namespace kernels::gather {

bool prepareGatherNd(const CpuKernelCall& call) {
    if (!call.expectCounts(2, 2, 1)) return false;
    const CpuOperand& params = call.in(0);
    const CpuOperand& indices = call.in(1);
    if (!call.expectType(indices, {ElementType::INT32, ElementType::INT64}, "indices")) return false;
    if (elementSize(params.type()) == 0) return call.fail("params type is not supported");
    if (call.out(0).type() != params.type()) return call.fail("output type differs from the params'");
    if (params.rank() == 0) return call.fail("params must have rank 1 or more");
    if (indices.rank() == 0) return call.fail("indices must have rank 1 or more");
    const auto depth = static_cast<size_t>(indices.shape().back());
    if (depth > params.rank()) {
        return call.fail("indices' last dimension " + std::to_string(depth) + " exceeds the params' rank " +
                         std::to_string(params.rank()));
    }
    std::vector<int32_t> shape(indices.shape().begin(), indices.shape().end() - 1);
    shape.insert(shape.end(), params.shape().begin() + static_cast<std::ptrdiff_t>(depth), params.shape().end());
    return call.expectOutputShape(0, shape);
}

bool runGatherNd(const CpuKernelCall& call) {
    if (!prepareGatherNd(call)) return false;
    const CpuOperand& params = call.in(0);
    const CpuOperand& indices = call.in(1);
    const std::vector<int32_t>& dims = params.shape();
    const auto depth = static_cast<size_t>(indices.shape().back());
    size_t slice = 1;
    for (size_t d = depth; d < dims.size(); ++d) slice *= static_cast<size_t>(dims[d]);
    const size_t bytes = slice * elementSize(params.type());
    const size_t lookups = elementCount({indices.shape().begin(), indices.shape().end() - 1});
    for (size_t n = 0; n < lookups; ++n) {
        size_t offset = 0;
        for (size_t d = 0; d < depth; ++d) {
            const int64_t index = indices.type() == ElementType::INT32 ? indices.at<int32_t>(n * depth + d)
                                                                       : indices.at<int64_t>(n * depth + d);
            if (index < 0 || index >= dims[d]) {
                return call.fail("index " + std::to_string(index) + " out of range [0, " + std::to_string(dims[d]) + ")");
            }
            offset = offset * static_cast<size_t>(dims[d]) + static_cast<size_t>(index);
        }
        if (bytes != 0) std::memcpy(call.out(0).out + n * bytes, params.data + offset * bytes, bytes);
    }
    return true;
}

}  // namespace kernels::gather

}  // namespace nnemu::tflite
