// The int8 CONV_2D's GEMM with AVX2 (ConvInt8Gemm.h): 6 pixels x one block of 16 output channels
// (two halves of 8) in 12 accumulators, one vpmaddwd per pixel and half per depth pair.
#include <immintrin.h>

#include <cstring>

#include "ConvInt8Gemm.h"

namespace nnemu::tflite::kernels::conv {
namespace {

constexpr size_t kHalf = kGemmLanes / 2;

template <int Pixels>
void tile(const int16_t* rows, size_t depth, const int16_t* packed, size_t pairs, size_t stride, int32_t* sums) {
    __m256i acc[Pixels][2];
    for (int p = 0; p < Pixels; ++p) acc[p][0] = acc[p][1] = _mm256_setzero_si256();
    for (size_t k = 0; k < pairs; ++k) {
        const int16_t* w = packed + k * 2 * kGemmLanes;
        const __m256i low = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w));
        const __m256i high = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + 2 * kHalf));
        for (int p = 0; p < Pixels; ++p) {
            int32_t pair;
            std::memcpy(&pair, rows + p * depth + 2 * k, sizeof(pair));
            const __m256i x = _mm256_set1_epi32(pair);
            acc[p][0] = _mm256_add_epi32(acc[p][0], _mm256_madd_epi16(x, low));
            acc[p][1] = _mm256_add_epi32(acc[p][1], _mm256_madd_epi16(x, high));
        }
    }
    for (int p = 0; p < Pixels; ++p) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(sums + p * stride), acc[p][0]);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(sums + p * stride + kHalf), acc[p][1]);
    }
}

}  // namespace

void gemmInt16Avx2(const int16_t* rows, size_t count, const int16_t* packed, size_t blocks, size_t pairs, int32_t* sums) {
    const size_t depth = 2 * pairs, stride = blocks * kGemmLanes, blockSize = pairs * 2 * kGemmLanes;
    for (size_t b = 0; b < blocks; ++b) {
        for (size_t p = 0; p < count; p += 6) {
            const int16_t* r = rows + p * depth;
            const int16_t* w = packed + b * blockSize;
            int32_t* s = sums + p * stride + b * kGemmLanes;
            switch (count - p < 6 ? count - p : 6) {
                case 1: tile<1>(r, depth, w, pairs, stride, s); break;
                case 2: tile<2>(r, depth, w, pairs, stride, s); break;
                case 3: tile<3>(r, depth, w, pairs, stride, s); break;
                case 4: tile<4>(r, depth, w, pairs, stride, s); break;
                case 5: tile<5>(r, depth, w, pairs, stride, s); break;
                default: tile<6>(r, depth, w, pairs, stride, s); break;
            }
        }
    }
}

}  // namespace nnemu::tflite::kernels::conv
