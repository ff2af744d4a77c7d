// The float GEMM of a relaxed model (ANeuralNetworksModel_relaxComputationFloat32toFloat16: the
// app lets float32 math run with 16-bit precision, as a real NPU runs float models). Weights and
// inputs are rounded to bfloat16 (8 significant bits, float32's range), each pair of products is
// summed in float32 by AVX512-BF16's VDPBF16PS: twice the multiply-adds per instruction of
// float32 FMA, half the weight bytes. Error of an output: at most about 2^-7 of the sum of its
// products' magnitudes (each operand rounded by at most 2^-8) plus float32's summation error.
// Only where the CPU has AVX512-BF16; a core without it unpacks the (rounded) weights to float32
// and runs the float32 GEMM (FloatGemm.h), which relaxation also allows. Where the CPU also has
// AMX-BF16 (amxBf16Usable(), Isa.h) the same packed weights run on AMX tiles: the same rounded
// operands, their products summed in float32 in another order (within the same bound).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "FloatGemm.h"

namespace nnemu::synap::kernels {

// Packed: a 64-byte header, then per block of 16 output channels 16 float32 biases and, per pair
// of input channels (k, k + 1), 16 x {bf16 w[c][k], bf16 w[c][k + 1]} (the last pair of an odd
// depth zero-filled; channels past the last one zero). Bump the version with any change.
constexpr uint32_t kFloatGemmBf16LayoutVersion = 1;

// Whether this CPU runs the bf16 kernel (AVX512-BF16 with the core's AVX-512 kernels chosen: not
// capped by NNEMU_NPU_KERNEL_ISA).
bool hasFloatGemmBf16();

// float32 -> bfloat16, rounding to nearest even (NaN stays NaN), and back (exact).
uint16_t toBf16(float value);
float fromBf16(uint16_t value);

bool packFloatGemmBf16(const FloatGemmSpec& spec, std::vector<uint8_t>* packed);
// Whether `packed` (from a program file: untrusted) is a packed bf16 GEMM of this layout version
// for `depth` x `channels` weights, aligned for floats.
bool checkPackedFloatGemmBf16(std::span<const uint8_t> packed, uint32_t depth, uint32_t channels);
// The [channels][depth] float32 weights of the packed (rounded) ones, as bytes, exactly.
bool unpackFloatGemmBf16(std::span<const uint8_t> packed, std::vector<uint8_t>* weights);

// The bf16 kernels: VDPBF16PS on AVX-512 registers, TDPBF16PS on AMX tiles.
enum class Bf16Kernel : uint8_t { Avx512, Amx };
// Amx where amxBf16Usable(), else Avx512 (hasFloatGemmBf16() must hold).
Bf16Kernel bestBf16Kernel();
const char* bf16KernelName(Bf16Kernel kernel);

// As runFloatGemmTile, on the bf16 kernel (hasFloatGemmBf16() must hold; `packed` passed
// checkPackedFloatGemmBf16). `scratch`: the calling thread's working memory for its rows of
// input in bf16 (grown as needed, kept between calls).
void runFloatGemmBf16Tile(std::span<const uint8_t> packed, const float* input, float* output, float low, float high,
                          size_t rowBegin, size_t rowEnd, size_t channelBegin, size_t channelEnd,
                          std::vector<uint32_t>* scratch);
// The same on a chosen kernel (Amx only where amxBf16Usable()): for tests and benchmarks.
void runFloatGemmBf16Tile(Bf16Kernel kernel, std::span<const uint8_t> packed, const float* input, float* output,
                          float low, float high, size_t rowBegin, size_t rowEnd, size_t channelBegin,
                          size_t channelEnd, std::vector<uint32_t>* scratch);

// Rows per call of the AVX512-BF16 kernel.
constexpr size_t kFloatGemmBf16Rows = 8;

// One kernel call: `rows` rows (at most kFloatGemmBf16Rows) of input pairs (bf16 x 2 per uint32)
// times `blocks` blocks (1 or 2), into output columns [0, count) of each block.
struct FloatGemmBf16Args {
    const uint32_t* input;
    size_t inputStride;  // uint32 pairs between rows
    const uint8_t* weights;
    size_t blockStride;  // bytes between blocks
    float* output;
    size_t outputStride;
    size_t pairs, rows, blocks, lastCount;
    float low, high;
};
void floatGemmBf16Avx512(const FloatGemmBf16Args& a);  // FloatGemmBf16Avx512.cpp
// `rows` rows of `depth` floats (`inputStride` apart) as bf16 pairs, `pairs` per row.
void toBf16PairsAvx512(const float* input, size_t inputStride, size_t rows, size_t depth, uint32_t* pairs);
// The AMX kernel (FloatGemmBf16Amx.cpp) on a layout's blocks (the packed bytes past the header)
// of `depth` x `channels` weights: rows [rowBegin, rowEnd) x channels [channelBegin, channelEnd),
// channelBegin a multiple of 16.
void runFloatGemmBf16TileAmx(const uint8_t* blocks, size_t depth, size_t channels, const float* input, float* output,
                             float low, float high, size_t rowBegin, size_t rowEnd, size_t channelBegin,
                             size_t channelEnd, std::vector<uint32_t>* scratch);

}  // namespace nnemu::synap::kernels
