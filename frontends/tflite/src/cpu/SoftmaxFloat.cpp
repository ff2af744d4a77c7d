// Float SOFTMAX as TFLite's x86 build computes it, bit for bit (TfliteKernelForms.cpp runs it here
// off the delegate; nnapi-reference's exp and sums give other roundings). TFLite's optimized
// kernel is Eigen array code over rows of the last dimension, compiled for SSE2 without FMA:
// - t = (x - the row's maximum) * beta, each step rounded;
// - exp over the whole tensor as one flat array: Eigen's packet approximation (EigenFloatMath.h)
//   on every whole 4-float packet from the start, the C library's expf on the last 0-3 elements;
// - each row's sum as Eigen's vectorized reduction finds it at the row's address (TFLite's
//   tensors start 64-byte aligned): the 0-3 elements before the first 16-byte boundary apart,
//   two packets of 4 accumulating whole groups of 8, a last packet added, the packet reduced
//   (l0 + l2) + (l1 + l3), then the leading elements, then the last 0-3; a row too short for one
//   packet sums in turn;
// - 1 / sum, times each element.
#include <algorithm>
#include <cmath>

#include "CpuKernelList.h"
#include "EigenFloatMath.h"
#include "nnemu/base/Clones.h"

namespace nnemu::tflite::kernels::softmax {
namespace {

// The sum of row[0 .. size) that starts `offset` floats past a 16-byte boundary.
float eigenRowSum(const float* row, size_t size, size_t offset) {
    const size_t lead = std::min((4 - offset % 4) % 4, size);
    const size_t rest = size - lead, pairs = rest / 8 * 8, whole = rest / 4 * 4;
    if (whole == 0) {
        float sum = row[0];
        for (size_t i = 1; i < size; ++i) sum = sum + row[i];
        return sum;
    }
    const float* x = row + lead;
    float p0[4], p1[4];
    for (size_t l = 0; l < 4; ++l) p0[l] = x[l];
    if (whole > 4) {
        for (size_t l = 0; l < 4; ++l) p1[l] = x[4 + l];
        for (size_t i = 8; i < pairs; i += 8) {
            for (size_t l = 0; l < 4; ++l) {
                p0[l] = p0[l] + x[i + l];
                p1[l] = p1[l] + x[i + 4 + l];
            }
        }
        for (size_t l = 0; l < 4; ++l) p0[l] = p0[l] + p1[l];
        if (whole > pairs) {
            for (size_t l = 0; l < 4; ++l) p0[l] = p0[l] + x[pairs + l];
        }
    }
    float sum = (p0[0] + p0[2]) + (p0[1] + p0[3]);
    for (size_t i = 0; i < lead; ++i) sum = sum + row[i];
    for (size_t i = lead + whole; i < size; ++i) sum = sum + row[i];
    return sum;
}

// Eigen's exp on each element, one build per vector level (branch-free: the loop vectorizes; the
// file builds without FMA contraction, so every build rounds alike).
NNEMU_CLONES void expLoop(float* values, size_t count) {
    for (size_t i = 0; i < count; ++i) values[i] = eigen::exp(values[i]);
}

}  // namespace

bool prepareSoftmax(const CpuKernelCall& call) {
    if (!call.expectCounts(1, 1, 1)) return false;
    const ElementType type = call.in(0).type();
    if (type == ElementType::UINT8 || type == ElementType::INT8) return prepareQuantized(call);   // QuantizedSoftmax.cpp
    if (type == ElementType::INT16) return prepareInt16(call);                                    // Softmax16.cpp
    if (!call.expectType(call.in(0), {ElementType::FLOAT32}, "input")) return false;
    if (!call.expectType(call.out(0), {ElementType::FLOAT32}, "output")) return false;
    if (call.in(0).rank() < 1) return call.fail("the input needs at least one dimension");
    if (call.params<TfLiteSoftmaxParams>() == nullptr) return call.fail("missing SoftmaxOptions");
    if (call.xnnpack() && !prepareXnnpackSoftmax(call)) return false;
    return call.expectOutputShape(0, call.in(0).shape());
}

bool runSoftmax(const CpuKernelCall& call) {
    const ElementType type = call.in(0).type();
    if (type == ElementType::UINT8 || type == ElementType::INT8) return runQuantized(call);
    if (type == ElementType::INT16) return runInt16(call);
    if (!prepareSoftmax(call)) return false;
    const auto* in = reinterpret_cast<const float*>(call.in(0).data);
    auto* out = reinterpret_cast<float*>(call.out(0).out);
    const float beta = call.params<TfLiteSoftmaxParams>()->beta;
    const size_t count = call.in(0).count(), depth = static_cast<size_t>(call.in(0).shape().back());
    if (count == 0 || depth == 0) return true;
    if (call.xnnpack()) {   // XnnpackFloatSoftmax.cpp
        runXnnpackSoftmax(in, out, count / depth, depth);
        return true;
    }
    for (size_t r = 0; r < count / depth; ++r) {
        const float* x = in + r * depth;
        float* y = out + r * depth;
        const float largest = *std::max_element(x, x + depth);
        for (size_t i = 0; i < depth; ++i) {
            const float shifted = x[i] - largest;
            y[i] = shifted * beta;
        }
    }
    const size_t packets = count / 4 * 4;
    expLoop(out, packets);
    for (size_t i = packets; i < count; ++i) out[i] = std::exp(out[i]);
    for (size_t r = 0; r < count / depth; ++r) {
        float* y = out + r * depth;
        const float scale = 1.0f / eigenRowSum(y, depth, r * depth);
        for (size_t i = 0; i < depth; ++i) y[i] = y[i] * scale;
    }
    return true;
}

}  // namespace nnemu::tflite::kernels::softmax
