// The NPU core's own float32 3x3 depthwise convolution (stride 1 or 2, one output channel per
// input channel); its convolution with few input channels is FloatConv.h. Both have their
// weights packed once in the float GEMM's layout
// (FloatGemm.h: blocks of 16 channels, bias then one row of 16 per tap), so that a compiled
// program stores them and every process reads them in place in the mapped program file.
// Each depthwise output is the bias plus its nine taps in (row, column) order, those outside the
// image reading zeros (adding zero), one fused multiply-add each on AVX2 (with FMA) and AVX-512,
// then clamped; the portable loop rounds each product. Bump the version with any change of either layout.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "FloatGemm.h"
#include "Isa.h"

namespace nnemu::synap::kernels {

constexpr uint32_t kFloatDepthwiseLayoutVersion = 1;

// NHWC geometry of a float convolution-like layer.
struct FloatImage {
    uint32_t batches = 0, inHeight = 0, inWidth = 0, outHeight = 0, outWidth = 0;
    uint32_t inChannels = 0, channels = 0;  // input and output channels (equal for the depthwise)
    uint32_t kernelHeight = 3, kernelWidth = 3, strideHeight = 1, strideWidth = 1;
    uint32_t dilationHeight = 1, dilationWidth = 1, padTop = 0, padLeft = 0;
    float low = 0, high = 0;  // the fused activation's clamp
};

// The depthwise filter [1, 3, 3, channels] and bias [channels] (float32 bytes, any alignment;
// bias null: zeros) packed; false when empty or too large.
bool packFloatDepthwise(const uint8_t* filter, const uint8_t* bias, uint32_t channels, std::vector<uint8_t>* packed);
// Whether `packed` (untrusted) is a packed depthwise filter of `channels` channels.
bool checkPackedFloatDepthwise(std::span<const uint8_t> packed, uint32_t channels);
// The [1, 3, 3, channels] filter packFloatDepthwise packed, as bytes, exactly.
bool unpackFloatDepthwise(std::span<const uint8_t> packed, std::vector<uint8_t>* filter);

// Output rows [rowBegin, rowEnd) of batches * outHeight of the 3x3 depthwise (stride
// strideHeight == strideWidth, 1 or 2; `image` checked by the caller against its tensors) with the
// kernel of `isa` (which the CPU must support). `packed` passed checkPackedFloatDepthwise.
// `input` may hold the image's rows (batch * inHeight + y) from `inRowFirst` on only (a band of
// it) and `output` the output rows from `outRowFirst` on.
void runFloatDepthwiseRows(Isa isa, const FloatImage& image, std::span<const uint8_t> packed, const float* input,
                           float* output, size_t rowBegin, size_t rowEnd, size_t inRowFirst = 0,
                           size_t outRowFirst = 0);

// One output row of the depthwise for the ISA kernels: the three input rows (null where the window
// leaves the image), its `width` columns, those of [insideBegin, insideEnd) with every tap inside.
struct FloatDepthwiseRow {
    const float* rows[3];
    float* output;
    const float* weights;  // the packed blocks
    size_t channels, inWidth, stride, padLeft, width, insideBegin, insideEnd;
    float low, high;
};
void floatDepthwiseRowPortable(const FloatDepthwiseRow& r);
void floatDepthwiseRowAvx2(const FloatDepthwiseRow& r);    // FloatDepthwiseAvx2.cpp (AVX2 + FMA)
void floatDepthwiseRowAvx512(const FloatDepthwiseRow& r);  // FloatDepthwiseAvx512.cpp

}  // namespace nnemu::synap::kernels
