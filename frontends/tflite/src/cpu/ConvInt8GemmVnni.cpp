// The int8 CONV_2D's and FULLY_CONNECTED's GEMM with AVX-512 VNNI (ConvInt8Gemm.h): rows of
// unsigned bytes times int8 weights in the register tile of ConvInt8GemmTile.h, one vpdpbusd per
// pixel and 16 channels per depth quad (twice vpmaddwd's products on int16 pairs).
#include <immintrin.h>

#include "ConvInt8Gemm.h"
#include "ConvInt8GemmTile.h"

namespace nnemu::tflite::kernels::conv {
namespace {

struct QuadStep {
    using Value = uint8_t;
    using Weight = int8_t;
    static constexpr size_t kValues = 4;
    // _mm512_dpbusd_epi32(acc, x, w) in place: through the intrinsic GCC 12 copied each of the
    // tile's 12 accumulators to another register and back at every depth step (24 moves per 12
    // multiply-adds, `objdump` of the loop).
    static __m512i add(__m512i acc, __m512i x, __m512i w) {
        __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(x), "v"(w));
        return acc;
    }
};

// A tile's sums requantized in registers as requantizeFp32Lanes (ConvInt8GemmAvx512.cpp) does
// them, step for step, and stored as bytes: out[p * channels + c] for the channels below
// `channels` (the blocks' padding channels are not stored).
struct Fp32Out {
    int8_t* out;
    size_t channels, first;   // the tile's first channel
    const int32_t* bias;
    const float* scale;
    __m512 below, above;
    __m512i zeroPoint;

    Fp32Out at(size_t p, size_t c) const {
        Fp32Out moved = *this;
        moved.out = out + p * channels;
        moved.first = c;
        return moved;
    }
    void operator()(int p, int b, __m512i acc) const {
        const size_t c = first + static_cast<size_t>(b) * kGemmLanes;
        if (c >= channels) return;
        const auto lanes = static_cast<__mmask16>(channels - c >= 16 ? 0xFFFFu : (1u << (channels - c)) - 1);
        if (bias != nullptr) acc = _mm512_add_epi32(acc, _mm512_maskz_loadu_epi32(lanes, bias + c));
        __m512 scaled = _mm512_mul_ps(_mm512_cvtepi32_ps(acc), _mm512_maskz_loadu_ps(lanes, scale + c));
        scaled = _mm512_min_ps(above, _mm512_max_ps(below, scaled));
        const __m128i bytes = _mm512_cvtepi32_epi8(_mm512_add_epi32(_mm512_cvtps_epi32(scaled), zeroPoint));
        _mm_mask_storeu_epi8(out + static_cast<size_t>(p) * channels + c, lanes, bytes);
    }
};

}  // namespace

void gemmUint8Int8Vnni(const uint8_t* rows, size_t count, const int8_t* packed, size_t blocks, size_t quads,
                       int32_t* sums) {
    tile::gemmSums<QuadStep>(rows, count, packed, blocks, quads, sums);
}

void gemmUint8Int8VnniFp32(const uint8_t* rows, size_t count, const int8_t* packed, size_t blocks, size_t quads,
                           const Fp32Requantization& r, size_t channels, int8_t* out) {
    const Fp32Out to{out,
                     channels,
                     0,
                     r.bias,
                     r.scale,
                     _mm512_set1_ps(static_cast<float>(r.low - r.zeroPoint)),
                     _mm512_set1_ps(static_cast<float>(r.high - r.zeroPoint)),
                     _mm512_set1_epi32(r.zeroPoint)};
    tile::gemm<QuadStep>(rows, count, packed, blocks, quads, to);
}

}  // namespace nnemu::tflite::kernels::conv
