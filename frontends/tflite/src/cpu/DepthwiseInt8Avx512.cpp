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

// Where a pixel's sums go: SumsOut stores them; RequantizedOut requantizes them in registers.
struct SumsOut {
    int32_t* sums;
    void operator()(size_t p, size_t channels, size_t c, __mmask16 lanes, __m512i acc) const {
        _mm512_mask_storeu_epi32(sums + p * channels + c, lanes, acc);
    }
};

// conv::requantizeFp32Rows's steps (ConvInt8GemmAvx512.cpp) on one vector of sums, its bytes stored.
struct RequantizedOut {
    uint8_t* out;
    const float* scale;
    __m512 below, above;
    __m512i zeroPoint;
    void operator()(size_t p, size_t channels, size_t c, __mmask16 lanes, __m512i acc) const {
        __m512 scaled = _mm512_mul_ps(_mm512_cvtepi32_ps(acc), _mm512_maskz_loadu_ps(lanes, scale + c));
        scaled = _mm512_min_ps(above, _mm512_max_ps(below, scaled));
        const __m128i bytes = _mm512_cvtepi32_epi8(_mm512_add_epi32(_mm512_cvtps_epi32(scaled), zeroPoint));
        _mm_mask_storeu_epi8(out + p * channels + c, lanes, bytes);
    }
};

// V vectors of 16 channels from channel c of pixel p (the last one masked to `lanes`).
template <bool Unsigned, size_t V, typename Out>
inline void pixelSums(const uint8_t* const* taps, size_t count, const int32_t* filter, const int32_t* bias,
                      size_t channels, size_t p, size_t c, __mmask16 lanes, const Out& out) {
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
    for (size_t v = 0; v < V; ++v) out(p, channels, c + 16 * v, v + 1 == V ? lanes : 0xFFFF, acc[v]);
}

template <bool Unsigned, typename Out>
void rowSums(const uint8_t* const* taps, size_t pixels, size_t count, const int32_t* filter, const int32_t* bias,
             size_t channels, const Out& out) {
    for (size_t p = 0; p < pixels; ++p, taps += count) {
        size_t c = 0;
        for (; c + 64 <= channels; c += 64) pixelSums<Unsigned, 4>(taps, count, filter, bias, channels, p, c, 0xFFFF, out);
        for (; c < channels; c += 16) {
            const auto lanes = static_cast<__mmask16>(channels - c >= 16 ? 0xFFFFu : (1u << (channels - c)) - 1);
            pixelSums<Unsigned, 1>(taps, count, filter, bias, channels, p, c, lanes, out);
        }
    }
}

}  // namespace

void rowSumsAvx512(const uint8_t* const* taps, size_t pixels, size_t count, const int32_t* filter, const int32_t* bias,
                   size_t channels, bool unsignedInput, int32_t* sums) {
    if (unsignedInput) {
        rowSums<true>(taps, pixels, count, filter, bias, channels, SumsOut{sums});
    } else {
        rowSums<false>(taps, pixels, count, filter, bias, channels, SumsOut{sums});
    }
}

void rowRequantizedAvx512(const uint8_t* const* taps, size_t pixels, size_t count, const int32_t* filter,
                          const int32_t* bias, size_t channels, bool unsignedInput, const conv::Fp32Requantization& r,
                          uint8_t* out) {
    const RequantizedOut to{out, r.scale, _mm512_set1_ps(static_cast<float>(r.low - r.zeroPoint)),
                            _mm512_set1_ps(static_cast<float>(r.high - r.zeroPoint)), _mm512_set1_epi32(r.zeroPoint)};
    if (unsignedInput) {
        rowSums<true>(taps, pixels, count, filter, bias, channels, to);
    } else {
        rowSums<false>(taps, pixels, count, filter, bias, channels, to);
    }
}

}  // namespace nnemu::tflite::kernels::depthwise_int8
