// The float few-channel convolution on AVX-512 (FloatConv.h), also the float GEMM's kernel (each
// row a pixel of one run): up to 12 pixels x two blocks of 16 channels (one vector each) per call,
// the sums in registers, one fused multiply-add per tap in (row, column, input channel) order,
// each tap's input broadcast from the image.
#include <immintrin.h>

#include <algorithm>

#include "FloatConv.h"
#include "FloatGemmAvx512Tail.h"

namespace nnemu::synap::kernels {
namespace {

// (Not inlined into the dispatch: one function per shape, each with all registers to itself.)
template <size_t R, size_t B>
[[gnu::noinline]] void pixelsAvx512(const FloatConvArgs& a) {
    const float* w[B];
    for (size_t b = 0; b < B; ++b) w[b] = a.weights + b * a.blockStride;
    __m512 acc[R][B];
#pragma GCC unroll 2
    for (size_t b = 0; b < B; ++b) {
        const __m512 bias = _mm512_loadu_ps(w[b]);
#pragma GCC unroll 12
        for (size_t r = 0; r < R; ++r) acc[r][b] = bias;
    }
    size_t k = kFloatGemmBlock;
    for (size_t s = 0; s < a.segmentCount; ++s) {
        const float* in[R];
#pragma GCC unroll 12
        for (size_t r = 0; r < R; ++r) in[r] = a.segments[s] + (a.firstPixel + r) * a.pixelStride;
        for (size_t j = 0; j < a.segmentLength; ++j, k += kFloatGemmBlock) {
            __m512 wk[B];
#pragma GCC unroll 2
            for (size_t b = 0; b < B; ++b) wk[b] = _mm512_loadu_ps(w[b] + k);
#pragma GCC unroll 12
            for (size_t r = 0; r < R; ++r) {
                const __m512 x = _mm512_set1_ps(in[r][j]);
#pragma GCC unroll 2
                for (size_t b = 0; b < B; ++b) acc[r][b] = _mm512_fmadd_ps(x, wk[b], acc[r][b]);
            }
        }
    }
    storeClamped<R, B>(acc, a.output, a.outputStride, a.low, a.high, a.lastCount);
}

struct Pixels {
    const FloatConvArgs& a;
    template <size_t R, size_t B>
    void run() const { pixelsAvx512<R, B>(a); }
};

}  // namespace

// 12 pixels x two blocks where there are (24 sums of the 32 registers), otherwise up to 6.
void floatConvAvx512(const FloatConvArgs& a) {
    if (a.pixels == 12 && a.blocks == 2) return pixelsAvx512<12, 2>(a);
    if (a.pixels <= 6) return byShape(a.pixels, a.blocks, Pixels{a});
    FloatConvArgs part = a;
    for (size_t p = 0; p < a.pixels; p += 6) {
        part.pixels = std::min<size_t>(6, a.pixels - p);
        part.firstPixel = a.firstPixel + p;
        part.output = a.output + p * a.outputStride;
        byShape(part.pixels, part.blocks, Pixels{part});
    }
}

}  // namespace nnemu::synap::kernels
