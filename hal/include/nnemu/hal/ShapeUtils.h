// Shape arithmetic shared by the data-movement operations' signatures (hal/operations) and their
// reference kernels (driver/cpu/kernels): 4-D layouts, strided-slice bounds, reduction axes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "nnemu/hal/Operations.h"

namespace nnemu::hal {

// `value` as a dimension: false when it does not fit 32 bits (shape inference computes in 64
// bits and refuses what a dimension cannot hold, rather than let it wrap).
inline bool toDimension(uint64_t value, uint32_t* dimension) {
    if (value > UINT32_MAX) return false;
    *dimension = static_cast<uint32_t>(value);
    return true;
}

// A rank-4 image tensor seen through its layout (NHWC, or NCHW when `nchw`).
struct Image4 {
    uint32_t batches = 0, height = 0, width = 0, channels = 0;
    bool nchw = false;

    // Element offset of (b, y, x, c).
    size_t at(uint32_t b, uint32_t y, uint32_t x, uint32_t c) const {
        if (nchw) return ((static_cast<size_t>(b) * channels + c) * height + y) * width + x;
        return ((static_cast<size_t>(b) * height + y) * width + x) * channels + c;
    }
    std::vector<uint32_t> dims() const {
        if (nchw) return {batches, channels, height, width};
        return {batches, height, width, channels};
    }
};

inline Image4 makeImage4(const std::vector<uint32_t>& dims, bool nchw) {
    Image4 image;
    image.nchw = nchw;
    if (dims.size() != 4) return image;
    image.batches = dims[0];
    image.height = nchw ? dims[2] : dims[1];
    image.width = nchw ? dims[3] : dims[2];
    image.channels = nchw ? dims[1] : dims[3];
    return image;
}

inline Image4 makeImage4(uint32_t batches, uint32_t height, uint32_t width, uint32_t channels,
                         bool nchw) {
    Image4 image;
    image.batches = batches;
    image.height = height;
    image.width = width;
    image.channels = channels;
    image.nchw = nchw;
    return image;
}

// The optional trailing layout operand `index` (BOOL, true = NCHW); false when absent.
inline bool layoutIsNchw(const OperationContext& context, uint32_t index) {
    return context.numInputs() > index && context.scalar<bool>(index);
}

// For a quantized output that must carry its input's parameters.
inline bool sameQuantization(const OperandView& input, const OperandView& output) {
    if (!isQuant8Asymm(input.type)) return true;
    return input.scale == output.scale && input.zeroPoint == output.zeroPoint;
}

// Strides (in elements) of a row-major tensor.
inline std::vector<size_t> rowMajorStrides(const std::vector<uint32_t>& dims) {
    std::vector<size_t> strides(dims.size(), 1);
    for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
    return strides;
}

// One axis of a resolved STRIDED_SLICE: element k (0 <= k < count) reads begin + k * stride.
struct SliceAxis {
    int32_t begin = 0;
    int32_t stride = 1;
    uint32_t count = 0;
    bool shrink = false;
};

// Resolves STRIDED_SLICE bounds with the TFLite (pre-2.0) semantics NNAPI uses: negative
// indices count from the end, masked bounds take the full range in the stride's direction,
// other bounds are clamped to the dimension; a shrunk axis must select exactly one element.
// Fills `axes` (one per input dim) and `outDims` (shrunk axes removed). False when invalid.
inline bool resolveStridedSlice(const std::vector<uint32_t>& dims, const int32_t* begins,
                                const int32_t* ends, const int32_t* strides, int32_t beginMask,
                                int32_t endMask, int32_t shrinkMask, std::vector<SliceAxis>* axes,
                                std::vector<uint32_t>* outDims) {
    axes->clear();
    outDims->clear();
    for (size_t i = 0; i < dims.size(); ++i) {
        const int64_t dim = dims[i];
        const int64_t stride = strides[i];
        if (stride == 0) return false;
        const bool forward = stride > 0;
        // Clamp an index into [0, dim] (forward) or [-1, dim - 1] (backward).
        auto clampIndex = [&](int64_t index) -> int64_t {
            if (forward) {
                if (index >= dim) return dim;
                if (index < -dim) return 0;
            } else {
                if (index < -dim) return -1;
                if (index >= dim) return dim - 1;
            }
            return index < 0 ? index + dim : index;
        };
        const bool beginMasked = (beginMask >> i) & 1;
        const bool endMasked = (endMask >> i) & 1;
        const int64_t begin = beginMasked ? (forward ? 0 : dim - 1) : clampIndex(begins[i]);
        const int64_t end = endMasked ? (forward ? dim : -1) : clampIndex(ends[i]);
        int64_t count = 0;
        if (forward && end > begin) count = (end - begin + stride - 1) / stride;
        if (!forward && begin > end) count = (begin - end + (-stride) - 1) / (-stride);
        SliceAxis axis;
        axis.begin = static_cast<int32_t>(begin);
        axis.stride = static_cast<int32_t>(stride);
        axis.count = static_cast<uint32_t>(count);
        axis.shrink = (shrinkMask >> i) & 1;
        if (axis.shrink) {
            if (count != 1) return false;
        } else {
            outDims->push_back(axis.count);
        }
        axes->push_back(axis);
    }
    return true;
}

// Marks the axes named by `axes` (negative counts from the end) in `reduced` (size rank).
// False when an axis is out of range. Repeated axes are allowed.
inline bool resolveReductionAxes(const int32_t* axes, size_t count, uint32_t rank,
                                 std::vector<bool>* reduced) {
    reduced->assign(rank, false);
    const auto r = static_cast<int32_t>(rank);
    for (size_t i = 0; i < count; ++i) {
        int32_t axis = axes[i];
        if (axis < -r || axis >= r) return false;
        if (axis < 0) axis += r;
        (*reduced)[axis] = true;
    }
    return true;
}

}  // namespace nnemu::hal
