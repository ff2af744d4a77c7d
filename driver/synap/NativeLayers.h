// Layers the NPU core computes itself rather than through XNNPACK: each has a load-time check of
// its tensors (dims and types agree, so the run stays within the buffers) and a run.
#pragma once

#include "LayerKinds.h"

namespace nnemu::synap {

bool checkConcatenation(const npu::Program& program, const npu::Layer& layer);
bool runConcatenation(const NativeLayer& layer);

bool checkFlipSign(const npu::Program& program, const npu::Layer& layer);
bool runFlipSign(const NativeLayer& layer);

}  // namespace nnemu::synap
