// What the AVX2 float kernels share (FloatGemmAvx2.cpp, FloatConvAvx2.cpp): the clamped store of
// a tile's sums, R rows of one block of 16 channels as two vectors. Include only from files built
// for AVX2.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstring>

#include "FloatGemm.h"

namespace nnemu::synap::kernels {

// Stores R rows of one block, clamped to [low, high], its first `count` channels only.
template <size_t R>
inline void storeClampedAvx2(const __m256 (&acc)[R][2], float* output, size_t outputStride, float lowValue,
                             float highValue, size_t count) {
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
inline void byRows(size_t rows, const Kernel& kernel) {
    switch (rows) {
        case 1: return kernel.template run<1>();
        case 2: return kernel.template run<2>();
        case 3: return kernel.template run<3>();
        case 4: return kernel.template run<4>();
        case 5: return kernel.template run<5>();
        default: return kernel.template run<6>();
    }
}

}  // namespace nnemu::synap::kernels
