// The int8 CONV_2D's GEMM with AVX-512BW (ConvInt8Gemm.h): the register tile of ConvInt8GemmTile.h,
// one vpmaddwd per pixel and 16 channels per depth pair; and XNNPACK's float requantization.
#include <immintrin.h>

#include <cstring>

#include "ConvInt8Gemm.h"
#include "ConvInt8GemmTile.h"

namespace nnemu::tflite::kernels::conv {
namespace {

// A depth pair of int16 per row value, one vpmaddwd per 16 channels.
struct PairStep {
    using Value = int16_t;
    using Weight = int16_t;
    static constexpr size_t kValues = 2;
    static __m512i add(__m512i acc, __m512i x, __m512i w) { return _mm512_add_epi32(acc, _mm512_madd_epi16(x, w)); }
};

// The portable loop's results on 16 channels (requantizeFp32Loop, ConvInt8Gemm.cpp), the lanes past
// `count` masked off (loaded as 0, never stored). MAXPS and MINPS return their second operand
// where either is NaN, so max(below, x) and min(above, x) are std::max(x, below) and
// std::min(x, above) exactly; vpmovdb truncates as the cast to 8 bits does.
template <typename T>
void requantizeFp32Lanes(const int32_t* rowSums, size_t rows, size_t sumStride, size_t count,
                         const Fp32Requantization& r, T* rowOut) {
    const __m512 below = _mm512_set1_ps(static_cast<float>(r.low - r.zeroPoint));
    const __m512 above = _mm512_set1_ps(static_cast<float>(r.high - r.zeroPoint));
    const __m512i zeroPoint = _mm512_set1_epi32(r.zeroPoint);
    // In locals: an 8-bit store may alias the fields of `r`, which GCC then reloaded at every step.
    const int32_t* const bias = r.bias;
    const float* const scale = r.scale;
    for (size_t p = 0; p < rows; ++p) {
        const int32_t* sums = rowSums + p * sumStride;
        T* out = rowOut + p * count;
        for (size_t c = 0; c < count; c += 16) {
            const auto lanes = static_cast<__mmask16>(count - c >= 16 ? 0xFFFFu : (1u << (count - c)) - 1);
            __m512i acc = _mm512_maskz_loadu_epi32(lanes, sums + c);
            if (bias != nullptr) acc = _mm512_add_epi32(acc, _mm512_maskz_loadu_epi32(lanes, bias + c));
            __m512 scaled = _mm512_mul_ps(_mm512_cvtepi32_ps(acc), _mm512_maskz_loadu_ps(lanes, scale + c));
            scaled = _mm512_min_ps(above, _mm512_max_ps(below, scaled));
            // Rounded to nearest even in the conversion (MXCSR's default rounding, which TFLite's
            // XNNPACK kernels use the same way): the magic-number add's bits for every clamped
            // value; a NaN becomes 0x80000000 either way.
            _mm512_mask_cvtepi32_storeu_epi8(out + c, lanes, _mm512_add_epi32(_mm512_cvtps_epi32(scaled), zeroPoint));
        }
    }
}

}  // namespace

void requantizeFp32Avx512(const int32_t* sums, size_t count, const Fp32Requantization& r, int8_t* out) {
    requantizeFp32Lanes(sums, 1, count, count, r, out);
}
void requantizeFp32Avx512(const int32_t* sums, size_t count, const Fp32Requantization& r, uint8_t* out) {
    requantizeFp32Lanes(sums, 1, count, count, r, out);
}
void requantizeFp32RowsAvx512(const int32_t* sums, size_t rows, size_t sumStride, size_t count,
                              const Fp32Requantization& r, int8_t* out) {
    requantizeFp32Lanes(sums, rows, sumStride, count, r, out);
}
void requantizeFp32RowsAvx512(const int32_t* sums, size_t rows, size_t sumStride, size_t count,
                              const Fp32Requantization& r, uint8_t* out) {
    requantizeFp32Lanes(sums, rows, sumStride, count, r, out);
}

void gemmInt16Avx512(const int16_t* rows, size_t count, const int16_t* packed, size_t blocks, size_t pairs,
                     int32_t* sums) {
    tile::gemmSums<PairStep>(rows, count, packed, blocks, pairs, sums);
}

}  // namespace nnemu::tflite::kernels::conv
