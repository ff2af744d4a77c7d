#include "NpuCore.h"

#include <pthreadpool.h>
#include <xnnpack.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>

#include "Compiler.h"
#include "nnemu/hal/Log.h"

namespace nnemu::synap {
namespace {

// One thread pool for every network of the process; NNEMU_NPU_THREADS sets its size
// (default: all cores).
pthreadpool_t sharedThreadPool() {
    static pthreadpool_t pool = [] {
        const char* threads = std::getenv("NNEMU_NPU_THREADS");
        return pthreadpool_create(threads != nullptr ? static_cast<size_t>(std::atoi(threads)) : 0);
    }();
    return pool;
}

bool initializeXnnpack() {
    static const bool initialized = xnn_initialize(nullptr) == xnn_status_success;
    return initialized;
}

size_t elementBytes(npu::DataType type) {
    switch (type) {
        case npu::DataType::QUINT8: return 1;
        default: return 4;
    }
}

size_t elementCount(const npu::Tensor& tensor) {
    size_t count = 1;
    for (uint32_t d : *tensor.dims()) count *= d;
    return count;
}

// Multiply-accumulates of one inference: output elements times filter elements per output channel.
uint64_t multiplyAccumulates(const npu::Program& program) {
    uint64_t total = 0;
    for (const npu::Layer* layer : *program.layers()) {
        const auto kind = layer->params_type();
        if (kind != npu::LayerParams::Conv2D && kind != npu::LayerParams::FullyConnected) continue;
        const npu::Tensor& output = *program.tensors()->Get(layer->outputs()->Get(0));
        const npu::Tensor& filter = *program.tensors()->Get(layer->inputs()->Get(1));
        const uint32_t channels = output.dims()->size() ? output.dims()->Get(output.dims()->size() - 1) : 1;
        if (channels != 0) total += uint64_t{elementCount(output)} * elementCount(filter) / channels;
    }
    return total;
}

// Waking pool threads costs more than a small network's whole inference (and much more on a
// loaded machine): such networks run on the calling thread.
constexpr uint64_t kParallelWorkThreshold = 1'000'000;

pthreadpool_t threadPoolFor(const npu::Program& program) {
    return multiplyAccumulates(program) < kParallelWorkThreshold ? nullptr : sharedThreadPool();
}

size_t byteSize(const npu::Tensor& tensor) {
    size_t bytes = elementBytes(tensor.type());
    for (uint32_t d : *tensor.dims()) bytes *= d;
    return bytes;
}

// Fused-activation bounds as the core takes them: infinite for float, clipped to the
// representable range for quantized outputs.
void bounds(const npu::Layer& layer, const npu::Tensor& output, float* low, float* high) {
    *low = layer.output_min();
    *high = layer.output_max();
    if (output.type() == npu::DataType::QUINT8) {
        *low = std::max(*low, (0 - output.zero_point()) * output.scale());
        *high = std::min(*high, (255 - output.zero_point()) * output.scale());
    }
}

xnn_status defineTensor(xnn_subgraph_t subgraph, const npu::Tensor& tensor, const void* data, uint32_t externalId,
                        uint32_t flags, uint32_t* id) {
    std::vector<size_t> dims(tensor.dims()->begin(), tensor.dims()->end());
    switch (tensor.type()) {
        case npu::DataType::FLOAT32:
            return xnn_define_tensor_value(subgraph, xnn_datatype_fp32, dims.size(), dims.data(), data, externalId,
                                           flags, id);
        case npu::DataType::QUINT8:
            return xnn_define_quantized_tensor_value(subgraph, xnn_datatype_quint8, tensor.zero_point(),
                                                     tensor.scale(), dims.size(), dims.data(), data, externalId, flags,
                                                     id);
        case npu::DataType::QINT32:
            return xnn_define_quantized_tensor_value(subgraph, xnn_datatype_qint32, 0, tensor.scale(), dims.size(),
                                                     dims.data(), data, externalId, flags, id);
        default:
            return xnn_status_invalid_parameter;
    }
}

// Adds one layer to `subgraph`; `ids` maps program tensors to the subgraph's values.
xnn_status defineLayer(xnn_subgraph_t subgraph, const npu::Program& program, const npu::Layer& layer,
                       const std::vector<uint32_t>& ids) {
    const auto* in = layer.inputs();
    const auto* out = layer.outputs();
    auto input = [&](uint32_t i) { return i < in->size() ? ids[in->Get(i)] : XNN_INVALID_VALUE_ID; };
    const uint32_t output = ids[out->Get(0)];
    float low, high;
    bounds(layer, *program.tensors()->Get(out->Get(0)), &low, &high);
    switch (layer.params_type()) {
        case npu::LayerParams::Conv2D: {
            const auto* p = layer.params_as_Conv2D();
            const auto* pad = p->padding();
            if (pad == nullptr || in->size() != 3) return xnn_status_invalid_parameter;
            if (p->depthwise()) {
                return xnn_define_depthwise_convolution_2d(
                        subgraph, pad->top(), pad->right(), pad->bottom(), pad->left(), p->kernel_height(),
                        p->kernel_width(), p->stride_height(), p->stride_width(), p->dilation_height(),
                        p->dilation_width(), p->depth_multiplier(), p->input_channels(), low, high, input(0), input(1),
                        input(2), output, 0);
            }
            return xnn_define_convolution_2d(subgraph, pad->top(), pad->right(), pad->bottom(), pad->left(),
                                             p->kernel_height(), p->kernel_width(), p->stride_height(),
                                             p->stride_width(), p->dilation_height(), p->dilation_width(), 1,
                                             p->input_channels(), p->output_channels(), low, high, input(0), input(1),
                                             input(2), output, 0);
        }
        case npu::LayerParams::FullyConnected:
            if (in->size() != 3) return xnn_status_invalid_parameter;
            return xnn_define_fully_connected(subgraph, low, high, input(0), input(1), input(2), output,
                                              XNN_FLAG_TENSORFLOW_RESHAPE_2D);
        case npu::LayerParams::Add:
            return xnn_define_add2(subgraph, low, high, input(0), input(1), output, 0);
        case npu::LayerParams::Multiply:
            return xnn_define_multiply2(subgraph, low, high, input(0), input(1), output, 0);
        case npu::LayerParams::Subtract:
            return xnn_define_subtract(subgraph, low, high, input(0), input(1), output, 0);
        case npu::LayerParams::AveragePool2D: {
            const auto* p = layer.params_as_AveragePool2D();
            const auto* pad = p->padding();
            if (pad == nullptr) return xnn_status_invalid_parameter;
            return xnn_define_average_pooling_2d(subgraph, pad->top(), pad->right(), pad->bottom(), pad->left(),
                                                 p->pool_height(), p->pool_width(), p->stride_height(),
                                                 p->stride_width(), low, high, input(0), output, 0);
        }
        case npu::LayerParams::MaxPool2D: {
            const auto* p = layer.params_as_MaxPool2D();
            const auto* pad = p->padding();
            if (pad == nullptr) return xnn_status_invalid_parameter;
            return xnn_define_max_pooling_2d(subgraph, pad->top(), pad->right(), pad->bottom(), pad->left(),
                                             p->pool_height(), p->pool_width(), p->stride_height(), p->stride_width(),
                                             1, 1, low, high, input(0), output, 0);
        }
        case npu::LayerParams::GlobalAveragePool2D:
            return xnn_define_global_average_pooling_2d(subgraph, low, high, input(0), output, 0);
        case npu::LayerParams::Clamp:
            return xnn_define_clamp(subgraph, low, high, input(0), output, 0);
        case npu::LayerParams::Sigmoid:
            return xnn_define_sigmoid(subgraph, input(0), output, 0);
        case npu::LayerParams::Softmax:
            return xnn_define_softmax(subgraph, input(0), output, 0);
        case npu::LayerParams::Reshape: {
            const auto* dims = program.tensors()->Get(out->Get(0))->dims();
            std::vector<size_t> shape(dims->begin(), dims->end());
            return xnn_define_static_reshape(subgraph, shape.size(), shape.data(), input(0), output, 0);
        }
        case npu::LayerParams::ConstantPad: {
            const auto* p = layer.params_as_ConstantPad();
            if (p->before() == nullptr || p->after() == nullptr || p->before()->size() != p->after()->size() ||
                p->before()->size() > XNN_MAX_TENSOR_DIMS) {
                return xnn_status_invalid_parameter;
            }
            std::vector<size_t> before(p->before()->begin(), p->before()->end());
            std::vector<size_t> after(p->after()->begin(), p->after()->end());
            return xnn_define_static_constant_pad(subgraph, before.data(), after.data(), 0.0f, input(0), output, 0);
        }
        case npu::LayerParams::ResizeBilinear: {
            const auto* p = layer.params_as_ResizeBilinear();
            return xnn_define_static_resize_bilinear_2d(subgraph, p->output_height(), p->output_width(), input(0),
                                                        output, XNN_FLAG_TENSORFLOW_LEGACY_MODE);
        }
        case npu::LayerParams::Convert:
            return xnn_define_convert(subgraph, input(0), output, 0);
        default:
            return xnn_status_invalid_parameter;
    }
}

// The unit of the board's NPU a layer would run on, as the profile's `ot` column shows it.
const char* unitOf(npu::LayerParams kind) {
    switch (kind) {
        case npu::LayerParams::Conv2D:
        case npu::LayerParams::FullyConnected:
        case npu::LayerParams::AveragePool2D:
        case npu::LayerParams::MaxPool2D:
        case npu::LayerParams::GlobalAveragePool2D:
            return "NN";
        case npu::LayerParams::Reshape:
        case npu::LayerParams::ConstantPad:
        case npu::LayerParams::ResizeBilinear:
            return "TP";
        default:
            return "SH";
    }
}

using Clock = std::chrono::steady_clock;

}  // namespace

std::unique_ptr<NpuCore> NpuCore::load(std::vector<uint8_t> program, std::string* error, bool profiling) {
    std::unique_ptr<NpuCore> core(new NpuCore());
    core->bytes_ = std::move(program);
    flatbuffers::Verifier verifier(core->bytes_.data(), core->bytes_.size());
    if (!npu::VerifyProgramBuffer(verifier)) {
        *error = "the NPU program is corrupt (verification failed)";
        return nullptr;
    }
    core->program_ = npu::GetProgram(core->bytes_.data());
    if (core->program_->compiler_version() != kCompilerVersion) {
        *error = "the NPU program comes from compiler version " + std::to_string(core->program_->compiler_version()) +
                 ", not " + std::to_string(kCompilerVersion);
        return nullptr;
    }
    if (!initializeXnnpack()) {
        *error = "the NPU core (XNNPACK) could not be initialized";
        return nullptr;
    }
    if (!core->preparePorts(error)) return nullptr;
    if (!(profiling ? core->buildLayerByLayer(error) : core->buildWholeGraph(error))) return nullptr;
    return core;
}

NpuCore::~NpuCore() {
    if (runtime_ != nullptr) xnn_delete_runtime(runtime_);
    for (xnn_runtime* runtime : layerRuntimes_) xnn_delete_runtime(runtime);
}

size_t NpuCore::layerCount() const { return program_->layers() ? program_->layers()->size() : 0; }

// Checks the program's structure and sets up one padded buffer per network input and output.
bool NpuCore::preparePorts(std::string* error) {
    const auto* tensors = program_->tensors();
    const auto* layers = program_->layers();
    auto fail = [&](const std::string& message) {
        *error = "the NPU program is malformed: " + message;
        return false;
    };
    if (tensors == nullptr || layers == nullptr) return fail("no tensors or layers");
    const uint32_t inputCount = program_->input_count();
    const uint32_t outputCount = program_->output_count();
    inputs_.resize(inputCount);
    outputs_.resize(outputCount);
    for (uint32_t t = 0; t < tensors->size(); ++t) {
        const npu::Tensor& tensor = *tensors->Get(t);
        if (tensor.dims() == nullptr || tensor.dims()->size() > XNN_MAX_TENSOR_DIMS) return fail("tensor dimensions");
        if (tensor.data() != nullptr && tensor.data()->size() > 0 && tensor.data()->size() != byteSize(tensor)) {
            return fail("constant tensor " + std::to_string(t) + " has the wrong size");
        }
        Port* port = nullptr;
        if (tensor.input_index() >= 0 && static_cast<uint32_t>(tensor.input_index()) < inputCount) {
            port = &inputs_[tensor.input_index()];
            port->externalId = static_cast<uint32_t>(tensor.input_index());
        } else if (tensor.output_index() >= 0 && static_cast<uint32_t>(tensor.output_index()) < outputCount) {
            port = &outputs_[tensor.output_index()];
            port->externalId = inputCount + static_cast<uint32_t>(tensor.output_index());
        }
        if (port == nullptr) continue;
        if (!port->staging.empty()) return fail("two tensors for one network input or output");
        port->dims.assign(tensor.dims()->begin(), tensor.dims()->end());
        port->bytes = byteSize(tensor);
        port->staging.assign(port->bytes + XNN_EXTRA_BYTES, 0);
    }
    for (const auto* ports : {&inputs_, &outputs_}) {
        for (const auto& port : *ports) {
            if (port.staging.empty()) return fail("a network input or output has no tensor");
        }
    }
    for (uint32_t l = 0; l < layers->size(); ++l) {
        const npu::Layer& layer = *layers->Get(l);
        const auto* in = layer.inputs();
        const auto* out = layer.outputs();
        if (in == nullptr || out == nullptr || in->size() == 0 || out->size() != 1) return fail("layer " + std::to_string(l));
        for (uint32_t index : *in) {
            if (index >= tensors->size()) return fail("layer " + std::to_string(l) + " reads a missing tensor");
        }
        if (out->Get(0) >= tensors->size()) return fail("layer " + std::to_string(l) + " writes a missing tensor");
    }
    return true;
}

const void* NpuCore::constantData(uint32_t index) {
    const npu::Tensor& tensor = *program_->tensors()->Get(index);
    if (tensor.data() == nullptr || tensor.data()->size() == 0) return nullptr;
    const void* data = tensor.data()->data();
    if (reinterpret_cast<uintptr_t>(data) % 16 != 0) {  // weights are read as floats and ints
        alignedConstants_.emplace_back(tensor.data()->begin(), tensor.data()->end());
        data = alignedConstants_.back().data();
    }
    return data;
}

bool NpuCore::buildWholeGraph(std::string* error) {
    const auto* tensors = program_->tensors();
    xnn_subgraph_t subgraph = nullptr;
    if (xnn_create_subgraph(static_cast<uint32_t>(inputs_.size() + outputs_.size()), 0, &subgraph) != xnn_status_success) {
        *error = "cannot create an NPU subgraph";
        return false;
    }
    std::unique_ptr<xnn_subgraph, decltype(&xnn_delete_subgraph)> owner(subgraph, xnn_delete_subgraph);
    std::vector<uint32_t> ids(tensors->size(), XNN_INVALID_VALUE_ID);
    for (uint32_t t = 0; t < tensors->size(); ++t) {
        const npu::Tensor& tensor = *tensors->Get(t);
        uint32_t externalId = XNN_INVALID_VALUE_ID, flags = 0;
        if (tensor.input_index() >= 0) {
            externalId = inputs_[tensor.input_index()].externalId;
            flags = XNN_VALUE_FLAG_EXTERNAL_INPUT;
        } else if (tensor.output_index() >= 0) {
            externalId = outputs_[tensor.output_index()].externalId;
            flags = XNN_VALUE_FLAG_EXTERNAL_OUTPUT;
        }
        if (defineTensor(subgraph, tensor, constantData(t), externalId, flags, &ids[t]) != xnn_status_success) {
            *error = "the NPU core rejected tensor " + std::to_string(t);
            return false;
        }
    }
    for (const npu::Layer* layer : *program_->layers()) {
        const xnn_status status = defineLayer(subgraph, *program_, *layer, ids);
        if (status != xnn_status_success) {
            *error = "the NPU core rejected layer " + std::string(layer->name() ? layer->name()->c_str() : "?") +
                     " (status " + std::to_string(status) + ")";
            return false;
        }
    }
    std::vector<xnn_external_value> externals;
    for (auto* ports : {&inputs_, &outputs_}) {
        for (auto& port : *ports) externals.push_back({port.externalId, port.staging.data()});
    }
    if (xnn_create_runtime_v2(subgraph, threadPoolFor(*program_), 0, &runtime_) != xnn_status_success ||
        xnn_setup_runtime(runtime_, externals.size(), externals.data()) != xnn_status_success) {
        *error = "the NPU core could not build a runtime for the program";
        return false;
    }
    return true;
}

bool NpuCore::buildLayerByLayer(std::string* error) {
    const auto* tensors = program_->tensors();
    // Every activation gets a buffer of its own; network inputs and outputs use their ports.
    activations_.resize(tensors->size());
    auto bufferOf = [&](uint32_t t) -> uint8_t* {
        const npu::Tensor& tensor = *tensors->Get(t);
        if (tensor.input_index() >= 0) return inputs_[tensor.input_index()].staging.data();
        if (tensor.output_index() >= 0) return outputs_[tensor.output_index()].staging.data();
        if (activations_[t].empty()) activations_[t].assign(byteSize(tensor) + XNN_EXTRA_BYTES, 0);
        return activations_[t].data();
    };
    for (const npu::Layer* layer : *program_->layers()) {
        std::vector<uint32_t> ids(tensors->size(), XNN_INVALID_VALUE_ID);
        std::vector<xnn_external_value> externals;
        std::vector<uint32_t> used(layer->inputs()->begin(), layer->inputs()->end());
        used.push_back(layer->outputs()->Get(0));
        xnn_subgraph_t subgraph = nullptr;
        if (xnn_create_subgraph(static_cast<uint32_t>(used.size()), 0, &subgraph) != xnn_status_success) {
            *error = "cannot create an NPU subgraph";
            return false;
        }
        std::unique_ptr<xnn_subgraph, decltype(&xnn_delete_subgraph)> owner(subgraph, xnn_delete_subgraph);
        for (size_t k = 0; k < used.size(); ++k) {
            const uint32_t t = used[k];
            if (ids[t] != XNN_INVALID_VALUE_ID) continue;
            const void* data = constantData(t);
            const bool isOutput = k + 1 == used.size();
            const uint32_t externalId = data != nullptr ? XNN_INVALID_VALUE_ID : static_cast<uint32_t>(k);
            const uint32_t flags = data != nullptr ? 0 : isOutput ? XNN_VALUE_FLAG_EXTERNAL_OUTPUT : XNN_VALUE_FLAG_EXTERNAL_INPUT;
            if (defineTensor(subgraph, *tensors->Get(t), data, externalId, flags, &ids[t]) != xnn_status_success) {
                *error = "the NPU core rejected tensor " + std::to_string(t);
                return false;
            }
            if (data == nullptr) externals.push_back({static_cast<uint32_t>(k), bufferOf(t)});
        }
        xnn_runtime_t runtime = nullptr;
        if (defineLayer(subgraph, *program_, *layer, ids) != xnn_status_success ||
            xnn_create_runtime_v2(subgraph, threadPoolFor(*program_), 0, &runtime) != xnn_status_success) {
            *error = "the NPU core rejected layer " + std::string(layer->name() ? layer->name()->c_str() : "?");
            return false;
        }
        layerRuntimes_.push_back(runtime);
        if (xnn_setup_runtime(runtime, externals.size(), externals.data()) != xnn_status_success) {
            *error = "the NPU core could not set up layer " + std::string(layer->name() ? layer->name()->c_str() : "?");
            return false;
        }
        LayerProfile row{layer->name() ? layer->name()->str() : "", unitOf(layer->params_type()), 0, 0, 0};
        for (uint32_t t : *layer->inputs()) row.bytesRead += byteSize(*tensors->Get(t));
        row.bytesWritten = byteSize(*tensors->Get(layer->outputs()->Get(0)));
        profile_.push_back(std::move(row));
    }
    return true;
}

bool NpuCore::run(const std::vector<const uint8_t*>& inputs, const std::vector<uint8_t*>& outputs, std::string* error) {
    if (inputs.size() != inputs_.size() || outputs.size() != outputs_.size()) {
        *error = "wrong number of NPU inputs or outputs";
        return false;
    }
    for (size_t i = 0; i < inputs_.size(); ++i) std::memcpy(inputs_[i].staging.data(), inputs[i], inputs_[i].bytes);
    if (runtime_ != nullptr) {
        if (xnn_invoke_runtime(runtime_) != xnn_status_success) {
            *error = "the NPU core failed to run the program";
            return false;
        }
    } else {
        for (size_t l = 0; l < layerRuntimes_.size(); ++l) {
            const auto start = Clock::now();
            if (xnn_invoke_runtime(layerRuntimes_[l]) != xnn_status_success) {
                *error = "the NPU core failed to run layer " + profile_[l].name;
                return false;
            }
            profile_[l].timeUs = static_cast<uint32_t>(
                    std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count());
        }
    }
    for (size_t i = 0; i < outputs_.size(); ++i) std::memcpy(outputs[i], outputs_[i].staging.data(), outputs_[i].bytes);
    return true;
}

}  // namespace nnemu::synap
