// The float GEMM on AVX2 with FMA: up to 6 rows x one block of 16 channels (two vectors) per call,
// the 12 sums in registers, one fused multiply-add per product in input-channel order.
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "FloatGemm.h"

namespace nnemu::synap::kernels {
namespace {

template <size_t R>
void rowsAvx2(const FloatGemmArgs& a) {
    const float* in[R];
    for (size_t r = 0; r < R; ++r) in[r] = a.input + r * a.inputStride;
    const float* w = a.weights;
    __m256 acc[R][2];
    const __m256 bias0 = _mm256_loadu_ps(w), bias1 = _mm256_loadu_ps(w + 8);
#pragma GCC unroll 6
    for (size_t r = 0; r < R; ++r) {
        acc[r][0] = bias0;
        acc[r][1] = bias1;
    }
    w += kFloatGemmBlock;
    for (size_t k = 0; k < a.depth; ++k, w += kFloatGemmBlock) {
        const __m256 w0 = _mm256_loadu_ps(w), w1 = _mm256_loadu_ps(w + 8);
#pragma GCC unroll 6
        for (size_t r = 0; r < R; ++r) {
            const __m256 x = _mm256_broadcast_ss(in[r] + k);
            acc[r][0] = _mm256_fmadd_ps(x, w0, acc[r][0]);
            acc[r][1] = _mm256_fmadd_ps(x, w1, acc[r][1]);
        }
    }
    const __m256 low = _mm256_set1_ps(a.low), high = _mm256_set1_ps(a.high);
#pragma GCC unroll 6
    for (size_t r = 0; r < R; ++r) {
        float* out = a.output + r * a.outputStride;
        const __m256 v0 = _mm256_min_ps(_mm256_max_ps(acc[r][0], low), high);
        const __m256 v1 = _mm256_min_ps(_mm256_max_ps(acc[r][1], low), high);
        if (a.lastCount == kFloatGemmBlock) {
            _mm256_storeu_ps(out, v0);
            _mm256_storeu_ps(out + 8, v1);
        } else {
            alignas(32) float tail[kFloatGemmBlock];
            _mm256_store_ps(tail, v0);
            _mm256_store_ps(tail + 8, v1);
            std::memcpy(out, tail, a.lastCount * sizeof(float));
        }
    }
}

}  // namespace

void floatGemmAvx2(const FloatGemmArgs& a) {
    switch (a.rows) {
        case 1: return rowsAvx2<1>(a);
        case 2: return rowsAvx2<2>(a);
        case 3: return rowsAvx2<3>(a);
        case 4: return rowsAvx2<4>(a);
        case 5: return rowsAvx2<5>(a);
        default: return rowsAvx2<6>(a);
    }
}

}  // namespace nnemu::synap::kernels
