// 8-bit dot products for the quantized convolution kernels, built for the widest vector unit
// the CPU has (AVX-512BW, AVX2 or the baseline, chosen once at load by the dynamic linker):
// exact integer sums, so every variant gives the same result.
#pragma once

#include <cstdint>

namespace nnemu::cpu {

int32_t dotProduct(const uint8_t* x, const uint8_t* w, uint32_t n);
int32_t dotProduct(const int8_t* x, const int8_t* w, uint32_t n);
int32_t dotProduct(const uint8_t* x, const int8_t* w, uint32_t n);
// The sum of n 8-bit values.
int32_t elementSum(const uint8_t* x, uint32_t n);
int32_t elementSum(const int8_t* x, uint32_t n);

}  // namespace nnemu::cpu
