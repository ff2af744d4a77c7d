// Layers the NPU core computes itself rather than through XNNPACK: each has a load-time check of
// its tensors (dims and types agree, so the run stays within the buffers) and a run.
#pragma once

#include <vector>

#include "LayerKinds.h"

namespace nnemu::synap {

// Data movement (NativeLayers.cpp).
bool checkConcatenation(const npu::Program& program, const npu::Layer& layer);
bool runConcatenation(const NativeLayer& layer);
bool checkFlipSign(const npu::Program& program, const npu::Layer& layer);
bool runFlipSign(const NativeLayer& layer);
bool checkChannelShuffle(const npu::Program& program, const npu::Layer& layer);
bool runChannelShuffle(const NativeLayer& layer);

// Element-wise layers with broadcasting (NativeElementwise.cpp).
bool checkBroadcastPrelu(const npu::Program& program, const npu::Layer& layer);
bool runBroadcastPrelu(const NativeLayer& layer);
bool checkQuantizedMaxMin(const npu::Program& program, const npu::Layer& layer);
bool runQuantizedMaximum(const NativeLayer& layer);
bool runQuantizedMinimum(const NativeLayer& layer);

// 8-bit windowed averages (NativePooling.cpp); the kind's check is checkPool2DShapes.
bool runQuantizedAveragePool(const NativeLayer& layer);

// Index of the largest / smallest element along an axis (NativeArgMinMax.cpp).
bool checkArgMinMax(const npu::Program& program, const npu::Layer& layer);
bool runArgMax(const NativeLayer& layer);
bool runArgMin(const NativeLayer& layer);

}  // namespace nnemu::synap
