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
// 32-bit weights and the requantization table; on AVX2 and AVX-VNNI the 32-bit weights and the
// VNNI layout; elsewhere the AVX2 layout); run it with that isa, or one of the same baseIsa, alone
// afterwards.
void keepDepthwiseFor(Isa isa, PackedDepthwise* packed);
// Output rows [rowBegin, rowEnd) of batches * outHeight.
void runDepthwise(Isa isa, const PackedDepthwise& packed, const uint8_t* input, uint8_t* output, size_t rowBegin,
                  size_t rowEnd);
// What runDepthwise hands its kernel, but for input, output and rowBegin (rowEnd: all rows,
// batches * outHeight): pointers into `packed`.
DepthwiseArgs depthwiseArgsOf(const PackedDepthwise& packed);
// Only what `spec` gives (geometry, quantization, clamp): no constants.
DepthwiseArgs depthwiseArgsOf(const DepthwiseSpec& spec);
// Rows [rowBegin, rowEnd) of `args` (depthwiseArgsOf, viewStoredDepthwise) on input and output.
void runDepthwise(Isa isa, const DepthwiseArgs& args, const uint8_t* input, uint8_t* output, size_t rowBegin,
                  size_t rowEnd);

// Stored depthwise state (a program's packed weights, DepthwiseStore.cpp): what runDepthwise
// reads of a PackedDepthwise kept for one ISA, in one buffer of 64-byte aligned parts. Bump the
// version with any change of the layout or of what a part means.
constexpr uint32_t kDepthwiseLayoutVersion = 1;
void storeDepthwise(const PackedDepthwise& packed, std::vector<uint8_t>* bytes);
// The arguments of `stored` (from a program file: untrusted) for the layer of geometry and
// quantization `spec` (its weights unused), pointing into `stored` where it lies; false when the
// sizes or constants are not what runDepthwise with `isa` may read, or `folded` is required and
// `stored` is not folded.
bool viewStoredDepthwise(std::span<const uint8_t> stored, const DepthwiseSpec& spec, Isa isa, bool folded,
                         DepthwiseArgs* args);

}  // namespace nnemu::synap::kernels
