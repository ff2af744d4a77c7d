// Pairs of own-kernel layers run in row bands, as an NPU tiles them through its on-chip memory:
// a convolution on the own kernels (1x1 on the GEMM, or im2col + GEMM) whose output only a 3x3
// depthwise convolution reads computes, band by band, the rows the depthwise's next output rows
// need into a small buffer of each thread, and the depthwise runs on that band. The value between
// them is never whole: the activation arena leaves it out. Results are those of the layers run
// apart, to the bit.
// NNEMU_NPU_BANDS=0 (read at every load) runs such pairs apart, for comparisons.
#pragma once

#include <memory>

#include "LayerKinds.h"

namespace nnemu::synap {

// The Conv2D kind's fuseWithReader: the pair's state when `layer` runs on an own convolution
// kernel and `reader` on the own 3x3 depthwise over its whole output; nullptr otherwise.
std::shared_ptr<LayerState> bandedWithReader(const npu::Program& program, const npu::Layer& layer,
                                             const std::shared_ptr<LayerState>& state, const npu::Layer& reader,
                                             const std::shared_ptr<LayerState>& readerState);

}  // namespace nnemu::synap
