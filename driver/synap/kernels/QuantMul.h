// The NPU core's own quantized MUL (uint8 or int8, broadcasting), bit-exact with the reference
// kernel (driver/cpu/kernels/Elementwise.cpp, TFLite's arithmetic): the product of the two
// zero-point-free values, requantized by one Q31 multiplier of inScale0 * inScale1 / outScale,
// plus the output zero point, clamped. XNNPACK's multiply rounds in float and can be one step off.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "QuantAdd.h"

namespace nnemu::synap::kernels {

using QuantMulSpec = QuantBinarySpec;

struct QuantMulParams {
    bool signedValues;
    int32_t zeroPoints[2];
    int32_t multiplier, shift;  // the reference's quantized multiplier (shift > 0: left)
    int32_t outputZeroPoint, low, high;
};

// false for a scale that is not positive and finite.
bool prepareQuantMul(const QuantMulSpec& spec, QuantMulParams* params);

// The whole broadcast (numpy rules, dims right-aligned): false if the dims do not broadcast to
// `outDims`.
bool runQuantMul(const QuantMulParams& params, const std::vector<uint32_t>& aDims, const uint8_t* a,
                 const std::vector<uint32_t>& bDims, const uint8_t* b, const std::vector<uint32_t>& outDims,
                 uint8_t* out);

}  // namespace nnemu::synap::kernels
