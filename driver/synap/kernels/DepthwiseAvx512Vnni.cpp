// The 3x3 depthwise convolution on AVX-512 VNNI. Where the requantization cannot saturate (real
// networks), the folded kernel: vpdpbusd sums a column's 3 taps per channel, the folded
// requantization (GemmArgs.h) with bias and output zero point folded in. Otherwise 16 channels
// per vector, each tap's bytes widened to 32-bit lanes and vpdpwssd against 16-bit weights, the
// GEMM's saturating requantization. One block or group of channels at a time along an output row.
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
    uint8_t* out = q.output + (outRow - a.outRowFirst) * a.outWidth * channels + first;
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

// The folded kernel (DepthwiseArgs.h): per input column one "quad" vector holding, for each of
// 16 channels, the bytes of input rows 0, 1, 2 (and a 0), so that vpdpbusd against a column of
// weights sums 3 taps at once; each quad serves the outputs of up to 3 columns (stride 1).
// The folded requantization of a block: its accumulators' start as `biasAndCol`, the output
// zero point in the nudges (scaleFast then gives the output values, not clamped).
FastRequant foldedOf(const DepthwiseArgs& a, size_t block) {
    return fastRequantOf(a.folded[block], a.initial + block * kGemmBlock);
}

// kRows 2: a fourth row in the fourth byte, for a second output row (stride 1; foldedGroupRow).
template <bool kSigned, int kRows>
__m512i quadOf(const uint8_t* const rows[4], size_t at, __mmask16 lanes) {
    const auto widened = [&](int r) { return _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(lanes, rows[r] + at)); };
    const __m512i quad = _mm512_ternarylogic_epi32(widened(0), _mm512_slli_epi32(widened(1), 8),
                                                   _mm512_slli_epi32(widened(2), 16), 0xFE);  // a | b | c
    if constexpr (kRows == 1) return kSigned ? _mm512_xor_si512(quad, _mm512_set1_epi32(0x808080)) : quad;
    const __m512i fourth = _mm512_slli_epi32(widened(3), 24);
    return kSigned ? _mm512_ternarylogic_epi32(quad, fourth, _mm512_set1_epi32(0x80808080u), 0x56)  // (a | b) ^ c
                   : _mm512_or_si512(quad, fourth);
}

template <bool kSigned, bool kAbove, int kSets, int kStride, int kRows>
void foldedBlockRow(const DepthwiseArgs& a, const uint8_t* const rows[4], size_t outRow, size_t block) {
    const GemmArgs& q = a.requant;
    const size_t channels = q.channels, first = block * kGemmBlock, rowBytes = a.outWidth * channels;
    const size_t count = channels - first < kGemmBlock ? channels - first : kGemmBlock;
    const __mmask16 lanes = static_cast<__mmask16>((1u << count) - 1);
    __m512i w[kRows][kSets][3];
    for (int s = 0; s < kSets; ++s) {
        for (int kx = 0; kx < 3; ++kx) {
            w[0][s][kx] = _mm512_loadu_si512(a.quadWeights + ((block * a.weightSets + s) * 3 + kx) * 64);
            if constexpr (kRows == 2) w[1][s][kx] = _mm512_slli_epi32(w[0][s][kx], 8);  // rows 1, 2, 3
        }
    }
    const FastRequant f = foldedOf(a, block);
    const __m512i low = _mm512_set1_epi32(q.low), high = _mm512_set1_epi32(q.high);
    const int64_t width = a.inWidth;
    const uint8_t* const zeroRows[4] = {a.zeroRow, a.zeroRow, a.zeroRow, a.zeroRow};
    const __m512i pad = quadOf<kSigned, kRows>(zeroRows, first, lanes);
    const auto column = [&](int64_t ix) {
        if (ix < 0 || ix >= width) return pad;
        return quadOf<kSigned, kRows>(rows, static_cast<size_t>(ix) * channels + first, lanes);
    };
    const auto overRow = [&](auto scale) {
        int64_t left = -static_cast<int64_t>(a.padLeft);
        __m512i q0 = column(left), q1 = column(left + 1), q2 = column(left + 2);
        uint8_t* out = q.output + (outRow - a.outRowFirst) * rowBytes + first;
        for (size_t x = 0; x < a.outWidth; ++x, out += channels) {
            for (int r = 0; r < kRows; ++r) {
                __m512i acc = f.biasAndCol;
                for (int s = 0; s < kSets; ++s) {
                    acc = _mm512_dpbusd_epi32(acc, q0, w[r][s][0]);
                    acc = _mm512_dpbusd_epi32(acc, q1, w[r][s][1]);
                    acc = _mm512_dpbusd_epi32(acc, q2, w[r][s][2]);
                }
                const __m512i y = _mm512_min_epi32(_mm512_max_epi32(scale(acc), low), high);
                _mm512_mask_cvtepi32_storeu_epi8(out + r * rowBytes, lanes, y);
            }
            left += kStride;
            if (kStride == 1) {
                q0 = q1;
                q1 = q2;
                q2 = column(left + 2);
            } else {
                q0 = q2;
                q1 = column(left + 1);
                q2 = column(left + 2);
            }
        }
    };
    __m512i shift32;
    if (highShifts(a.folded[block], &shift32)) {
        overRow([&](__m512i acc) { return scaleFastHigh<kAbove>(f, shift32, acc); });
    } else {
        overRow([&](__m512i acc) { return scaleFast<kAbove>(f, acc); });
    }
}

// outRows output rows from `rows` (2: stride 1 only).
template <bool kSigned, bool kAbove, int kSets>
void foldedBlockRow(const DepthwiseArgs& a, const uint8_t* const rows[4], size_t outRow, size_t block, size_t outRows) {
    if (a.stride != 1) return foldedBlockRow<kSigned, kAbove, kSets, 2, 1>(a, rows, outRow, block);
    outRows == 2 ? foldedBlockRow<kSigned, kAbove, kSets, 1, 2>(a, rows, outRow, block)
                 : foldedBlockRow<kSigned, kAbove, kSets, 1, 1>(a, rows, outRow, block);
}

// One column's quads of a group of 64 (or 32) channels: 3 rows' bytes, the channels of each
// 128-bit lane spread over the vectors by the unpacks (Depthwise.cpp slotOf). kRows 2: a fourth
// row in the fourth byte, so that the quads serve two output rows (stride 1): the first row's
// weights leave the fourth byte out, the second's (the same shifted up a byte) the first.
struct Quads {
    __m512i v[4];
};

template <bool kSigned, size_t kWidth, int kRows>
Quads quadsOf(const uint8_t* row0, const uint8_t* row1, const uint8_t* row2, const uint8_t* row3) {
    if constexpr (kWidth == 64) {
        const __m512i flip = _mm512_set1_epi8(kSigned ? static_cast<char>(0x80) : 0);
        const __m512i r0 = _mm512_xor_si512(_mm512_loadu_si512(row0), flip);
        const __m512i r1 = _mm512_xor_si512(_mm512_loadu_si512(row1), flip);
        const __m512i r2 = _mm512_xor_si512(_mm512_loadu_si512(row2), flip);
        const __m512i r3 = kRows == 2 ? _mm512_xor_si512(_mm512_loadu_si512(row3), flip) : _mm512_setzero_si512();
        const __m512i low01 = _mm512_unpacklo_epi8(r0, r1), high01 = _mm512_unpackhi_epi8(r0, r1);
        const __m512i low23 = _mm512_unpacklo_epi8(r2, r3), high23 = _mm512_unpackhi_epi8(r2, r3);
        return {{_mm512_unpacklo_epi16(low01, low23), _mm512_unpackhi_epi16(low01, low23),
                 _mm512_unpacklo_epi16(high01, high23), _mm512_unpackhi_epi16(high01, high23)}};
    } else {
        const __m256i flip = _mm256_set1_epi8(kSigned ? static_cast<char>(0x80) : 0);
        const __m256i r0 = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row0)), flip);
        const __m256i r1 = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row1)), flip);
        const __m256i r2 = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row2)), flip);
        const __m256i r3 = kRows == 2 ? _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row3)), flip)
                                     : _mm256_setzero_si256();
        const __m256i low01 = _mm256_unpacklo_epi8(r0, r1), high01 = _mm256_unpackhi_epi8(r0, r1);
        const __m256i low23 = _mm256_unpacklo_epi8(r2, r3), high23 = _mm256_unpackhi_epi8(r2, r3);
        const auto join = [](__m256i a, __m256i b) { return _mm512_inserti64x4(_mm512_castsi256_si512(a), b, 1); };
        return {{join(_mm256_unpacklo_epi16(low01, low23), _mm256_unpackhi_epi16(low01, low23)),
                 join(_mm256_unpacklo_epi16(high01, high23), _mm256_unpackhi_epi16(high01, high23))}};
    }
}

// Clamps the output values of a group's vectors (int32, slot order) and stores them in
// channel order: the packs undo the unpacks (for 32 channels with one dword permutation);
// saturating is exact inside the clamp.
// `low`, `high`: the clamp's bounds in every byte (set once per row: the stores in between could
// alias the layer's arguments, so the compiler reloaded them at every call).
template <bool kSigned, size_t kWidth>
void storeGroup(__m512i low, __m512i high, const __m512i* y, uint8_t* out) {
    const auto bytesOf = [&](__m512i a, __m512i b) {
        return kSigned ? _mm512_min_epi8(_mm512_max_epi8(_mm512_packs_epi16(a, b), low), high)
                       : _mm512_min_epu8(_mm512_max_epu8(_mm512_packus_epi16(a, b), low), high);
    };
    if constexpr (kWidth == 64) {
        _mm512_storeu_si512(out, bytesOf(_mm512_packs_epi32(y[0], y[1]), _mm512_packs_epi32(y[2], y[3])));
    } else {
        const __m512i words = _mm512_packs_epi32(y[0], y[1]);
        const __m512i order = _mm512_setr_epi32(0, 8, 1, 9, 4, 12, 5, 13, 0, 0, 0, 0, 0, 0, 0, 0);
        const __m512i bytes = _mm512_permutexvar_epi32(order, bytesOf(words, words));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm512_castsi512_si256(bytes));
    }
}

// Output columns per tile of a group: the tile's quads are built once into a buffer, then each
// 16-slot block runs over them with its constants in registers.
constexpr size_t kTile = 16;

// Block b (vector j of its group) over a tile's n output columns of kRows output rows: its
// weights and constants in registers, the quads from the tile's buffer.
template <bool kAbove, int kSets, int kStride, int kVectors, int kRows>
void blockOverTile(const DepthwiseArgs& a, size_t b, int j, const __m512i (*quads)[kVectors],
                   __m512i (*staged)[kTile][kVectors], size_t n) {
    const FastRequant f = foldedOf(a, b);
    __m512i w[kRows][kSets][3];
    for (int s = 0; s < kSets; ++s) {
        for (int kx = 0; kx < 3; ++kx) {
            w[0][s][kx] = _mm512_loadu_si512(a.quadWeights + ((b * a.weightSets + s) * 3 + kx) * 64);
            if constexpr (kRows == 2) w[1][s][kx] = _mm512_slli_epi32(w[0][s][kx], 8);  // rows 1, 2, 3
        }
    }
    const auto overTile = [&](auto scale) {
        for (size_t i = 0; i < n; ++i) {
            for (int r = 0; r < kRows; ++r) {
                __m512i acc = f.biasAndCol;
                for (int s = 0; s < kSets; ++s) {
                    for (int kx = 0; kx < 3; ++kx) acc = _mm512_dpbusd_epi32(acc, quads[i * kStride + kx][j], w[r][s][kx]);
                }
                staged[r][i][j] = scale(acc);
            }
        }
    };
    __m512i shift32;
    if (highShifts(a.folded[b], &shift32)) {
        overTile([&](__m512i acc) { return scaleFastHigh<kAbove>(f, shift32, acc); });
    } else {
        overTile([&](__m512i acc) { return scaleFast<kAbove>(f, acc); });
    }
}

// kRows output rows (2: stride 1 only) of a group from `rows`, their kRows + 2 input rows.
template <bool kSigned, bool kAbove, int kSets, int kStride, size_t kWidth, int kRows>
void foldedGroupRow(const DepthwiseArgs& a, const uint8_t* const rows[4], size_t outRow, size_t first) {
    constexpr int kVectors = static_cast<int>(kWidth / kGemmBlock);
    const GemmArgs& q = a.requant;
    const size_t channels = q.channels, block = first / kGemmBlock, rowBytes = a.outWidth * channels;
    const int64_t width = a.inWidth;
    alignas(64) __m512i quads[(kTile - 1) * kStride + 3][kVectors];
    alignas(64) __m512i staged[kRows][kTile][kVectors];
    const __m512i low = _mm512_set1_epi8(static_cast<char>(q.low)), high = _mm512_set1_epi8(static_cast<char>(q.high));
    // In locals, as the clamp's bounds: the stores of the quads made the compiler reload them.
    const uint8_t *const row0 = rows[0] + first, *const row1 = rows[1] + first, *const row2 = rows[2] + first;
    const uint8_t* const row3 = kRows == 2 ? rows[3] + first : nullptr;
    const uint8_t* const zeroRow = a.zeroRow + first;
    uint8_t* out = q.output + (outRow - a.outRowFirst) * rowBytes + first;
    for (size_t x0 = 0; x0 < a.outWidth; x0 += kTile) {
        const size_t n = a.outWidth - x0 < kTile ? a.outWidth - x0 : kTile, columns = (n - 1) * kStride + 3;
        const int64_t left = static_cast<int64_t>(x0 * kStride) - a.padLeft;
        for (size_t c = 0; c < columns; ++c) {
            const int64_t ix = left + static_cast<int64_t>(c);
            const bool inside = ix >= 0 && ix < width;
            const size_t at = inside ? static_cast<size_t>(ix) * channels : 0;
            const Quads built = inside ? quadsOf<kSigned, kWidth, kRows>(row0 + at, row1 + at, row2 + at, kRows == 2 ? row3 + at : nullptr)
                                       : quadsOf<kSigned, kWidth, kRows>(zeroRow, zeroRow, zeroRow, zeroRow);
            for (int j = 0; j < kVectors; ++j) quads[c][j] = built.v[j];
        }
        for (int j = 0; j < kVectors; ++j) {
            const size_t b = block + j;
            kSets == 1 || a.blockSets[b] == 1
                    ? blockOverTile<kAbove, 1, kStride, kVectors, kRows>(a, b, j, quads, staged, n)
                    : blockOverTile<kAbove, kSets, kStride, kVectors, kRows>(a, b, j, quads, staged, n);
        }
        for (int r = 0; r < kRows; ++r) {
            for (size_t i = 0; i < n; ++i) {
                storeGroup<kSigned, kWidth>(low, high, staged[r][i], out + r * rowBytes + (x0 + i) * channels);
            }
        }
    }
}

template <bool kSigned, bool kAbove, int kSets, size_t kWidth>
void foldedGroupRow(const DepthwiseArgs& a, const uint8_t* const rows[4], size_t outRow, size_t first, size_t outRows) {
    if (a.stride != 1) return foldedGroupRow<kSigned, kAbove, kSets, 2, kWidth, 1>(a, rows, outRow, first);
    outRows == 2 ? foldedGroupRow<kSigned, kAbove, kSets, 1, kWidth, 2>(a, rows, outRow, first)
                 : foldedGroupRow<kSigned, kAbove, kSets, 1, kWidth, 1>(a, rows, outRow, first);
}

// rows: the input rows of output row outRow and, for the folded kernel's rows of stride 1, of
// the next `last` - 1 output rows (the folded kernel: `last` 1 or 2; the others: the block).
using BlockRow = void (*)(const DepthwiseArgs&, const uint8_t* const[4], size_t, size_t);

// Whole groups of 64 channels, one of 32 if that many remain, then 16-channel blocks. kAbove:
// the clamp starts at or above the output zero point (scaleFast). outRows: 1, or 2 (stride 1).
template <bool kSigned, bool kAbove, int kSets>
void foldedRow(const DepthwiseArgs& a, const uint8_t* const rows[4], size_t outRow, size_t outRows) {
    const size_t channels = a.requant.channels, blocks = (channels + kGemmBlock - 1) / kGemmBlock;
    size_t first = 0;
    for (; first + 64 <= channels; first += 64) foldedGroupRow<kSigned, kAbove, kSets, 64>(a, rows, outRow, first, outRows);
    if (first + 32 <= channels) {
        foldedGroupRow<kSigned, kAbove, kSets, 32>(a, rows, outRow, first, outRows);
        first += 32;
    }
    for (size_t block = first / kGemmBlock; block < blocks; ++block) {
        kSets == 1 || a.blockSets[block] == 1 ? foldedBlockRow<kSigned, kAbove, 1>(a, rows, outRow, block, outRows)
                                              : foldedBlockRow<kSigned, kAbove, kSets>(a, rows, outRow, block, outRows);
    }
}

template <bool kAbove>
BlockRow foldedRowOf(const DepthwiseArgs& a) {
    if (a.signedInput) return foldedRow<true, kAbove, 1>;
    return a.weightSets == 1 ? foldedRow<false, kAbove, 1>
                             : (a.weightSets == 2 ? foldedRow<false, kAbove, 2> : foldedRow<false, kAbove, 3>);
}

BlockRow blockRowOf(const DepthwiseArgs& a) {
    if (a.folded != nullptr) {
        return a.requant.low >= a.requant.outputZeroPoint ? foldedRowOf<true>(a) : foldedRowOf<false>(a);
    }
    const bool fast = a.requant.fastBlocks != nullptr;
    if (a.signedInput) return fast ? blockRow<true, true> : blockRow<true, false>;
    return fast ? blockRow<false, true> : blockRow<false, false>;
}

void rows(const DepthwiseArgs& a) {
    const BlockRow blockRowFn = blockRowOf(a);
    const size_t blocks = (a.requant.channels + kGemmBlock - 1) / kGemmBlock;
    for (size_t row = a.rowBegin; row < a.rowEnd;) {
        const size_t batch = row / a.outHeight, y = row % a.outHeight;
        // The folded kernel takes two output rows of stride 1 (of one image) at once: they share
        // the quads of their 4 input rows.
        const size_t outRows = a.folded != nullptr && a.stride == 1 && row + 1 < a.rowEnd && y + 1 < a.outHeight ? 2 : 1;
        const uint8_t* inputRows[4] = {a.zeroRow, a.zeroRow, a.zeroRow, a.zeroRow};  // outside: the zero-point row
        for (size_t ky = 0; ky < 2 + outRows; ++ky) {
            const int64_t iy = static_cast<int64_t>(y * a.stride) - a.padTop + static_cast<int64_t>(ky);
            if (iy >= 0 && iy < static_cast<int64_t>(a.inHeight)) {
                inputRows[ky] = a.input + (batch * a.inHeight + static_cast<size_t>(iy) - a.inRowFirst) * a.inWidth *
                                                  a.requant.channels;
            }
        }
        if (a.folded != nullptr) {
            blockRowFn(a, inputRows, row, outRows);
        } else {
            for (size_t block = 0; block < blocks; ++block) blockRowFn(a, inputRows, row, block);
        }
        row += outRows;
    }
}

}  // namespace

void depthwiseAvx512Vnni(const DepthwiseArgs& a) { rows(a); }

}  // namespace nnemu::synap::kernels
