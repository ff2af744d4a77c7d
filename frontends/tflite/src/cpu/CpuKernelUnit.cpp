#include "CpuKernelUnit.h"

namespace nnemu::tflite {
namespace {

void flipSignBits(uint8_t* data, size_t size) {
    for (size_t i = 0; i < size; ++i) data[i] ^= 0x80u;
}

}  // namespace

Result<std::unique_ptr<CpuKernelUnit>> CpuKernelUnit::create(const Subgraph& subgraph, const Node& node,
                                                             bool shiftedInt8, QuantizedArithmetic arithmetic) {
    std::unique_ptr<CpuKernelUnit> unit(new CpuKernelUnit(subgraph, node));
    const Result<const CpuKernel*> kernel = prepareCpuKernel(subgraph, node, arithmetic);
    if (!kernel) {
        return Status(kernel.code(),
                      "operator " + node.opName + " at node " + std::to_string(node.index) + ": " + kernel.message());
    }
    unit->kernel_ = *kernel;
    unit->shiftedInt8_ = shiftedInt8;
    unit->arithmetic_ = arithmetic;
    unit->unshifted_.resize(node.inputs.size());
    unit->inputShapes_.resize(node.inputs.size());
    unit->outputShapes_.resize(node.outputs.size());
    return unit;
}

void CpuKernelUnit::markTensors(std::vector<bool>* touched) const {
    for (const std::vector<int32_t>* tensors : {&node_.inputs, &node_.outputs}) {
        for (int32_t t : *tensors) {
            if (t >= 0 && static_cast<size_t>(t) < touched->size()) (*touched)[t] = true;
        }
    }
}

Status CpuKernelUnit::run(std::vector<TensorBuffer>& buffers) {
    CpuKernelCall call(node_);
    call.resources = resources_;
    call.threads = threads_;
    call.state = &state_;
    call.arithmetic = arithmetic_;
    const auto buffer = [&](int32_t t, const Tensor& tensor) -> TensorBuffer* {
        if (static_cast<size_t>(t) >= buffers.size() || buffers[t].size() < tensor.byteSize()) return nullptr;
        return &buffers[t];
    };
    // The tensor as this invoke sees it: with the shape an earlier kernel gave its buffer.
    const auto shaped = [&](int32_t t, Tensor* copy) -> const Tensor& {
        const Tensor& declared = subgraph_.tensors[t];
        if (declared.isConstant || static_cast<size_t>(t) >= buffers.size()) return declared;
        const bool strings = declared.type == ElementType::STRING;   // sized by their buffer
        if (!buffers[t].shape() && !strings) return declared;
        *copy = declared;
        if (buffers[t].shape()) copy->shape = *buffers[t].shape();
        if (strings) copy->dataSize = buffers[t].size();
        return *copy;
    };
    for (size_t i = 0; i < node_.inputs.size(); ++i) {
        const int32_t t = node_.inputs[i];
        CpuOperand operand;
        if (t >= 0) {
            const Tensor& tensor = shaped(t, &inputShapes_[i]);
            operand.tensor = &tensor;
            if (tensor.isConstant) {
                operand.data = tensor.data;
            } else if (TensorBuffer* from = buffer(t, tensor)) {
                operand.data = from->data();
                if (shiftedInt8_ && tensor.type == ElementType::INT8) {
                    unshifted_[i].assign(from->data(), from->data() + tensor.byteSize());
                    flipSignBits(unshifted_[i].data(), unshifted_[i].size());
                    operand.data = unshifted_[i].data();
                }
            } else {
                return opFailed("input tensor " + std::to_string(t) + " has no buffer");
            }
        }
        call.inputs.push_back(operand);
    }
    for (size_t o = 0; o < node_.outputs.size(); ++o) {
        const int32_t t = node_.outputs[o];
        CpuOperand operand;
        const Tensor* tensor = t >= 0 ? &shaped(t, &outputShapes_[o]) : nullptr;
        TensorBuffer* to = tensor != nullptr ? buffer(t, *tensor) : nullptr;
        if (to == nullptr) {
            return opFailed("output tensor " + std::to_string(t) + " has no buffer");
        }
        operand.tensor = tensor;
        operand.out = to->data();
        call.outputs.push_back(operand);
    }
    call.resizer = [&](size_t o, const std::vector<int32_t>& shape, size_t stringBytes, CpuOperand* operand) -> Status {
        const int32_t t = node_.outputs[o];
        const Tensor& declared = subgraph_.tensors[t];
        const bool strings = declared.type == ElementType::STRING;
        if (o >= resizable_.size() || !resizable_[o]) {
            if (strings) return opFailed("output " + std::to_string(o) + " holds strings, but a partition on NNAPI reads it");
            if (elementCount(shape) == elementCount(declared.shape)) return {};
            return opFailed("output " + std::to_string(o) + " computes to shape " + shapeText(shape) +
                            " at invoke, but a partition on NNAPI reads it with its declared shape " +
                            shapeText(declared.shape));
        }
        outputShapes_[o] = declared;
        outputShapes_[o].shape = shape;
        if (strings) outputShapes_[o].dataSize = stringBytes;
        buffers[t].reshape(shape, outputShapes_[o].byteSize());
        operand->tensor = &outputShapes_[o];
        operand->out = buffers[t].data();
        return {};
    };
    if (!kernel_->run(call)) return call.status().isOk() ? opFailed("") : call.status();
    for (const CpuOperand& operand : call.outputs) {
        if (shiftedInt8_ && operand.type() == ElementType::INT8) flipSignBits(operand.out, operand.tensor->byteSize());
    }
    return {};
}

}  // namespace nnemu::tflite
