// The int8 CONV_2D's GEMM with AVX-512BW (ConvInt8Gemm.h): 6 pixels x 32 output channels in 12
// accumulators, one vpmaddwd per pixel and 16 channels per depth pair.
#include <immintrin.h>

#include <cstring>

#include "ConvInt8Gemm.h"

namespace nnemu::tflite::kernels::conv {
namespace {

template <int Pixels, int Blocks>
void tile(const int16_t* rows, size_t depth, const int16_t* packed, size_t pairs, size_t stride, int32_t* sums) {
    __m512i acc[Pixels][Blocks];
    for (int p = 0; p < Pixels; ++p) {
        for (int b = 0; b < Blocks; ++b) acc[p][b] = _mm512_setzero_si512();
    }
    const size_t blockSize = pairs * 2 * kGemmLanes;
    for (size_t k = 0; k < pairs; ++k) {
        __m512i w[Blocks];
        for (int b = 0; b < Blocks; ++b) w[b] = _mm512_loadu_si512(packed + b * blockSize + k * 2 * kGemmLanes);
        for (int p = 0; p < Pixels; ++p) {
            int32_t pair;
            std::memcpy(&pair, rows + p * depth + 2 * k, sizeof(pair));
            const __m512i x = _mm512_set1_epi32(pair);
            for (int b = 0; b < Blocks; ++b) acc[p][b] = _mm512_add_epi32(acc[p][b], _mm512_madd_epi16(x, w[b]));
        }
    }
    for (int p = 0; p < Pixels; ++p) {
        for (int b = 0; b < Blocks; ++b) _mm512_storeu_si512(sums + p * stride + b * kGemmLanes, acc[p][b]);
    }
}

template <int Blocks>
void pixelsTail(size_t count, const int16_t* rows, size_t depth, const int16_t* packed, size_t pairs, size_t stride,
                int32_t* sums) {
    switch (count) {
        case 1: return tile<1, Blocks>(rows, depth, packed, pairs, stride, sums);
        case 2: return tile<2, Blocks>(rows, depth, packed, pairs, stride, sums);
        case 3: return tile<3, Blocks>(rows, depth, packed, pairs, stride, sums);
        case 4: return tile<4, Blocks>(rows, depth, packed, pairs, stride, sums);
        case 5: return tile<5, Blocks>(rows, depth, packed, pairs, stride, sums);
        default: return tile<6, Blocks>(rows, depth, packed, pairs, stride, sums);
    }
}

}  // namespace

void gemmInt16Avx512(const int16_t* rows, size_t count, const int16_t* packed, size_t blocks, size_t pairs,
                     int32_t* sums) {
    const size_t depth = 2 * pairs, stride = blocks * kGemmLanes, blockSize = pairs * 2 * kGemmLanes;
    for (size_t b = 0; b < blocks; b += 2) {
        const int16_t* weights = packed + b * blockSize;
        for (size_t p = 0; p < count; p += 6) {
            const size_t n = count - p < 6 ? count - p : 6;
            if (b + 2 <= blocks) {
                pixelsTail<2>(n, rows + p * depth, depth, weights, pairs, stride, sums + p * stride + b * kGemmLanes);
            } else {
                pixelsTail<1>(n, rows + p * depth, depth, weights, pairs, stride, sums + p * stride + b * kGemmLanes);
            }
        }
    }
}

}  // namespace nnemu::tflite::kernels::conv
