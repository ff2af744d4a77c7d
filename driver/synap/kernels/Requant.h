// The per-channel requantization constants every own kernel reads (GemmArgs.h), derived as the
// reference kernels derive them (ConvPoolUtils.h Requantizer: float product of the input and
// filter scales, over the output scale in double, quantizeMultiplier).
#pragma once

#include <span>
#include <vector>

#include "GemmArgs.h"

namespace nnemu::synap::kernels {

// What every own kernel's layer has: 8-bit values, their quantization and the constant weights.
struct QuantLayerSpec {
    // int8 activations and weights (weights' zero point 0); otherwise uint8 activations and
    // weights with `filterZeroPoint`.
    bool signedValues = false;
    int32_t inputZeroPoint = 0, filterZeroPoint = 0, outputZeroPoint = 0;
    float inputScale = 0, outputScale = 0;
    std::span<const float> filterScales;  // one (per tensor) or one per output channel
    int32_t low = 0, high = 0;             // output clamp, quantized (fused activation applied)
    const uint8_t* weights = nullptr;      // int8 as their bytes
    const int32_t* bias = nullptr;         // one per output channel
};

struct RequantTable {
    // Per channel, padded with zeros to a multiple of 16.
    static constexpr size_t kArrays = 6;  // colTerms, bias, multipliers, leftShifts, rightShifts, biasAndColTerms
    explicit RequantTable(uint32_t channels);

    // Channel c: bias, the accumulator's constant term (taken modulo 2^32, like the sums) and
    // the largest |accumulator| before the bias. false for a scale the reference rejects.
    bool set(uint32_t c, float inputScale, float filterScale, float outputScale, int32_t bias, int64_t colTerm,
             int64_t largestSum);
    // The same from a multiplier and shift already quantized (quantizeMultiplier's: Q31, the
    // power of two's exponent).
    void setQuantized(uint32_t c, int32_t multiplier, int shift, int32_t bias, int64_t colTerm, int64_t largestSum);
    // Points `args`' per-channel arrays at `arrays` / `blocks` laid out like this table's.
    static void point(GemmArgs* args, const int32_t* arrays, size_t padded, const FastRequantBlock* blocks);

    size_t padded;
    std::vector<int32_t> arrays;
    std::vector<FastRequantBlock> fastBlocks;
    bool fast = true;  // no channel can saturate: the folded requantization applies
};

// Whether per-channel arrays laid out like a RequantTable's and `blockCount` folded blocks (from
// a program file: untrusted) hold multipliers and shifts the kernels can take.
bool soundRequant(const int32_t* arrays, size_t padded, const FastRequantBlock* blocks, size_t blockCount);

// The largest |a - zero point| of an 8-bit activation.
int64_t largestActivation(bool isSigned, int32_t zeroPoint);

}  // namespace nnemu::synap::kernels
