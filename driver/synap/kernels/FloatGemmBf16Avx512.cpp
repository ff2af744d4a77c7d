// The relaxed float GEMM on AVX512-BF16: up to 8 rows x two blocks of 16 channels per call, 16
// float32 sums in registers, each VDPBF16PS adding the products of one pair of input channels.
#include <immintrin.h>

#include <cstring>

#include "FloatGemmAvx512Tail.h"
#include "FloatGemmBf16.h"

namespace nnemu::synap::kernels {
namespace {

template <size_t R, size_t B>
void rowsBf16(const FloatGemmBf16Args& a) {
    const uint32_t* in[R];
    for (size_t r = 0; r < R; ++r) in[r] = a.input + r * a.inputStride;
    const uint8_t* w[B];
    for (size_t b = 0; b < B; ++b) w[b] = a.weights + b * a.blockStride;
    __m512 acc[R][B];
#pragma GCC unroll 2
    for (size_t b = 0; b < B; ++b) {
        const __m512 bias = _mm512_loadu_ps(w[b]);
#pragma GCC unroll 8
        for (size_t r = 0; r < R; ++r) acc[r][b] = bias;
    }
    for (size_t p = 0; p < a.pairs; ++p) {
        __m512bh wp[B];
#pragma GCC unroll 2
        for (size_t b = 0; b < B; ++b) wp[b] = reinterpret_cast<__m512bh>(_mm512_loadu_si512(w[b] + 64 * (p + 1)));
#pragma GCC unroll 8
        for (size_t r = 0; r < R; ++r) {
            const __m512bh x = reinterpret_cast<__m512bh>(_mm512_set1_epi32(static_cast<int>(in[r][p])));
#pragma GCC unroll 2
            for (size_t b = 0; b < B; ++b) acc[r][b] = _mm512_dpbf16_ps(acc[r][b], x, wp[b]);
        }
    }
    storeClamped<R, B>(acc, a.output, a.outputStride, a.low, a.high, a.lastCount);
}

struct Rows {
    const FloatGemmBf16Args& a;
    template <size_t R, size_t B>
    void run() const { rowsBf16<R, B>(a); }
};

}  // namespace

void floatGemmBf16Avx512(const FloatGemmBf16Args& a) { byShape<kFloatGemmBf16Rows>(a.rows, a.blocks, Rows{a}); }

void toBf16PairsAvx512(const float* input, size_t inputStride, size_t rows, size_t depth, uint32_t* pairs) {
    const size_t pairsPerRow = (depth + 1) / 2;
    for (size_t r = 0; r < rows; ++r) {
        const float* in = input + r * inputStride;
        auto* out = reinterpret_cast<uint16_t*>(pairs + r * pairsPerRow);
        size_t k = 0;
        for (; k + 16 <= depth; k += 16) {
            const __m256bh h = _mm512_cvtneps_pbh(_mm512_loadu_ps(in + k));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + k), reinterpret_cast<__m256i>(h));
        }
        if (k < depth) {
            const __mmask16 tail = static_cast<__mmask16>((1u << (depth - k)) - 1);
            const __m256bh h = _mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(tail, in + k));
            _mm256_mask_storeu_epi16(out + k, tail, reinterpret_cast<__m256i>(h));
        }
        if (depth % 2 != 0) out[depth] = 0;  // the last pair's second input: no product
    }
}

}  // namespace nnemu::synap::kernels
