// Own-kernel layers run in row bands, as an NPU tiles them through its on-chip memory: a
// convolution on the own kernels (1x1 on the GEMM, im2col + GEMM, the float few-channel one) whose
// output only a 3x3 depthwise convolution reads computes, band by band, the rows the depthwise's
// next output rows need into a small buffer of each thread, and the depthwise runs on that band. A
// 1x1 convolution that alone reads the depthwise's output (MobileNet v2's projection) can join as a
// third layer: it takes each band of the depthwise's rows into the stage's output. The values
// between them are never whole: the activation arena leaves them out. Results are those of the
// layers run apart, to the bit. 8-bit layers (bands of about 256 KB where the kernels run AVX-512
// VNNI, 32 KB below), and float ones (bands of about 512 KB: their rows are 4x wider): in a relaxed
// program wherever its 1x1 convolutions run on the bf16 GEMM, in a strict one where the value
// between holds two bands at least (OwnFloatConvLayer.cpp). NNEMU_NPU_BANDS=0 (read at every load)
// runs them apart, NNEMU_NPU_BAND_KIB=N sets the 8-bit bands' size, for comparisons.
#pragma once

#include <cstddef>
#include <memory>

#include "LayerKinds.h"

namespace nnemu::synap {

// New float convolution output a band computes, about: float rows are 4x wider than 8-bit ones,
// and bands of a few rows would spend their time moving the rows they keep, so they take about
// half of a 2 MB L2 (512 KiB measured best on relaxed MobileNets; 128 KiB and 1 MiB slower).
constexpr size_t kFloatBandBytes = 512 * 1024;
// A strict float32 program bands a value of two such bands at least (half a 2 MB L2): a smaller
// one stays in L2 between the layers apart, and banded, each thread's run computes again the
// rows where the runs meet (OwnFloatConvLayer.cpp).
constexpr size_t kStrictFloatBandedBytes = 2 * kFloatBandBytes;

// The Conv2D kind's fuseWithReader: the pair's state when `layer` runs on an own convolution
// kernel and `reader` on the own 3x3 depthwise over its whole output; the three layers' state
// when `state` is such a pair (`layer` its depthwise) and `reader` a 1x1 convolution on the own
// GEMM; nullptr otherwise.
std::shared_ptr<LayerState> bandedWithReader(const npu::Program& program, const npu::Layer& layer,
                                             const std::shared_ptr<LayerState>& state, const npu::Layer& reader,
                                             const std::shared_ptr<LayerState>& readerState);

}  // namespace nnemu::synap
