// Quantized SOFTMAX (uint8, int8) as TFLite's x86 build computes it (its optimized kernel) over
// the last dimension: a float table of expf(-scale_in * beta * d) for the 256 distances d to the
// row's maximum, the row's sum of table entries in order, then each entry times
// 1 / (sum * scale_out), rounded (uint8: + 0.5 and truncated; int8: to nearest, halves away from
// zero), plus the output's zero point, clamped. TFLite requires the output scale 1/256 with zero
// point 0 (uint8) or -128 (int8). nnapi-reference's fixed-point softmax is a step off on rare values.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "CpuKernelList.h"
#include "Elementwise.h"

namespace nnemu::tflite {
namespace kernels::softmax {
namespace {

template <typename T>
void softmaxAs(const CpuKernelCall& call, float beta) {
    const CpuOperand &in = call.in(0), &out = call.out(0);
    std::array<float, 256> table{};
    const float scale = -in.tensor->scale * beta;
    for (int32_t distance = 0; distance <= 255; ++distance) table[255 - distance] = std::exp(scale * static_cast<float>(distance));
    const auto zero = static_cast<int32_t>(out.tensor->zeroPoint);
    const float outScale = out.tensor->scale;
    const size_t depth = static_cast<size_t>(in.shape().back()), rows = depth == 0 ? 0 : in.count() / depth;
    for (size_t r = 0; r < rows; ++r) {
        const size_t base = r * depth;
        int32_t largest = std::numeric_limits<T>::min();
        for (size_t j = 0; j < depth; ++j) largest = std::max<int32_t>(largest, in.at<T>(base + j));
        // Entry of a value: table[255 - (largest - value)].
        const auto entry = [&](size_t j) { return table[static_cast<size_t>(255 - largest + in.at<T>(base + j))]; };
        float sum = 0.0f;
        for (size_t j = 0; j < depth; ++j) sum += entry(j);
        const float inverse = 1.0f / (sum * outScale);
        for (size_t j = 0; j < depth; ++j) {
            const float rescaled = entry(j) * inverse;
            // A table entry is NaN or infinite when scale_in * beta overflows float: the conversion
            // and the zero point's addition then go as on x86 (cvttss2si, int32 wrapping).
            const int32_t rounded = std::is_same_v<T, uint8_t> ? truncateLikeX86<int32_t>(rescaled + 0.5f)
                                                               : truncateLikeX86<int32_t>(std::round(rescaled));
            const auto offset = static_cast<int32_t>(static_cast<uint32_t>(rounded) + static_cast<uint32_t>(zero));
            out.set<T>(base + j, static_cast<T>(std::clamp<int32_t>(offset, std::numeric_limits<T>::min(),
                                                                    std::numeric_limits<T>::max())));
        }
    }
}

}  // namespace

bool prepareQuantized(const CpuKernelCall& call) {
    if (call.params<TfLiteSoftmaxParams>() == nullptr) return call.fail("missing SoftmaxOptions");
    return prepareFixedOutput8(call, 1.0f / 256, "1/256", 0, -128);
}

bool runQuantized(const CpuKernelCall& call) {
    if (!prepareQuantized(call)) return false;
    const float beta = call.params<TfLiteSoftmaxParams>()->beta;
    if (call.in(0).type() == ElementType::UINT8) {
        softmaxAs<uint8_t>(call, beta);
    } else {
        softmaxAs<int8_t>(call, beta);
    }
    return true;
}

}  // namespace kernels::softmax
}  // namespace nnemu::tflite
