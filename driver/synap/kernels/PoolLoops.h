// The pools' loops, written once for the compiler to vectorize over channels: each Pool*.cpp
// includes it under its own instruction set. Internal linkage, so that the copies stay apart.
#pragma once

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "QuantPool.h"

namespace nnemu::synap::kernels {
namespace {

template <typename T>
void maxRowsOf(const MaxPoolSpec& s, const uint8_t* input, uint8_t* output, size_t begin, size_t end) {
    const T* in = reinterpret_cast<const T*>(input);
    T* out = reinterpret_cast<T*>(output);
    const size_t c = s.channels;
    const T low = static_cast<T>(s.low), high = static_cast<T>(s.high), empty = static_cast<T>(s.zeroPoint);
    for (size_t row = begin; row < end; ++row) {
        const size_t b = row / s.outHeight, oy = row % s.outHeight;
        const int64_t y0 = int64_t(oy) * s.strideHeight - s.padTop;
        const size_t yBegin = size_t(std::max<int64_t>(y0, 0));
        const size_t yEnd = size_t(std::clamp<int64_t>(y0 + s.poolHeight, 0, s.inHeight));
        for (size_t ox = 0; ox < s.outWidth; ++ox) {
            const int64_t x0 = int64_t(ox) * s.strideWidth - s.padLeft;
            const size_t xBegin = size_t(std::max<int64_t>(x0, 0));
            const size_t xEnd = size_t(std::clamp<int64_t>(x0 + s.poolWidth, 0, s.inWidth));
            T* o = out + ((row * s.outWidth) + ox) * c;
            if (yBegin >= yEnd || xBegin >= xEnd) {
                std::fill(o, o + c, std::clamp(empty, low, high));
                continue;
            }
            std::fill(o, o + c, low);  // max(values, low) is the clamp from below
            for (size_t y = yBegin; y < yEnd; ++y) {
                for (size_t x = xBegin; x < xEnd; ++x) {
                    const T* v = in + ((b * s.inHeight + y) * s.inWidth + x) * c;
                    for (size_t k = 0; k < c; ++k) o[k] = std::max(o[k], v[k]);
                }
            }
            for (size_t k = 0; k < c; ++k) o[k] = std::min(o[k], high);
        }
    }
}

void maxRows(const MaxPoolSpec& s, const uint8_t* input, uint8_t* output, size_t begin, size_t end) {
    if (s.signedValues) return maxRowsOf<int8_t>(s, input, output, begin, end);
    maxRowsOf<uint8_t>(s, input, output, begin, end);
}

// Channels in blocks of 64 summed in a local array, which no input store can alias.
template <typename T, size_t kBlock>
void sumBlock(const T* in, size_t pixels, size_t channels, size_t width, int32_t* sums) {
    int32_t acc[kBlock] = {};
    for (size_t p = 0; p < pixels; ++p) {
        const T* row = in + p * channels;
        for (size_t k = 0; k < (kBlock ? kBlock : width); ++k) acc[k] += row[k];
    }
    std::copy(acc, acc + (kBlock ? kBlock : width), sums);
}

template <typename T>
void sumPixelsOf(const uint8_t* input, size_t pixels, size_t channels, int32_t* sums) {
    const T* in = reinterpret_cast<const T*>(input);
    size_t k = 0;
    for (; k + 64 <= channels; k += 64) sumBlock<T, 64>(in + k, pixels, channels, 64, sums + k);
    for (; k < channels; ++k) {
        int32_t sum = 0;
        for (size_t p = 0; p < pixels; ++p) sum += in[p * channels + k];
        sums[k] = sum;
    }
}

void sumPixels(bool isSigned, const uint8_t* input, size_t pixels, size_t channels, int32_t* sums) {
    if (isSigned) return sumPixelsOf<int8_t>(input, pixels, channels, sums);
    sumPixelsOf<uint8_t>(input, pixels, channels, sums);
}

// a / n truncated, in double: exact for 32-bit a (a quotient just below an integer stays below).
inline int32_t divide(int32_t a, double n) { return static_cast<int32_t>(static_cast<double>(a) / n); }

// std::round (half away from zero) of a float below 2^23 in magnitude, in vectorizable steps.
inline float roundHalfAway(float x) {
    const float whole = static_cast<float>(static_cast<int32_t>(x));
    const float part = x - whole;  // exact
    return whole + (part >= 0.5f ? 1.0f : part <= -0.5f ? -1.0f : 0.0f);
}

// The reference's averages of the raw sums, per rounding (QuantPool.h).
template <typename T>
void averagesOf(const GlobalAverageSpec& s, const int32_t* sums, uint8_t* output) {
    T* out = reinterpret_cast<T*>(output);
    const size_t c = s.channels;
    const auto n = static_cast<int32_t>(s.pixels);
    const double dn = n;
    if (s.rounding == AverageRounding::HalfAway) {
        for (size_t k = 0; k < c; ++k) {
            const int32_t sum = sums[k];
            out[k] = static_cast<T>(std::clamp(divide(sum >= 0 ? sum + n / 2 : sum - n / 2, dn), s.low, s.high));
        }
    } else if (s.rounding == AverageRounding::MeanTruncate) {
        for (size_t k = 0; k < c; ++k) out[k] = static_cast<T>(divide(sums[k], dn));
    } else {
        const float scale = s.inputScale / s.outputScale;
        const float bias = -static_cast<float>(s.inputZeroPoint) * scale;
        const float qmin = std::is_signed_v<T> ? -128.0f : 0.0f, zero = static_cast<float>(s.outputZeroPoint);
        for (size_t k = 0; k < c; ++k) {
            const float mean = static_cast<float>(sums[k]) / static_cast<float>(n);
            const float scaled = mean * scale + bias;
            // Beyond 2^23 a float is whole already; the clamp below takes it.
            const float rounded = std::fabs(scaled) < 8388608.0f ? roundHalfAway(scaled) : scaled;
            out[k] = static_cast<T>(static_cast<int32_t>(std::clamp(rounded + zero, qmin, qmin + 255.0f)));
        }
    }
}

void averages(const GlobalAverageSpec& s, const int32_t* sums, uint8_t* output) {
    if (s.signedValues) return averagesOf<int8_t>(s, sums, output);
    averagesOf<uint8_t>(s, sums, output);
}

}  // namespace
}  // namespace nnemu::synap::kernels
