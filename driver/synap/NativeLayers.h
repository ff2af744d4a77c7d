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

// Shared by the native layers.
inline const npu::Tensor& tensorAt(const npu::Program& program, uint32_t index) {
    return *program.tensors()->Get(index);
}
inline const npu::Tensor& outputOf(const npu::Program& program, const npu::Layer& layer) {
    return tensorAt(program, layer.outputs()->Get(0));
}
// Constant: bytes in the program, or a filter the program holds packed (PackedFilters.h).
inline bool isStored(const npu::Tensor& tensor) {
    return (tensor.data() != nullptr && tensor.data()->size() > 0) || tensor.packed();
}
inline std::vector<uint32_t> dimsOf(const npu::Tensor& tensor) { return {tensor.dims()->begin(), tensor.dims()->end()}; }

}  // namespace nnemu::synap
