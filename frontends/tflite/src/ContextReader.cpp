// TfLiteContext -> Model, in place (see ContextReader.h). The checks are the file reader's
// (Model.cpp) for what a host can get wrong: element types, ranks, sizes, quantization.
#include "nnemu/tflite/ContextReader.h"

#include <limits>

namespace nnemu::tflite {
namespace {

constexpr int32_t kCustomCode = 32;   // kTfLiteBuiltinCustom
constexpr int kMaxRank = 8;

ElementType elementTypeOf(TfLiteType type) {
    switch (type) {
        case kTfLiteFloat32: return ElementType::FLOAT32;
        case kTfLiteUInt8: return ElementType::UINT8;
        case kTfLiteInt8: return ElementType::INT8;
        case kTfLiteInt16: return ElementType::INT16;
        case kTfLiteInt32: return ElementType::INT32;
        case kTfLiteInt64: return ElementType::INT64;
        case kTfLiteBool: return ElementType::BOOL;
        default: return ElementType::OTHER;
    }
}

const TfLiteAffineQuantization* affineOf(const TfLiteTensor& tensor) {
    if (tensor.quantization.type != kTfLiteAffineQuantization || tensor.quantization.params == nullptr) return nullptr;
    const auto* affine = static_cast<const TfLiteAffineQuantization*>(tensor.quantization.params);
    return affine->scale != nullptr && affine->scale->size > 0 ? affine : nullptr;
}

// The host's tensor as the view's; false when the view cannot carry it (its nodes stay with the
// host). Per-channel scales are read only when there is one per entry of the quantized dimension:
// anything else (say, a host whose TfLiteFloatArray is laid out otherwise) would be misread.
bool readTensor(const TfLiteTensor& source, size_t index, Tensor& tensor, std::vector<int64_t>& zeroPoints) {
    tensor.name = source.name != nullptr ? source.name : "t" + std::to_string(index);
    tensor.type = elementTypeOf(source.type);
    if (tensor.type == ElementType::OTHER) return false;
    tensor.isVariable = source.is_variable;
    if (source.dims != nullptr) {
        if (source.dims->size < 0 || source.dims->size > kMaxRank) return false;
        for (int d = 0; d < source.dims->size; ++d) {
            if (source.dims->data[d] < 0) return false;
            tensor.shape.push_back(source.dims->data[d]);
        }
    }
    if (const TfLiteAffineQuantization* affine = affineOf(source)) {
        const int count = affine->scale->size;
        const int axis = affine->quantized_dimension;
        if (count > 1 && (axis < 0 || axis >= static_cast<int>(tensor.shape.size()) || tensor.shape[axis] != count)) {
            return false;
        }
        tensor.channelScales = {affine->scale->data, static_cast<size_t>(count)};
        zeroPoints.assign(count, 0);
        for (int i = 0; affine->zero_point != nullptr && i < affine->zero_point->size && i < count; ++i) {
            zeroPoints[i] = affine->zero_point->data[i];
        }
        tensor.channelZeroPointBytes = {reinterpret_cast<const uint8_t*>(zeroPoints.data()), zeroPoints.size() * sizeof(int64_t)};
        tensor.scale = tensor.channelScales[0];
        tensor.zeroPoint = static_cast<int32_t>(zeroPoints[0]);
        tensor.quantizedDimension = count > 1 ? axis : 0;
    } else if (source.params.scale != 0.0f) {
        tensor.scale = source.params.scale;
        tensor.zeroPoint = source.params.zero_point;
    }
    if (source.allocation_type == kTfLiteMmapRo && source.data.raw_const != nullptr && source.bytes > 0) {
        tensor.isConstant = true;
        tensor.data = reinterpret_cast<const uint8_t*>(source.data.raw_const);
        tensor.dataSize = source.bytes;
        if (tensor.dataSize != tensor.byteSize()) return false;
    }
    return true;
}

bool readableNode(const TfLiteNode& node, const std::vector<bool>& readable) {
    for (const TfLiteIntArray* list : {node.inputs, node.outputs}) {
        if (list == nullptr) return false;
        for (int i = 0; i < list->size; ++i) {
            const int t = list->data[i];
            if (t == -1 && list == node.inputs) continue;  // an omitted optional input
            if (t < 0 || static_cast<size_t>(t) >= readable.size() || !readable[t]) return false;
        }
    }
    return true;
}

std::vector<int32_t> values(const TfLiteIntArray* array) {
    return array != nullptr ? std::vector<int32_t>(array->data, array->data + array->size) : std::vector<int32_t>{};
}

}  // namespace

Result<std::unique_ptr<ContextGraph>> readContext(TfLiteContext* context) {
    TfLiteIntArray* plan = nullptr;
    if (context->GetExecutionPlan == nullptr || context->GetExecutionPlan(context, &plan) != kTfLiteOk || plan == nullptr) {
        return badData("the host gave no execution plan");
    }
    auto graph = std::make_unique<ContextGraph>();
    Subgraph subgraph;
    subgraph.name = "vx";
    subgraph.tensors.resize(context->tensors_size);
    graph->zeroPoints.resize(context->tensors_size);
    std::vector<bool> readable(context->tensors_size), produced(context->tensors_size, false);
    for (size_t t = 0; t < context->tensors_size; ++t) {
        readable[t] = readTensor(context->tensors[t], t, subgraph.tensors[t], graph->zeroPoints[t]);
    }
    graph->modelNodeOfPlan.assign(plan->size, -1);
    graph->builtinCodes.assign(plan->size, -1);
    for (int i = 0; i < plan->size; ++i) {
        TfLiteNode* node = nullptr;
        TfLiteRegistration* registration = nullptr;
        if (context->GetNodeAndRegistration(context, plan->data[i], &node, &registration) != kTfLiteOk) {
            return badData("the host refused node " + std::to_string(plan->data[i]));
        }
        graph->builtinCodes[i] = registration->builtin_code;
        if (registration->builtin_code == kCustomCode || registration->builtin_code < 0 || !readableNode(*node, readable)) {
            continue;
        }
        Node view;
        view.index = static_cast<uint32_t>(subgraph.nodes.size());
        view.builtinCode = registration->builtin_code;
        view.opName = builtinOperatorName(registration->builtin_code);
        view.inputs = values(node->inputs);
        view.outputs = values(node->outputs);
        view.builtinData = node->builtin_data;
        for (int32_t t : view.outputs) produced[t] = true;
        graph->modelNodeOfPlan[i] = static_cast<int>(subgraph.nodes.size());
        graph->planNodes.push_back(plan->data[i]);
        subgraph.nodes.push_back(std::move(view));
    }
    // Graph inputs: activations no node here produces; the mapping reads no graph outputs.
    for (size_t t = 0; t < context->tensors_size; ++t) {
        if (readable[t] && !produced[t] && context->tensors[t].allocation_type != kTfLiteMmapRo) {
            subgraph.inputs.push_back(static_cast<int32_t>(t));
        }
    }
    std::vector<Subgraph> subgraphs;
    subgraphs.push_back(std::move(subgraph));
    graph->model = Model::fromSubgraphs(std::move(subgraphs), "vx delegate");
    return graph;
}

}  // namespace nnemu::tflite
