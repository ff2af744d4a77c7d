// The quantized GEMM on 256-bit vectors, for the AVX2 kernel files only (GemmAvx2.cpp,
// GemmAvxVnni.cpp: each compiles it with its own flags, everything here internal to it). The
// VNNI kernel's layout and arithmetic, 8 channels per vector, tiles of up to 4 rows x 16
// channels; `Dot` adds the 4-byte dot products of unsigned activations and signed weights to
// each 32-bit lane, exactly (wrapping like vpdpbusd):
//   Dot::Weights Dot::weights(__m256i w);   32 weight bytes, once per depth group
//   Dot::Values Dot::values(__m256i x);     4 activation bytes broadcast, once per row and group
//   __m256i Dot::add(__m256i acc, const Dot::Values&, const Dot::Weights&);
#pragma once

#include <immintrin.h>

#include <cstring>

#include "Avx2Requant.h"

namespace nnemu::synap::kernels {
namespace {

constexpr int kGemmRows = 4;

// The row term of row r (GemmArgs.h).
int32_t rowTermOf(const GemmArgs& a, size_t r) {
    if (a.rowTerms != nullptr) return a.rowTerms[r];
    uint32_t sum = 0;
    for (size_t k = 0; k < a.depthGroups * 4; ++k) sum += a.rows[r * a.rowStride + k];
    return static_cast<int32_t>(sum * static_cast<uint32_t>(a.rowFactor));
}

template <class Dot, int R>
void gemmTile(const GemmArgs& a, const int32_t* rowTerms, size_t row, size_t block) {
    __m256i acc[R][2];
    for (int i = 0; i < R; ++i) acc[i][0] = acc[i][1] = _mm256_setzero_si256();
    const __m256i flip = _mm256_set1_epi8(a.signedValues ? static_cast<char>(0x80) : 0);
    const int8_t* weights = a.weights + block * a.depthGroups * 64;
    for (size_t g = 0; g < a.depthGroups; ++g) {
        typename Dot::Weights w[2];
        for (int j = 0; j < 2; ++j) {
            w[j] = Dot::weights(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(weights + g * 64 + j * 32)));
        }
        for (int i = 0; i < R; ++i) {
            int32_t group;
            std::memcpy(&group, a.rows + (row + i) * a.rowStride + g * 4, 4);
            const typename Dot::Values x = Dot::values(_mm256_xor_si256(_mm256_set1_epi32(group), flip));
            for (int j = 0; j < 2; ++j) acc[i][j] = Dot::add(acc[i][j], x, w[j]);
        }
    }
    for (int j = 0; j < 2; ++j) {
        const size_t first = block * kGemmBlock + j * 8;
        if (first >= a.channels) break;
        const size_t count = a.channels - first < 8 ? a.channels - first : 8;
        const Requant q = requantOf(a, first);
        for (int i = 0; i < R; ++i) {
            storeBytes(requantize(a, q, acc[i][j], rowTerms[i]), a.output + (row + i) * a.outputStride + first, count);
        }
    }
}

template <class Dot, int R>
void gemmRowTile(const GemmArgs& a, size_t row) {
    const size_t blocks = (a.channels + kGemmBlock - 1) / kGemmBlock;
    int32_t rowTerms[R];
    for (int i = 0; i < R; ++i) rowTerms[i] = rowTermOf(a, row + i);
    for (size_t block = 0; block < blocks; ++block) gemmTile<Dot, R>(a, rowTerms, row, block);
}

template <class Dot>
void gemmRows(const GemmArgs& a) {
    size_t row = 0;
    for (; row + kGemmRows <= a.rowCount; row += kGemmRows) gemmRowTile<Dot, kGemmRows>(a, row);
    switch (a.rowCount - row) {
        case 3: gemmRowTile<Dot, 3>(a, row); break;
        case 2: gemmRowTile<Dot, 2>(a, row); break;
        case 1: gemmRowTile<Dot, 1>(a, row); break;
        default: break;
    }
}

}  // namespace
}  // namespace nnemu::synap::kernels
