// Quantized LOG_SOFTMAX (uint8, int8) as TFLite's builtin kernel computes it, over the last
// dimension: a float table of exp(-scale_in * d) for the 256 distances d to the row's maximum,
// their sum's log, then (scale_in * (q - max) - log(sum)) / scale_out rounded to nearest even,
// plus the output's zero point, clamped. TFLite requires the output scale 16/256 and zero point
// 255 (uint8) or 127 (int8). NNAPI's LOG_SOFTMAX is float only.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "CpuKernelList.h"
#include "Elementwise.h"

namespace nnemu::tflite {
namespace kernels::log_softmax {
namespace {

template <typename T>
void logSoftmaxAs(const CpuKernelCall& call) {
    const CpuOperand &in = call.in(0), &out = call.out(0);
    const float scaleIn = in.tensor->scale, scaleOut = out.tensor->scale;
    // Per distance to the maximum d = 255 - index: exp(-scale_in * d).
    std::array<float, 256> table{};
    for (int32_t value = 0; value <= 255; ++value) table[255 - value] = std::exp(-scaleIn * static_cast<float>(value));
    const int32_t offset = std::is_same_v<T, int8_t> ? 128 : 0;
    const size_t depth = static_cast<size_t>(in.shape().back()), rows = depth == 0 ? 0 : in.count() / depth;
    for (size_t r = 0; r < rows; ++r) {
        const size_t base = r * depth;
        T largest = std::numeric_limits<T>::min();
        for (size_t j = 0; j < depth; ++j) largest = std::max(largest, in.at<T>(base + j));
        float sum = 0.0f;
        const int32_t shift = 255 - (largest + offset);
        for (size_t j = 0; j < depth; ++j) sum += table[static_cast<size_t>(shift + in.at<T>(base + j) + offset)];
        const float logSum = std::log(sum);
        const float scale = scaleIn / scaleOut;
        const float precomputed = (scaleIn * static_cast<float>(largest + offset) + logSum) / scaleOut;
        for (size_t j = 0; j < depth; ++j) {
            const float logProb = scale * static_cast<float>(in.at<T>(base + j) + offset) - precomputed;
            // NaN or beyond int32 where the input scale overflows the products: converted as
            // cvttss2si, the zero point added in int32 wrapping, as TFLite's x86 build.
            const auto q = static_cast<int32_t>(static_cast<uint32_t>(truncateLikeX86<int32_t>(std::rint(logProb))) +
                                                static_cast<uint32_t>(out.tensor->zeroPoint));
            out.set<T>(base + j, static_cast<T>(std::clamp<int32_t>(q, std::numeric_limits<T>::min(),
                                                                      std::numeric_limits<T>::max())));
        }
    }
}

}  // namespace

bool prepareQuantized(const CpuKernelCall& call) { return prepareFixedOutput8(call, 16.0f / 256, "16/256", 255, 127); }

bool runQuantized(const CpuKernelCall& call) {
    if (!prepareQuantized(call)) return false;
    if (call.in(0).type() == ElementType::UINT8) {
        logSoftmaxAs<uint8_t>(call);
    } else {
        logSoftmaxAs<int8_t>(call);
    }
    return true;
}

}  // namespace kernels::log_softmax
}  // namespace nnemu::tflite
