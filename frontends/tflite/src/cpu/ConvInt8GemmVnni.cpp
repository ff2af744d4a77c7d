// The int8 CONV_2D's and FULLY_CONNECTED's GEMM with AVX-512 VNNI (ConvInt8Gemm.h): rows of
// unsigned bytes times int8 weights, 6 pixels x 32 output channels in 12 accumulators, one
// vpdpbusd per pixel and 16 channels per depth quad (twice vpmaddwd's products on int16 pairs).
#include <immintrin.h>

#include <cstring>

#include "ConvInt8Gemm.h"

namespace nnemu::tflite::kernels::conv {
namespace {

template <int Pixels, int Blocks>
void tile(const uint8_t* rows, size_t depth, const int8_t* packed, size_t quads, size_t stride, int32_t* sums) {
    __m512i acc[Pixels][Blocks];
    for (int p = 0; p < Pixels; ++p) {
        for (int b = 0; b < Blocks; ++b) acc[p][b] = _mm512_setzero_si512();
    }
    const size_t blockSize = quads * 4 * kGemmLanes;
    for (size_t k = 0; k < quads; ++k) {
        __m512i w[Blocks];
        for (int b = 0; b < Blocks; ++b) w[b] = _mm512_loadu_si512(packed + b * blockSize + k * 4 * kGemmLanes);
        for (int p = 0; p < Pixels; ++p) {
            int32_t quad;
            std::memcpy(&quad, rows + p * depth + 4 * k, sizeof(quad));
            const __m512i x = _mm512_set1_epi32(quad);
            for (int b = 0; b < Blocks; ++b) acc[p][b] = _mm512_dpbusd_epi32(acc[p][b], x, w[b]);
        }
    }
    for (int p = 0; p < Pixels; ++p) {
        for (int b = 0; b < Blocks; ++b) _mm512_storeu_si512(sums + p * stride + b * kGemmLanes, acc[p][b]);
    }
}

template <int Blocks>
void pixelsTail(size_t count, const uint8_t* rows, size_t depth, const int8_t* packed, size_t quads, size_t stride,
                int32_t* sums) {
    switch (count) {
        case 1: return tile<1, Blocks>(rows, depth, packed, quads, stride, sums);
        case 2: return tile<2, Blocks>(rows, depth, packed, quads, stride, sums);
        case 3: return tile<3, Blocks>(rows, depth, packed, quads, stride, sums);
        case 4: return tile<4, Blocks>(rows, depth, packed, quads, stride, sums);
        case 5: return tile<5, Blocks>(rows, depth, packed, quads, stride, sums);
        default: return tile<6, Blocks>(rows, depth, packed, quads, stride, sums);
    }
}

}  // namespace

void gemmUint8Int8Vnni(const uint8_t* rows, size_t count, const int8_t* packed, size_t blocks, size_t quads,
                       int32_t* sums) {
    const size_t depth = 4 * quads, stride = blocks * kGemmLanes, blockSize = quads * 4 * kGemmLanes;
    for (size_t b = 0; b < blocks; b += 2) {
        const int8_t* weights = packed + b * blockSize;
        for (size_t p = 0; p < count; p += 6) {
            const size_t n = count - p < 6 ? count - p : 6;
            if (b + 2 <= blocks) {
                pixelsTail<2>(n, rows + p * depth, depth, weights, quads, stride, sums + p * stride + b * kGemmLanes);
            } else {
                pixelsTail<1>(n, rows + p * depth, depth, weights, quads, stride, sums + p * stride + b * kGemmLanes);
            }
        }
    }
}

}  // namespace nnemu::tflite::kernels::conv
