// One step of an interpreter partition: a compiled NNAPI model (CompiledPartition) or a node run
// by the tools' own CPU kernel (cpu/CpuKernelUnit), both on the interpreter's tensor buffers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "TensorBuffer.h"
#include "nnemu/base/Status.h"

namespace nnemu::tflite {

class ExecutionUnit {
public:
    virtual ~ExecutionUnit() = default;
    // buffers[t]: the interpreter's buffer of TFLite tensor t (int8 shifted by 128 below FL30).
    virtual Status run(std::vector<TensorBuffer>& buffers) = 0;
    virtual uint32_t firstNode() const = 0;
    // Sets (*touched)[t] for every tensor run() reads or writes through `buffers`.
    virtual void markTensors(std::vector<bool>* touched) const = 0;
};

}  // namespace nnemu::tflite
