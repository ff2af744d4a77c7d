// IEEE 754 binary16 helpers for the conformance runner (own implementation, kept separate
// from the runtime's so that a conversion bug there cannot hide behind the same code here).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace nnemu::conformance {

// float -> binary16 bits, round to nearest, ties to even (what assigning a float to _Float16 does).
inline uint16_t floatToFp16Bits(float value) {
    uint32_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
    const uint32_t magnitude = bits & 0x7fffffffu;
    if (magnitude > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);  // NaN
    if (magnitude >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65520: inf
    if (magnitude < 0x38800000u) {
        // Below the smallest normal half (2^-14): the result is a multiple of 2^-24.
        float absValue = 0.0f;
        std::memcpy(&absValue, &magnitude, sizeof absValue);
        const float units = std::nearbyint(absValue * 16777216.0f);  // exact scaling, RNE rounding
        return static_cast<uint16_t>(sign | static_cast<uint16_t>(units));
    }
    // Normal: rebias the exponent (127 -> 15) and drop 13 mantissa bits with RNE; a carry out
    // of the mantissa correctly bumps the exponent.
    const uint32_t rebased = magnitude - (112u << 23);
    const uint32_t rounded = (rebased + 0x0fffu + ((rebased >> 13) & 1u)) >> 13;
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(rounded));
}

inline float fp16BitsToFloat(uint16_t half) {
    const bool negative = (half & 0x8000u) != 0;
    const int exponent = (half >> 10) & 0x1f;
    const int mantissa = half & 0x3ff;
    float magnitude;
    if (exponent == 0x1f) {
        magnitude = mantissa == 0 ? INFINITY : NAN;
    } else if (exponent == 0) {
        magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    } else {
        magnitude = std::ldexp(static_cast<float>(1024 + mantissa), exponent - 25);
    }
    return negative ? -magnitude : magnitude;
}

// Rounds a float to the nearest representable binary16 value (returned as float).
inline float roundToFp16(float value) {
    return fp16BitsToFloat(floatToFp16Bits(value));
}

}  // namespace nnemu::conformance
