// The 3x3 depthwise convolution on AVX-512 VNNI: 16 channels per vector, each tap's bytes
// widened to 32-bit lanes and vpdpwssd against the 16-bit weights; the GEMM's requantization.
// One 16-channel block at a time along a whole output row, its weights and constants in registers.
#include <immintrin.h>

#include "Avx512Requant.h"
#include "DepthwiseArgs.h"

namespace nnemu::synap::kernels {
namespace {

template <bool kSigned, bool kFast>
void blockRow(const DepthwiseArgs& a, const uint8_t* const rows[3], size_t outRow, size_t block) {
    const GemmArgs& q = a.requant;
    const size_t channels = q.channels, first = block * kGemmBlock;
    const size_t count = channels - first < kGemmBlock ? channels - first : kGemmBlock;
    const __mmask16 lanes = static_cast<__mmask16>((1u << count) - 1);
    __m512i w[9];
    for (int t = 0; t < 9; ++t) w[t] = _mm512_loadu_si512(a.weights + (block * 9 + t) * kGemmBlock);
    const FastRequant fast = kFast ? fastRequantOf(q, block) : FastRequant{};
    const Requant slow = kFast ? Requant{} : requantOf(q, block);
    uint8_t* out = q.output + outRow * a.outWidth * channels + first;
    const auto tap = [&](const uint8_t* at, int t) {
        const __m128i bytes = _mm_maskz_loadu_epi8(lanes, at);
        return _mm512_dpwssd_epi32(_mm512_setzero_si512(), kSigned ? _mm512_cvtepi8_epi32(bytes)
                                                                     : _mm512_cvtepu8_epi32(bytes), w[t]);
    };
    for (size_t x = 0; x < a.outWidth; ++x, out += channels) {
        const int64_t left = static_cast<int64_t>(x * a.stride) - a.padLeft;
        __m512i acc = _mm512_setzero_si512();
        if (left >= 0 && left + 2 < static_cast<int64_t>(a.inWidth)) {
            // Inside horizontally: rows above or below the input are the zero-point row.
            for (int ky = 0; ky < 3; ++ky) {
                const uint8_t* at = rows[ky] + left * channels + first;
                acc = _mm512_add_epi32(acc, _mm512_add_epi32(tap(at, ky * 3), tap(at + channels, ky * 3 + 1)));
                acc = _mm512_add_epi32(acc, tap(at + 2 * channels, ky * 3 + 2));
            }
        } else {
            for (int kx = 0; kx < 3; ++kx) {
                const int64_t ix = left + kx;
                const bool inside = ix >= 0 && ix < static_cast<int64_t>(a.inWidth);
                for (int ky = 0; ky < 3; ++ky) {
                    acc = _mm512_add_epi32(acc, tap(inside ? rows[ky] + ix * channels + first : a.zeroRow + first,
                                                    ky * 3 + kx));
                }
            }
        }
        const __m512i result = kFast ? requantizeFast(q, fast, acc, 0) : requantize(q, slow, acc, 0);
        _mm512_mask_cvtepi32_storeu_epi8(out, lanes, result);
    }
}

template <bool kSigned, bool kFast>
void rows(const DepthwiseArgs& a) {
    const size_t blocks = (a.requant.channels + kGemmBlock - 1) / kGemmBlock;
    for (size_t row = a.rowBegin; row < a.rowEnd; ++row) {
        const size_t batch = row / a.outHeight, y = row % a.outHeight;
        const uint8_t* inputRows[3];  // above or below the input: the zero-point row
        for (int ky = 0; ky < 3; ++ky) {
            const int64_t iy = static_cast<int64_t>(y * a.stride) - a.padTop + ky;
            inputRows[ky] = iy >= 0 && iy < static_cast<int64_t>(a.inHeight)
                                    ? a.input + (batch * a.inHeight + static_cast<size_t>(iy)) * a.inWidth * a.requant.channels
                                    : a.zeroRow;
        }
        for (size_t block = 0; block < blocks; ++block) blockRow<kSigned, kFast>(a, inputRows, row, block);
    }
}

}  // namespace

void depthwiseAvx512Vnni(const DepthwiseArgs& a) {
    const bool fast = a.requant.fastBlocks != nullptr;
    if (a.signedInput) {
        fast ? rows<true, true>(a) : rows<true, false>(a);
    } else {
        fast ? rows<false, true>(a) : rows<false, false>(a);
    }
}

}  // namespace nnemu::synap::kernels
