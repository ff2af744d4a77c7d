// The AVX-512 GEMMs' register tile (ConvInt8GemmAvx512.cpp on int16 pairs, ConvInt8GemmVnni.cpp on
// byte quads): 6 pixels x 32 output channels in 12 accumulators; per depth step (Step::kValues
// values of a row) one broadcast of each pixel's step and one Step::add per block of 16 channels.
// Included only by files compiled with the instructions their Step uses.
#pragma once

#include <immintrin.h>

#include <cstring>

#include "ConvInt8Gemm.h"

namespace nnemu::tflite::kernels::conv::tile {

// Where a tile's sums go: out(p, b, acc) takes pixel p's block b (16 channels) of the tile that
// out.at(first pixel, first channel) places. SumsOut stores them, sums[p * stride + c]; an Out
// of ConvInt8GemmVnni.cpp requantizes them in registers instead.
struct SumsOut {
    int32_t* sums;
    size_t stride;
    SumsOut at(size_t p, size_t c) const { return {sums + p * stride + c, stride}; }
    void operator()(int p, int b, __m512i acc) const { _mm512_storeu_si512(sums + p * stride + b * kGemmLanes, acc); }
};

template <typename Step, int Pixels, int Blocks, typename Out>
void steps(const typename Step::Value* rows, size_t depth, const typename Step::Weight* packed, size_t count,
           const Out& out) {
    __m512i acc[Pixels][Blocks];
    for (int p = 0; p < Pixels; ++p) {
        for (int b = 0; b < Blocks; ++b) acc[p][b] = _mm512_setzero_si512();
    }
    constexpr size_t kStep = Step::kValues * kGemmLanes;
    const size_t blockSize = count * kStep;
    for (size_t k = 0; k < count; ++k) {
        __m512i w[Blocks];
        for (int b = 0; b < Blocks; ++b) w[b] = _mm512_loadu_si512(packed + b * blockSize + k * kStep);
        for (int p = 0; p < Pixels; ++p) {
            int32_t values;   // one step of the row: two int16 or four bytes
            std::memcpy(&values, rows + p * depth + Step::kValues * k, sizeof(values));
            const __m512i x = _mm512_set1_epi32(values);
            for (int b = 0; b < Blocks; ++b) acc[p][b] = Step::add(acc[p][b], x, w[b]);
        }
    }
    for (int p = 0; p < Pixels; ++p) {
        for (int b = 0; b < Blocks; ++b) out(p, b, acc[p][b]);
    }
}

template <typename Step, int Blocks, typename Out>
void pixelsTail(size_t pixels, const typename Step::Value* rows, size_t depth, const typename Step::Weight* packed,
                size_t count, const Out& out) {
    switch (pixels) {
        case 1: return steps<Step, 1, Blocks>(rows, depth, packed, count, out);
        case 2: return steps<Step, 2, Blocks>(rows, depth, packed, count, out);
        case 3: return steps<Step, 3, Blocks>(rows, depth, packed, count, out);
        case 4: return steps<Step, 4, Blocks>(rows, depth, packed, count, out);
        case 5: return steps<Step, 5, Blocks>(rows, depth, packed, count, out);
        default: return steps<Step, 6, Blocks>(rows, depth, packed, count, out);
    }
}

// The sums of `pixels` rows of `count` steps, blocks of 16 channels two at a time, to `out`
// (SumsOut{sums, blocks * 16}: sums[p * blocks * 16 + c]).
template <typename Step, typename Out>
void gemm(const typename Step::Value* rows, size_t pixels, const typename Step::Weight* packed, size_t blocks,
          size_t count, const Out& out) {
    const size_t depth = Step::kValues * count, blockSize = count * Step::kValues * kGemmLanes;
    for (size_t b = 0; b < blocks; b += 2) {
        const typename Step::Weight* weights = packed + b * blockSize;
        for (size_t p = 0; p < pixels; p += 6) {
            const size_t n = pixels - p < 6 ? pixels - p : 6;
            if (b + 2 <= blocks) {
                pixelsTail<Step, 2>(n, rows + p * depth, depth, weights, count, out.at(p, b * kGemmLanes));
            } else {
                pixelsTail<Step, 1>(n, rows + p * depth, depth, weights, count, out.at(p, b * kGemmLanes));
            }
        }
    }
}

template <typename Step>
void gemmSums(const typename Step::Value* rows, size_t pixels, const typename Step::Weight* packed, size_t blocks,
              size_t count, int32_t* sums) {
    gemm<Step>(rows, pixels, packed, blocks, count, SumsOut{sums, blocks * kGemmLanes});
}

}  // namespace nnemu::tflite::kernels::conv::tile
