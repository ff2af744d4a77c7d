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
    static __m512i add(__m512i acc, __m512i x, __m512i w) { return _mm512_dpbusd_epi32(acc, x, w); }
};

}  // namespace

void gemmUint8Int8Vnni(const uint8_t* rows, size_t count, const int8_t* packed, size_t blocks, size_t quads,
                       int32_t* sums) {
    tile::gemm<QuadStep>(rows, count, packed, blocks, quads, sums);
}

}  // namespace nnemu::tflite::kernels::conv
