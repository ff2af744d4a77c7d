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
};

void depthwisePortable(const DepthwiseArgs& args);
void depthwiseAvx512Vnni(const DepthwiseArgs& args);

}  // namespace nnemu::synap::kernels
