// CONV_2D of nnapi-reference on NHWC tensors with one group, as a blocked GEMM: 16 output
// channels at a time in vector registers (the filter packed per execution as [block][tap][input
// channel][16]), up to 4 output pixels of a row sharing each weight load. Every output element is
// still the sum of its products from 0 in the reference's order (filter rows, columns, input
// channels; taps in the padding skipped): float results are the bits of the per-element loops, as
// the file is compiled without FMA contraction (driver/cpu/CMakeLists.txt); quantized sums are
// exact integers. Built for AVX-512, AVX2 and the baseline, chosen once at load.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ConvPoolUtils.h"

namespace nnemu::cpu::convgemm {

struct ConvGeometry {
    uint32_t batches = 0, inChannels = 0, outChannels = 0;
    hal::WindowGeometry window;   // heights, widths, filter size, strides, dilations, padding
};

// output[b][y][x][oc] = clamp(sum over taps inside the input and input channels of input *
// filter[oc][ky][kx][ic], + bias[oc], low, high); filter [outChannels][filterH][filterW][inChannels].
void convolve(const ConvGeometry& g, const float* input, const float* filter, const float* bias, float low,
              float high, float* output);

// The quantized form: the sums of (input - inputZeroPoint) * (filter - filterZeroPoint) over
// the same taps, requantized with the bias into output. The filter is of the input's type, or
// int8 per channel (zero point 0).
void convolveQuant(const ConvGeometry& g, const uint8_t* input, int32_t inputZeroPoint, const uint8_t* filter,
                   int32_t filterZeroPoint, const int32_t* bias, const convpool::Requantizer<uint8_t>& requantize,
                   uint8_t* output);
void convolveQuant(const ConvGeometry& g, const int8_t* input, int32_t inputZeroPoint, const int8_t* filter,
                   int32_t filterZeroPoint, const int32_t* bias, const convpool::Requantizer<int8_t>& requantize,
                   int8_t* output);
void convolveQuant(const ConvGeometry& g, const uint8_t* input, int32_t inputZeroPoint, const int8_t* filter,
                   int32_t filterZeroPoint, const int32_t* bias, const convpool::Requantizer<uint8_t>& requantize,
                   uint8_t* output);

}  // namespace nnemu::cpu::convgemm
