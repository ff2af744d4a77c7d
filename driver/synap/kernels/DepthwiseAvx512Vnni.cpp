// The 3x3 depthwise convolution on AVX-512 VNNI: 16 channels per vector, each tap's bytes
// widened to 32-bit lanes and vpdpwssd against the 16-bit weights; the GEMM's requantization.
#include <immintrin.h>

#include "Avx512Requant.h"
#include "DepthwiseArgs.h"

namespace nnemu::synap::kernels {

void depthwiseAvx512Vnni(const DepthwiseArgs& a) {
    const GemmArgs& q = a.requant;
    const size_t channels = q.channels, blocks = (channels + kGemmBlock - 1) / kGemmBlock;
    for (size_t row = a.rowBegin; row < a.rowEnd; ++row) {
        const size_t batch = row / a.outHeight, y = row % a.outHeight;
        for (size_t x = 0; x < a.outWidth; ++x) {
            const uint8_t* taps[9];
            for (int t = 0; t < 9; ++t) {
                const int64_t iy = int64_t(y * a.stride) - a.padTop + t / 3, ix = int64_t(x * a.stride) - a.padLeft + t % 3;
                const bool inside = iy >= 0 && iy < a.inHeight && ix >= 0 && ix < a.inWidth;
                taps[t] = inside ? a.input + ((batch * a.inHeight + iy) * a.inWidth + ix) * channels : a.zeroRow;
            }
            uint8_t* out = q.output + (row * a.outWidth + x) * channels;
            for (size_t block = 0; block < blocks; ++block) {
                const size_t first = block * kGemmBlock;
                const size_t count = channels - first < kGemmBlock ? channels - first : kGemmBlock;
                const __mmask16 lanes = static_cast<__mmask16>((1u << count) - 1);
                const int32_t* w = a.weights + block * 9 * kGemmBlock;
                __m512i acc = _mm512_setzero_si512();
                for (int t = 0; t < 9; ++t) {
                    const __m128i bytes = _mm_maskz_loadu_epi8(lanes, taps[t] + first);
                    const __m512i value = a.signedInput ? _mm512_cvtepi8_epi32(bytes) : _mm512_cvtepu8_epi32(bytes);
                    acc = _mm512_dpwssd_epi32(acc, value, _mm512_loadu_si512(w + t * kGemmBlock));
                }
                const __m512i result = q.fastBlocks != nullptr ? requantizeFast(q, fastRequantOf(q, block), acc, 0)
                                                               : requantize(q, requantOf(q, block), acc, 0);
                _mm512_mask_cvtepi32_storeu_epi8(out + first, lanes, result);
            }
        }
    }
}

}  // namespace nnemu::synap::kernels
