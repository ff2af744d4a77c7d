// The NPU core's XNNPACK stages: one subgraph and runtime per run of layers.
#include <xnnpack.h>

#include <algorithm>
#include <memory>
#include <string>

#include "CoreThreads.h"
#include "LayerKinds.h"
#include "NativeLayers.h"
#include "NpuCore.h"

namespace nnemu::synap {
namespace {

// XNNPACK is set up by the first stage that needs it: a network of the core's own kernels only
// (every 8-bit MobileNet) never pays for it in its load.
bool initializeXnnpack() {
    static const bool initialized = xnn_initialize(nullptr) == xnn_status_success;
    return initialized;
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

}  // namespace

// One XNNPACK runtime for layers [first, end): tensors with buffers are its external values.
Status NpuCore::buildXnnpackStage(size_t first, size_t end, bool pooled, xnn_runtime** built) {
    if (!initializeXnnpack()) return unavailable("the NPU core (XNNPACK) could not be initialized");
    const std::vector<bool>& needsBuffer = needsBuffer_;
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
            const npu::Tensor& tensor = *tensors->Get(t);
            const bool port = tensor.input_index() >= 0 || tensor.output_index() >= 0;
            const bool external = constantData(t) == nullptr && (needsBuffer[t] || port);
            if (external && std::find(externalsOf.begin(), externalsOf.end(), t) == externalsOf.end()) {
                externalsOf.push_back(t);
            }
        }
    }
    xnn_subgraph_t subgraph = nullptr;
    if (xnn_create_subgraph(static_cast<uint32_t>(externalsOf.size()), 0, &subgraph) != xnn_status_success) {
        return opFailed("cannot create an NPU subgraph");
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
                return opFailed("the NPU core rejected tensor " + std::to_string(t));
            }
        }
        float low, high;
        bounds(layer, *tensors->Get(layer.outputs()->Get(0)), &low, &high);
        const xnn_status status = layerKind(layer.params_type())->define({subgraph, *program_, layer, ids, low, high});
        if (status != xnn_status_success) {
            return opFailed("the NPU core rejected layer " + std::string(layer.name() ? layer.name()->c_str() : "?") +
                            " (status " + std::to_string(status) + ")");
        }
    }
    xnn_runtime_t runtime = nullptr;
    if (xnn_create_runtime_v2(subgraph, pooled ? xnnpackThreadPool() : nullptr, 0, &runtime) != xnn_status_success) {
        return opFailed("the NPU core could not build a runtime for the program");
    }
    *built = runtime;  // owned by the stage from here on
    if (xnn_setup_runtime(runtime, externals.size(), externals.data()) != xnn_status_success) {
        return opFailed("the NPU core could not set up its buffers");
    }
    return {};
}

}  // namespace nnemu::synap
