#include "HybridQuantization.h"

#include <algorithm>
#include <cmath>

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
        const auto q = static_cast<int32_t>(std::round(values[i] * inverse));
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
        nudged = static_cast<int32_t>(std::round(zeroPoint));
    }
    const RowQuantization row{static_cast<float>(scale), nudged};
    const float inverse = 1.0f / row.scale;
    for (size_t i = 0; i < size; ++i) {
        const auto q = static_cast<int32_t>(std::round(static_cast<float>(row.offset) + values[i] * inverse));
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

}  // namespace nnemu::tflite::kernels::hybrid
