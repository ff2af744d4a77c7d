// The int8 DEPTHWISE_CONV_2D (per-channel or per-tensor int8 weights) as TFLite 2.21's x86 build
// computes it (DepthwiseInt8.cpp), called from the builtin's kernel (HybridDepthwise.cpp) once it
// has checked the geometry.
#pragma once

#include <cstdint>

#include "CpuKernel.h"

namespace nnemu::tflite::kernels::depthwise_int8 {

// The checks beyond the geometry: constant weights, their quantization, the bias.
bool prepare(const CpuKernelCall& call);
bool run(const CpuKernelCall& call, int32_t padTop, int32_t padLeft);

}  // namespace nnemu::tflite::kernels::depthwise_int8
