// STRIDED_SLICE with TFLite's full semantics: begin/end masks, an ellipsis, new axes, shrunk
// axes, negative strides and offset slices (end counted from begin). The sparse specification
// (one entry per begin value) is first expanded to one per input dimension.
#include <algorithm>

#include "CpuKernelList.h"

namespace nnemu::tflite {
namespace kernels::strided_slice {

struct DenseDim {
    int64_t begin = 0, stride = 1, size = 0;
};

struct Slice {
    std::vector<DenseDim> dims;          // one per input dimension
    std::vector<int32_t> outputShape;
};

// One input dimension from entry i of the spec (i < 0: an ellipsis or implicit full range).
bool denseDim(const CpuKernelCall& call, int64_t dim, int64_t begin, int64_t end, int64_t stride, bool beginMasked,
              bool endMasked, bool shrink, DenseDim* out) {
    if (stride == 0) return call.fail("stride 0");
    if (shrink) {
        const int64_t index = begin < 0 ? begin + dim : begin;
        if (index < 0 || index >= dim) return call.fail("shrunk index " + std::to_string(begin) + " out of range");
        *out = {index, 1, 1};
        return true;
    }
    const int64_t lower = stride > 0 ? 0 : -1, upper = stride > 0 ? dim : dim - 1;
    const auto canonical = [&](int64_t x) { return std::clamp(x < 0 ? x + dim : x, lower, upper); };
    const int64_t b = beginMasked ? (stride > 0 ? lower : upper) : canonical(begin);
    const int64_t e = endMasked ? (stride > 0 ? upper : lower) : canonical(end);
    const int64_t span = stride > 0 ? e - b : b - e;
    const int64_t step = stride > 0 ? stride : -stride;
    *out = {b, stride, std::max<int64_t>(0, (span + step - 1) / step)};
    return true;
}

bool buildSlice(const CpuKernelCall& call, bool* known, Slice* slice) {
    if (!call.expectCounts(4, 4, 1)) return false;
    const CpuOperand& in = call.in(0);
    if (elementSize(in.type()) == 0) return call.fail("input type is not supported");
    if (call.out(0).type() != in.type()) return call.fail("output type differs from the input's");
    const auto* o = call.params<TfLiteStridedSliceParams>();
    const int32_t beginMask = o ? o->begin_mask : 0, endMask = o ? o->end_mask : 0;
    const int32_t ellipsisMask = o ? o->ellipsis_mask : 0, newAxisMask = o ? o->new_axis_mask : 0;
    const int32_t shrinkMask = o ? o->shrink_axis_mask : 0;
    std::vector<int64_t> begin, end, strides;
    bool k1 = false, k2 = false, k3 = false;
    if (!call.ints(1, &begin, &k1) || !call.ints(2, &end, &k2) || !call.ints(3, &strides, &k3)) return false;
    *known = k1 && k2 && k3;
    if (!*known) return true;
    const size_t n = begin.size();
    if (end.size() != n || strides.size() != n) return call.fail("begin, end and strides differ in length");
    if (n > 31) return call.fail("more than 31 slice entries");
    if ((ellipsisMask & (ellipsisMask - 1)) != 0) return call.fail("more than one ellipsis");
    const auto bit = [](int32_t mask, size_t i) { return ((mask >> i) & 1) != 0; };
    const auto rank = static_cast<int64_t>(in.rank());
    int64_t consumed = 0;   // input dimensions the entries other than the ellipsis take
    for (size_t i = 0; i < n; ++i) consumed += bit(ellipsisMask, i) || bit(newAxisMask, i) ? 0 : 1;
    if (consumed > rank) return call.fail("the slice has more entries than the input has dimensions");
    const auto fullRange = [&](size_t d) {
        slice->dims.push_back({0, 1, in.shape()[d]});
        slice->outputShape.push_back(in.shape()[d]);
    };
    for (size_t i = 0; i < n; ++i) {
        if (bit(ellipsisMask, i)) {
            for (int64_t k = 0; k < rank - consumed; ++k) fullRange(slice->dims.size());
        } else if (bit(newAxisMask, i)) {
            slice->outputShape.push_back(1);
        } else {
            const size_t d = slice->dims.size();
            const int64_t stop = o && o->offset ? begin[i] + end[i] : end[i];
            DenseDim dense;
            if (!denseDim(call, in.shape()[d], begin[i], stop, strides[i], bit(beginMask, i), bit(endMask, i),
                          bit(shrinkMask, i), &dense)) {
                return false;
            }
            slice->dims.push_back(dense);
            if (!bit(shrinkMask, i)) slice->outputShape.push_back(static_cast<int32_t>(dense.size));
        }
    }
    while (slice->dims.size() < in.rank()) fullRange(slice->dims.size());   // an implicit trailing ellipsis
    return call.expectOutputShape(0, slice->outputShape);
}

bool prepareStridedSlice(const CpuKernelCall& call) {
    bool known = false;
    Slice slice;
    return buildSlice(call, &known, &slice);
}

bool runStridedSlice(const CpuKernelCall& call) {
    bool known = false;
    Slice slice;
    if (!buildSlice(call, &known, &slice)) return false;
    const CpuOperand& in = call.in(0);
    const size_t bytes = elementSize(in.type());
    const size_t rank = slice.dims.size();
    std::vector<size_t> strides(rank, 1);
    for (size_t d = rank; d-- > 1;) strides[d - 1] = strides[d] * static_cast<size_t>(in.shape()[d]);
    size_t total = 1;
    for (const DenseDim& d : slice.dims) total *= static_cast<size_t>(d.size);
    std::vector<int64_t> index(rank, 0);
    for (size_t o = 0; o < total; ++o) {
        size_t source = 0;
        for (size_t d = 0; d < rank; ++d) {
            source += static_cast<size_t>(slice.dims[d].begin + index[d] * slice.dims[d].stride) * strides[d];
        }
        std::memcpy(call.out(0).out + o * bytes, in.data + source * bytes, bytes);
        for (size_t d = rank; d-- > 0;) {
            if (++index[d] < slice.dims[d].size) break;
            index[d] = 0;
        }
    }
    return true;
}

}  // namespace kernels::strided_slice

}  // namespace nnemu::tflite
