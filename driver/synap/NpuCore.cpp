#include "NpuCore.h"

#include <pthreadpool.h>
#include <xnnpack.h>

#include <algorithm>
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
        case npu::DataType::QUINT8:
        case npu::DataType::QINT8:
        case npu::DataType::QCINT8:
            return 1;
        default:
            return 4;
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
    if (output.type() == npu::DataType::QUINT8 || output.type() == npu::DataType::QINT8) {
        const int32_t qmin = output.type() == npu::DataType::QUINT8 ? 0 : -128;
        *low = std::max(*low, static_cast<float>(qmin - output.zero_point()) * output.scale());
        *high = std::min(*high, static_cast<float>(qmin + 255 - output.zero_point()) * output.scale());
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
        case npu::DataType::QINT8:
            return xnn_define_quantized_tensor_value(subgraph, xnn_datatype_qint8, tensor.zero_point(),
                                                     tensor.scale(), dims.size(), dims.data(), data, externalId, flags,
                                                     id);
        case npu::DataType::QCINT8:
        case npu::DataType::QCINT32: {
            const auto* scales = tensor.channel_scales();
            if (scales == nullptr || tensor.channel_dim() >= dims.size() ||
                scales->size() != dims[tensor.channel_dim()]) {
                return xnn_status_invalid_parameter;
            }
            return xnn_define_channelwise_quantized_tensor_value(
                    subgraph, tensor.type() == npu::DataType::QCINT8 ? xnn_datatype_qcint8 : xnn_datatype_qcint32,
                    scales->data(), dims.size(), tensor.channel_dim(), dims.data(), data, externalId, flags, id);
        }
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
        case npu::LayerParams::Concatenation:
            return "TP";
        default:
            return "SH";
    }
}

bool isNative(npu::LayerParams kind) {
    return kind == npu::LayerParams::Concatenation || kind == npu::LayerParams::FlipSign;
}

using Clock = std::chrono::steady_clock;

}  // namespace

std::unique_ptr<NpuCore> NpuCore::load(std::vector<uint8_t> program, std::string* error, bool profiling) {
    std::unique_ptr<NpuCore> core(new NpuCore());
    core->bytes_ = std::move(program);
    core->profiling_ = profiling;
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
    if (!core->preparePorts(error) || !core->buildStages(error)) return nullptr;
    return core;
}

NpuCore::~NpuCore() {
    for (const Stage& stage : stages_) {
        if (stage.runtime != nullptr) xnn_delete_runtime(stage.runtime);
    }
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
    constants_.assign(tensors->size(), nullptr);
    activations_.resize(tensors->size());
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
        for (uint32_t index : *in) {  // native layers read every input element as the output's type
            if (isNative(layer.params_type()) && tensors->Get(index)->type() != tensors->Get(out->Get(0))->type() &&
                layer.params_type() != npu::LayerParams::FlipSign) {
                return fail("layer " + std::to_string(l) + " mixes element types");
            }
        }
    }
    return true;
}

const void* NpuCore::constantData(uint32_t index) {
    if (constants_[index] != nullptr) return constants_[index];
    const npu::Tensor& tensor = *program_->tensors()->Get(index);
    if (tensor.data() == nullptr || tensor.data()->size() == 0) return nullptr;
    const void* data = tensor.data()->data();
    if (reinterpret_cast<uintptr_t>(data) % 16 != 0) {  // weights are read as floats and ints
        alignedConstants_.emplace_back(tensor.data()->begin(), tensor.data()->end());
        data = alignedConstants_.back().data();
    }
    constants_[index] = data;
    return data;
}

uint8_t* NpuCore::bufferOf(uint32_t index) {
    const npu::Tensor& tensor = *program_->tensors()->Get(index);
    if (tensor.input_index() >= 0) return inputs_[tensor.input_index()].staging.data();
    if (tensor.output_index() >= 0) return outputs_[tensor.output_index()].staging.data();
    if (const void* data = constantData(index)) return static_cast<uint8_t*>(const_cast<void*>(data));
    if (activations_[index].empty()) activations_[index].assign(byteSize(tensor) + XNN_EXTRA_BYTES, 0);
    return activations_[index].data();
}

// Cuts the layers into stages and gives a buffer to every tensor that crosses one.
bool NpuCore::buildStages(std::string* error) {
    const auto* layers = program_->layers();
    const auto* tensors = program_->tensors();
    for (size_t l = 0; l < layers->size(); ++l) {
        const bool native = isNative(layers->Get(l)->params_type());
        if (native || profiling_ || stages_.empty() || stages_.back().native) {
            stages_.push_back({l, l + 1, native, nullptr});
        } else {
            stages_.back().endLayer = l + 1;
        }
    }
    // Tensors read or written by more than one stage, or by a native layer, live in buffers.
    std::vector<int64_t> stageOf(tensors->size(), -1);
    std::vector<bool> needsBuffer(tensors->size(), false);
    for (size_t s = 0; s < stages_.size(); ++s) {
        for (size_t l = stages_[s].firstLayer; l < stages_[s].endLayer; ++l) {
            const npu::Layer& layer = *layers->Get(l);
            std::vector<uint32_t> used(layer.inputs()->begin(), layer.inputs()->end());
            used.push_back(layer.outputs()->Get(0));
            for (uint32_t t : used) {
                if (stageOf[t] >= 0 && stageOf[t] != static_cast<int64_t>(s)) needsBuffer[t] = true;
                if (stages_[s].native) needsBuffer[t] = true;
                stageOf[t] = static_cast<int64_t>(s);
            }
        }
    }
    for (Stage& stage : stages_) {
        if (!stage.native && !buildXnnpackStage(stage.firstLayer, stage.endLayer, needsBuffer, &stage.runtime, error)) {
            return false;
        }
        for (size_t l = stage.firstLayer; l < stage.endLayer && profiling_; ++l) {
            const npu::Layer& layer = *layers->Get(l);
            LayerProfile entry{layer.name() ? layer.name()->str() : "", unitOf(layer.params_type()), 0, 0, 0};
            for (uint32_t t : *layer.inputs()) entry.bytesRead += byteSize(*tensors->Get(t));
            entry.bytesWritten = byteSize(*tensors->Get(layer.outputs()->Get(0)));
            profile_.push_back(std::move(entry));
        }
    }
    for (uint32_t t = 0; t < tensors->size(); ++t) {
        if (needsBuffer[t]) bufferOf(t);
    }
    return true;
}

// One XNNPACK runtime for layers [first, end): tensors with buffers are its external values.
bool NpuCore::buildXnnpackStage(size_t first, size_t end, const std::vector<bool>& needsBuffer, xnn_runtime** built,
                                std::string* error) {
    const auto* tensors = program_->tensors();
    const auto* layers = program_->layers();
    std::vector<uint32_t> ids(tensors->size(), XNN_INVALID_VALUE_ID);
    std::vector<uint32_t> externalsOf;  // tensor of each external id
    std::vector<bool> produced(tensors->size(), false);
    for (size_t l = first; l < end; ++l) produced[layers->Get(l)->outputs()->Get(0)] = true;
    for (size_t l = first; l < end; ++l) {
        const npu::Layer& layer = *layers->Get(l);
        std::vector<uint32_t> used(layer.inputs()->begin(), layer.inputs()->end());
        used.push_back(layer.outputs()->Get(0));
        for (uint32_t t : used) {
            const bool external = constantData(t) == nullptr && (needsBuffer[t] || tensors->Get(t)->input_index() >= 0 ||
                                                                 tensors->Get(t)->output_index() >= 0);
            if (external && std::find(externalsOf.begin(), externalsOf.end(), t) == externalsOf.end()) {
                externalsOf.push_back(t);
            }
        }
    }
    xnn_subgraph_t subgraph = nullptr;
    if (xnn_create_subgraph(static_cast<uint32_t>(externalsOf.size()), 0, &subgraph) != xnn_status_success) {
        *error = "cannot create an NPU subgraph";
        return false;
    }
    std::unique_ptr<xnn_subgraph, decltype(&xnn_delete_subgraph)> owner(subgraph, xnn_delete_subgraph);
    std::vector<xnn_external_value> externals;
    for (size_t l = first; l < end; ++l) {
        const npu::Layer& layer = *layers->Get(l);
        std::vector<uint32_t> used(layer.inputs()->begin(), layer.inputs()->end());
        used.push_back(layer.outputs()->Get(0));
        for (uint32_t t : used) {
            if (ids[t] != XNN_INVALID_VALUE_ID) continue;
            const auto position = std::find(externalsOf.begin(), externalsOf.end(), t);
            uint32_t externalId = XNN_INVALID_VALUE_ID, flags = 0;
            if (position != externalsOf.end()) {
                externalId = static_cast<uint32_t>(position - externalsOf.begin());
                flags = produced[t] ? XNN_VALUE_FLAG_EXTERNAL_OUTPUT : XNN_VALUE_FLAG_EXTERNAL_INPUT;
                externals.push_back({externalId, bufferOf(t)});
            }
            if (defineTensor(subgraph, *tensors->Get(t), constantData(t), externalId, flags, &ids[t]) !=
                xnn_status_success) {
                *error = "the NPU core rejected tensor " + std::to_string(t);
                return false;
            }
        }
        const xnn_status status = defineLayer(subgraph, *program_, layer, ids);
        if (status != xnn_status_success) {
            *error = "the NPU core rejected layer " + std::string(layer.name() ? layer.name()->c_str() : "?") +
                     " (status " + std::to_string(status) + ")";
            return false;
        }
    }
    xnn_runtime_t runtime = nullptr;
    if (xnn_create_runtime_v2(subgraph, threadPoolFor(*program_), 0, &runtime) != xnn_status_success) {
        *error = "the NPU core could not build a runtime for the program";
        return false;
    }
    *built = runtime;  // owned by the stage from here on
    if (xnn_setup_runtime(runtime, externals.size(), externals.data()) != xnn_status_success) {
        *error = "the NPU core could not set up its buffers";
        return false;
    }
    return true;
}

bool NpuCore::runNativeLayer(const npu::Layer& layer) {
    const auto* tensors = program_->tensors();
    const uint32_t outputIndex = layer.outputs()->Get(0);
    const npu::Tensor& output = *tensors->Get(outputIndex);
    uint8_t* out = bufferOf(outputIndex);
    if (layer.params_type() == npu::LayerParams::FlipSign) {
        const uint8_t* in = bufferOf(layer.inputs()->Get(0));
        for (size_t i = 0, n = byteSize(output); i < n; ++i) out[i] = in[i] ^ 0x80;
        return true;
    }
    // Concatenation: for every outer index, each input's slab of [axis..] elements in turn.
    const uint32_t axis = layer.params_as_Concatenation()->axis();
    const auto& outDims = *output.dims();
    if (axis >= outDims.size()) return false;
    size_t outer = 1;
    for (uint32_t d = 0; d < axis; ++d) outer *= outDims.Get(d);
    const size_t element = elementBytes(output.type());
    const bool quantized = output.type() != npu::DataType::FLOAT32;
    size_t written = 0;
    std::vector<size_t> slabs;
    for (uint32_t t : *layer.inputs()) slabs.push_back(elementCount(*tensors->Get(t)) / std::max<size_t>(outer, 1));
    for (size_t o = 0; o < outer; ++o) {
        for (size_t i = 0; i < slabs.size(); ++i) {
            const npu::Tensor& input = *tensors->Get(layer.inputs()->Get(i));
            const uint8_t* in = bufferOf(layer.inputs()->Get(i)) + o * slabs[i] * element;
            if (!quantized || (input.scale() == output.scale() && input.zero_point() == output.zero_point())) {
                std::memcpy(out + written, in, slabs[i] * element);
            } else {  // requantize into the output's scale and zero point
                const float ratio = input.scale() / output.scale();
                const int32_t low = output.type() == npu::DataType::QUINT8 ? 0 : -128;
                for (size_t k = 0; k < slabs[i]; ++k) {
                    const int32_t q = output.type() == npu::DataType::QUINT8 ? in[k] : static_cast<int8_t>(in[k]);
                    const auto value = static_cast<int32_t>(std::lround((q - input.zero_point()) * ratio)) +
                                       output.zero_point();
                    out[written + k] = static_cast<uint8_t>(std::clamp(value, low, low + 255));
                }
            }
            written += slabs[i] * element;
        }
    }
    return true;
}

bool NpuCore::run(const std::vector<const uint8_t*>& inputs, const std::vector<uint8_t*>& outputs, std::string* error) {
    if (inputs.size() != inputs_.size() || outputs.size() != outputs_.size()) {
        *error = "wrong number of NPU inputs or outputs";
        return false;
    }
    for (size_t i = 0; i < inputs_.size(); ++i) std::memcpy(inputs_[i].staging.data(), inputs[i], inputs_[i].bytes);
    for (size_t s = 0; s < stages_.size(); ++s) {
        const Stage& stage = stages_[s];
        const auto start = Clock::now();
        const npu::Layer& first = *program_->layers()->Get(stage.firstLayer);
        const bool ok = stage.native ? runNativeLayer(first) : xnn_invoke_runtime(stage.runtime) == xnn_status_success;
        if (!ok) {
            *error = "the NPU core failed to run layer " + std::string(first.name() ? first.name()->c_str() : "?");
            return false;
        }
        if (profiling_) {
            profile_[stage.firstLayer].timeUs = static_cast<uint32_t>(
                    std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count());
        }
    }
    for (size_t i = 0; i < outputs_.size(); ++i) std::memcpy(outputs[i], outputs_[i].staging.data(), outputs_[i].bytes);
    return true;
}

}  // namespace nnemu::synap
