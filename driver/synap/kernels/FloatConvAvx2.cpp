// The float few-channel convolution on AVX2 with FMA (FloatConv.h): up to 6 pixels x one block of
// 16 channels (two vectors) per call, the 12 sums in registers, one fused multiply-add per tap in
// (row, column, input channel) order, each tap's input broadcast from the image.
#include <immintrin.h>

#include <algorithm>

#include "FloatConv.h"
#include "FloatGemmAvx2Tail.h"

namespace nnemu::synap::kernels {
namespace {

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
    storeClampedAvx2<R>(acc, a.output, a.outputStride, a.low, a.high, a.lastCount);
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
