#include "CpuKernelUnit.h"

namespace nnemu::tflite {
namespace {

void flipSignBits(uint8_t* data, size_t size) {
    for (size_t i = 0; i < size; ++i) data[i] ^= 0x80u;
}

}  // namespace

std::unique_ptr<CpuKernelUnit> CpuKernelUnit::create(const Subgraph& subgraph, const Node& node, bool shiftedInt8,
                                                     std::string* error) {
    std::unique_ptr<CpuKernelUnit> unit(new CpuKernelUnit(subgraph, node));
    std::string why;
    unit->kernel_ = prepareCpuKernel(subgraph, node, &why);
    if (unit->kernel_ == nullptr) {
        *error = "operator " + node.opName + " at node " + std::to_string(node.index) + ": " + why;
        return nullptr;
    }
    unit->shiftedInt8_ = shiftedInt8;
    unit->unshifted_.resize(node.inputs.size());
    return unit;
}

void CpuKernelUnit::markTensors(std::vector<bool>* touched) const {
    for (const std::vector<int32_t>* tensors : {&node_.inputs, &node_.outputs}) {
        for (int32_t t : *tensors) {
            if (t >= 0 && static_cast<size_t>(t) < touched->size()) (*touched)[t] = true;
        }
    }
}

bool CpuKernelUnit::run(std::vector<TensorBuffer>& buffers, std::string* error) {
    std::string why;
    CpuKernelCall call(node_, &why);
    const auto buffer = [&](int32_t t, const Tensor& tensor) -> TensorBuffer* {
        if (static_cast<size_t>(t) >= buffers.size() || buffers[t].size() < tensor.byteSize()) return nullptr;
        return &buffers[t];
    };
    for (size_t i = 0; i < node_.inputs.size(); ++i) {
        const int32_t t = node_.inputs[i];
        CpuOperand operand;
        if (t >= 0) {
            const Tensor& tensor = subgraph_.tensors[t];
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
                *error = "input tensor " + std::to_string(t) + " has no buffer";
                return false;
            }
        }
        call.inputs.push_back(operand);
    }
    for (int32_t t : node_.outputs) {
        CpuOperand operand;
        TensorBuffer* to = t >= 0 ? buffer(t, subgraph_.tensors[t]) : nullptr;
        if (to == nullptr) {
            *error = "output tensor " + std::to_string(t) + " has no buffer";
            return false;
        }
        operand.tensor = &subgraph_.tensors[t];
        operand.out = to->data();
        call.outputs.push_back(operand);
    }
    if (!kernel_->run(call)) {
        *error = why;
        return false;
    }
    for (const CpuOperand& operand : call.outputs) {
        if (shiftedInt8_ && operand.type() == ElementType::INT8) flipSignBits(operand.out, operand.tensor->byteSize());
    }
    return true;
}

}  // namespace nnemu::tflite
