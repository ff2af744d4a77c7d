// What Conv.cpp and ConvInt8.cpp share: the geometry of a CONV_2D and the int8 form that runs
// with ruy's requantization (TFLite's x86 build), see ConvInt8.cpp.
#pragma once

#include <cstdint>
#include <vector>

#include "CpuKernel.h"

namespace nnemu::tflite::kernels::conv {

struct ConvGeometry {
    int32_t strideH = 1, strideW = 1, dilationH = 1, dilationW = 1, padTop = 0, padLeft = 0;
};

// Per output channel the Q31 multiplier and shift of input scale x weight scale / output scale;
// the weights packed for the GEMM (ConvInt8Gemm.h): `blocks` of 16 channels, `pairs` depth pairs.
struct Int8ConvPlan {
    std::vector<int32_t> multipliers;
    std::vector<int> shifts;
    std::vector<int32_t> leftShifts, rightShifts;
    std::vector<int16_t> packed;
    size_t blocks = 0, pairs = 0;
};

// x * multiplier * 2^shift as ruy's x86 kernels requantize: the left shift, then
// (x * m + 2^30) >> 31, then (x + 2^(e-1)) >> e for a right shift e (ties rounded up).
int32_t ruyRequantize(int32_t acc, int32_t multiplier, int shift);

// int8 input, weights and output.
bool isInt8Conv(const CpuKernelCall& call);
// The node's TFLite results differ from NNAPI's (ReplacesNnapi.h): the int8 form.
bool replacesNnapi(const CpuKernelCall& call);
// The checks of the int8 form beyond the geometry; fills *plan when it is not nullptr.
bool prepareInt8Conv(const CpuKernelCall& call, Int8ConvPlan* plan);
bool runInt8Conv(const CpuKernelCall& call, const ConvGeometry& g);
bool runInt8Conv(const CpuKernelCall& call, const ConvGeometry& g, const Int8ConvPlan& plan);

}  // namespace nnemu::tflite::kernels::conv
