// The NPU core's own general quantized convolution (any kernel size, stride, dilation and
// padding; NHWC), uint8 and int8 with per-tensor or per-channel weights, bit-exact with the
// reference kernel. Meant for few input channels (the first 3x3 stride-2 convolution of
// MobileNets): output rows are unfolded (im2col) into the quantized GEMM's rows, a slice at a
// time, and multiplied by the packed weights (QuantGemm.h).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "Isa.h"
#include "QuantGemm.h"
#include "Requant.h"

namespace nnemu::synap::kernels {

struct QuantConvSpec : QuantLayerSpec {  // weights [channels][kernelHeight][kernelWidth][inChannels]
    uint32_t batches = 0, inHeight = 0, inWidth = 0, inChannels = 0, outHeight = 0, outWidth = 0, channels = 0;
    uint32_t kernelHeight = 1, kernelWidth = 1, strideHeight = 1, strideWidth = 1;
    uint32_t dilationHeight = 1, dilationWidth = 1, padTop = 0, padLeft = 0;
};

struct PackedQuantConv {
    QuantConvSpec geometry;  // the spec without weights, bias and filter scales
    uint32_t depth = 0;      // GEMM depth: kernelHeight * kernelWidth * inChannels rounded up to 4
    uint8_t flip = 0;        // applied to every input byte (0x80 turns int8 into the GEMM's uint8)
    uint8_t fill = 0;        // the GEMM byte of padding positions: the input zero point, flipped
    std::vector<uint8_t> gemm;
    std::span<const uint8_t> stored;  // where not empty, the packed GEMM a program stores, run in place of `gemm`
};

// false when the spec is outside what the kernels compute exactly.
bool packQuantConv(const QuantConvSpec& spec, PackedQuantConv* packed);
// Everything packQuantConv sets but `gemm` (which does not depend on the weights): for a layer
// that runs on the packed GEMM a program stores (QuantGemm.h checkPackedQuantGemm with `depth`,
// the spec's channels, unsigned values).
bool quantConvGeometry(const QuantConvSpec& spec, PackedQuantConv* packed);
// The order of the unfolded GEMM's weights (window (ky, kx, c), recentring): programs store
// packed convolutions tagged with it. Bump it with any change.
constexpr uint32_t kQuantConvLayoutVersion = 1;

// Working memory of one slice of rows (one per thread that runs slices at the same time).
struct QuantConvScratch {
    std::vector<uint8_t> rows;
    QuantGemmScratch gemm;
};

// Output rows [rowBegin, rowEnd) of batches * outHeight.
bool runQuantConvRows(Isa isa, const PackedQuantConv& packed, const uint8_t* input, uint8_t* output, size_t rowBegin,
                      size_t rowEnd, QuantConvScratch* scratch);
// The same into a band: `output` holds output rows from `outputFirstRow` on.
bool runQuantConvRowsInto(Isa isa, const PackedQuantConv& packed, const uint8_t* input, uint8_t* output,
                          size_t outputFirstRow, size_t rowBegin, size_t rowEnd, QuantConvScratch* scratch);

}  // namespace nnemu::synap::kernels
