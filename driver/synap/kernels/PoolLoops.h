// The pools' loops, written once for the compiler to vectorize over channels: each Pool*.cpp
// includes it under its own instruction set. Internal linkage, so that the copies stay apart.
#pragma once

#include <algorithm>

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

template <typename T>
void sumPixelsOf(const uint8_t* input, size_t pixels, size_t channels, int32_t* sums) {
    const T* in = reinterpret_cast<const T*>(input);
    std::fill(sums, sums + channels, 0);
    for (size_t p = 0; p < pixels; ++p) {
        for (size_t k = 0; k < channels; ++k) sums[k] += in[p * channels + k];
    }
}

void sumPixels(bool isSigned, const uint8_t* input, size_t pixels, size_t channels, int32_t* sums) {
    if (isSigned) return sumPixelsOf<int8_t>(input, pixels, channels, sums);
    sumPixelsOf<uint8_t>(input, pixels, channels, sums);
}

}  // namespace
}  // namespace nnemu::synap::kernels
