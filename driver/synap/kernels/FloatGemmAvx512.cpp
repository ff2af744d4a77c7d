// The float GEMM on AVX-512: up to 6 rows x two blocks of 16 channels (one vector each) per call,
// the 12 sums in registers, one fused multiply-add per product in input-channel order.
#include <immintrin.h>

#include "FloatGemm.h"

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
    const __m512 low = _mm512_set1_ps(a.low), high = _mm512_set1_ps(a.high);
    const __mmask16 last = static_cast<__mmask16>((1u << a.lastCount) - 1);
#pragma GCC unroll 6
    for (size_t r = 0; r < R; ++r) {
        float* out = a.output + r * a.outputStride;
#pragma GCC unroll 2
        for (size_t b = 0; b < B; ++b) {
            const __m512 v = _mm512_min_ps(_mm512_max_ps(acc[r][b], low), high);
            _mm512_mask_storeu_ps(out + b * kFloatGemmBlock, b + 1 == B ? last : __mmask16(0xffff), v);
        }
    }
}

template <size_t B>
void blocksAvx512(const FloatGemmArgs& a) {
    switch (a.rows) {
        case 1: return rowsAvx512<1, B>(a);
        case 2: return rowsAvx512<2, B>(a);
        case 3: return rowsAvx512<3, B>(a);
        case 4: return rowsAvx512<4, B>(a);
        case 5: return rowsAvx512<5, B>(a);
        default: return rowsAvx512<6, B>(a);
    }
}

}  // namespace

void floatGemmAvx512(const FloatGemmArgs& a) { return a.blocks == 2 ? blocksAvx512<2>(a) : blocksAvx512<1>(a); }

}  // namespace nnemu::synap::kernels
