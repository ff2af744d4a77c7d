// The float GEMM on AVX2 with FMA: up to 6 rows x one block of 16 channels (two vectors) per call,
// the 12 sums in registers, one fused multiply-add per product in input-channel order.
#include <immintrin.h>

#include "FloatGemmAvx2Tail.h"

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
    storeClampedAvx2<R>(acc, a.output, a.outputStride, a.low, a.high, a.lastCount);
}

struct Rows {
    const FloatGemmArgs& a;
    template <size_t R>
    void run() const { rowsAvx2<R>(a); }
};

}  // namespace

void floatGemmAvx2(const FloatGemmArgs& a) { byRows(a.rows, Rows{a}); }

}  // namespace nnemu::synap::kernels
