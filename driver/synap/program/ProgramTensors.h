// Reading a compiled NPU program's tensors: what the compiler, the weight packers and the core all
// need of the schema beyond the generated accessors. Sizes saturate, so that dims from a damaged or
// hostile program never wrap to a small size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "npu_program_generated.h"

namespace nnemu::synap {

// Bytes of one element, and of a whole tensor (saturating at SIZE_MAX).
size_t elementBytes(npu::DataType type);
size_t elementCount(const npu::Tensor& tensor);
size_t byteSize(const npu::Tensor& tensor);
// The largest tensor the core takes: what a HAL operand can be (32-bit lengths). Every size the
// core computes from a loaded program's dims stays far from overflowing below it.
constexpr uint64_t kMaxTensorBytes = UINT32_MAX;

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
