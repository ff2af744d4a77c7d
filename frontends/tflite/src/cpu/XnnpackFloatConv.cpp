// XNNPACK's float GEMM order (its f32 GEMM and IGEMM microkernels for AVX-512 keep one accumulator
// per output, loaded from the packed bias, and add each product with a fused multiply-add along the
// depth: for the IGEMM the window's taps row by row, then the channels, as an im2col row holds them;
// a padded tap reads zeros). Checked against tflite_run --xnnpack=1 (RealTfliteFloatXnnpackTest.cpp).
#include "XnnpackFloatConv.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "nnemu/delegate/TfLiteAbi.h"

namespace nnemu::tflite::kernels::xnnpackfloat {

void gemm(const float* rows, size_t pixels, const float* weights, size_t units, size_t depth, const float* bias,
          float low, float high, float* out, int accumulators) {
    for (size_t p = 0; p < pixels; ++p) {
        const float* a = rows + p * depth;
        for (size_t u = 0; u < units; ++u) {
            const float* w = weights + u * depth;
            float acc = bias != nullptr ? bias[u] : 0.0f;
            if (accumulators == 1) {
                for (size_t k = 0; k < depth; ++k) acc = std::fma(a[k], w[k], acc);
            } else {
                float odd = 0.0f;
                size_t k = 0;
                for (; k + 1 < depth; k += 2) {
                    acc = std::fma(a[k], w[k], acc);
                    odd = std::fma(a[k + 1], w[k + 1], odd);
                }
                if (k < depth) acc = std::fma(a[k], w[k], acc);
                acc = acc + odd;
            }
            out[p * units + u] = std::min(std::max(acc, low), high);
        }
    }
}

void depthwise(const DepthwiseShape& s, const float* input, const float* filter, const float* bias, float low,
               float high, float* output) {
    const size_t channels = static_cast<size_t>(s.inC) * s.multiplier;
    // A 1x1 filter at stride 1: XNNPACK scales and shifts each channel (its vmulcaddc kernel, SSE
    // on x86: the product rounded, then the bias added).
    const bool scaleShift = s.kh == 1 && s.kw == 1 && s.strideH == 1 && s.strideW == 1 && s.multiplier == 1;
    std::vector<float> acc(channels);
    for (int32_t b = 0; b < s.batch; ++b) {
        for (int32_t oy = 0; oy < s.outH; ++oy) {
            for (int32_t ox = 0; ox < s.outW; ++ox) {
                for (size_t c = 0; c < channels; ++c) acc[c] = bias != nullptr ? bias[c] : 0.0f;
                for (int32_t t = 0; t < s.kh * s.kw; ++t) {
                    const int32_t kx = s.multiplier == 1 ? t / s.kh : t % s.kw;
                    const int32_t ky = s.multiplier == 1 ? t % s.kh : t / s.kw;
                    const int32_t iy = oy * s.strideH - s.padTop + ky * s.dilationH;
                    const int32_t ix = ox * s.strideW - s.padLeft + kx * s.dilationW;
                    const bool inside = iy >= 0 && iy < s.inH && ix >= 0 && ix < s.inW;
                    const float* in =
                            inside ? input + ((static_cast<size_t>(b) * s.inH + iy) * s.inW + ix) * s.inC : nullptr;
                    const float* f = filter + (static_cast<size_t>(ky) * s.kw + kx) * channels;
                    for (size_t c = 0; c < channels; ++c) {
                        const float value = inside ? in[c / s.multiplier] : 0.0f;
                        acc[c] = scaleShift ? acc[c] + value * f[c] : std::fma(value, f[c], acc[c]);
                    }
                }
                float* to = output + ((static_cast<size_t>(b) * s.outH + oy) * s.outW + ox) * channels;
                for (size_t c = 0; c < channels; ++c) to[c] = std::min(std::max(acc[c], low), high);
            }
        }
    }
}

void activationRange(int32_t activation, float* low, float* high) {
    *low = -std::numeric_limits<float>::infinity();
    *high = std::numeric_limits<float>::infinity();
    if (activation == kTfLiteActRelu || activation == kTfLiteActRelu6) *low = 0.0f;
    if (activation == kTfLiteActRelu6) *high = 6.0f;
    if (activation == kTfLiteActReluN1To1) {
        *low = -1.0f;
        *high = 1.0f;
    }
}

}  // namespace nnemu::tflite::kernels::xnnpackfloat
