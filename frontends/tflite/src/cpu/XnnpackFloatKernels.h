// The per-instruction-set builds of XnnpackFloatConv.h's GEMM and depthwise (XnnpackFloatTile.h),
// chosen at run time by XnnpackFloatConv.cpp: AVX-512F, else AVX2 with FMA, else portable.
#pragma once

#include <cstddef>

#include "XnnpackFloatConv.h"

namespace nnemu::tflite::kernels::xnnpackfloat {

struct IsaKernels {
    // Units per packed panel: the weights [units, depth] as panels of `lanes` units, each depth x
    // lanes (units past the last zero).
    size_t lanes;
    void (*pack)(const float* weights, size_t units, size_t depth, float* packed);
    // XnnpackFloatConv.h's gemm on packed weights; paddedBias holds one value per packed unit.
    void (*gemm)(const float* rows, size_t pixels, const float* packed, size_t units, size_t depth,
                 const float* paddedBias, float low, float high, float* out, bool two);
    // XnnpackFloatConv.h's depthwise for multiplier 1; paddedBias holds one value per channel.
    void (*depthwise)(const DepthwiseShape& s, const float* input, const float* filter, const float* paddedBias,
                      float low, float high, float* output);
};

IsaKernels portableKernels();
IsaKernels avx2Kernels();
IsaKernels avx512Kernels();

}  // namespace nnemu::tflite::kernels::xnnpackfloat
