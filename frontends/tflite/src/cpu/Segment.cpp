// Segment reductions, float32 and int32 data with int32 segment ids, as TFLite 2.21:
// SEGMENT_SUM (1-D ids over the first dimension, starting at 0 and growing by 0 or 1; the output
// has last id + 1 rows, sized at invoke when the ids are not constant) and
// UNSORTED_SEGMENT_SUM/PROD/MAX/MIN (ids shaped as a prefix of the data's shape, any order,
// negative ids skipped; num_segments rows, each starting at the reduction's identity: 0, 1, the
// type's lowest, the type's highest).
#include <algorithm>
#include <limits>

#include "CpuKernelList.h"

namespace nnemu::tflite {
namespace kernels::segment {

bool segmentTypes(const CpuKernelCall& call) {
    if (!call.expectType(call.in(0), {ElementType::FLOAT32, ElementType::INT32}, "data")) return false;
    if (!call.expectType(call.in(1), {ElementType::INT32}, "segment_ids")) return false;
    return call.out(0).type() == call.in(0).type() || call.fail("output type differs from the data's");
}

// SEGMENT_SUM's output shape from the ids; `known` false: they come at invoke.
bool segmentSumShape(const CpuKernelCall& call, std::vector<int32_t>* shape, bool* known) {
    if (!call.expectCounts(2, 2, 1) || !segmentTypes(call)) return false;
    const CpuOperand& data = call.in(0);
    const CpuOperand& ids = call.in(1);
    if (data.rank() == 0) return call.fail("data must have rank 1 or more");
    if (ids.rank() != 1 || ids.shape()[0] != data.shape()[0]) {
        return call.fail("segment_ids must be 1-D with the data's first dimension " + std::to_string(data.shape()[0]));
    }
    *known = ids.known();
    if (!*known) return true;
    int32_t previous = -1;
    for (size_t i = 0; i < ids.count(); ++i) {
        const int32_t id = ids.at<int32_t>(i);
        if (i == 0 ? id != 0 : (id != previous && id != previous + 1)) {
            return call.fail("segment_ids must start at 0 and grow by 0 or 1 (id " + std::to_string(id) + " at " +
                             std::to_string(i) + ")");
        }
        previous = id;
    }
    *shape = data.shape();
    (*shape)[0] = previous + 1;
    return true;
}

bool prepareSegmentSum(const CpuKernelCall& call) { return expectComputedShape(call, segmentSumShape); }

// Rows of `slice` elements: out[id] = combine(out[id], in[i]) in order of i, from `initial`.
template <typename T, typename Combine>
void reduceSegments(const CpuKernelCall& call, size_t slice, T initial, Combine combine) {
    const CpuOperand& data = call.in(0);
    const CpuOperand& ids = call.in(1);
    CpuOperand out = call.out(0);   // read back while reducing: its data is its output buffer
    out.data = out.out;
    for (size_t k = 0; k < out.count(); ++k) out.set<T>(k, initial);
    for (size_t i = 0; i < ids.count(); ++i) {
        const int32_t id = ids.at<int32_t>(i);
        if (id < 0) continue;
        for (size_t j = 0; j < slice; ++j) {
            const size_t at = static_cast<size_t>(id) * slice + j;
            out.set<T>(at, combine(out.at<T>(at), data.at<T>(i * slice + j)));
        }
    }
}

// int32 sums and products wrap as two's complement (no undefined overflow).
template <typename T>
T add(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
        return static_cast<T>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
    } else {
        return a + b;
    }
}

template <typename T>
T multiply(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
        return static_cast<T>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
    } else {
        return a * b;
    }
}

bool runSegmentSum(const CpuKernelCall& call) {
    std::vector<int32_t> shape;
    if (!resizeToComputedShape(call, segmentSumShape, "segment_ids has no data", &shape)) return false;
    const size_t slice = elementCount({shape.begin() + 1, shape.end()});
    if (call.in(0).type() == ElementType::FLOAT32) {
        reduceSegments<float>(call, slice, 0.0f, add<float>);
    } else {
        reduceSegments<int32_t>(call, slice, 0, add<int32_t>);
    }
    return true;
}

enum class Reduction { SUM, PROD, MAX, MIN };

// UNSORTED_SEGMENT_*'s output shape; `known` false: ids or num_segments come at invoke.
bool unsortedShape(const CpuKernelCall& call, std::vector<int32_t>* shape, bool* known) {
    if (!call.expectCounts(3, 3, 1) || !segmentTypes(call)) return false;
    const CpuOperand& data = call.in(0);
    const CpuOperand& ids = call.in(1);
    const CpuOperand& segments = call.in(2);
    if (!call.expectType(segments, {ElementType::INT32}, "num_segments")) return false;
    if (!(segments.rank() == 0 || (segments.rank() == 1 && segments.shape()[0] == 1))) {
        return call.fail("num_segments must be a scalar or hold one value");
    }
    if (ids.rank() > data.rank() || !std::equal(ids.shape().begin(), ids.shape().end(), data.shape().begin())) {
        return call.fail("segment_ids' shape " + shapeText(ids.shape()) + " must be a prefix of the data's " +
                         shapeText(data.shape()));
    }
    *known = ids.known() && segments.known();
    if (!*known) return true;
    const int32_t count = segments.at<int32_t>(0);
    int32_t largest = -1;
    for (size_t i = 0; i < ids.count(); ++i) largest = std::max(largest, ids.at<int32_t>(i));
    if (largest >= count) {
        return call.fail("segment id " + std::to_string(largest) + " is not below num_segments " + std::to_string(count));
    }
    shape->assign(1, count);
    shape->insert(shape->end(), data.shape().begin() + static_cast<std::ptrdiff_t>(ids.rank()), data.shape().end());
    return true;
}

bool prepareUnsorted(const CpuKernelCall& call) { return expectComputedShape(call, unsortedShape); }

template <typename T>
void unsorted(const CpuKernelCall& call, size_t slice, Reduction reduction) {
    switch (reduction) {
        case Reduction::SUM: reduceSegments<T>(call, slice, T(0), add<T>); break;
        case Reduction::PROD: reduceSegments<T>(call, slice, T(1), multiply<T>); break;
        case Reduction::MAX:
            reduceSegments<T>(call, slice, std::numeric_limits<T>::lowest(), [](T a, T b) { return std::max(a, b); });
            break;
        case Reduction::MIN:
            reduceSegments<T>(call, slice, std::numeric_limits<T>::max(), [](T a, T b) { return std::min(a, b); });
            break;
    }
}

template <Reduction reduction>
bool runUnsorted(const CpuKernelCall& call) {
    std::vector<int32_t> shape;
    if (!resizeToComputedShape(call, unsortedShape, "segment_ids or num_segments has no data", &shape)) return false;
    const size_t slice = elementCount({shape.begin() + 1, shape.end()});
    if (call.in(0).type() == ElementType::FLOAT32) {
        unsorted<float>(call, slice, reduction);
    } else {
        unsorted<int32_t>(call, slice, reduction);
    }
    return true;
}

bool runUnsortedSegmentSum(const CpuKernelCall& call) { return runUnsorted<Reduction::SUM>(call); }
bool runUnsortedSegmentProd(const CpuKernelCall& call) { return runUnsorted<Reduction::PROD>(call); }
bool runUnsortedSegmentMax(const CpuKernelCall& call) { return runUnsorted<Reduction::MAX>(call); }
bool runUnsortedSegmentMin(const CpuKernelCall& call) { return runUnsorted<Reduction::MIN>(call); }

}  // namespace kernels::segment

}  // namespace nnemu::tflite
