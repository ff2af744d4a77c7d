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

// The portable loop's steps on 16 channels (requantizeFp32Loop, ConvInt8Gemm.cpp), the lanes past
// `count` masked off (loaded as 0, never stored). MAXPS and MINPS return their second operand
// where either is NaN, so max(below, x) and min(above, x) are std::max(x, below) and
// std::min(x, above) exactly; vpmovdb truncates as the cast to 8 bits does.
template <typename T>
void requantizeFp32Lanes(const int32_t* sums, size_t count, const Fp32Requantization& r, T* out) {
    const __m512 below = _mm512_set1_ps(static_cast<float>(r.low - r.zeroPoint));
    const __m512 above = _mm512_set1_ps(static_cast<float>(r.high - r.zeroPoint));
    const __m512 magic = _mm512_set1_ps(12582912.0f);   // 1.5 x 2^23
    const __m512i zeroPoint = _mm512_set1_epi32(r.zeroPoint);
    for (size_t c = 0; c < count; c += 16) {
        const auto lanes = static_cast<__mmask16>(count - c >= 16 ? 0xFFFFu : (1u << (count - c)) - 1);
        __m512i acc = _mm512_maskz_loadu_epi32(lanes, sums + c);
        if (r.bias != nullptr) acc = _mm512_add_epi32(acc, _mm512_maskz_loadu_epi32(lanes, r.bias + c));
        __m512 scaled = _mm512_mul_ps(_mm512_cvtepi32_ps(acc), _mm512_maskz_loadu_ps(lanes, r.scale + c));
        scaled = _mm512_min_ps(above, _mm512_max_ps(below, scaled));
        const __m512 rounded = _mm512_sub_ps(_mm512_add_ps(scaled, magic), magic);
        _mm512_mask_cvtepi32_storeu_epi8(out + c, lanes, _mm512_add_epi32(_mm512_cvttps_epi32(rounded), zeroPoint));
    }
}

}  // namespace

void requantizeFp32Avx512(const int32_t* sums, size_t count, const Fp32Requantization& r, int8_t* out) {
    requantizeFp32Lanes(sums, count, r, out);
}
void requantizeFp32Avx512(const int32_t* sums, size_t count, const Fp32Requantization& r, uint8_t* out) {
    requantizeFp32Lanes(sums, count, r, out);
}

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
