// What the per-ISA quantized GEMM kernels read: plain pointers and sizes only, because the ISA
// files are compiled with their own instruction-set flags and must not instantiate any shared
// template (the linker could pick their copy for machines without that ISA).
#pragma once

#include <cstddef>
#include <cstdint>

namespace nnemu::synap::kernels {

// Channels per packed weight block: 16 channels x 4 depth bytes = one 64-byte vector.
constexpr size_t kGemmBlock = 16;

// output[r][c] = requantize(dot(rows[r], weights[c]) + rowTerms[r] + colTerms[c], c) for
// r < rowCount, c < channels. `rows` hold unsigned bytes (int8 ones when signedValues: the
// kernels read them flipped, a ^ 0x80 = a + 128) of 4 * depthGroups bytes, those past the
// depth any value (their weights are zero); `weights` are signed bytes laid out
// [channels / 16][depthGroups][16 channels][4 depth].
struct GemmArgs {
    const uint8_t* rows;
    size_t rowStride;
    size_t rowCount;
    const int32_t* rowTerms;  // nullptr: rowFactor * the sum of the row's bytes, computed by the kernel
    const int8_t* weights;
    size_t depthGroups;
    size_t channels;
    // Per channel, padded with zeros to a multiple of 16.
    const int32_t* colTerms;
    const int32_t* bias;
    const int32_t* multipliers;  // Q31, >= 0
    const int32_t* leftShifts;   // 0..31
    const int32_t* rightShifts;  // 0..31
    int32_t outputZeroPoint;
    int32_t low;   // clamp bounds of the output values, zero point included
    int32_t high;
    uint8_t* output;  // [rowCount] rows of `channels` values; int8 values as their bytes
    size_t outputStride = 0;  // bytes from one output row to the next (>= channels)
    // When no step of the requantization can saturate (no left shift, the bias plus any
    // accumulator fits in int32), per channel bias + colTerm, and per 16-channel block a
    // FastRequantBlock; nullptr otherwise.
    const int32_t* biasAndColTerms = nullptr;
    const struct FastRequantBlock* fastBlocks = nullptr;
    bool signedValues = false;  // int8 rows, flipped by the kernel (not by the caller)
    int32_t rowFactor = 0;
};

// The requantization folded into one 64-bit product and one rounding shift, per channel lane
// ([0] the even channels of the block, [1] the odd): with t = x * multiplier, the reference's
// rounding doubling high multiply then rounding right shift by R is
//   (t + (t < -2^30 ? negative : positive)) >> (31 + R)
// where positive = 2^30 + 2^31 * 2^(R-1) and negative = 2^30 + 2^31 * (2^(R-1) - 1) (both
// 2^30 for R = 0): the two floors of the reference combine into one.
struct FastRequantBlock {
    int64_t multiplier[2][8];
    int64_t positive[2][8];
    int64_t negative[2][8];
    int64_t shift[2][8];
};

void gemmPortable(const GemmArgs& args);
void gemmAvx2(const GemmArgs& args);
void gemmAvxVnni(const GemmArgs& args);
void gemmAvx512Vnni(const GemmArgs& args);
// AMX-INT8 (GemmAmxInt8.cpp): only where amxInt8Usable(). gemmAmxInt8 takes every shape;
// gemmAvx512Amx runs it on the shapes where it measures faster than gemmAvx512Vnni (amxInt8Suits),
// gemmAvx512Vnni on the others.
void gemmAmxInt8(const GemmArgs& args);
bool amxInt8Suits(const GemmArgs& args);
void gemmAvx512Amx(const GemmArgs& args);

}  // namespace nnemu::synap::kernels
