// The 3x3 depthwise convolution on 256-bit vectors, for the AVX2 kernel files only
// (DepthwiseAvx2.cpp, DepthwiseAvxVnni.cpp: each compiles it with its own flags, everything here
// internal to it). 16 channels (two vectors of 8) at a time along an output row, 8 in a last block
// of at most 8. Per input column, rows 0 and 1 as a pair of 16-bit values in each 32-bit lane and
// row 2 alone, so that a 16-bit multiply-add sums two taps exactly against pairs of weights
// (DepthwiseAvx2Layout); each column serves the outputs of up to 3 columns (stride 1).
// `Dot::sum(values, weights)`, both [3 kx][pair, third], is the sum of the six vpmaddwd(values,
// weights) (no 16-bit saturation: the values are bytes, the weights within +-255). The folded
// requantization (Avx2Requant.h) where nothing saturates, else the GEMM's.
#pragma once

#include <cstring>

#include "Avx2Requant.h"
#include "DepthwiseArgs.h"

namespace nnemu::synap::kernels {
namespace {

// One input column of 16 channels: [half] rows 0 and 1 paired, row 2 with a zero.
struct Column {
    __m256i pair[2], third[2];
};

// kLanes (16, or 8: a block of at most 8 channels, whose second half is never computed) channels
// of rows 0, 1 and 2 of one input column (kFull: kLanes readable bytes at each).
template <bool kSigned, bool kFull, int kLanes>
Column columnOf(const uint8_t* row0, const uint8_t* row1, const uint8_t* row2, size_t count) {
    if constexpr (!kFull) {
        alignas(16) uint8_t bytes[3][16] = {};
        std::memcpy(bytes[0], row0, count);
        std::memcpy(bytes[1], row1, count);
        std::memcpy(bytes[2], row2, count);
        return columnOf<kSigned, true, kLanes>(bytes[0], bytes[1], bytes[2], kLanes);
    } else {
        const auto widen16 = [](__m128i v) { return kSigned ? _mm256_cvtepi8_epi16(v) : _mm256_cvtepu8_epi16(v); };
        const auto widen32 = [](const uint8_t* p) {
            const __m128i v = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
            return kSigned ? _mm256_cvtepi8_epi32(v) : _mm256_cvtepu8_epi32(v);
        };
        if constexpr (kLanes == 8) {
            const __m128i r0 = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(row0));
            const __m128i r1 = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(row1));
            const __m256i none = _mm256_setzero_si256();
            return {{widen16(_mm_unpacklo_epi8(r0, r1)), none}, {widen32(row2), none}};
        } else {
            const __m128i r0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row0));
            const __m128i r1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row1));
            return {{widen16(_mm_unpacklo_epi8(r0, r1)), widen16(_mm_unpackhi_epi8(r0, r1))},
                    {widen32(row2), widen32(row2 + 8)}};
        }
    }
}

// The input rows of output row `row` (batch * outHeight + y); above or below the input, the
// zero-point row.
void inputRowsOf(const DepthwiseArgs& a, size_t row, const uint8_t* rows[3]) {
    const size_t batch = row / a.outHeight, y = row % a.outHeight;
    for (int ky = 0; ky < 3; ++ky) {
        const int64_t iy = static_cast<int64_t>(y * a.stride) - a.padTop + ky;
        rows[ky] = iy >= 0 && iy < static_cast<int64_t>(a.inHeight)
                           ? a.input + (batch * a.inHeight + static_cast<size_t>(iy) - a.inRowFirst) *
                               a.inWidth * a.requant.channels
                           : a.zeroRow;
    }
}

// One 16-channel block over output rows [rowBegin, rowEnd): its weights and constants loaded once;
// with kLanes 8 its first half only (the block holds at most 8 channels).
template <class Dot, bool kSigned, Mode kMode, bool kFull, int kLanes, int kStride>
void blockRows(const DepthwiseArgs& a, size_t block, size_t rowBegin, size_t rowEnd) {
    const GemmArgs& q = a.requant;
    const size_t channels = q.channels, first = block * kGemmBlock;
    const size_t count = channels - first < kGemmBlock ? channels - first : kGemmBlock;
    __m256i w[2][3][2];  // [half][kx][pair, third]
    const int16_t* weights = a.pairWeights + block * 2 * 3 * 2 * 16;
    for (int h = 0; h < 2; ++h) {
        for (int kx = 0; kx < 3; ++kx) {
            for (int k = 0; k < 2; ++k) {
                const int16_t* at = weights + ((h * 3 + kx) * 2 + k) * 16;
                w[h][kx][k] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at));
            }
        }
    }
    FoldedRequant folded[2];
    Requant slow[2];
    for (int h = 0; h < kLanes / 8; ++h) {
        const size_t c = first + 8 * static_cast<size_t>(h);
        if constexpr (kMode == Mode::Saturating) {
            slow[h] = requantOf(q, c);
        } else {
            folded[h] = foldedRequantOf(a.avx2Folded[block], a.avx2Initial + c, a.avx2Post + c, h);
        }
    }
    const __m128i low = _mm_set1_epi8(static_cast<char>(q.low)), high = _mm_set1_epi8(static_cast<char>(q.high));
    const int64_t width = a.inWidth, left = -static_cast<int64_t>(a.padLeft);
    const uint8_t* zero = a.zeroRow + first;
    const Column pad = columnOf<kSigned, true, kLanes>(zero, zero, zero, kLanes);
    const uint8_t* rows[3];
    uint8_t* out = nullptr;
    const auto column = [&](int64_t ix) __attribute__((always_inline)) {
        if (ix < 0 || ix >= width) return pad;
        const size_t at = static_cast<size_t>(ix) * channels + first;
        return columnOf<kSigned, kFull, kLanes>(rows[0] + at, rows[1] + at, rows[2] + at, count);
    };
    const auto emit = [&](const Column& c0, const Column& c1, const Column& c2, size_t x)
                              __attribute__((always_inline)) {
        __m256i y[2];
        for (int h = 0; h < kLanes / 8; ++h) {
            const __m256i values[3][2] = {{c0.pair[h], c0.third[h]}, {c1.pair[h], c1.third[h]}, {c2.pair[h], c2.third[h]}};
            const __m256i acc = Dot::sum(values, w[h]);
            if constexpr (kMode == Mode::Saturating) {
                y[h] = requantize(q, slow[h], acc, 0);
            } else {
                y[h] = scaleFolded<kMode == Mode::FoldedAboveZero>(folded[h], acc);
            }
        }
        if constexpr (kLanes == 8) y[1] = y[0];  // packed alongside, not stored
        store16<kSigned, kFull, kLanes>(y, low, high, out + x * channels, count);
    };
    for (size_t row = rowBegin; row < rowEnd; ++row) {
        inputRowsOf(a, row, rows);
        out = q.output + (row - a.outRowFirst) * a.outWidth * channels + first;
        // Three column slots; output x reads slots b, b + 1, b + 2 (mod 3), then the columns the
        // next output needs replace the ones it does not. The unrolled loop keeps the slots in registers.
        Column s[3] = {column(left), column(left + 1), column(left + 2)};
        const auto step = [&](int b, size_t x) __attribute__((always_inline)) {
            emit(s[b], s[(b + 1) % 3], s[(b + 2) % 3], x);
            const int64_t ix = left + static_cast<int64_t>(x) * kStride;
            s[b] = column(ix + 3);
            if (kStride == 2) s[(b + 1) % 3] = column(ix + 4);
        };
        constexpr int kSecond = kStride == 1 ? 1 : 2, kThird = kStride == 1 ? 2 : 1;
        const size_t n = a.outWidth;
        size_t x = 0;
        for (; x + 3 <= n; x += 3) {
            step(0, x);
            step(kSecond, x + 1);
            step(kThird, x + 2);
        }
        if (x < n) step(0, x);
        if (x + 1 < n) step(kSecond, x + 1);
    }
}

using BlockRows = void (*)(const DepthwiseArgs&, size_t, size_t, size_t);

template <class Dot, bool kSigned, Mode kMode, bool kFull, int kLanes>
BlockRows blockRowsOf(int stride) {
    return stride == 1 ? blockRows<Dot, kSigned, kMode, kFull, kLanes, 1> : blockRows<Dot, kSigned, kMode, kFull, kLanes, 2>;
}

// Chunks of output rows of at least 256 outputs, each block over a chunk: few setups per output
// on small layers, a chunk's input still in the caches on large ones. A last block of at most 8
// channels computes one half (MobileNet v1 0.25's first depthwise has 8 channels in all).
template <class Dot, bool kSigned, Mode kMode>
void rows(const DepthwiseArgs& a) {
    const size_t channels = a.requant.channels, whole = channels / kGemmBlock, left = channels % kGemmBlock;
    const int stride = static_cast<int>(a.stride);
    const BlockRows full = blockRowsOf<Dot, kSigned, kMode, true, 16>(stride);
    const BlockRows tail = left == 8  ? blockRowsOf<Dot, kSigned, kMode, true, 8>(stride)
                         : left < 8   ? blockRowsOf<Dot, kSigned, kMode, false, 8>(stride)
                                      : blockRowsOf<Dot, kSigned, kMode, false, 16>(stride);
    const size_t chunk = (256 + a.outWidth - 1) / a.outWidth;
    for (size_t begin = a.rowBegin; begin < a.rowEnd; begin += chunk) {
        const size_t end = a.rowEnd - begin < chunk ? a.rowEnd : begin + chunk;
        for (size_t block = 0; block < whole; ++block) full(a, block, begin, end);
        if (left != 0) tail(a, whole, begin, end);
    }
}

template <class Dot, bool kSigned>
void rowsOf(const DepthwiseArgs& a) {
    if (a.avx2Folded == nullptr) return rows<Dot, kSigned, Mode::Saturating>(a);
    if (a.requant.low >= a.requant.outputZeroPoint) return rows<Dot, kSigned, Mode::FoldedAboveZero>(a);
    rows<Dot, kSigned, Mode::Folded>(a);
}

template <class Dot>
void depthwiseRows(const DepthwiseArgs& a) {
    a.signedInput ? rowsOf<Dot, true>(a) : rowsOf<Dot, false>(a);
}

}  // namespace

}  // namespace nnemu::synap::kernels
