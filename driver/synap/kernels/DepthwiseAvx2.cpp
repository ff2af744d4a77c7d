// The 3x3 depthwise convolution on AVX2, 16 channels (two vectors of 8) at a time along an
// output row. Per input column, rows 0 and 1 as a pair of 16-bit values in each 32-bit lane and
// row 2 alone, so that vpmaddwd sums two taps exactly (no 16-bit saturation) against pairs of
// weights (DepthwiseAvx2Layout); each column serves the outputs of up to 3 columns (stride 1).
// The folded requantization (Avx2Requant.h) where nothing saturates, else the GEMM's.
#include <cstring>

#include "Avx2Requant.h"
#include "DepthwiseArgs.h"

namespace nnemu::synap::kernels {
namespace {

// One input column of 16 channels: [half] rows 0 and 1 paired, row 2 with a zero.
struct Column {
    __m256i pair[2], third[2];
};

template <bool kSigned>
Column columnOf(__m128i r0, __m128i r1, __m128i r2) {
    const auto widen16 = [](__m128i v) { return kSigned ? _mm256_cvtepi8_epi16(v) : _mm256_cvtepu8_epi16(v); };
    const auto widen32 = [](__m128i v) { return kSigned ? _mm256_cvtepi8_epi32(v) : _mm256_cvtepu8_epi32(v); };
    return {{widen16(_mm_unpacklo_epi8(r0, r1)), widen16(_mm_unpackhi_epi8(r0, r1))},
            {widen32(r2), widen32(_mm_srli_si128(r2, 8))}};
}

// 16 bytes at p, or the first `count` of them (the rest 0) at the channels' end.
template <bool kFull>
__m128i load16(const uint8_t* p, size_t count) {
    if constexpr (kFull) {
        return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    } else {
        alignas(16) uint8_t bytes[16] = {};
        std::memcpy(bytes, p, count);
        return _mm_load_si128(reinterpret_cast<const __m128i*>(bytes));
    }
}

// Clamps 16 output values (two vectors of 8, zero point included) and stores their bytes; the
// saturating packs are exact inside the clamp.
template <bool kSigned, bool kFull>
void store16(const GemmArgs& q, const __m256i y[2], uint8_t* out, size_t count) {
    const __m256i words = _mm256_packs_epi32(y[0], y[1]);  // lanes: 0-3 8-11 | 4-7 12-15
    const __m256i bytes = kSigned ? _mm256_packs_epi16(words, words) : _mm256_packus_epi16(words, words);
    __m128i v = _mm_unpacklo_epi32(_mm256_castsi256_si128(bytes), _mm256_extracti128_si256(bytes, 1));
    const __m128i low = _mm_set1_epi8(static_cast<char>(q.low)), high = _mm_set1_epi8(static_cast<char>(q.high));
    v = kSigned ? _mm_min_epi8(_mm_max_epi8(v, low), high) : _mm_min_epu8(_mm_max_epu8(v, low), high);
    if constexpr (kFull) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out), v);
    } else {
        alignas(16) uint8_t bytesOut[16];
        _mm_store_si128(reinterpret_cast<__m128i*>(bytesOut), v);
        std::memcpy(out, bytesOut, count);
    }
}

template <bool kSigned, bool kFolded, bool kFull, int kStride>
void blockRow(const DepthwiseArgs& a, const uint8_t* const rows[3], size_t outRow, size_t block) {
    const GemmArgs& q = a.requant;
    const size_t channels = q.channels, first = block * kGemmBlock;
    const size_t count = channels - first < kGemmBlock ? channels - first : kGemmBlock;
    __m256i w[2][3][2];  // [half][kx][pair, third]
    const int16_t* weights = a.pairWeights + block * 2 * 3 * 2 * 16;
    for (int h = 0; h < 2; ++h) {
        for (int kx = 0; kx < 3; ++kx) {
            for (int k = 0; k < 2; ++k) {
                w[h][kx][k] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(weights + ((h * 3 + kx) * 2 + k) * 16));
            }
        }
    }
    FoldedRequant folded[2];
    Requant slow[2];
    for (int h = 0; h < 2; ++h) {
        const size_t c = first + 8 * static_cast<size_t>(h);
        if constexpr (kFolded) {
            folded[h] = foldedRequantOf(a.avx2Folded[block], a.avx2Initial + c, a.avx2Post + c, h);
        } else {
            slow[h] = requantOf(q, c);
        }
    }
    const int64_t width = a.inWidth;
    const uint8_t* zero = a.zeroRow + first;
    const Column pad = columnOf<kSigned>(load16<true>(zero, 16), load16<true>(zero, 16), load16<true>(zero, 16));
    const auto column = [&](int64_t ix) {
        if (ix < 0 || ix >= width) return pad;
        const size_t at = static_cast<size_t>(ix) * channels + first;
        return columnOf<kSigned>(load16<kFull>(rows[0] + at, count), load16<kFull>(rows[1] + at, count),
                                 load16<kFull>(rows[2] + at, count));
    };
    int64_t left = -static_cast<int64_t>(a.padLeft);
    Column c0 = column(left), c1 = column(left + 1), c2 = column(left + 2);
    uint8_t* out = q.output + outRow * a.outWidth * channels + first;
    for (size_t x = 0; x < a.outWidth; ++x, out += channels) {
        __m256i y[2];
        for (int h = 0; h < 2; ++h) {
            __m256i acc = _mm256_add_epi32(_mm256_madd_epi16(c0.pair[h], w[h][0][0]), _mm256_madd_epi16(c0.third[h], w[h][0][1]));
            acc = _mm256_add_epi32(acc, _mm256_add_epi32(_mm256_madd_epi16(c1.pair[h], w[h][1][0]),
                                                         _mm256_madd_epi16(c1.third[h], w[h][1][1])));
            acc = _mm256_add_epi32(acc, _mm256_add_epi32(_mm256_madd_epi16(c2.pair[h], w[h][2][0]),
                                                         _mm256_madd_epi16(c2.third[h], w[h][2][1])));
            y[h] = kFolded ? scaleFolded(folded[h], acc) : requantize(q, slow[h], acc, 0);
        }
        store16<kSigned, kFull>(q, y, out, count);
        left += kStride;
        if constexpr (kStride == 1) {
            c0 = c1;
            c1 = c2;
            c2 = column(left + 2);
        } else {
            c0 = c2;
            c1 = column(left + 1);
            c2 = column(left + 2);
        }
    }
}

using BlockRow = void (*)(const DepthwiseArgs&, const uint8_t* const[3], size_t, size_t);

template <bool kSigned, bool kFolded, bool kFull>
BlockRow blockRowOf(int stride) {
    return stride == 1 ? blockRow<kSigned, kFolded, kFull, 1> : blockRow<kSigned, kFolded, kFull, 2>;
}

template <bool kSigned, bool kFolded>
void rows(const DepthwiseArgs& a) {
    const size_t channels = a.requant.channels, whole = channels / kGemmBlock;
    const BlockRow full = blockRowOf<kSigned, kFolded, true>(static_cast<int>(a.stride));
    const BlockRow tail = blockRowOf<kSigned, kFolded, false>(static_cast<int>(a.stride));
    for (size_t row = a.rowBegin; row < a.rowEnd; ++row) {
        const size_t batch = row / a.outHeight, y = row % a.outHeight;
        const uint8_t* inputRows[3];  // above or below the input: the zero-point row
        for (int ky = 0; ky < 3; ++ky) {
            const int64_t iy = static_cast<int64_t>(y * a.stride) - a.padTop + ky;
            inputRows[ky] = iy >= 0 && iy < static_cast<int64_t>(a.inHeight)
                                    ? a.input + (batch * a.inHeight + static_cast<size_t>(iy)) * a.inWidth * channels
                                    : a.zeroRow;
        }
        for (size_t block = 0; block < whole; ++block) full(a, inputRows, row, block);
        if (whole * kGemmBlock < channels) tail(a, inputRows, row, whole);
    }
}

}  // namespace

void depthwiseAvx2(const DepthwiseArgs& a) {
    const bool folded = a.avx2Folded != nullptr;
    if (a.signedInput) {
        folded ? rows<true, true>(a) : rows<true, false>(a);
    } else {
        folded ? rows<false, true>(a) : rows<false, false>(a);
    }
}

}  // namespace nnemu::synap::kernels
