// The float few-channel convolution on AVX2 with FMA (FloatConv.h), also the float GEMM's kernel
// (each row a pixel of one run): up to 6 pixels x one block of 16 channels (two vectors) per call, the 12 sums in registers, one fused multiply-add per tap in
// (row, column, input channel) order, each tap's input broadcast from the image.
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "FloatConv.h"

namespace nnemu::synap::kernels {
namespace {

// Stores R rows of one block, clamped to [low, high], its first `count` channels only.
template <size_t R>
void storeClamped(const __m256 (&acc)[R][2], float* output, size_t outputStride, float lowValue, float highValue,
                  size_t count) {
    const __m256 low = _mm256_set1_ps(lowValue), high = _mm256_set1_ps(highValue);
#pragma GCC unroll 12
    for (size_t r = 0; r < R; ++r) {
        float* out = output + r * outputStride;
        const __m256 v0 = _mm256_min_ps(_mm256_max_ps(acc[r][0], low), high);
        const __m256 v1 = _mm256_min_ps(_mm256_max_ps(acc[r][1], low), high);
        if (count == kFloatGemmBlock) {
            _mm256_storeu_ps(out, v0);
            _mm256_storeu_ps(out + 8, v1);
        } else {
            alignas(32) float tail[kFloatGemmBlock];
            _mm256_store_ps(tail, v0);
            _mm256_store_ps(tail + 8, v1);
            std::memcpy(out, tail, count * sizeof(float));
        }
    }
}

// kernel.template run<R>() for R = rows (1 to 6; more runs 6).
template <typename Kernel>
void byRows(size_t rows, const Kernel& kernel) {
    switch (rows) {
        case 1: return kernel.template run<1>();
        case 2: return kernel.template run<2>();
        case 3: return kernel.template run<3>();
        case 4: return kernel.template run<4>();
        case 5: return kernel.template run<5>();
        default: return kernel.template run<6>();
    }
}

template <size_t R>
void pixelsAvx2(const FloatConvArgs& a) {
    const float* w = a.weights;
    __m256 acc[R][2];
    const __m256 bias0 = _mm256_loadu_ps(w), bias1 = _mm256_loadu_ps(w + 8);
#pragma GCC unroll 6
    for (size_t r = 0; r < R; ++r) {
        acc[r][0] = bias0;
        acc[r][1] = bias1;
    }
    w += kFloatGemmBlock;
    for (size_t s = 0; s < a.segmentCount; ++s) {
        const float* in[R];
#pragma GCC unroll 6
        for (size_t r = 0; r < R; ++r) in[r] = a.segments[s] + (a.firstPixel + r) * a.pixelStride;
        for (size_t j = 0; j < a.segmentLength; ++j, w += kFloatGemmBlock) {
            const __m256 w0 = _mm256_loadu_ps(w), w1 = _mm256_loadu_ps(w + 8);
#pragma GCC unroll 6
            for (size_t r = 0; r < R; ++r) {
                const __m256 x = _mm256_broadcast_ss(in[r] + j);
                acc[r][0] = _mm256_fmadd_ps(x, w0, acc[r][0]);
                acc[r][1] = _mm256_fmadd_ps(x, w1, acc[r][1]);
            }
        }
    }
    storeClamped<R>(acc, a.output, a.outputStride, a.low, a.high, a.lastCount);
}

struct Pixels {
    const FloatConvArgs& a;
    template <size_t R>
    void run() const { pixelsAvx2<R>(a); }
};

}  // namespace

void floatConvAvx2(const FloatConvArgs& a) {
    FloatConvArgs part = a;
    for (size_t p = 0; p < a.pixels; p += 6) {
        part.pixels = std::min<size_t>(6, a.pixels - p);
        part.firstPixel = a.firstPixel + p;
        part.output = a.output + p * a.outputStride;
        byRows(part.pixels, Pixels{part});
    }
}

}  // namespace nnemu::synap::kernels
