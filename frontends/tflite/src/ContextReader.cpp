// TfLiteContext -> Model, in place (see ContextReader.h). The checks are the file reader's
// (Model.cpp) for what a host can get wrong: element types, ranks, sizes, quantization.
#include "nnemu/tflite/ContextReader.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "RandomSparseAbi.h"
#include "SparseTensor.h"
#include "StringTensor.h"

namespace nnemu::tflite {
namespace {

constexpr int32_t kCustomCode = 32;   // kTfLiteBuiltinCustom
constexpr int32_t kDensifyCode = 124;   // kTfLiteBuiltinDensify
constexpr int kMaxRank = 8;
constexpr uint64_t kMaxTensorBytes = uint64_t{1} << 31;   // as the file reader (Model.cpp)

ElementType elementTypeOf(TfLiteType type) {
    switch (type) {
        case kTfLiteFloat32: return ElementType::FLOAT32;
        case kTfLiteUInt8: return ElementType::UINT8;
        case kTfLiteInt8: return ElementType::INT8;
        case kTfLiteInt16: return ElementType::INT16;
        case kTfLiteInt32: return ElementType::INT32;
        case kTfLiteInt64: return ElementType::INT64;
        case kTfLiteBool: return ElementType::BOOL;
        case kTfLiteFloat64: return ElementType::FLOAT64;
        case kTfLiteComplex64: return ElementType::COMPLEX64;
        case kTfLiteComplex128: return ElementType::COMPLEX128;
        case kTfLiteResource: return ElementType::RESOURCE;
        case kTfLiteString: return ElementType::STRING;
        default: return ElementType::OTHER;
    }
}

const TfLiteAffineQuantization* affineOf(const TfLiteTensor& tensor) {
    if (tensor.quantization.type != kTfLiteAffineQuantization || tensor.quantization.params == nullptr) return nullptr;
    const auto* affine = static_cast<const TfLiteAffineQuantization*>(tensor.quantization.params);
    return affine->scale != nullptr && affine->scale->size > 0 ? affine : nullptr;
}

// NNAPI's quantized tensor types (TENSOR_QUANT8_*, TENSOR_QUANT16_*) need a scale above 0; other
// types may carry none (0), never a negative or non-finite one.
bool scaleFits(ElementType type, float scale) {
    const bool quantized = type == ElementType::UINT8 || type == ElementType::INT8 || type == ElementType::INT16;
    return std::isfinite(scale) && (quantized ? scale > 0.0f : scale >= 0.0f);
}

// Dimensions, element count and byte size as the file reader bounds them.
Status readShape(const TfLiteIntArray* dims, Tensor& tensor) {
    if (dims == nullptr) return {};
    if (dims->size < 0 || dims->size > kMaxRank) {
        return badData("rank " + std::to_string(dims->size) + " is outside [0, " + std::to_string(kMaxRank) + "]");
    }
    uint64_t elements = 1;
    for (int d = 0; d < dims->size; ++d) {
        const int dim = dims->data[d];
        if (dim < 0) return badData("negative dimension " + std::to_string(dim));
        tensor.shape.push_back(dim);
        elements *= static_cast<uint64_t>(dim);
        if (elements > kMaxTensorBytes) return badData("shape too large");
    }
    if (elements * std::max<size_t>(elementSize(tensor.type), 1) > kMaxTensorBytes) return badData("shape too large");
    return {};
}

// The host's tensor as the view's, or why the view cannot carry it (its nodes stay with the
// host). Per-channel scales are read only when there is one per entry of the quantized dimension:
// anything else (say, a host whose TfLiteFloatArray is laid out otherwise) would be misread.
Status readTensor(const TfLiteTensor& source, size_t index, Tensor& tensor, std::vector<int64_t>& zeroPoints) {
    tensor.name = source.name != nullptr ? source.name : "t" + std::to_string(index);
    tensor.type = elementTypeOf(source.type);
    if (tensor.type == ElementType::OTHER) return badData("element type " + std::to_string(source.type) + " is not supported");
    tensor.isVariable = source.is_variable;
    NNEMU_RETURN_IF_ERROR(readShape(source.dims, tensor));
    if (const TfLiteAffineQuantization* affine = affineOf(source)) {
        const int count = affine->scale->size;
        const int axis = affine->quantized_dimension;
        if (count > 1 && (axis < 0 || axis >= static_cast<int>(tensor.shape.size()) || tensor.shape[axis] != count)) {
            return badData(std::to_string(count) + " scales do not match quantized dimension " + std::to_string(axis));
        }
        for (int i = 0; i < count; ++i) {
            if (!scaleFits(tensor.type, affine->scale->data[i])) {
                return badData("invalid quantization scale " + std::to_string(affine->scale->data[i]));
            }
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
        if (!scaleFits(tensor.type, source.params.scale)) {
            return badData("invalid quantization scale " + std::to_string(source.params.scale));
        }
        tensor.scale = source.params.scale;
        tensor.zeroPoint = source.params.zero_point;
    }
    if (source.sparsity != nullptr) {
        Result<std::shared_ptr<const Sparsity>> read = readSparsity(*static_cast<const TfLiteSparsity*>(source.sparsity));
        if (!read) return read.status();
        tensor.sparsity = std::move(read).value();
    }
    if (source.allocation_type == kTfLiteMmapRo && source.data.raw_const != nullptr && source.bytes > 0) {
        tensor.isConstant = true;
        tensor.data = reinterpret_cast<const uint8_t*>(source.data.raw_const);
        tensor.dataSize = source.bytes;
        if (tensor.type == ElementType::STRING) {
            size_t count = 1;
            for (int32_t dim : tensor.shape) count *= static_cast<size_t>(dim);
            if (const auto strings = readStrings(tensor.data, tensor.dataSize, count); !strings) return strings.status();
        } else if (tensor.dataSize != tensor.byteSize() && tensor.sparsity == nullptr) {
            return badData("constant of " + std::to_string(tensor.dataSize) + " bytes, its shape needs " +
                           std::to_string(tensor.byteSize()));
        }
    }
    return {};
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

// Only DENSIFY reads a sparse tensor: another node doing so stays with the host.
bool readsSparseTensor(const TfLiteRegistration& registration, const TfLiteNode& node, const Subgraph& subgraph) {
    if (registration.builtin_code == kDensifyCode) return false;
    for (int i = 0; i < node.inputs->size; ++i) {
        const int t = node.inputs->data[i];
        if (t >= 0 && subgraph.tensors[t].sparsity != nullptr) return true;
    }
    return false;
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
    graph->tensorProblems.resize(context->tensors_size);
    std::vector<bool> readable(context->tensors_size), produced(context->tensors_size, false);
    for (size_t t = 0; t < context->tensors_size; ++t) {
        const Status read = readTensor(context->tensors[t], t, subgraph.tensors[t], graph->zeroPoints[t]);
        readable[t] = read.isOk();
        if (!read) graph->tensorProblems[t] = "tensor " + std::to_string(t) + " (" + subgraph.tensors[t].name + "): " + read.message();
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
        if (registration->builtin_code == kCustomCode || registration->builtin_code < 0 || !readableNode(*node, readable) ||
            readsSparseTensor(*registration, *node, subgraph)) {
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
