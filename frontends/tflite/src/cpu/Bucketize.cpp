// BUCKETIZE as TFLite's kernel: each value's bucket is the number of boundaries not above it
// (the first boundary greater than the value, by std::upper_bound with TFLite's comparison of the
// value's type against a float boundary), int32 output of the input's shape. The boundaries must
// be sorted; options without them make the model fail, as TFLite's reader refuses it.
#include <algorithm>

#include "CpuKernelList.h"

namespace nnemu::tflite {
namespace kernels::bucketize {

// The boundaries, copied out of the model (its float vector has no alignment guarantee here).
bool boundariesOf(const CpuKernelCall& call, std::vector<float>* boundaries) {
    const auto* params = call.params<TfLiteBucketizeParams>();
    if (params == nullptr) return call.fail("boundaries array not provided");
    if (params->num_boundaries < 0 || (params->num_boundaries > 0 && params->boundaries == nullptr)) {
        return call.fail("boundaries array not provided");
    }
    boundaries->resize(static_cast<size_t>(params->num_boundaries));
    if (!boundaries->empty()) {
        std::memcpy(boundaries->data(), params->boundaries, boundaries->size() * sizeof(float));
    }
    if (!std::is_sorted(boundaries->begin(), boundaries->end())) return call.fail("Expected sorted boundaries");
    return true;
}

bool prepareBucketize(const CpuKernelCall& call) {
    std::vector<float> boundaries;
    if (!call.expectCounts(1, 1, 1) || !boundariesOf(call, &boundaries)) return false;
    if (!call.expectType(call.in(0), {ElementType::FLOAT32, ElementType::INT32, ElementType::INT64}, "input") ||
        !call.expectType(call.out(0), {ElementType::INT32}, "output")) {
        return false;
    }
    return call.expectOutputShape(0, call.in(0).shape());
}

template <typename T>
void bucketize(const CpuKernelCall& call, const std::vector<float>& boundaries) {
    const size_t count = call.in(0).count();
    for (size_t i = 0; i < count; ++i) {
        const T value = call.in(0).at<T>(i);
        const auto bucket = std::upper_bound(boundaries.begin(), boundaries.end(), value) - boundaries.begin();
        call.out(0).set<int32_t>(i, static_cast<int32_t>(bucket));
    }
}

bool runBucketize(const CpuKernelCall& call) {
    std::vector<float> boundaries;
    if (!prepareBucketize(call) || !boundariesOf(call, &boundaries)) return false;
    switch (call.in(0).type()) {
        case ElementType::FLOAT32: bucketize<float>(call, boundaries); break;
        case ElementType::INT32: bucketize<int32_t>(call, boundaries); break;
        default: bucketize<int64_t>(call, boundaries); break;
    }
    return true;
}

}  // namespace kernels::bucketize

}  // namespace nnemu::tflite
