#include "HybridQuantization.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "CpuKernel.h"

namespace nnemu::tflite::kernels::hybrid {

RowQuantization quantizeSymmetric(const float* values, size_t size, int8_t* quantized) {
    if (size == 0) return {};
    const auto [low, high] = std::minmax_element(values, values + size);
    const float range = std::max(std::abs(*low), std::abs(*high));
    if (range == 0) {
        std::fill(quantized, quantized + size, int8_t{0});
        return {};
    }
    const float inverse = 127.0f / range;
    for (size_t i = 0; i < size; ++i) {
        // NaN or infinite inputs (range infinite): converted as on x86, like TFLite's cast.
        const auto q = truncateLikeX86<int32_t>(std::round(values[i] * inverse));
        quantized[i] = static_cast<int8_t>(std::clamp(q, -127, 127));
    }
    return {range / 127.0f, 0};
}

RowQuantization quantizeAsymmetric(const float* values, size_t size, int8_t* quantized) {
    if (size == 0) return {};
    const auto [low, high] = std::minmax_element(values, values + size);
    const double rmin = std::min(0.0f, *low), rmax = std::max(0.0f, *high);
    if (rmin == rmax) {
        std::fill(quantized, quantized + size, int8_t{0});
        return {1, 0};
    }
    const double qmin = -128, qmax = 127;
    const double scale = (rmax - rmin) / (qmax - qmin);
    const double fromMin = qmin - rmin / scale, fromMax = qmax - rmax / scale;
    const double zeroPoint =
            std::abs(qmin) + std::abs(rmin / scale) < std::abs(qmax) + std::abs(rmax / scale) ? fromMin : fromMax;
    int32_t nudged = 0;
    if (zeroPoint <= qmin) {
        nudged = -128;
    } else if (zeroPoint >= qmax) {
        nudged = 127;
    } else {
        // TFLite keeps the nudged zero point in an int8: a NaN (a row with an infinity) converts
        // as on x86 to INT32_MIN, whose low byte makes it 0.
        nudged = truncateLikeX86<int8_t>(std::round(zeroPoint));
    }
    const RowQuantization row{static_cast<float>(scale), nudged};
    const float inverse = 1.0f / row.scale;
    for (size_t i = 0; i < size; ++i) {
        const auto q = truncateLikeX86<int32_t>(std::round(static_cast<float>(row.offset) + values[i] * inverse));
        quantized[i] = static_cast<int8_t>(std::clamp(q, -128, 127));
    }
    return row;
}

float activated(float value, TfLiteFusedActivation activation) {
    switch (activation) {
        case kTfLiteActRelu: return std::max(0.0f, value);
        case kTfLiteActReluN1To1: return std::clamp(value, -1.0f, 1.0f);
        case kTfLiteActRelu6: return std::clamp(value, 0.0f, 6.0f);
        default: return value;
    }
}

float activatedWithMinMax(float value, TfLiteFusedActivation activation) {
    float low = std::numeric_limits<float>::lowest(), high = std::numeric_limits<float>::max();
    switch (activation) {
        case kTfLiteActRelu: low = 0.0f; break;
        case kTfLiteActReluN1To1: low = -1.0f, high = 1.0f; break;
        case kTfLiteActRelu6: low = 0.0f, high = 6.0f; break;
        default: break;
    }
    return std::min(std::max(value, low), high);   // TFLite's order: a NaN passes
}

}  // namespace nnemu::tflite::kernels::hybrid
