// The NPU core's own float32 GEMM (1x1 stride-1 convolutions and fully connected layers in
// float). Its weights are packed once into the layout its kernels read, so that a compiled program
// stores them and every process runs on them in place in the mapped program file: XNNPACK packs
// float weights again into each process's own memory at every load (BENCHMARKS.md, "Memory").
// Each output is the bias plus the products in input-channel order, multiply-adds fused on AVX2
// (with FMA) and AVX-512, one rounding each, then clamped; the portable loop rounds each product.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "Isa.h"

namespace nnemu::synap::kernels {

struct FloatGemmSpec {
    uint32_t depth = 0;           // input channels (K)
    uint32_t channels = 0;        // output channels (N)
    const uint8_t* weights = nullptr;  // [channels][depth] float32, any alignment
    const uint8_t* bias = nullptr;     // [channels] float32, any alignment; null: zeros
};

// Output channels per packed block: [block][16 bias][depth][16 weights], channels past the
// last one zero. Bump the version with any change of the layout.
constexpr size_t kFloatGemmBlock = 16;
constexpr uint32_t kFloatGemmLayoutVersion = 1;
// The packed bytes' header, before the blocks.
constexpr size_t kFloatGemmHeaderBytes = 64;
// Whether the CPU has FMA (the AVX2 float kernels need it).
bool floatFmaSupported();

// The whole kernel calls of runFloatGemmTile at `depth` on `isa`: rows and blocks per call. A
// tile cut at other boundaries runs a narrower call at each of its edges (a 1-row call does a
// 12-row one's weight loads for a twelfth of the work).
struct FloatGemmGrains {
    size_t rows = 1, blocks = 1;
};
FloatGemmGrains floatGemmGrains(Isa isa, size_t depth);
// The packed weights; false when the spec is empty or too large for the layout's 32-bit sizes.
bool packFloatGemm(const FloatGemmSpec& spec, std::vector<uint8_t>* packed);
// Whether `packed` (from a program file: untrusted) is a packed float GEMM of this layout
// version for `depth` x `channels` weights, aligned for floats.
bool checkPackedFloatGemm(std::span<const uint8_t> packed, uint32_t depth, uint32_t channels);
// The [channels][depth] float32 weights packFloatGemm packed, as bytes, exactly.
bool unpackFloatGemm(std::span<const uint8_t> packed, std::vector<uint8_t>* weights);

// output[rows][channels] = clamp(input[rows][depth] x weights + bias, low, high) for rows
// [rowBegin, rowEnd) and channels [channelBegin, channelEnd) (channelBegin a multiple of
// kFloatGemmBlock), with the kernel of `isa` (which the CPU must support). `packed` passed
// checkPackedFloatGemm. It runs on the float convolution's kernels (FloatConv.h), each row one
// pixel whose window is a single run of `depth` inputs.
void runFloatGemmTile(Isa isa, std::span<const uint8_t> packed, const float* input, float* output, float low,
                      float high, size_t rowBegin, size_t rowEnd, size_t channelBegin, size_t channelEnd);

}  // namespace nnemu::synap::kernels
