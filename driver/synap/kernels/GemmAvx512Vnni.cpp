// The quantized GEMM on AVX-512 VNNI: vpdpbusd multiplies 4 unsigned activation bytes by 4
// signed weight bytes per channel lane; 16 channels per vector, tiles of up to 4 rows x 64
// channels; integer requantization in vectors, bit-exact with QuantMath.h. Compiled with
// AVX-512 flags: only called when the CPU has them.
#include <immintrin.h>

#include <cstring>

#include "Avx512Requant.h"
#include "GemmArgs.h"

namespace nnemu::synap::kernels {
namespace {

constexpr int kRows = 4;
constexpr int kBlocks = 4;

template <int R, int B>
void tile(const GemmArgs& a, size_t row, size_t block) {
    __m512i acc[R][B];
    for (int i = 0; i < R; ++i) {
        for (int j = 0; j < B; ++j) acc[i][j] = _mm512_setzero_si512();
    }
    const uint8_t* rows = a.rows + row * a.rowStride;
    const int8_t* weights = a.weights + block * a.depthGroups * 64;
    for (size_t g = 0; g < a.depthGroups; ++g) {
        __m512i w[B];
        for (int j = 0; j < B; ++j) w[j] = _mm512_loadu_si512(weights + (j * a.depthGroups + g) * 64);
        for (int i = 0; i < R; ++i) {
            int32_t group;
            std::memcpy(&group, rows + i * a.rowStride + g * 4, 4);
            const __m512i x = _mm512_set1_epi32(group);
            for (int j = 0; j < B; ++j) acc[i][j] = _mm512_dpbusd_epi32(acc[i][j], x, w[j]);
        }
    }
    for (int j = 0; j < B; ++j) {
        const size_t first = (block + j) * kGemmBlock;
        const size_t count = a.channels - first < kGemmBlock ? a.channels - first : kGemmBlock;
        const __mmask16 store = static_cast<__mmask16>((1u << count) - 1);
        uint8_t* out = a.output + row * a.channels + first;
        if (a.fastBlocks != nullptr) {
            const FastRequant q = fastRequantOf(a, block + j);
            for (int i = 0; i < R; ++i) {
                const __m512i value = requantizeFast(a, q, acc[i][j], a.rowTerms[row + i]);
                _mm512_mask_cvtepi32_storeu_epi8(out + i * a.channels, store, value);
            }
            continue;
        }
        const Requant q = requantOf(a, block + j);
        for (int i = 0; i < R; ++i) {
            _mm512_mask_cvtepi32_storeu_epi8(out + i * a.channels, store,
                                             requantize(a, q, acc[i][j], a.rowTerms[row + i]));
        }
    }
}

template <int R>
void rowTile(const GemmArgs& a, size_t row) {
    const size_t blocks = (a.channels + kGemmBlock - 1) / kGemmBlock;
    size_t block = 0;
    for (; block + kBlocks <= blocks; block += kBlocks) tile<R, kBlocks>(a, row, block);
    switch (blocks - block) {
        case 3: tile<R, 3>(a, row, block); break;
        case 2: tile<R, 2>(a, row, block); break;
        case 1: tile<R, 1>(a, row, block); break;
        default: break;
    }
}

}  // namespace

void gemmAvx512Vnni(const GemmArgs& a) {
    size_t row = 0;
    for (; row + kRows <= a.rowCount; row += kRows) rowTile<kRows>(a, row);
    switch (a.rowCount - row) {
        case 3: rowTile<3>(a, row); break;
        case 2: rowTile<2>(a, row); break;
        case 1: rowTile<1>(a, row); break;
        default: break;
    }
}

}  // namespace nnemu::synap::kernels
