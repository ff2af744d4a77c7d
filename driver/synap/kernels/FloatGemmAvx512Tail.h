// What the AVX-512 float kernels share (FloatConvAvx512.cpp, also the float GEMM's, and FloatGemmBf16Avx512.cpp): the
// clamped store of a tile's sums and the dispatch on its row count. Include only from files built
// for AVX-512.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstddef>

#include "FloatGemm.h"

namespace nnemu::synap::kernels {

// Stores R rows x B blocks of sums, clamped to [low, high], the last block's first `lastCount`
// channels only.
template <size_t R, size_t B>
inline void storeClamped(const __m512 (&acc)[R][B], float* output, size_t outputStride, float lowValue,
                         float highValue, size_t lastCount) {
    const __m512 low = _mm512_set1_ps(lowValue), high = _mm512_set1_ps(highValue);
    const __mmask16 last = static_cast<__mmask16>((1u << lastCount) - 1);
#pragma GCC unroll 12
    for (size_t r = 0; r < R; ++r) {
        float* out = output + r * outputStride;
#pragma GCC unroll 2
        for (size_t b = 0; b < B; ++b) {
            const __m512 v = _mm512_min_ps(_mm512_max_ps(acc[r][b], low), high);
            _mm512_mask_storeu_ps(out + b * kFloatGemmBlock, b + 1 == B ? last : __mmask16(0xffff), v);
        }
    }
}

// kernel.template run<R, B>() for R = rows (1 to MaxRows; more runs MaxRows) and B = blocks (1 or
// 2). MaxRows x B sums stay in registers: 6 x 2 for float32 FMA (4 cycles' latency, two per cycle:
// 8 independent sums keep both units busy), 8 x 2 for VDPBF16PS (6 cycles' latency on Zen 5: 12
// sums ran at 92 % of its rate in a loop of nothing else, 16 at 100 %).
template <size_t MaxRows = 6, typename Kernel>
inline void byShape(size_t rows, size_t blocks, const Kernel& kernel) {
    static_assert(MaxRows >= 1 && MaxRows <= 8);
    const auto forBlocks = [&]<size_t B>() {
        switch (rows) {
            case 1: return kernel.template run<1, B>();
            case 2: return kernel.template run<std::min<size_t>(2, MaxRows), B>();
            case 3: return kernel.template run<std::min<size_t>(3, MaxRows), B>();
            case 4: return kernel.template run<std::min<size_t>(4, MaxRows), B>();
            case 5: return kernel.template run<std::min<size_t>(5, MaxRows), B>();
            case 6: return kernel.template run<std::min<size_t>(6, MaxRows), B>();
            case 7: return kernel.template run<std::min<size_t>(7, MaxRows), B>();
            default: return kernel.template run<MaxRows, B>();
        }
    };
    return blocks == 2 ? forBlocks.template operator()<2>() : forBlocks.template operator()<1>();
}

}  // namespace nnemu::synap::kernels
