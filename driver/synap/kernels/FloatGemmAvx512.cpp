// The float GEMM on AVX-512: up to 6 rows x two blocks of 16 channels (one vector each) per call,
// the 12 sums in registers, one fused multiply-add per product in input-channel order.
#include <immintrin.h>

#include "FloatGemm.h"
#include "FloatGemmAvx512Tail.h"

namespace nnemu::synap::kernels {
namespace {

template <size_t R, size_t B>
void rowsAvx512(const FloatGemmArgs& a) {
    const float* in[R];
    for (size_t r = 0; r < R; ++r) in[r] = a.input + r * a.inputStride;
    const float* w[B];
    for (size_t b = 0; b < B; ++b) w[b] = a.weights + b * a.blockStride;
    __m512 acc[R][B];
#pragma GCC unroll 2
    for (size_t b = 0; b < B; ++b) {
        const __m512 bias = _mm512_loadu_ps(w[b]);
#pragma GCC unroll 6
        for (size_t r = 0; r < R; ++r) acc[r][b] = bias;
    }
    for (size_t k = 1; k <= a.depth; ++k) {
        __m512 wk[B];
#pragma GCC unroll 2
        for (size_t b = 0; b < B; ++b) wk[b] = _mm512_loadu_ps(w[b] + k * kFloatGemmBlock);
#pragma GCC unroll 6
        for (size_t r = 0; r < R; ++r) {
            const __m512 x = _mm512_set1_ps(in[r][k - 1]);
#pragma GCC unroll 2
            for (size_t b = 0; b < B; ++b) acc[r][b] = _mm512_fmadd_ps(x, wk[b], acc[r][b]);
        }
    }
    storeClamped<R, B>(acc, a.output, a.outputStride, a.low, a.high, a.lastCount);
}

struct Rows {
    const FloatGemmArgs& a;
    template <size_t R, size_t B>
    void run() const { rowsAvx512<R, B>(a); }
};

}  // namespace

void floatGemmAvx512(const FloatGemmArgs& a) { byShape(a.rows, a.blocks, Rows{a}); }

}  // namespace nnemu::synap::kernels
