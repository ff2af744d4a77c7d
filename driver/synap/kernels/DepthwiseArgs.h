// What the per-ISA 3x3 depthwise kernels read (plain data, like GemmArgs.h).
#pragma once

#include "GemmArgs.h"

namespace nnemu::synap::kernels {

// NHWC, depth multiplier 1, 3x3 filter, dilation 1. Taps outside the input read `zeroRow` (the
// input zero point in every channel), which adds nothing once the column term is added.
struct DepthwiseArgs {
    GemmArgs requant;  // channels, per-channel constants, clamp, output zero point, output
    const uint8_t* input;
    uint32_t inHeight, inWidth, outHeight, outWidth;
    uint32_t stride, padTop, padLeft;
    bool signedInput;
    const uint8_t* zeroRow;  // a whole input row (and at least 16 channels) of the input zero point
    // [channels / 16][9 taps][16 lanes]: weight - filter zero point, in each int32 lane's low 16 bits.
    const int32_t* weights;
    size_t rowBegin, rowEnd;  // output rows (batch * outHeight + y) to compute
    // `input` holds input rows (batch * inHeight + y) from this one on: a band of the image.
    size_t inRowFirst = 0;
    // The output (requant.output) holds output rows from this one on: a band of them.
    size_t outRowFirst = 0;
    // The VNNI kernel's layout where the folded requantization applies (else nullptr), in slot
    // order (Depthwise.cpp slotOf: permuted within groups of 64 and 32 channels). Per 16 slots:
    // `weightSets` sets of [3 kx][16 lanes][4 bytes: ky 0, 1, 2, 0] signed weights whose sum is
    // w - filter zero point, the accumulators' start (bias and every constant term), the folded
    // requantization with the output zero point in its nudges. Activations enter vpdpbusd
    // unsigned (int8 ones with their sign bit flipped).
    const int8_t* quadWeights = nullptr;
    uint32_t weightSets = 1;
    const uint8_t* blockSets = nullptr;  // per 16 slots, the sets its weights need (the rest are 0)
    const int32_t* initial = nullptr;
    const FastRequantBlock* folded = nullptr;
    // The AVX2 kernel's layout (Depthwise.h DepthwiseAvx2Layout), channel order; nullptr where
    // absent. avx2Folded nullptr: the saturating requantization from `requant`.
    const int16_t* pairWeights = nullptr;
    const FastRequantBlock* avx2Folded = nullptr;
    const int32_t* avx2Initial = nullptr;
    const int32_t* avx2Post = nullptr;
};

void depthwisePortable(const DepthwiseArgs& args);
void depthwiseAvx2(const DepthwiseArgs& args);
void depthwiseAvxVnni(const DepthwiseArgs& args);
void depthwiseAvx512Vnni(const DepthwiseArgs& args);

}  // namespace nnemu::synap::kernels
