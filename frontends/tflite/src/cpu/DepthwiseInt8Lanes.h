// The 8-bit depthwise's register path (DepthwiseInt8Avx512.cpp), for a depth multiplier of 1 on a
// CPU with AVX-512BW: one output row's int32 sums, wrapping, from the input's bytes as they are.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ConvInt8Gemm.h"

namespace nnemu::tflite::kernels::depthwise_int8 {

// sums[p * channels + c] = bias[c] + sum over t of in_t[c] x filter[t * channels + c] (modulo
// 2^32), in_t = taps[p * count + t]: pixel p's tap t, `channels` bytes read as uint8
// (unsignedInput) or int8; a padded tap points at bytes equal to the input's zero point. With
// bias = the node's bias - zero point x the sum of the channel's filter over every tap, these are
// the sums of (input - zero point) x filter over the taps inside the image.
void rowSumsAvx512(const uint8_t* const* taps, size_t pixels, size_t count, const int32_t* filter, const int32_t* bias,
                   size_t channels, bool unsignedInput, int32_t* sums);

// The same sums requantized in registers as conv::requantizeFp32Rows does them (r.bias unused:
// the bias is in the sums), out[p * channels + c] their bytes (int8 or uint8 alike).
void rowRequantizedAvx512(const uint8_t* const* taps, size_t pixels, size_t count, const int32_t* filter,
                          const int32_t* bias, size_t channels, bool unsignedInput, const conv::Fp32Requantization& r,
                          uint8_t* out);

// Whether the CPU can run rowSumsAvx512 (AVX-512BW and VL).
bool registerPathAvailable();
// For tests: false makes the kernel take its row passes where it would take the register path.
void allowRegisterPath(bool allowed);

}  // namespace nnemu::tflite::kernels::depthwise_int8
