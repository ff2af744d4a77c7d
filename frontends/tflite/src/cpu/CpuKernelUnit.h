// A node the tools' CPU kernel runs inside the interpreter: binds the node's tensors to the
// interpreter's buffers and gives the kernel TFLite's values (int8 unshifted below FL30).
#pragma once

#include <memory>

#include "../ExecutionUnit.h"
#include "CpuKernel.h"

namespace nnemu::tflite {

class CpuKernelUnit : public ExecutionUnit {
public:
    // shiftedInt8: int8 buffers hold value + 128 (uint8 NNAPI form, runtime below FL30).
    // arithmetic: whose 8-bit arithmetic the kernel computes (CpuKernel.h).
    static Result<std::unique_ptr<CpuKernelUnit>> create(const Subgraph& subgraph, const Node& node, bool shiftedInt8,
                                                         QuantizedArithmetic arithmetic = QuantizedArithmetic::Builtin);
    Status run(std::vector<TensorBuffer>& buffers) override;
    uint32_t firstNode() const override { return node_.index; }
    void markTensors(std::vector<bool>* touched) const override;
    // Per output: whether only the host reads it (graph outputs, other CPU kernels), so a kernel
    // may give it another shape at invoke (TFLite's dynamic tensors). Default: none may.
    void allowResizing(std::vector<bool> perOutput) { resizable_ = std::move(perOutput); }
    // The interpreter's resource variables, for VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE, CALL_ONCE.
    void useResources(InterpreterResources* resources) { resources_ = resources; }
    // The interpreter's threads the kernel may share its work with (CpuThreads.h); null: none.
    void useThreads(const CpuThreads* threads) { threads_ = threads; }

private:
    CpuKernelUnit(const Subgraph& subgraph, const Node& node) : subgraph_(subgraph), node_(node) {}

    const Subgraph& subgraph_;
    const Node& node_;
    const CpuKernel* kernel_ = nullptr;
    bool shiftedInt8_ = false;
    QuantizedArithmetic arithmetic_ = QuantizedArithmetic::Builtin;
    InterpreterResources* resources_ = nullptr;
    const CpuThreads* threads_ = nullptr;
    std::vector<std::vector<uint8_t>> unshifted_;   // per input: int8 copied back to true values
    std::vector<bool> resizable_;
    std::shared_ptr<void> state_;   // the kernel's state across invokes (CpuKernelCall::state)
    // Per input and output: the tensor with the shape its buffer got at invoke (TensorBuffer::shape).
    std::vector<Tensor> inputShapes_, outputShapes_;
};

}  // namespace nnemu::tflite
