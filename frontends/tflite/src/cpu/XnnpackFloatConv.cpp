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

#include "CpuThreads.h"
#include "XnnpackFloatKernels.h"
#include "nnemu/base/Clones.h"
#include "nnemu/delegate/TfLiteAbi.h"

namespace nnemu::tflite::kernels::xnnpackfloat {

namespace {

const IsaKernels& kernels() {
    static const IsaKernels chosen = __builtin_cpu_supports("avx512f")                                     ? avx512Kernels()
                                     : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? avx2Kernels()
                                                                                                         : portableKernels();
    return chosen;
}

// The bias (0 without one) as `count` values, zero past `units`.
std::vector<float> paddedBias(const float* bias, size_t units, size_t count) {
    std::vector<float> padded(count, 0.0f);
    if (bias != nullptr) std::copy(bias, bias + units, padded.begin());
    return padded;
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

size_t packedSize(size_t units, size_t depth) {
    const size_t lanes = kernels().lanes;
    return (units + lanes - 1) / lanes * lanes * depth;
}

void pack(const float* weights, size_t units, size_t depth, float* packed) { kernels().pack(weights, units, depth, packed); }

void gemm(const float* rows, size_t pixels, const float* packed, size_t units, size_t depth, const float* bias,
          float low, float high, float* out, int accumulators, const CpuThreads* threads) {
    const IsaKernels& isa = kernels();
    const size_t lanes = isa.lanes, panels = (units + lanes - 1) / lanes;
    const std::vector<float> padded = paddedBias(bias, units, panels * lanes);
    const double cost = static_cast<double>(pixels) * units * depth;
    if (pixels == 1) {
        // Each share a run of whole panels (an output's sum does not depend on its neighbours).
        forCpuShares(threads, cpuShares(threads, panels, cost), panels, [&](size_t, size_t begin, size_t end) {
            const size_t first = begin * lanes, count = std::min(units, end * lanes) - first;
            isa.gemm(rows, 1, packed + first * depth, count, depth, padded.data() + first, low, high, out + first,
                     accumulators == 2);
        });
        return;
    }
    forCpuShares(threads, cpuShares(threads, pixels, cost), pixels, [&](size_t, size_t begin, size_t end) {
        isa.gemm(rows + begin * depth, end - begin, packed, units, depth, padded.data(), low, high, out + begin * units,
                 accumulators == 2);
    });
}

void depthwise(const DepthwiseShape& s, const float* input, const float* filter, const float* bias, float low,
               float high, float* output, const CpuThreads* threads) {
    const size_t channels = static_cast<size_t>(s.inC) * s.multiplier;
    // A 1x1 filter at stride 1: XNNPACK scales and shifts each channel (its vmulcaddc kernel, SSE
    // on x86: the product rounded, then the bias added).
    const bool scaleShift = s.kh == 1 && s.kw == 1 && s.strideH == 1 && s.strideW == 1 && s.multiplier == 1;
    if (s.multiplier == 1 && !scaleShift) {
        const std::vector<float> padded = paddedBias(bias, channels, channels);
        // Each share a run of output rows (of one image or several): the rows of one image as
        // an image of their own, its padding moved by the rows before them.
        const auto height = static_cast<size_t>(s.outH), width = static_cast<size_t>(s.outW);
        const size_t rows = static_cast<size_t>(s.batch) * height;
        const size_t image = static_cast<size_t>(s.inH) * static_cast<size_t>(s.inW) * channels;
        const double cost = static_cast<double>(rows) * static_cast<double>(width * channels) * s.kh * s.kw;
        forCpuShares(threads, cpuShares(threads, rows, cost), rows, [&](size_t, size_t begin, size_t end) {
            for (size_t row = begin; row < end;) {
                const size_t b = row / height, oy = row % height;
                const size_t count = std::min(end - row, height - oy);
                DepthwiseShape part = s;
                part.batch = 1;
                part.outH = static_cast<int32_t>(count);
                part.padTop = s.padTop - static_cast<int32_t>(oy) * s.strideH;
                kernels().depthwise(part, input + b * image, filter, padded.data(), low, high,
                                    output + row * width * channels);
                row += count;
            }
        });
        return;
    }
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
