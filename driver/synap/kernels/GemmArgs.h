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
// r < rowCount, c < channels. `rows` hold unsigned bytes padded with zeros to 4 * depthGroups;
// `weights` are signed bytes laid out [channels / 16][depthGroups][16 channels][4 depth].
struct GemmArgs {
    const uint8_t* rows;
    size_t rowStride;
    size_t rowCount;
    const int32_t* rowTerms;
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
    uint8_t* output;  // row-major [rowCount][channels]; int8 values as their bytes
};

void gemmPortable(const GemmArgs& args);
void gemmAvx2(const GemmArgs& args);
void gemmAvx512Vnni(const GemmArgs& args);

}  // namespace nnemu::synap::kernels
