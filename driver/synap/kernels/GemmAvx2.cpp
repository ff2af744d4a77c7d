// The quantized GEMM on AVX2: the VNNI kernel's layout and arithmetic with vpdpbusd emulated
// exactly (even and odd bytes widened to 16 bits, then vpmaddwd: no 16-bit saturation), 8
// channels per vector, tiles of up to 4 rows x 16 channels. Compiled with AVX2 flags: only
// called when the CPU has them.
#include <immintrin.h>

#include <cstring>

#include "Avx2Requant.h"

namespace nnemu::synap::kernels {
namespace {

constexpr int kRows = 4;

// acc += the 4-byte dot products of x (unsigned) and w (signed) per 32-bit lane, exactly.
__m256i dotBytes(__m256i acc, __m256i xEven, __m256i xOdd, __m256i wEven, __m256i wOdd) {
    return _mm256_add_epi32(acc, _mm256_add_epi32(_mm256_madd_epi16(xEven, wEven), _mm256_madd_epi16(xOdd, wOdd)));
}

// The row term of row r (GemmArgs.h).
int32_t rowTermOf(const GemmArgs& a, size_t r) {
    if (a.rowTerms != nullptr) return a.rowTerms[r];
    uint32_t sum = 0;
    for (size_t k = 0; k < a.depthGroups * 4; ++k) sum += a.rows[r * a.rowStride + k];
    return static_cast<int32_t>(sum * static_cast<uint32_t>(a.rowFactor));
}

template <int R>
void tile(const GemmArgs& a, const int32_t* rowTerms, size_t row, size_t block) {
    __m256i acc[R][2];
    for (int i = 0; i < R; ++i) acc[i][0] = acc[i][1] = _mm256_setzero_si256();
    const __m256i lowBytes = _mm256_set1_epi16(0x00FF);
    const __m256i flip = _mm256_set1_epi8(a.signedValues ? static_cast<char>(0x80) : 0);
    const int8_t* weights = a.weights + block * a.depthGroups * 64;
    for (size_t g = 0; g < a.depthGroups; ++g) {
        __m256i wEven[2], wOdd[2];
        for (int j = 0; j < 2; ++j) {
            const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(weights + g * 64 + j * 32));
            wEven[j] = _mm256_srai_epi16(_mm256_slli_epi16(w, 8), 8);
            wOdd[j] = _mm256_srai_epi16(w, 8);
        }
        for (int i = 0; i < R; ++i) {
            int32_t group;
            std::memcpy(&group, a.rows + (row + i) * a.rowStride + g * 4, 4);
            const __m256i x = _mm256_xor_si256(_mm256_set1_epi32(group), flip);
            const __m256i xEven = _mm256_and_si256(x, lowBytes);
            const __m256i xOdd = _mm256_srli_epi16(x, 8);
            for (int j = 0; j < 2; ++j) acc[i][j] = dotBytes(acc[i][j], xEven, xOdd, wEven[j], wOdd[j]);
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

template <int R>
void rowTile(const GemmArgs& a, size_t row) {
    const size_t blocks = (a.channels + kGemmBlock - 1) / kGemmBlock;
    int32_t rowTerms[R];
    for (int i = 0; i < R; ++i) rowTerms[i] = rowTermOf(a, row + i);
    for (size_t block = 0; block < blocks; ++block) tile<R>(a, rowTerms, row, block);
}

}  // namespace

void gemmAvx2(const GemmArgs& a) {
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
