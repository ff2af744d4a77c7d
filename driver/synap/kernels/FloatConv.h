// The NPU core's own float32 convolution with few input channels (the first layer of image
// networks: 224x224x3 -> 112x112x32, 3x3 stride 2, in MobileNets). Its weights are the float
// GEMM's packing of the filter [channels][kernelHeight][kernelWidth][inChannels] (FloatGemm.h:
// blocks of 16 channels, bias then one row of 16 per tap in (row, column, input channel) order),
// stored in the program and read in place. A direct convolution: up to 12 output pixels x 32
// channels (AVX-512; 6 x 16 on AVX2) summed in registers, each tap's input value broadcast from the
// image where the window lies inside it; the pixels whose window leaves the image are unfolded
// (zeros outside) and run on the float GEMM. Either way each output is the bias plus its taps in
// (row, column, input channel) order, one fused multiply-add each on AVX2 (with FMA) and AVX-512
// (taps outside the image add zero products), then clamped; the portable loop rounds each product.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "FloatDepthwise.h"

namespace nnemu::synap::kernels {

// Output rows [rowBegin, rowEnd) of batches * outHeight (`image` checked by the caller against
// its tensors; any kernel size, stride and dilation) with the kernels of `isa` (which the CPU must
// support). `packed` passed checkPackedFloatGemm for depth kernelHeight * kernelWidth * inChannels;
// `scratch` holds the unfolded edge pixels. `output` holds the output rows from `outRowFirst` on
// (a band of them).
void runFloatConvRows(Isa isa, const FloatImage& image, std::span<const uint8_t> packed, const float* input,
                      float* output, size_t rowBegin, size_t rowEnd, std::vector<float>* scratch,
                      size_t outRowFirst = 0);

// One kernel call: `pixels` output pixels (at most kFloatConvPixels) x `blocks` blocks (1, or 2 on
// AVX-512) from `weights` (the first block's bias), into output columns [0, lastCount) of the last
// block. Pixel p's taps are segments[s][(firstPixel + p) * pixelStride + j] for each segment s in
// order and j in [0, segmentLength): a run of the window (a kernel row of inChannels * kernelWidth
// floats without dilation, one pixel's inChannels with it).
constexpr size_t kFloatConvPixels = 12;
struct FloatConvArgs {
    const float* const* segments;
    size_t segmentCount, segmentLength, pixelStride, firstPixel;
    const float* weights;
    size_t blockStride;  // floats between blocks
    float* output;
    size_t outputStride;  // floats between output pixels
    size_t pixels, blocks, lastCount;
    float low, high;
};
void floatConvPortable(const FloatConvArgs& a);
// The kernel of `isa` and the blocks it takes per call.
struct FloatConvKernel {
    void (*run)(const FloatConvArgs&);
    size_t blocksPerCall;
};
FloatConvKernel floatConvKernel(Isa isa);
// Points `a` at the blocks of output channels [c, min(end, c + the kernel's blocks per call)) of
// `weights` (packed blocks of blockStride floats); the caller points its output at channel c.
void selectChannels(const FloatConvKernel& kernel, const float* weights, size_t c, size_t end, FloatConvArgs* a);
void floatConvAvx2(const FloatConvArgs& a);    // FloatConvAvx2.cpp (AVX2 + FMA)
void floatConvAvx512(const FloatConvArgs& a);  // FloatConvAvx512.cpp

}  // namespace nnemu::synap::kernels
