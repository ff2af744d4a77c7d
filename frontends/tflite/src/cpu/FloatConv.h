// Float CONV_2D, FULLY_CONNECTED and DEPTHWISE_CONV_2D with TFLite's own summation orders
// (FloatConv.cpp), called from the builtins' kernels (Conv.cpp, HybridFullyConnected.cpp,
// HybridDepthwise.cpp) for float32 input, weights and output.
#pragma once

#include "ConvInt8.h"

namespace nnemu::tflite::kernels::floatconv {

// Input 0, weights 1 and output 0 are float32.
bool isFloatForm(const CpuKernelCall& call);

// The checks beyond the geometry the caller computed (the depthwise one checks all), and the runs.
bool prepareConv(const CpuKernelCall& call);
bool runConv(const CpuKernelCall& call, const conv::ConvGeometry& g);
bool prepareFullyConnected(const CpuKernelCall& call);
bool runFullyConnected(const CpuKernelCall& call);
bool runDepthwise(const CpuKernelCall& call, int32_t padTop, int32_t padLeft);

}  // namespace nnemu::tflite::kernels::floatconv
