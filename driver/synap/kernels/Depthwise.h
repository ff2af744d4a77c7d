// The NPU core's own 3x3 depthwise convolution (stride 1 or 2, depth multiplier 1, NHWC),
// uint8 and int8, per-tensor or per-channel weights, bit-exact with the reference kernel.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "DepthwiseArgs.h"
#include "Isa.h"
#include "Requant.h"

namespace nnemu::synap::kernels {

struct DepthwiseSpec : QuantLayerSpec {  // weights [3][3][channels]
    uint32_t batches = 0, inHeight = 0, inWidth = 0, channels = 0, outHeight = 0, outWidth = 0;
    uint32_t stride = 1, padTop = 0, padLeft = 0;
};

// The AVX2 kernel's layout (DepthwiseArgs.h), channel order, derived from PackedDepthwise's
// 32-bit weights and requantization alone (packDepthwiseAvx2).
struct DepthwiseAvx2Layout {
    // [channels / 16][2 halves][3 kx][pair: ky 0 and 1, third: ky 2 and 0][8 lanes][2] weights
    // minus the filter zero point.
    std::vector<int16_t> pairWeights;
    // Where the folded requantization applies (else empty): RequantTable's blocks with 2^63 in
    // the nudges, per channel bias + column term, and output zero point - 2^(63 - shift) mod 2^32.
    std::vector<FastRequantBlock> folded;
    std::vector<int32_t> initial, post;
};

// Weights widened and laid out per 16-channel block, requantization constants, geometry.
struct PackedDepthwise {
    explicit PackedDepthwise(uint32_t channels) : requant(channels) {}
    DepthwiseSpec spec;  // without weights, bias and filter scales once packed
    RequantTable requant;
    std::vector<int32_t> weights;
    std::vector<uint8_t> zeroRow;
    // DepthwiseArgs' folded layout; `folded` empty where it does not apply.
    std::vector<int8_t> quadWeights;
    uint32_t weightSets = 1;
    std::vector<uint8_t> blockSets;
    std::vector<int32_t> initial;
    std::vector<FastRequantBlock> folded;
    DepthwiseAvx2Layout avx2;
};

// false when the spec is outside what the kernels compute exactly.
bool packDepthwise(const DepthwiseSpec& spec, PackedDepthwise* packed);
// The AVX2 layout of a packed depthwise (packDepthwise fills `avx2` with it).
DepthwiseAvx2Layout packDepthwiseAvx2(const PackedDepthwise& packed);
// Frees what runDepthwise with `isa` never reads (on AVX-512 VNNI with the folded layout: the
// 32-bit weights and the per-block requantization; on AVX2 the 32-bit weights and the VNNI
// layout; elsewhere the AVX2 layout); run it with that isa alone afterwards.
void keepDepthwiseFor(Isa isa, PackedDepthwise* packed);
// Output rows [rowBegin, rowEnd) of batches * outHeight.
void runDepthwise(Isa isa, const PackedDepthwise& packed, const uint8_t* input, uint8_t* output, size_t rowBegin,
                  size_t rowEnd);
// The same from a band of the input: `band` holds input rows (batch * inHeight + y) from
// `bandFirstRow` on, every row the output rows read inside the image (the kernels read none outside).
void runDepthwiseBand(Isa isa, const PackedDepthwise& packed, const uint8_t* band, size_t bandFirstRow,
                      uint8_t* output, size_t rowBegin, size_t rowEnd);

}  // namespace nnemu::synap::kernels
