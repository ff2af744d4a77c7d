// Limits of the core that the compiler's rules respect and the core's load checks again (a
// program may come from a file): pure arithmetic on quantization parameters.
#pragma once

namespace nnemu::synap {

// Quantization ratio `numerator / denominator` inside [low, high): where the core is exact.
bool ratioWithin(double numerator, double denominator, double low, double high);
// A quantized convolution's requantization factor input·filter/output where the core computes
// it: XNNPACK refuses a layer whose factor, computed in float, reaches 256, and asserts on one
// below 2^-32 (the NPU core's load checks stored programs with it too).
bool requantizationFactorSupported(float inputScale, float filterScale, float outputScale);

}  // namespace nnemu::synap
