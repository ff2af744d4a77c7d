// The float approximations of tanh, exp and erfc that Eigen (the version TensorFlow Lite 2.21
// is built with, no FMA) evaluates where TFLite's kernels call Eigen's array functions, e.g.
// the float GELU. Results equal TFLite's bit for bit (checked against the real TFLite by
// tests/tflite/RealTfliteElementwiseTest.cpp), which the C library's functions do not (up to 7
// ULP apart, and tanh saturates earlier). Written from the published rational/polynomial
// coefficients; each step rounds as Eigen's does without FMA (a multiply, then an add). No
// branches or calls, so loops over them vectorize.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>

namespace nnemu::tflite::eigen {

// Horner's rule from the highest coefficient: ((c0 x + c1) x + c2) ...
// Unrolled at compile time (a fold over the indices): a loop left in here keeps the callers'
// element loops from vectorizing.
template <int N, size_t... I>
inline float polynomialSteps(float x, const float (&c)[N], std::index_sequence<I...>) {
    float r = c[0];
    ((r = r * x + c[I + 1]), ...);
    return r;
}
template <int N>
inline float polynomial(float x, const float (&c)[N]) {
    return polynomialSteps(x, c, std::make_index_sequence<N - 1>{});
}

// x clamped to [low, high]; NaN passes (as through Eigen's pmin/pmax on x86).
inline float clampTo(float x, float low, float high) {
    const float upper = x > high ? high : x;
    return upper < low ? low : upper;
}

// tanh: a [9/8] odd/even rational on x clamped to the point where it reaches exactly +-1.
inline float tanh(float value) {
    constexpr float kClamp = 7.90738964080810547f;
    constexpr float kNumerator[] = {1.394553628e-8f, 2.102733560e-5f, 3.520756727e-3f, 1.340216100e-1f};
    constexpr float kDenominator[] = {8.015776984e-7f, 3.326951409e-4f, 2.597254514e-2f, 4.673548340e-1f, 1.0f};
    const float x = clampTo(value, -kClamp, kClamp);
    const float x2 = x * x;
    const float x3 = x2 * x;
    const float p = x3 * polynomial(x2, kNumerator) + x;
    return p / polynomial(x2, kDenominator);
}

// 2^k for k in [-126, 127], from its bits.
inline float powerOfTwo(int32_t k) {
    const uint32_t bits = static_cast<uint32_t>(k + 127) << 23;
    float result;
    std::memcpy(&result, &bits, sizeof(result));
    return result;
}

// exp: x = m ln 2 + r with m = floor(x log2(e) + 1/2) (ln 2 subtracted in two parts), a degree-6
// polynomial for exp(r), scaled by 2^m (in two exact steps, so only the last can round); 0
// below -104, x clamped to 88.723 above (and to -104 below, so that m stays a small integer: the
// result there is 0 anyway; a NaN takes the upper bound and comes out NaN).
inline float exp(float value) {
    const float x = value < 88.723f ? (value > -104.0f ? value : -104.0f) : 88.723f;
    const float t = x * 1.44269504088896341f + 0.5f;
    float m = static_cast<float>(static_cast<int32_t>(t));   // floor: t lies well within int32
    m = m > t ? m - 1.0f : m;
    float r = m * -0.693359375f + x;
    r = m * 2.12194440e-4f + r;
    const float r2 = r * r;
    float even = r2 * 1.37449637986719608306884765625e-3f + 4.166965186595916748046875e-2f;
    const float odd = r2 * 8.36894474923610687255859375e-3f + 0.16666518151760101318359375f;
    even = r2 * even + 0.49999988079071044921875f;
    float y = r * odd + even;
    y = r2 * y + (r + 1.0f);
    const auto k = static_cast<int32_t>(m);
    const int32_t half = k / 2;
    const float scaled = y * powerOfTwo(half) * powerOfTwo(k - half);
    const float result = scaled > value ? scaled : value;
    return value < -104.0f ? 0.0f : result;
}

// erfc: 1 + x P(x^2) for |x| <= 1; beyond, exp(-x^2) (with the rounding error of x^2 folded in)
// times a [3/4] rational in 1/x^2 over x, plus 2 for negative x; x clamped to [-11, 11].
// erfc's clamped argument; erfcNeedsLarge: whether erfc takes its large-argument branch there
// (x^2 > 1); erfcSmall: erfc's value where it does not (the same bits as erfc then).
inline float erfcArgument(float value) { return clampTo(value, -11.0f, 11.0f); }
inline bool erfcNeedsLarge(float value) {
    const float x = erfcArgument(value);
    return 1.0f < x * x;
}
inline float erfcSmall(float value) {
    constexpr float kSmall[] = {5.61802298761904239654541015625e-04f, -4.91381669417023658752441406250e-03f,
                                2.67075151205062866210937500000e-02f, -1.12800106406211853027343750000e-01f,
                                3.76122951507568359375000000000e-01f, -1.12837910652160644531250000000e+00f};
    const float x = erfcArgument(value);
    return x * polynomial(x * x, kSmall) + 1.0f;
}

inline float erfc(float value) {
    constexpr float kNumerator[] = {1.0208116471767425537109375e-01f, 4.2920666933059692382812500e-01f,
                                    3.2379078865051269531250000e-01f, 5.3971976041793823242187500e-02f};
    constexpr float kDenominator[] = {1.7251677811145782470703125e-02f, 3.9137163758277893066406250e-01f,
                                      1.0000000000000000000000000e+00f, 6.2173241376876831054687500e-01f,
                                      9.5662862062454223632812500e-02f};
    const float x = erfcArgument(value);
    const float x2 = x * x;
    const float small = erfcSmall(value);
    // The exact low part of x * x: a fused multiply-add rounds the exact x * x - x2 once, as
    // converting the exact double difference to float does (one instruction in the FMA builds of
    // the callers' loops, where the double form halved their vector width).
    const float low = std::fma(x, x, -x2);
    const float e = eigen::exp(-x2);
    const float z = e - e * low;
    const float q = 1.0f / x2;
    const float ratio = polynomial(q, kNumerator) / (x * polynomial(q, kDenominator));
    const float large = z * ratio + (x < 0.0f ? 2.0f : 0.0f);
    return 1.0f < x2 ? large : small;
}

// logistic as Eigen evaluates it on a whole packet: e = exp(x / 2)^2, then e / (1 + e). x is
// clamped to 16.6355324 above (a NaN passes) and halved; x / 2 = m ln 2 + r with
// m = floor(x / 2 log2(e) + 1/2) (ln 2 subtracted in two parts), a degree-5 polynomial for
// exp(r) (even and odd terms apart), scaled by 2^m in one step (m >= -75 keeps it normal),
// squared; 0 below -104. A denormal square is flushed to zero, as in TFLite, by the flags the
// tools' invoke sets (DenormalFlush.h), not here: that alone gives TFLite's bits. (Clamped to -104
// below too, where the result is 0 anyway, so that m stays a small integer.)
inline float logistic(float value) {
    const float clamped = value > 16.6355324f ? 16.6355324f : value;
    const float x = (clamped > -104.0f ? clamped : -104.0f) * 0.5f;   // a NaN takes -104 (returned below)
    const float t = x * 1.44269504088896341f + 0.5f;
    float m = static_cast<float>(static_cast<int32_t>(t));   // floor: t lies within [-75.5, 12.5]
    m = m > t ? m - 1.0f : m;
    float r = m * -0.693359375f + x;
    r = m * 2.12194440e-4f + r;
    const float r2 = r * r;
    const float even = r2 * 4.1898667812347412109375e-2f + 0.49999141693115234375f;
    const float odd = r2 * 8.33471305668354034423828125e-3f + 0.16666877269744873046875f;
    float p = r * odd + even;
    p = r2 * p + (r + 1.0f);
    float e = p * powerOfTwo(static_cast<int32_t>(m));
    e = e * e;
    const float result = e / (1.0f + e);
    return value < -104.0f ? 0.0f : (value == value ? result : value);
}

// logistic as Eigen evaluates a single element (the 0-3 after the last whole packet): the C
// library's expf of x clamped to 16.6355324 above (denormal flushed by the invoke's flags), over
// 1 + that.
inline float logisticScalar(float value) {
    const float e = std::exp(16.6355324f < value ? 16.6355324f : value);
    return e / (1.0f + e);
}

}  // namespace nnemu::tflite::eigen
