// The NPU core's checks of a program at load: every tensor and layer well formed, every network
// input and output a port of its own.
#include <xnnpack.h>

#include <functional>
#include <string>

#include "LayerKinds.h"
#include "NativeLayers.h"
#include "NpuCore.h"

namespace nnemu::synap {
namespace {

// A stored 8-bit tensor's zero point in its type's range: XNNPACK refuses others, and the layers
// the core runs itself compute with it in 32 bits.
bool zeroPointFits(const npu::Tensor& tensor) {
    switch (tensor.type()) {
        case npu::DataType::QUINT8: return tensor.zero_point() >= 0 && tensor.zero_point() <= 255;
        case npu::DataType::QINT8: return tensor.zero_point() >= -128 && tensor.zero_point() <= 127;
        default: return true;
    }
}

}  // namespace

// Checks the program's structure and sets up one padded buffer per network input and output.
Status NpuCore::preparePorts() {
    const auto* tensors = program_->tensors();
    auto fail = [](const std::string& message) { return badData("the NPU program is malformed: " + message); };
    if (tensors == nullptr || program_->layers() == nullptr) return fail("no tensors or layers");
    const uint32_t inputCount = program_->input_count();
    const uint32_t outputCount = program_->output_count();
    // Each port has a tensor of its own: the counts are bounded before anything is sized by them.
    if (inputCount > tensors->size() || outputCount > tensors->size() - inputCount) {
        return fail("more network inputs and outputs than tensors");
    }
    // The whole program is checked before any buffer is sized by a tensor: a malformed program
    // must not make the core touch gigabytes first.
    std::vector<bool> claimed(size_t{inputCount} + outputCount, false);
    for (uint32_t t = 0; t < tensors->size(); ++t) {
        const npu::Tensor& tensor = *tensors->Get(t);
        if (tensor.dims() == nullptr || tensor.dims()->size() > XNN_MAX_TENSOR_DIMS) return fail("tensor dimensions");
        if (byteSize(tensor) > kMaxTensorBytes) return fail("tensor " + std::to_string(t) + " is larger than 4 GiB");
        if (tensor.data() != nullptr && tensor.data()->size() > 0 && tensor.data()->size() != byteSize(tensor)) {
            return fail("constant tensor " + std::to_string(t) + " has the wrong size");
        }
        if (!zeroPointFits(tensor)) return fail("tensor " + std::to_string(t) + " has a zero point outside its type");
        const int32_t input = tensor.input_index(), output = tensor.output_index();
        const bool inputFits = input == -1 || (input >= 0 && static_cast<uint32_t>(input) < inputCount);
        const bool outputFits = output == -1 || (output >= 0 && static_cast<uint32_t>(output) < outputCount);
        if (!inputFits || !outputFits || (input >= 0 && output >= 0)) {
            return fail("tensor " + std::to_string(t) + " names no network input or output it can be");
        }
        if (input < 0 && output < 0) continue;
        const size_t id = input >= 0 ? static_cast<size_t>(input) : inputCount + static_cast<size_t>(output);
        if (claimed[id]) return fail("two tensors for one network input or output");
        claimed[id] = true;
    }
    for (bool port : claimed) {
        if (!port) return fail("a network input or output has no tensor");
    }
    NNEMU_RETURN_IF_ERROR(checkLayers(fail));
    inputs_.resize(inputCount);
    outputs_.resize(outputCount);
    constants_.assign(tensors->size(), nullptr);
    activations_.resize(tensors->size());
    for (uint32_t t = 0; t < tensors->size(); ++t) {
        const npu::Tensor& tensor = *tensors->Get(t);
        const int32_t input = tensor.input_index(), output = tensor.output_index();
        if (input < 0 && output < 0) continue;
        Port& port = input >= 0 ? inputs_[input] : outputs_[output];
        port.externalId = input >= 0 ? static_cast<uint32_t>(input) : inputCount + static_cast<uint32_t>(output);
        port.dims.assign(tensor.dims()->begin(), tensor.dims()->end());
        port.bytes = byteSize(tensor);
        port.tensor = t;
    }
    return {};
}

// Every layer is of a known kind, fits its tensors, reads what is there when it runs (a network
// input, a constant or an earlier layer's output) and writes a tensor nothing else writes; every
// network output is written.
Status NpuCore::checkLayers(const std::function<Status(const std::string&)>& fail) const {
    const auto* tensors = program_->tensors();
    const auto* layers = program_->layers();
    std::vector<bool> ready(tensors->size());
    for (uint32_t t = 0; t < tensors->size(); ++t) {
        const npu::Tensor& tensor = *tensors->Get(t);
        ready[t] = tensor.input_index() >= 0 || isStored(tensor);
    }
    for (uint32_t l = 0; l < layers->size(); ++l) {
        const std::string name = "layer " + std::to_string(l);
        const npu::Layer& layer = *layers->Get(l);
        const auto* in = layer.inputs();
        const auto* out = layer.outputs();
        if (in == nullptr || out == nullptr || in->size() == 0 || out->size() != 1) return fail(name);
        for (uint32_t index : *in) {
            if (index >= tensors->size() || !ready[index]) return fail(name + " reads a tensor nothing wrote");
        }
        if (out->Get(0) >= tensors->size() || ready[out->Get(0)]) return fail(name + " writes a tensor it may not");
        const LayerKind* kind = layerKind(layer.params_type());
        if (kind == nullptr || layer.params() == nullptr) {
            return fail(name + " is of an unknown kind or has no parameters");
        }
        if (!kind->check(*program_, layer)) return fail(name + " has tensors its kind cannot take");
        ready[out->Get(0)] = true;
    }
    for (uint32_t t = 0; t < tensors->size(); ++t) {
        if (tensors->Get(t)->output_index() >= 0 && !ready[t]) return fail("a network output is never written");
    }
    return {};
}

}  // namespace nnemu::synap
