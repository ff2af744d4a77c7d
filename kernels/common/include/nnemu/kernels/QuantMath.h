// Fixed-point helpers for quantized kernels (the reference kernels, the NPU core's own kernels
// and the TFLite tools' CPU kernels), with TFLite's rounding semantics
// (a real multiplier is a Q31 integer and a shift; products round half away from zero).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace nnemu::quant {

// real = quantized * 2^shift / 2^31, quantized in [2^30, 2^31). shift may be negative.
inline void quantizeMultiplier(double real, int32_t* quantized, int* shift) {
    if (real == 0.0) {
        *quantized = 0;
        *shift = 0;
        return;
    }
    const double q = std::frexp(real, shift);
    if (!std::isfinite(q)) {
        // A ratio of scales that overflowed to infinity (or a NaN): TFLite's conversion of it on
        // x86 gives INT64_MIN, whose low 32 bits make a multiplier of 0 (and glibc's frexp an
        // exponent of 0); here without the undefined conversion.
        *quantized = 0;
        *shift = 0;
        return;
    }
    auto q31 = static_cast<int64_t>(std::round(q * (1LL << 31)));
    if (q31 == (1LL << 31)) {
        q31 /= 2;
        ++*shift;
    }
    if (*shift < -31) {
        *shift = 0;
        q31 = 0;
    }
    *quantized = static_cast<int32_t>(q31);
}

// For a real multiplier < 1: returns the Q31 value and a right shift >= 0.
inline void quantizeMultiplierSmallerThanOne(double real, int32_t* quantized, int* rightShift) {
    int shift = 0;
    quantizeMultiplier(real, quantized, &shift);
    *rightShift = -shift;
}

// (a * b * 2) >> 32 with rounding, saturating the single overflow case.
inline int32_t saturatingRoundingDoublingHighMul(int32_t a, int32_t b) {
    if (a == b && a == std::numeric_limits<int32_t>::min()) return std::numeric_limits<int32_t>::max();
    const int64_t ab = static_cast<int64_t>(a) * static_cast<int64_t>(b);
    const int32_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
    return static_cast<int32_t>((ab + nudge) / (1LL << 31));
}

// Divides by 2^exponent rounding half away from zero.
inline int32_t roundingDivideByPOT(int32_t x, int exponent) {
    const int32_t mask = static_cast<int32_t>((1LL << exponent) - 1);
    const int32_t remainder = x & mask;
    const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

inline int32_t saturateToInt32(int64_t value) {
    return static_cast<int32_t>(std::clamp<int64_t>(value, std::numeric_limits<int32_t>::min(),
                                                    std::numeric_limits<int32_t>::max()));
}

// An accumulator plus a bias, saturating instead of overflowing on extreme values.
inline int32_t saturatingAdd(int32_t a, int32_t b) { return saturateToInt32(int64_t{a} + b); }

// x * real_multiplier, where (quantized, shift) came from quantizeMultiplier. A left shift that
// would overflow saturates (only absurd multipliers get there).
inline int32_t multiplyByQuantizedMultiplier(int32_t x, int32_t quantized, int shift) {
    const int leftShift = std::clamp(shift, 0, 31);
    const int rightShift = std::clamp(-shift, 0, 31);
    return roundingDivideByPOT(
            saturatingRoundingDoublingHighMul(saturateToInt32(int64_t{x} * (int64_t{1} << leftShift)), quantized),
            rightShift);
}

// round(scaled) + zeroPoint, clamped to [qmin, qmax] before it becomes an integer: extreme (but
// valid) scales make `scaled` huge or infinite, and NaN gives the zero point.
inline int32_t quantizeSaturated(double scaled, int32_t zeroPoint, int32_t qmin, int32_t qmax) {
    if (std::isnan(scaled)) return std::clamp(zeroPoint, qmin, qmax);
    return static_cast<int32_t>(std::clamp(std::round(scaled) + zeroPoint, static_cast<double>(qmin), static_cast<double>(qmax)));
}

// quantizeSaturated of a float, for clamp ranges and zero points inside +-2^29, without the C
// library's round: the integer part by truncation (|v| clamped to 2^30 first) and the
// fraction, exact in float, compared with 0.5: the same round half away from zero
// (tests/unit/QuantizeFloatTest.cpp), which inlines where round() is a call.
inline int32_t quantizeSaturatedFloat(float v, int32_t zeroPoint, int32_t qmin, int32_t qmax) {
    if (std::isnan(v)) return std::clamp(zeroPoint, qmin, qmax);
    constexpr float kLimit = 1073741824.0f;   // 2^30
    v = std::clamp(v, -kLimit, kLimit);
    const int32_t whole = static_cast<int32_t>(v);
    const float fraction = v - static_cast<float>(whole);
    const int32_t rounded = whole + (fraction >= 0.5f ? 1 : 0) - (fraction <= -0.5f ? 1 : 0);
    return static_cast<int32_t>(std::clamp<int64_t>(int64_t{rounded} + zeroPoint, qmin, qmax));
}

// Clamp range in the quantized domain for a fused activation (FuseCode 0..3).
inline void quantizedActivationRange(int32_t fuse, float scale, int32_t zeroPoint, int32_t qmin,
                                     int32_t qmax, int32_t* low, int32_t* high) {
    auto quantize = [&](float f) { return quantizeSaturated(f / scale, zeroPoint, qmin, qmax); };
    *low = qmin;
    *high = qmax;
    if (fuse == 1) {
        *low = std::max(qmin, quantize(0.0f));
    } else if (fuse == 2) {
        *low = std::max(qmin, quantize(-1.0f));
        *high = std::min(qmax, quantize(1.0f));
    } else if (fuse == 3) {
        *low = std::max(qmin, quantize(0.0f));
        *high = std::min(qmax, quantize(6.0f));
    }
}

// A float activation clamp, as every reference kernel applies it (RELU, RELU1, RELU6 and the
// fused activations): a NaN stays NaN, an infinity beyond a bound becomes the bound, and every
// other value is clamped into [low, high]. The comparisons are written out because
// std::max(0.0f, x) would turn a NaN into 0 while std::clamp and min(max(x, lo), hi) keep it.
inline float activationClamp(float value, float low, float high) {
    if (value < low) return low;
    if (value > high) return high;
    return value;
}

// Clamp range in float for a fused activation (FuseCode 0..3).
inline void floatActivationRange(int32_t fuse, float* low, float* high) {
    *low = -std::numeric_limits<float>::infinity();
    *high = std::numeric_limits<float>::infinity();
    if (fuse == 1) {
        *low = 0.0f;
    } else if (fuse == 2) {
        *low = -1.0f;
        *high = 1.0f;
    } else if (fuse == 3) {
        *low = 0.0f;
        *high = 6.0f;
    }
}

}  // namespace nnemu::quant
