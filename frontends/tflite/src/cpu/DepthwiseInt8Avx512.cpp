// DepthwiseInt8.cpp's sums with AVX-512BW for a depth multiplier of 1 (chosen at run time): per
// output pixel and 16 channels, every tap's input bytes widened to int32 as they are loaded and
// multiplied in registers, as XNNPACK's int8 depthwise does; the input's zero point taken off
// through the bias (DepthwiseInt8Lanes.h). The sums are integers modulo 2^32, so any order of
// the products gives the bits of the row passes.
#include <immintrin.h>

#include "DepthwiseInt8Lanes.h"

namespace nnemu::tflite::kernels::depthwise_int8 {
namespace {

template <bool Unsigned>
inline __m512i widened(const uint8_t* p, __mmask16 lanes) {
    const __m128i bytes = _mm_maskz_loadu_epi8(lanes, p);
    return Unsigned ? _mm512_cvtepu8_epi32(bytes) : _mm512_cvtepi8_epi32(bytes);
}

// V vectors of 16 channels from channel c of one pixel (the last one masked to `lanes`).
template <bool Unsigned, size_t V>
inline void pixelSums(const uint8_t* const* taps, size_t count, const int32_t* filter, const int32_t* bias,
                      size_t channels, size_t c, __mmask16 lanes, int32_t* out) {
    __m512i acc[V];
    for (size_t v = 0; v < V; ++v) {
        acc[v] = _mm512_maskz_loadu_epi32(v + 1 == V ? lanes : 0xFFFF, bias + c + 16 * v);
    }
    for (size_t t = 0; t < count; ++t) {
        const uint8_t* in = taps[t] + c;
        const int32_t* w = filter + t * channels + c;
        for (size_t v = 0; v < V; ++v) {
            const __mmask16 m = v + 1 == V ? lanes : 0xFFFF;
            const __m512i product = _mm512_mullo_epi32(widened<Unsigned>(in + 16 * v, m), _mm512_maskz_loadu_epi32(m, w + 16 * v));
            acc[v] = _mm512_add_epi32(acc[v], product);
        }
    }
    for (size_t v = 0; v < V; ++v) _mm512_mask_storeu_epi32(out + c + 16 * v, v + 1 == V ? lanes : 0xFFFF, acc[v]);
}

template <bool Unsigned>
void rowSums(const uint8_t* const* taps, size_t pixels, size_t count, const int32_t* filter, const int32_t* bias,
             size_t channels, int32_t* sums) {
    for (size_t p = 0; p < pixels; ++p, taps += count, sums += channels) {
        size_t c = 0;
        for (; c + 64 <= channels; c += 64) pixelSums<Unsigned, 4>(taps, count, filter, bias, channels, c, 0xFFFF, sums);
        for (; c < channels; c += 16) {
            const auto lanes = static_cast<__mmask16>(channels - c >= 16 ? 0xFFFFu : (1u << (channels - c)) - 1);
            pixelSums<Unsigned, 1>(taps, count, filter, bias, channels, c, lanes, sums);
        }
    }
}

}  // namespace

void rowSumsAvx512(const uint8_t* const* taps, size_t pixels, size_t count, const int32_t* filter, const int32_t* bias,
                   size_t channels, bool unsignedInput, int32_t* sums) {
    if (unsignedInput) {
        rowSums<true>(taps, pixels, count, filter, bias, channels, sums);
    } else {
        rowSums<false>(taps, pixels, count, filter, bias, channels, sums);
    }
}

}  // namespace nnemu::tflite::kernels::depthwise_int8
