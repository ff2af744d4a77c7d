// 16-bit fixed-point arithmetic with gemmlowp's rounding and saturation rules, and its
// logistic and tanh approximations, as QUANTIZED_16BIT_LSTM specifies its gates. A value with
// m integer bits (Qm.(15-m)) is raw / 2^(15-m). Additions and subtractions that gemmlowp does
// not saturate wrap around as int16.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "nnemu/kernels/QuantMath.h"

namespace nnemu::quant::fixed16 {

constexpr int16_t kMax = std::numeric_limits<int16_t>::max();
constexpr int16_t kMin = std::numeric_limits<int16_t>::min();
constexpr int16_t kOneQ0 = kMax;  // the largest value below 1 stands for 1 without integer bits

inline int16_t add(int16_t a, int16_t b) { return static_cast<int16_t>(a + b); }
inline int16_t sub(int16_t a, int16_t b) { return static_cast<int16_t>(a - b); }
inline int16_t neg(int16_t a) { return static_cast<int16_t>(-a); }

inline int16_t saturatingAdd(int16_t a, int16_t b) {
    const int32_t sum = int32_t{a} + b;
    return static_cast<int16_t>(std::clamp<int32_t>(sum, kMin, kMax));
}

// The product of a Qa and a Qb value, as Q(a+b): (a * b * 2) / 2^16 rounded half away from
// zero; (-1) * (-1) saturates.
inline int16_t multiply(int16_t a, int16_t b) {
    if (a == kMin && b == kMin) return kMax;
    const int32_t product = int32_t{a} * b;
    const int32_t nudge = product >= 0 ? (1 << 14) : (1 - (1 << 14));
    return static_cast<int16_t>((product + nudge) / (1 << 15));
}

// x * 2^exponent: saturating when exponent > 0, rounding to nearest when exponent < 0.
inline int16_t multiplyByPOT(int16_t x, int exponent) {
    if (exponent < 0) return static_cast<int16_t>(roundingDivideByPOT(x, -exponent));
    const int32_t limit = (1 << (15 - exponent)) - 1;
    if (x > limit) return kMax;
    if (x < -limit) return kMin;
    return static_cast<int16_t>(x * (1 << exponent));
}

// The same value with another number of integer bits.
inline int16_t rescale(int16_t x, int fromIntegerBits, int toIntegerBits) {
    return multiplyByPOT(x, fromIntegerBits - toIntegerBits);
}

// (a + b) / 2 rounded half away from zero.
inline int16_t roundingHalfSum(int16_t a, int16_t b) {
    const int32_t sum = int32_t{a} + b;
    return static_cast<int16_t>((sum + (sum >= 0 ? 1 : -1)) / 2);
}

// A real constant with `integerBits` integer bits, rounded to nearest.
inline int16_t fromReal(double value, int integerBits) {
    return static_cast<int16_t>(std::lround(std::ldexp(value, 15 - integerBits)));
}

// exp(a) for a in [-1/4, 0), Q0 in and out: a Taylor polynomial of degree 4 around -1/8.
inline int16_t expOnQuarterInterval(int16_t a) {
    static const int16_t kExpMinusEighth = fromReal(std::exp(-0.125), 0);
    static const int16_t kOneThird = fromReal(1.0 / 3.0, 0);
    const int16_t x = add(a, 1 << 12);  // a + 1/8
    const int16_t x2 = multiply(x, x);
    const int16_t x3 = multiply(x2, x);
    const int16_t x4 = multiply(x2, x2);
    // x^2/2 + x^3/6 + x^4/24 = ((x^4/4 + x^3) / 3 + x^2) / 2
    const int16_t higherTerms = multiplyByPOT(add(multiply(add(multiplyByPOT(x4, -2), x3), kOneThird), x2), -1);
    return saturatingAdd(kExpMinusEighth, multiply(kExpMinusEighth, add(x, higherTerms)));
}

// exp(a) for a <= 0 given with `integerBits` integer bits, as Q0: the polynomial on a mod 1/4,
// times exp(-2^k) for each bit k of the rest.
inline int16_t expOnNegativeValues(int16_t a, int integerBits) {
    static const int16_t kExpMinusPowersOfTwo[] = {  // exp(-2^k) for k = -2 .. 4
            fromReal(std::exp(-0.25), 0), fromReal(std::exp(-0.5), 0), fromReal(std::exp(-1.0), 0),
            fromReal(std::exp(-2.0), 0),  fromReal(std::exp(-4.0), 0), fromReal(std::exp(-8.0), 0),
            fromReal(std::exp(-16.0), 0)};
    const int fractionalBits = 15 - integerBits;
    const auto quarter = static_cast<int16_t>(1 << (fractionalBits - 2));
    const int16_t moduloMinusQuarter = sub(static_cast<int16_t>(a & (quarter - 1)), quarter);
    int16_t result = expOnQuarterInterval(rescale(moduloMinusQuarter, integerBits, 0));
    const int16_t rest = sub(moduloMinusQuarter, a);
    for (int k = -2; k <= 4 && k < integerBits; ++k) {
        if (rest & (1 << (fractionalBits + k))) result = multiply(result, kExpMinusPowersOfTwo[k + 2]);
    }
    if (integerBits > 5 && a < -(1 << (fractionalBits + 5))) result = 0;  // exp(x < -32) is 0 in Q0
    return a == 0 ? kOneQ0 : result;
}

// 2 / (1 + a) as Q2 for a in (0, 1) given as Q0: Newton-Raphson for the inverse of
// (1 + a) / 2, starting from 48/17 - 32/17 * d.
inline int16_t twoOverOnePlus(int16_t a) {
    static const int16_t k48Over17 = fromReal(48.0 / 17.0, 2);
    static const int16_t kMinus32Over17 = fromReal(-32.0 / 17.0, 2);
    constexpr int16_t kOneQ2 = 1 << 13;
    const int16_t halfDenominator = roundingHalfSum(a, kOneQ0);
    int16_t x = add(k48Over17, multiply(halfDenominator, kMinus32Over17));
    for (int i = 0; i < 3; ++i) {
        const int16_t error = sub(kOneQ2, multiply(halfDenominator, x));
        x = add(x, rescale(multiply(x, error), 4, 2));
    }
    return x;
}

// tanh(a) for a with `integerBits` integer bits, as Q0: (1 - e) / (1 + e) with e = exp(-2|a|).
inline int16_t tanh(int16_t a, int integerBits) {
    if (a == 0) return 0;
    const int16_t negativeMagnitude = a < 0 ? a : neg(a);
    // Doubling the value is one more integer bit on the same raw integer.
    const int16_t e = expOnNegativeValues(negativeMagnitude, integerBits + 1);
    const int16_t magnitude = rescale(sub(twoOverOnePlus(e), 1 << 13), 2, 0);
    return a < 0 ? neg(magnitude) : magnitude;
}

// logistic(a) = 1 / (1 + exp(-a)) for a with `integerBits` integer bits, as Q0.
inline int16_t logistic(int16_t a, int integerBits) {
    if (a == 0) return 1 << 14;  // 1/2
    const int16_t magnitude = a > 0 ? a : neg(a);
    const int16_t e = expOnNegativeValues(neg(magnitude), integerBits);
    // 1 / (1 + e) is half of 2 / (1 + e): read the Q2 raw value as Q1, then rescale to Q0.
    const int16_t positive = rescale(twoOverOnePlus(e), 1, 0);
    return a > 0 ? positive : sub(kOneQ0, positive);
}

}  // namespace nnemu::quant::fixed16
