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

#include "nnemu/base/Clones.h"
#include "nnemu/delegate/TfLiteAbi.h"

namespace nnemu::tflite::kernels::xnnpackfloat {

namespace {

// Up to kPixels pixels' outputs at once (each weight row read once for all of them): acc[q][u]
// (from the bias) takes the products of k with fused multiply-adds, odd[q][u] those of odd k when
// there are two sums. The weights are transposed (depth x units), so each step runs over the
// units, which the compiler vectorizes: lane by lane the same operations. Blocks of kPixels pixels
// and kUnits units keep their sums in registers over the whole depth.
constexpr size_t kPixels = 4, kUnits = 32;

// One full block: the sums of 4 pixels x 32 units, in and out through acc (row stride `units`),
// kept in local arrays (registers) across the depth; two: even k into e, odd k into o.
NNEMU_CLONES void gemmBlock(const float* a, const float* w, size_t units, size_t depth, bool two, float* acc) {
    float e[kPixels][kUnits], o[kPixels][kUnits];
    for (size_t q = 0; q < kPixels; ++q) {
        for (size_t j = 0; j < kUnits; ++j) {
            e[q][j] = acc[q * units + j];
            o[q][j] = 0.0f;
        }
    }
    size_t k = 0;
    for (; two && k + 1 < depth; k += 2) {
        const float* w0 = w + k * units;
        const float* w1 = w0 + units;
        for (size_t q = 0; q < kPixels; ++q) {
            const float x0 = a[q * depth + k], x1 = a[q * depth + k + 1];
            for (size_t j = 0; j < kUnits; ++j) {
                e[q][j] = std::fma(x0, w0[j], e[q][j]);
                o[q][j] = std::fma(x1, w1[j], o[q][j]);
            }
        }
    }
    for (; k < depth; ++k) {
        const float* w0 = w + k * units;
        for (size_t q = 0; q < kPixels; ++q) {
            const float x0 = a[q * depth + k];
            for (size_t j = 0; j < kUnits; ++j) e[q][j] = std::fma(x0, w0[j], e[q][j]);
        }
    }
    for (size_t q = 0; q < kPixels; ++q) {
        for (size_t j = 0; j < kUnits; ++j) acc[q * units + j] = two ? e[q][j] + o[q][j] : e[q][j];
    }
}

NNEMU_CLONES void gemmPixels(const float* a, size_t count, const float* transposed, size_t units, size_t depth,
                             int accumulators, float* acc, float* odd) {
    size_t first = 0;
    if (count == kPixels) {
        for (; first + kUnits <= units; first += kUnits) {
            gemmBlock(a, transposed + first, units, depth, accumulators == 2, acc + first);
        }
    }
    if (first == units) return;
    if (accumulators == 2) std::fill(odd, odd + count * units, 0.0f);
    for (size_t k = 0; k < depth; ++k) {
        const float* w = transposed + k * units;
        float* sums = accumulators == 2 && k % 2 == 1 ? odd : acc;
        for (size_t q = 0; q < count; ++q) {
            const float x = a[q * depth + k];
            float* sum = sums + q * units;
            for (size_t u = first; u < units; ++u) sum[u] = std::fma(x, w[u], sum[u]);
        }
    }
    if (accumulators == 2) {
        for (size_t q = 0; q < count; ++q) {
            for (size_t u = first; u < units; ++u) acc[q * units + u] = acc[q * units + u] + odd[q * units + u];
        }
    }
}

NNEMU_CLONES void depthwiseTap(const float* in, const float* f, size_t channels, size_t multiplier, bool scaleShift,
                               float* acc) {
    if (in == nullptr) {   // a padded tap reads zeros
        for (size_t c = 0; c < channels; ++c) acc[c] = std::fma(0.0f, f[c], acc[c]);
    } else if (scaleShift) {
        for (size_t c = 0; c < channels; ++c) acc[c] = acc[c] + in[c] * f[c];
    } else if (multiplier == 1) {
        for (size_t c = 0; c < channels; ++c) acc[c] = std::fma(in[c], f[c], acc[c]);
    } else {
        for (size_t c = 0; c < channels; ++c) acc[c] = std::fma(in[c / multiplier], f[c], acc[c]);
    }
}

}  // namespace

void transpose(const float* weights, size_t units, size_t depth, float* transposed) {
    for (size_t u = 0; u < units; ++u) {
        for (size_t k = 0; k < depth; ++k) transposed[k * units + u] = weights[u * depth + k];
    }
}

void gemm(const float* rows, size_t pixels, const float* transposed, size_t units, size_t depth, const float* bias,
          float low, float high, float* out, int accumulators) {
    std::vector<float> acc(kPixels * units), odd(kPixels * units);
    for (size_t first = 0; first < pixels; first += kPixels) {
        const size_t count = std::min(kPixels, pixels - first);
        for (size_t q = 0; q < count; ++q) {
            for (size_t u = 0; u < units; ++u) acc[q * units + u] = bias != nullptr ? bias[u] : 0.0f;
        }
        gemmPixels(rows + first * depth, count, transposed, units, depth, accumulators, acc.data(), odd.data());
        for (size_t i = 0; i < count * units; ++i) out[first * units + i] = std::min(std::max(acc[i], low), high);
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
                    depthwiseTap(in, f, channels, s.multiplier, scaleShift, acc.data());
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
