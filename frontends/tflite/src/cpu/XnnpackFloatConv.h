// Float CONV_2D, FULLY_CONNECTED and DEPTHWISE_CONV_2D as TFLite's default delegate (XNNPACK 2025
// on x86-64 with AVX-512) computes them (XnnpackFloatConv.cpp); FloatConv.cpp calls these for a
// node the tools run with XNNPACK's arithmetic (CpuKernelCall::xnnpack()).
#pragma once

#include <cstddef>
#include <cstdint>

namespace nnemu::tflite {
class CpuThreads;
}

namespace nnemu::tflite::kernels::xnnpackfloat {

// out[p][u] = clamp(bias[u] + sum_k rows[p][k] * weights[u][k]), each product added with one fused
// multiply-add in k order. accumulators 1 (XNNPACK's IGEMM: a convolution reading its window
// through the indirection buffer): one sum from the bias (0 without one); 2 (its GEMM: 1x1
// convolutions at stride 1 without padding, FULLY_CONNECTED): even k into a sum from the bias, odd
// k into a sum from 0, the two added at the end. rows: pixels x depth,
// out: pixels x units. [low, high]: the activation's range. packed: the weights (units x depth)
// as pack() lays them out for this CPU's kernels, packedSize() floats. threads (CpuThreads.h, may
// be null): one pixel shares its units among them, more share their pixels.
void gemm(const float* rows, size_t pixels, const float* packed, size_t units, size_t depth, const float* bias,
          float low, float high, float* out, int accumulators, const CpuThreads* threads = nullptr);
size_t packedSize(size_t units, size_t depth);
void pack(const float* weights, size_t units, size_t depth, float* packed);

// Depthwise: each output channel c starts from bias[c] (0 without one) and adds, with fused
// multiply-adds, input channel c / multiplier times the filter over the window's taps, a padded
// tap reading 0. With multiplier 1 XNNPACK's depthwise kernel takes the taps columns outer, rows
// inner (its indirection buffer's order); with a larger multiplier it runs a grouped IGEMM, rows
// outer.
// x: NHWC input shape, kh x kw filter of `channels` = input channels x multiplier.
struct DepthwiseShape {
    int32_t batch, inH, inW, inC, outH, outW, kh, kw, strideH, strideW, dilationH, dilationW, padTop, padLeft;
    size_t multiplier;
};
// threads (may be null): the output rows of multiplier 1 are shared among them.
void depthwise(const DepthwiseShape& s, const float* input, const float* filter, const float* bias, float low,
               float high, float* output, const CpuThreads* threads = nullptr);

// The activation range XNNPACK clamps to: without an activation the whole line, infinities kept.
void activationRange(int32_t activation, float* low, float* high);

}  // namespace nnemu::tflite::kernels::xnnpackfloat
