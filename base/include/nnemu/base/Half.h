// IEEE binary16 <-> binary32 conversion (storage type uint16_t), round to nearest even.
#pragma once

#include <cstdint>
#include <cstring>

namespace nnemu::base {

inline float halfToFloat(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t exponent = (h >> 10) & 0x1fu;
    uint32_t mantissa = h & 0x3ffu;
    uint32_t bits;
    if (exponent == 0x1f) {
        bits = sign | 0x7f800000u | (mantissa << 13);
    } else if (exponent != 0) {
        bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
    } else if (mantissa == 0) {
        bits = sign;
    } else {  // subnormal: normalise
        exponent = 113;
        while ((mantissa & 0x400u) == 0) {
            mantissa <<= 1;
            --exponent;
        }
        bits = sign | (exponent << 23) | ((mantissa & 0x3ffu) << 13);
    }
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

inline uint16_t floatToHalf(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
    const uint32_t absBits = bits & 0x7fffffffu;
    if (absBits >= 0x7f800000u) {  // inf or nan
        return sign | 0x7c00u | (absBits > 0x7f800000u ? 0x200u : 0u);
    }
    if (absBits >= 0x477ff000u) return sign | 0x7c00u;  // rounds to infinity
    if (absBits < 0x38800000u) {                        // subnormal or zero in half
        if (absBits < 0x33000000u) return sign;          // below half of the smallest subnormal
        const uint32_t exponent = absBits >> 23;
        const uint32_t mantissa = (absBits & 0x7fffffu) | 0x800000u;
        const uint32_t shift = 126 - exponent;  // 14..24
        uint32_t result = mantissa >> shift;
        const uint32_t remainder = mantissa & ((1u << shift) - 1);
        const uint32_t halfway = 1u << (shift - 1);
        if (remainder > halfway || (remainder == halfway && (result & 1u))) ++result;
        return sign | static_cast<uint16_t>(result);
    }
    uint32_t result = ((absBits - 0x38000000u) >> 13);
    const uint32_t remainder = absBits & 0x1fffu;
    if (remainder > 0x1000u || (remainder == 0x1000u && (result & 1u))) ++result;
    return sign | static_cast<uint16_t>(result);
}

}  // namespace nnemu::base
