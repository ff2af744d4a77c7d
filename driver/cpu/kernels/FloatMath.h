// Float transcendental functions of the element-wise kernels (TANH, LOGISTIC, SOFTMAX's
// exponentials) and HARD_SWISH,
// evaluated in double without branches or library calls, so that the loops over whole tensors
// vectorize (FloatMath.cpp builds them for AVX-512, AVX2 and the baseline, chosen once at load;
// every variant gives the same bits). Rounded once to float from a double result accurate to
// about 1e-11, so within 1 ULP of the exact value (tests/unit/FloatMathTest.cpp sweeps them
// against the C library's double functions). Quantized kernels keep the C library's float
// functions: their integer results must not move.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace nnemu::cpu::floatmath {

// e^x for x in [-700, 700], relative error below 1e-11: x = n ln 2 + r with n = round(x log2 e)
// (found by adding 1.5 * 2^52, which also leaves n in the low bits), ln 2 subtracted in two parts
// (n * kLn2High is exact), e^r by its Taylor series to degree 9 (|r| <= 0.35), times 2^n
// built from n's bits. Float results need only the error to stay far below half an ULP (3e-8).
inline double expInRange(double x) {
    constexpr double kLog2e = 1.4426950408889634074;
    constexpr double kShifter = 6755399441055744.0;   // 1.5 * 2^52
    constexpr double kLn2High = 6.93147180369123816490e-01, kLn2Low = 1.90821492927058770002e-10;
    const double shifted = x * kLog2e + kShifter;
    const double n = shifted - kShifter;
    const double r = (x - n * kLn2High) - n * kLn2Low;
    double p = 1.0 / 362880;   // 1/9!
    p = p * r + 1.0 / 40320;
    p = p * r + 1.0 / 5040;
    p = p * r + 1.0 / 720;
    p = p * r + 1.0 / 120;
    p = p * r + 1.0 / 24;
    p = p * r + 1.0 / 6;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    // shifted's low bits hold n (two's complement): 2^n's exponent field is n + 1023.
    uint64_t bits;
    std::memcpy(&bits, &shifted, sizeof(bits));
    bits = (bits + 1023) << 52;
    double scale;
    std::memcpy(&scale, &bits, sizeof(scale));
    return p * scale;
}

// e^x: x clamped to [-104, 89], beyond which the result rounds to 0 and to infinity in float.
// NaN stays NaN.
inline float exp(float value) {
    double x = value;
    x = x > 89.0 ? 89.0 : x;   // written so that NaN passes
    x = x < -104.0 ? -104.0 : x;
    return static_cast<float>(expInRange(x));
}

// tanh: an odd Taylor polynomial to degree 7 below |x| = 1/16 (error below 2e-11), above it
// 1 - 2 / (e^(2|x|) + 1) (|x| clamped to 10, where tanh rounds to 1 in float); the sign put
// back. NaN stays NaN.
inline float tanh(float value) {
    const double x = value;
    double t = x < 0 ? -x : x;
    t = t > 10.0 ? 10.0 : t;   // written so that NaN passes
    const double t2 = t * t;
    double series = -17.0 / 315;
    series = series * t2 + 2.0 / 15;
    series = series * t2 - 1.0 / 3;
    series = series * t2 * t + t;
    const double large = 1.0 - 2.0 / (expInRange(2.0 * t) + 1.0);
    const double magnitude = t < 0.0625 ? series : large;
    return static_cast<float>(std::copysign(magnitude, x));
}

// logistic 1 / (1 + e^-x): -x clamped to [-40, 110], where the result rounds to 1 and to 0 in
// float. NaN stays NaN.
inline float logistic(float value) {
    double m = -static_cast<double>(value);
    m = m > 110.0 ? 110.0 : m;
    m = m < -40.0 ? -40.0 : m;
    return static_cast<float>(1.0 / (1.0 + expInRange(m)));
}

// hard_swish x * relu6(x + 3) / 6 in double (NaN stays NaN).
inline double hardSwish(double x) {
    double gate = x + 3.0;
    gate = gate < 0.0 ? 0.0 : gate;
    gate = gate > 6.0 ? 6.0 : gate;
    return x * gate / 6.0;
}
inline float hardSwish(float value) { return static_cast<float>(hardSwish(static_cast<double>(value))); }

// The functions over n floats (in and out may be the same array).
void exp(const float* in, float* out, size_t n);
void tanh(const float* in, float* out, size_t n);
void logistic(const float* in, float* out, size_t n);
void hardSwish(const float* in, float* out, size_t n);

}  // namespace nnemu::cpu::floatmath
