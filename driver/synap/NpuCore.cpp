#include "NpuCore.h"

#include <pthreadpool.h>
#include <xnnpack.h>

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
pthreadpool_t threadPool() {
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

}  // namespace

std::unique_ptr<NpuCore> NpuCore::load(std::vector<uint8_t> program, std::string* error) {
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
    if (!core->build(error)) return nullptr;
    return core;
}

NpuCore::~NpuCore() {
    if (runtime_ != nullptr) xnn_delete_runtime(runtime_);
}

size_t NpuCore::layerCount() const { return program_->layers() ? program_->layers()->size() : 0; }

bool NpuCore::build(std::string* error) {
    const auto* tensors = program_->tensors();
    const auto* layers = program_->layers();
    if (tensors == nullptr || layers == nullptr) {
        *error = "the NPU program has no tensors or layers";
        return false;
    }
    const uint32_t inputCount = program_->input_count();
    const uint32_t outputCount = program_->output_count();
    inputs_.resize(inputCount);
    outputs_.resize(outputCount);
    xnn_subgraph_t subgraph = nullptr;
    if (xnn_create_subgraph(inputCount + outputCount, 0, &subgraph) != xnn_status_success) {
        *error = "cannot create an NPU subgraph";
        return false;
    }
    std::unique_ptr<xnn_subgraph, decltype(&xnn_delete_subgraph)> owner(subgraph, xnn_delete_subgraph);
    auto fail = [&](const std::string& message) {
        *error = message;
        return false;
    };

    std::vector<uint32_t> ids(tensors->size(), XNN_INVALID_VALUE_ID);
    for (uint32_t t = 0; t < tensors->size(); ++t) {
        const npu::Tensor& tensor = *tensors->Get(t);
        if (tensor.dims() == nullptr) return fail("tensor " + std::to_string(t) + " has no dimensions");
        std::vector<size_t> dims(tensor.dims()->begin(), tensor.dims()->end());
        uint32_t externalId = XNN_INVALID_VALUE_ID;
        uint32_t flags = 0;
        Port* port = nullptr;
        if (tensor.input_index() >= 0 && static_cast<uint32_t>(tensor.input_index()) < inputCount) {
            externalId = static_cast<uint32_t>(tensor.input_index());
            flags = XNN_VALUE_FLAG_EXTERNAL_INPUT;
            port = &inputs_[externalId];
        } else if (tensor.output_index() >= 0 && static_cast<uint32_t>(tensor.output_index()) < outputCount) {
            externalId = inputCount + static_cast<uint32_t>(tensor.output_index());
            flags = XNN_VALUE_FLAG_EXTERNAL_OUTPUT;
            port = &outputs_[tensor.output_index()];
        }
        const void* data = nullptr;
        if (tensor.data() != nullptr && tensor.data()->size() > 0) {
            if (tensor.data()->size() != byteSize(tensor)) return fail("constant tensor " + std::to_string(t) + " has the wrong size");
            data = tensor.data()->data();
            if (reinterpret_cast<uintptr_t>(data) % 16 != 0) {  // weights are read as floats/ints
                alignedConstants_.emplace_back(tensor.data()->begin(), tensor.data()->end());
                data = alignedConstants_.back().data();
            }
        }
        xnn_status status;
        switch (tensor.type()) {
            case npu::DataType::FLOAT32:
                status = xnn_define_tensor_value(subgraph, xnn_datatype_fp32, dims.size(), dims.data(), data,
                                                 externalId, flags, &ids[t]);
                break;
            case npu::DataType::QUINT8:
                status = xnn_define_quantized_tensor_value(subgraph, xnn_datatype_quint8, tensor.zero_point(),
                                                           tensor.scale(), dims.size(), dims.data(), data,
                                                           externalId, flags, &ids[t]);
                break;
            case npu::DataType::QINT32:
                status = xnn_define_quantized_tensor_value(subgraph, xnn_datatype_qint32, 0, tensor.scale(),
                                                           dims.size(), dims.data(), data, externalId, flags, &ids[t]);
                break;
            default:
                return fail("tensor " + std::to_string(t) + " has an unknown type");
        }
        if (status != xnn_status_success) return fail("the NPU core rejected tensor " + std::to_string(t));
        if (port != nullptr) {
            port->dims.assign(tensor.dims()->begin(), tensor.dims()->end());
            port->bytes = byteSize(tensor);
            port->externalId = externalId;
            port->staging.assign(port->bytes + XNN_EXTRA_BYTES, 0);
        }
    }
    for (const auto& port : inputs_) {
        if (port.staging.empty()) return fail("a network input is missing from the NPU program");
    }
    for (const auto& port : outputs_) {
        if (port.staging.empty()) return fail("a network output is missing from the NPU program");
    }

    for (uint32_t l = 0; l < layers->size(); ++l) {
        const npu::Layer& layer = *layers->Get(l);
        const auto* in = layer.inputs();
        const auto* out = layer.outputs();
        if (in == nullptr || out == nullptr || out->size() != 1 || in->size() == 0) return fail("layer " + std::to_string(l) + " is malformed");
        for (uint32_t index : *in) {
            if (index >= ids.size()) return fail("layer " + std::to_string(l) + " reads a tensor that does not exist");
        }
        if (out->Get(0) >= ids.size()) return fail("layer " + std::to_string(l) + " writes a tensor that does not exist");
        auto input = [&](uint32_t i) { return i < in->size() ? ids[in->Get(i)] : XNN_INVALID_VALUE_ID; };
        const uint32_t output = ids[out->Get(0)];
        float low, high;
        bounds(layer, *tensors->Get(out->Get(0)), &low, &high);
        xnn_status status = xnn_status_invalid_parameter;
        switch (layer.params_type()) {
            case npu::LayerParams::Conv2D: {
                const auto* p = layer.params_as_Conv2D();
                const auto* pad = p->padding();
                if (pad == nullptr || in->size() != 3) break;
                if (p->depthwise()) {
                    status = xnn_define_depthwise_convolution_2d(
                            subgraph, pad->top(), pad->right(), pad->bottom(), pad->left(), p->kernel_height(),
                            p->kernel_width(), p->stride_height(), p->stride_width(), p->dilation_height(),
                            p->dilation_width(), p->depth_multiplier(), p->input_channels(), low, high, input(0),
                            input(1), input(2), output, 0);
                } else {
                    status = xnn_define_convolution_2d(
                            subgraph, pad->top(), pad->right(), pad->bottom(), pad->left(), p->kernel_height(),
                            p->kernel_width(), p->stride_height(), p->stride_width(), p->dilation_height(),
                            p->dilation_width(), 1, p->input_channels(), p->output_channels(), low, high, input(0),
                            input(1), input(2), output, 0);
                }
                break;
            }
            case npu::LayerParams::FullyConnected:
                if (in->size() == 3) {
                    status = xnn_define_fully_connected(subgraph, low, high, input(0), input(1), input(2), output,
                                                        XNN_FLAG_TENSORFLOW_RESHAPE_2D);
                }
                break;
            case npu::LayerParams::Add:
                status = xnn_define_add2(subgraph, low, high, input(0), input(1), output, 0);
                break;
            case npu::LayerParams::Multiply:
                status = xnn_define_multiply2(subgraph, low, high, input(0), input(1), output, 0);
                break;
            case npu::LayerParams::Subtract:
                status = xnn_define_subtract(subgraph, low, high, input(0), input(1), output, 0);
                break;
            case npu::LayerParams::AveragePool2D: {
                const auto* p = layer.params_as_AveragePool2D();
                if (p->padding() == nullptr) break;
                status = xnn_define_average_pooling_2d(subgraph, p->padding()->top(), p->padding()->right(),
                                                       p->padding()->bottom(), p->padding()->left(), p->pool_height(),
                                                       p->pool_width(), p->stride_height(), p->stride_width(), low,
                                                       high, input(0), output, 0);
                break;
            }
            case npu::LayerParams::MaxPool2D: {
                const auto* p = layer.params_as_MaxPool2D();
                if (p->padding() == nullptr) break;
                status = xnn_define_max_pooling_2d(subgraph, p->padding()->top(), p->padding()->right(),
                                                   p->padding()->bottom(), p->padding()->left(), p->pool_height(),
                                                   p->pool_width(), p->stride_height(), p->stride_width(), 1, 1, low,
                                                   high, input(0), output, 0);
                break;
            }
            case npu::LayerParams::GlobalAveragePool2D:
                status = xnn_define_global_average_pooling_2d(subgraph, low, high, input(0), output, 0);
                break;
            case npu::LayerParams::Clamp:
                status = xnn_define_clamp(subgraph, low, high, input(0), output, 0);
                break;
            case npu::LayerParams::Sigmoid:
                status = xnn_define_sigmoid(subgraph, input(0), output, 0);
                break;
            case npu::LayerParams::Softmax:
                status = xnn_define_softmax(subgraph, input(0), output, 0);
                break;
            case npu::LayerParams::Reshape: {
                const auto* dims = tensors->Get(out->Get(0))->dims();
                std::vector<size_t> shape(dims->begin(), dims->end());
                status = xnn_define_static_reshape(subgraph, shape.size(), shape.data(), input(0), output, 0);
                break;
            }
            case npu::LayerParams::ConstantPad: {
                const auto* p = layer.params_as_ConstantPad();
                if (p->before() == nullptr || p->after() == nullptr || p->before()->size() != p->after()->size() ||
                    p->before()->size() > XNN_MAX_TENSOR_DIMS) {
                    break;
                }
                std::vector<size_t> before(p->before()->begin(), p->before()->end());
                std::vector<size_t> after(p->after()->begin(), p->after()->end());
                status = xnn_define_static_constant_pad(subgraph, before.data(), after.data(), 0.0f, input(0), output, 0);
                break;
            }
            case npu::LayerParams::ResizeBilinear: {
                const auto* p = layer.params_as_ResizeBilinear();
                status = xnn_define_static_resize_bilinear_2d(subgraph, p->output_height(), p->output_width(),
                                                              input(0), output, XNN_FLAG_TENSORFLOW_LEGACY_MODE);
                break;
            }
            case npu::LayerParams::Convert:
                status = xnn_define_convert(subgraph, input(0), output, 0);
                break;
            default:
                break;
        }
        if (status != xnn_status_success) {
            const char* name = layer.name() ? layer.name()->c_str() : "?";
            return fail(std::string("the NPU core rejected layer ") + name + " (status " + std::to_string(status) + ")");
        }
    }
    if (xnn_create_runtime_v2(subgraph, threadPool(), 0, &runtime_) != xnn_status_success) {
        return fail("the NPU core could not build a runtime for the program");
    }
    return true;
}

bool NpuCore::run(const std::vector<const uint8_t*>& inputs, const std::vector<uint8_t*>& outputs, std::string* error) {
    if (inputs.size() != inputs_.size() || outputs.size() != outputs_.size()) {
        *error = "wrong number of NPU inputs or outputs";
        return false;
    }
    std::vector<xnn_external_value> externals;
    for (size_t i = 0; i < inputs_.size(); ++i) {
        std::memcpy(inputs_[i].staging.data(), inputs[i], inputs_[i].bytes);
        externals.push_back({inputs_[i].externalId, inputs_[i].staging.data()});
    }
    for (auto& port : outputs_) externals.push_back({port.externalId, port.staging.data()});
    if (xnn_setup_runtime(runtime_, externals.size(), externals.data()) != xnn_status_success ||
        xnn_invoke_runtime(runtime_) != xnn_status_success) {
        *error = "the NPU core failed to run the program";
        return false;
    }
    for (size_t i = 0; i < outputs_.size(); ++i) std::memcpy(outputs[i], outputs_[i].staging.data(), outputs_[i].bytes);
    return true;
}

}  // namespace nnemu::synap
