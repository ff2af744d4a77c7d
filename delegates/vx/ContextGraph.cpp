// builtin_data -> flatbuffer options, the mirror of tools/tflite/src/BuiltinData.cpp.
#include "ContextGraph.h"

#include <cstring>

#include "nnemu/tflite/tflite_generated.h"

namespace nnemu::vx {
namespace {

namespace fb = tflite::fb;
using Options = flatbuffers::Offset<void>;

bool tensorType(TfLiteType type, fb::TensorType* out) {
    switch (type) {
        case kTfLiteFloat32: *out = fb::TensorType_FLOAT32; return true;
        case kTfLiteUInt8: *out = fb::TensorType_UINT8; return true;
        case kTfLiteInt8: *out = fb::TensorType_INT8; return true;
        case kTfLiteInt16: *out = fb::TensorType_INT16; return true;
        case kTfLiteInt32: *out = fb::TensorType_INT32; return true;
        case kTfLiteInt64: *out = fb::TensorType_INT64; return true;
        case kTfLiteBool: *out = fb::TensorType_BOOL; return true;
        default: return false;
    }
}

fb::Padding padding(TfLitePadding value) { return value == kTfLitePaddingValid ? fb::Padding_VALID : fb::Padding_SAME; }

bool knownPadding(TfLitePadding value) { return value == kTfLitePaddingSame || value == kTfLitePaddingValid; }

// Activation codes 0..5 are the same numbers in both; sigmoid has no flatbuffer form.
bool activation(TfLiteFusedActivation value, fb::ActivationFunctionType* out) {
    if (value < kTfLiteActNone || value > kTfLiteActSignBit) return false;
    *out = static_cast<fb::ActivationFunctionType>(static_cast<int>(value));
    return true;
}

// Operators the mapping lowers whose options carry nothing or are not read: builtin_data is
// ignored (TFLite gives them none, or an unused struct).
bool withoutOptions(fb::BuiltinOperator code) {
    switch (code) {
        case fb::BuiltinOperator_QUANTIZE: case fb::BuiltinOperator_DEQUANTIZE: case fb::BuiltinOperator_RELU:
        case fb::BuiltinOperator_RELU6: case fb::BuiltinOperator_RELU_N1_TO_1: case fb::BuiltinOperator_LOGISTIC:
        case fb::BuiltinOperator_TANH: case fb::BuiltinOperator_PAD: case fb::BuiltinOperator_PADV2:
        case fb::BuiltinOperator_HARD_SWISH: case fb::BuiltinOperator_ABS: case fb::BuiltinOperator_EXP:
        case fb::BuiltinOperator_FLOOR: case fb::BuiltinOperator_LOG: case fb::BuiltinOperator_NEG:
        case fb::BuiltinOperator_RSQRT: case fb::BuiltinOperator_SIN: case fb::BuiltinOperator_SQRT:
        case fb::BuiltinOperator_POW: case fb::BuiltinOperator_MAXIMUM: case fb::BuiltinOperator_MINIMUM:
        case fb::BuiltinOperator_PRELU: case fb::BuiltinOperator_EQUAL: case fb::BuiltinOperator_NOT_EQUAL:
        case fb::BuiltinOperator_GREATER: case fb::BuiltinOperator_GREATER_EQUAL: case fb::BuiltinOperator_LESS:
        case fb::BuiltinOperator_LESS_EQUAL: case fb::BuiltinOperator_LOGICAL_AND: case fb::BuiltinOperator_LOGICAL_OR:
        case fb::BuiltinOperator_LOGICAL_NOT: case fb::BuiltinOperator_SELECT: case fb::BuiltinOperator_SELECT_V2:
        case fb::BuiltinOperator_SLICE: case fb::BuiltinOperator_TILE: case fb::BuiltinOperator_TRANSPOSE:
        case fb::BuiltinOperator_EXPAND_DIMS: case fb::BuiltinOperator_LOG_SOFTMAX: case fb::BuiltinOperator_TOPK_V2:
        case fb::BuiltinOperator_CAST: return true;
        default: return false;
    }
}

// The options of the operators the first switch leaves out (see options()).
bool moreOptions(flatbuffers::FlatBufferBuilder& b, int32_t code, const void* data, fb::BuiltinOptions* type,
                 Options* table) {
    fb::ActivationFunctionType act = fb::ActivationFunctionType_NONE;
    fb::TensorType tensor = fb::TensorType_INT32;
    switch (static_cast<fb::BuiltinOperator>(code)) {
        case fb::BuiltinOperator_L2_POOL_2D: {
            const auto* p = static_cast<const TfLitePoolParams*>(data);
            if (p == nullptr || !knownPadding(p->padding) || !activation(p->activation, &act)) return false;
            *type = fb::BuiltinOptions_Pool2DOptions;
            *table = fb::CreatePool2DOptions(b, padding(p->padding), p->stride_width, p->stride_height,
                                             p->filter_width, p->filter_height, act).Union();
            return true;
        }
        case fb::BuiltinOperator_TRANSPOSE_CONV: {
            const auto* p = static_cast<const TfLiteTransposeConvParams*>(data);
            if (p == nullptr || !knownPadding(p->padding) || !activation(p->activation, &act)) return false;
            *type = fb::BuiltinOptions_TransposeConvOptions;
            *table = fb::CreateTransposeConvOptions(b, padding(p->padding), p->stride_width, p->stride_height, act)
                             .Union();
            return true;
        }
        case fb::BuiltinOperator_DIV: {
            const auto* p = static_cast<const TfLiteDivParams*>(data);
            if (p == nullptr || !activation(p->activation, &act)) return false;
            *type = fb::BuiltinOptions_DivOptions;
            *table = fb::CreateDivOptions(b, act).Union();
            return true;
        }
        case fb::BuiltinOperator_L2_NORMALIZATION: {
            const auto* p = static_cast<const TfLiteL2NormParams*>(data);
            if (p == nullptr || !activation(p->activation, &act)) return false;
            *type = fb::BuiltinOptions_L2NormOptions;
            *table = fb::CreateL2NormOptions(b, act).Union();
            return true;
        }
        case fb::BuiltinOperator_LOCAL_RESPONSE_NORMALIZATION: {
            const auto* p = static_cast<const TfLiteLocalResponseNormParams*>(data);
            if (p == nullptr) return false;
            *type = fb::BuiltinOptions_LocalResponseNormalizationOptions;
            *table = fb::CreateLocalResponseNormalizationOptions(b, p->radius, p->bias, p->alpha, p->beta).Union();
            return true;
        }
        case fb::BuiltinOperator_SUM:
        case fb::BuiltinOperator_REDUCE_MAX:
        case fb::BuiltinOperator_REDUCE_MIN:
        case fb::BuiltinOperator_REDUCE_PROD: {
            const auto* p = static_cast<const TfLiteReducerParams*>(data);
            if (p == nullptr) return false;
            *type = fb::BuiltinOptions_ReducerOptions;
            *table = fb::CreateReducerOptions(b, p->keep_dims).Union();
            return true;
        }
        case fb::BuiltinOperator_ARG_MAX:
        case fb::BuiltinOperator_ARG_MIN: {
            // Same layout for both.
            const auto* p = static_cast<const TfLiteArgMaxParams*>(data);
            if (p == nullptr || !tensorType(p->output_type, &tensor)) return false;
            *type = code == fb::BuiltinOperator_ARG_MAX ? fb::BuiltinOptions_ArgMaxOptions : fb::BuiltinOptions_ArgMinOptions;
            *table = code == fb::BuiltinOperator_ARG_MAX ? fb::CreateArgMaxOptions(b, tensor).Union()
                                                         : fb::CreateArgMinOptions(b, tensor).Union();
            return true;
        }
        case fb::BuiltinOperator_STRIDED_SLICE: {
            const auto* p = static_cast<const TfLiteStridedSliceParams*>(data);
            if (p == nullptr) return false;
            *type = fb::BuiltinOptions_StridedSliceOptions;
            *table = fb::CreateStridedSliceOptions(b, p->begin_mask, p->end_mask, p->ellipsis_mask, p->new_axis_mask,
                                                   p->shrink_axis_mask, p->offset).Union();
            return true;
        }
        case fb::BuiltinOperator_DEPTH_TO_SPACE:
        case fb::BuiltinOperator_SPACE_TO_DEPTH: {
            // Same layout for both.
            const auto* p = static_cast<const TfLiteDepthToSpaceParams*>(data);
            if (p == nullptr || p->block_size <= 0) return false;
            const bool toSpace = code == fb::BuiltinOperator_DEPTH_TO_SPACE;
            *type = toSpace ? fb::BuiltinOptions_DepthToSpaceOptions : fb::BuiltinOptions_SpaceToDepthOptions;
            *table = toSpace ? fb::CreateDepthToSpaceOptions(b, p->block_size).Union()
                             : fb::CreateSpaceToDepthOptions(b, p->block_size).Union();
            return true;
        }
        default: return withoutOptions(static_cast<fb::BuiltinOperator>(code));
    }
}

// The options of one node; false when its builtin_data cannot be expressed (the node falls back).
bool options(flatbuffers::FlatBufferBuilder& b, int32_t code, const void* data, fb::BuiltinOptions* type,
             Options* table) {
    fb::ActivationFunctionType act = fb::ActivationFunctionType_NONE;
    *type = fb::BuiltinOptions_NONE;
    *table = 0;
    switch (static_cast<fb::BuiltinOperator>(code)) {
        case fb::BuiltinOperator_CONV_2D: {
            const auto* p = static_cast<const TfLiteConvParams*>(data);
            if (p == nullptr || !knownPadding(p->padding) || !activation(p->activation, &act)) return false;
            *type = fb::BuiltinOptions_Conv2DOptions;
            *table = fb::CreateConv2DOptions(b, padding(p->padding), p->stride_width, p->stride_height, act,
                                             p->dilation_width_factor, p->dilation_height_factor).Union();
            return true;
        }
        case fb::BuiltinOperator_DEPTHWISE_CONV_2D: {
            const auto* p = static_cast<const TfLiteDepthwiseConvParams*>(data);
            if (p == nullptr || !knownPadding(p->padding) || !activation(p->activation, &act)) return false;
            *type = fb::BuiltinOptions_DepthwiseConv2DOptions;
            *table = fb::CreateDepthwiseConv2DOptions(b, padding(p->padding), p->stride_width, p->stride_height,
                                                      p->depth_multiplier, act, p->dilation_width_factor,
                                                      p->dilation_height_factor).Union();
            return true;
        }
        case fb::BuiltinOperator_AVERAGE_POOL_2D:
        case fb::BuiltinOperator_MAX_POOL_2D: {
            const auto* p = static_cast<const TfLitePoolParams*>(data);
            if (p == nullptr || !knownPadding(p->padding) || !activation(p->activation, &act)) return false;
            *type = fb::BuiltinOptions_Pool2DOptions;
            *table = fb::CreatePool2DOptions(b, padding(p->padding), p->stride_width, p->stride_height,
                                             p->filter_width, p->filter_height, act).Union();
            return true;
        }
        case fb::BuiltinOperator_FULLY_CONNECTED: {
            const auto* p = static_cast<const TfLiteFullyConnectedParams*>(data);
            if (p == nullptr || p->weights_format != kTfLiteFullyConnectedWeightsFormatDefault ||
                !activation(p->activation, &act)) {
                return false;
            }
            *type = fb::BuiltinOptions_FullyConnectedOptions;
            *table = fb::CreateFullyConnectedOptions(b, act, fb::FullyConnectedOptionsWeightsFormat_DEFAULT,
                                                     p->keep_num_dims, p->asymmetric_quantize_inputs).Union();
            return true;
        }
        case fb::BuiltinOperator_SOFTMAX: {
            const auto* p = static_cast<const TfLiteSoftmaxParams*>(data);
            if (p == nullptr) return false;
            *type = fb::BuiltinOptions_SoftmaxOptions;
            *table = fb::CreateSoftmaxOptions(b, p->beta).Union();
            return true;
        }
        case fb::BuiltinOperator_RESHAPE: {
            // The shape input carries the new shape in every converter since TF 2.x; the
            // options only repeat it.
            const auto* p = static_cast<const TfLiteReshapeParams*>(data);
            if (p == nullptr || p->num_dimensions <= 0 || p->num_dimensions > NNEMU_TFLITE_RESHAPE_MAX_DIMENSIONS) {
                return true;
            }
            const std::vector<int32_t> shape(p->shape, p->shape + p->num_dimensions);
            *type = fb::BuiltinOptions_ReshapeOptions;
            *table = fb::CreateReshapeOptionsDirect(b, &shape).Union();
            return true;
        }
        case fb::BuiltinOperator_ADD:
        case fb::BuiltinOperator_SUB:
        case fb::BuiltinOperator_MUL: {
            const auto* p = static_cast<const TfLiteMulParams*>(data);
            if (p == nullptr || !activation(p->activation, &act)) return false;
            if (code == fb::BuiltinOperator_MUL) {
                *type = fb::BuiltinOptions_MulOptions;
                *table = fb::CreateMulOptions(b, act).Union();
            } else {
                const bool potScale = static_cast<const TfLiteAddParams*>(data)->pot_scale_int16;
                *type = code == fb::BuiltinOperator_ADD ? fb::BuiltinOptions_AddOptions : fb::BuiltinOptions_SubOptions;
                *table = code == fb::BuiltinOperator_ADD ? fb::CreateAddOptions(b, act, potScale).Union()
                                                         : fb::CreateSubOptions(b, act, potScale).Union();
            }
            return true;
        }
        case fb::BuiltinOperator_CONCATENATION: {
            const auto* p = static_cast<const TfLiteConcatenationParams*>(data);
            if (p == nullptr || !activation(p->activation, &act)) return false;
            *type = fb::BuiltinOptions_ConcatenationOptions;
            *table = fb::CreateConcatenationOptions(b, p->axis, act).Union();
            return true;
        }
        case fb::BuiltinOperator_MEAN: {
            const auto* p = static_cast<const TfLiteReducerParams*>(data);
            if (p == nullptr) return false;
            *type = fb::BuiltinOptions_ReducerOptions;
            *table = fb::CreateReducerOptions(b, p->keep_dims).Union();
            return true;
        }
        case fb::BuiltinOperator_SPLIT: {
            const auto* p = static_cast<const TfLiteSplitParams*>(data);
            if (p == nullptr) return false;
            *type = fb::BuiltinOptions_SplitOptions;
            *table = fb::CreateSplitOptions(b, p->num_splits).Union();
            return true;
        }
        case fb::BuiltinOperator_SQUEEZE: {
            const auto* p = static_cast<const TfLiteSqueezeParams*>(data);
            if (p == nullptr || p->num_squeeze_dims < 0 || p->num_squeeze_dims > NNEMU_TFLITE_SQUEEZE_MAX_DIMENSIONS) {
                return false;
            }
            const std::vector<int32_t> dims(p->squeeze_dims, p->squeeze_dims + p->num_squeeze_dims);
            *type = fb::BuiltinOptions_SqueezeOptions;
            *table = fb::CreateSqueezeOptionsDirect(b, &dims).Union();
            return true;
        }
        case fb::BuiltinOperator_RESIZE_BILINEAR: {
            const auto* p = static_cast<const TfLiteResizeBilinearParams*>(data);
            if (p == nullptr) return false;
            *type = fb::BuiltinOptions_ResizeBilinearOptions;
            *table = fb::CreateResizeBilinearOptions(b, p->align_corners, p->half_pixel_centers).Union();
            return true;
        }
        case fb::BuiltinOperator_RESIZE_NEAREST_NEIGHBOR: {
            const auto* p = static_cast<const TfLiteResizeNearestNeighborParams*>(data);
            if (p == nullptr) return false;
            *type = fb::BuiltinOptions_ResizeNearestNeighborOptions;
            *table = fb::CreateResizeNearestNeighborOptions(b, p->align_corners, p->half_pixel_centers).Union();
            return true;
        }
        case fb::BuiltinOperator_GATHER: {
            const auto* p = static_cast<const TfLiteGatherParams*>(data);
            if (p == nullptr) return false;
            *type = fb::BuiltinOptions_GatherOptions;
            *table = fb::CreateGatherOptions(b, p->axis, p->batch_dims).Union();
            return true;
        }
        default: return moreOptions(b, code, data, type, table);
    }
}

std::vector<int32_t> arrayValues(const TfLiteIntArray* array) {
    if (array == nullptr) return {};
    return std::vector<int32_t>(array->data, array->data + array->size);
}

flatbuffers::Offset<fb::QuantizationParameters> quantization(flatbuffers::FlatBufferBuilder& b,
                                                             const TfLiteTensor& tensor) {
    if (tensor.quantization.type == kTfLiteAffineQuantization && tensor.quantization.params != nullptr) {
        const auto* affine = static_cast<const TfLiteAffineQuantization*>(tensor.quantization.params);
        if (affine->scale != nullptr && affine->scale->size > 0) {
            const std::vector<float> scales(affine->scale->data, affine->scale->data + affine->scale->size);
            std::vector<int64_t> zeros(scales.size(), 0);
            for (int i = 0; affine->zero_point != nullptr && i < affine->zero_point->size && i < affine->scale->size; ++i) {
                zeros[i] = affine->zero_point->data[i];
            }
            return fb::CreateQuantizationParametersDirect(b, nullptr, nullptr, &scales, &zeros,
                                                          fb::QuantizationDetails_NONE, 0, affine->quantized_dimension);
        }
    }
    if (tensor.params.scale == 0.0f) return 0;
    const std::vector<float> scales{tensor.params.scale};
    const std::vector<int64_t> zeros{tensor.params.zero_point};
    return fb::CreateQuantizationParametersDirect(b, nullptr, nullptr, &scales, &zeros);
}

// Per-channel scales are read only when there is one, or one per entry of the quantized
// dimension: anything else (say, a host whose TfLiteFloatArray is laid out otherwise) would be
// misread, so the tensor's nodes stay with the host.
bool readableQuantization(const TfLiteTensor& tensor) {
    if (tensor.quantization.type != kTfLiteAffineQuantization || tensor.quantization.params == nullptr) return true;
    const auto* affine = static_cast<const TfLiteAffineQuantization*>(tensor.quantization.params);
    const int count = affine->scale != nullptr ? affine->scale->size : 0;
    if (count == 0 || count == 1) return true;
    const int axis = affine->quantized_dimension;
    return count > 1 && tensor.dims != nullptr && axis >= 0 && axis < tensor.dims->size && tensor.dims->data[axis] == count;
}

// A node touching a tensor type the model cannot express (strings, float16, ...) stays with the host.
bool knownTensorTypes(const TfLiteContext* context, const TfLiteNode& node) {
    for (const TfLiteIntArray* list : {node.inputs, node.outputs}) {
        for (int i = 0; list != nullptr && i < list->size; ++i) {
            const int t = list->data[i];
            if (t < 0) continue;  // an omitted optional input
            fb::TensorType type;
            if (static_cast<size_t>(t) >= context->tensors_size || !tensorType(context->tensors[t].type, &type) ||
                !readableQuantization(context->tensors[t])) {
                return false;
            }
        }
    }
    return true;
}

}  // namespace

std::unique_ptr<ContextGraph> readContext(TfLiteContext* context, std::string* error) {
    TfLiteIntArray* plan = nullptr;
    if (context->GetExecutionPlan == nullptr || context->GetExecutionPlan(context, &plan) != kTfLiteOk || plan == nullptr) {
        *error = "the host gave no execution plan";
        return nullptr;
    }
    auto graph = std::make_unique<ContextGraph>();
    flatbuffers::FlatBufferBuilder b;
    std::vector<flatbuffers::Offset<fb::Buffer>> buffers{fb::CreateBuffer(b)};
    std::vector<flatbuffers::Offset<fb::Tensor>> tensors;
    std::vector<bool> produced(context->tensors_size, false);
    for (size_t t = 0; t < context->tensors_size; ++t) {
        const TfLiteTensor& tensor = context->tensors[t];
        fb::TensorType type = fb::TensorType_FLOAT32;
        // Otherwise a placeholder no claimed node reads.
        const bool known = tensorType(tensor.type, &type) && readableQuantization(tensor);
        uint32_t buffer = 0;
        if (known && tensor.allocation_type == kTfLiteMmapRo && tensor.data.raw_const != nullptr && tensor.bytes > 0) {
            b.ForceVectorAlignment(tensor.bytes, sizeof(uint8_t), 16);
            buffers.push_back(fb::CreateBuffer(b, b.CreateVector(reinterpret_cast<const uint8_t*>(tensor.data.raw_const),
                                                                 tensor.bytes)));
            buffer = static_cast<uint32_t>(buffers.size() - 1);
        }
        const std::vector<int32_t> shape = arrayValues(tensor.dims);
        const std::string name = tensor.name != nullptr ? tensor.name : "t" + std::to_string(t);
        tensors.push_back(fb::CreateTensorDirect(b, &shape, type, buffer, name.c_str(),
                                                 known ? quantization(b, tensor) : 0, tensor.is_variable));
    }
    std::vector<flatbuffers::Offset<fb::OperatorCode>> codes;
    std::vector<flatbuffers::Offset<fb::Operator>> operators;
    graph->modelNodeOfPlan.assign(plan->size, -1);
    graph->builtinCodes.assign(plan->size, -1);
    for (int i = 0; i < plan->size; ++i) {
        TfLiteNode* node = nullptr;
        TfLiteRegistration* registration = nullptr;
        if (context->GetNodeAndRegistration(context, plan->data[i], &node, &registration) != kTfLiteOk) {
            *error = "the host refused node " + std::to_string(plan->data[i]);
            return nullptr;
        }
        graph->builtinCodes[i] = registration->builtin_code;
        fb::BuiltinOptions type;
        Options table;
        if (registration->builtin_code == fb::BuiltinOperator_CUSTOM || !knownTensorTypes(context, *node) ||
            !options(b, registration->builtin_code, node->builtin_data, &type, &table)) {
            continue;
        }
        const auto code = static_cast<fb::BuiltinOperator>(registration->builtin_code);
        codes.push_back(fb::CreateOperatorCode(b, static_cast<int8_t>(std::min<int32_t>(code, 127)), 0,
                                               registration->version, code));
        const std::vector<int32_t> inputs = arrayValues(node->inputs), outputs = arrayValues(node->outputs);
        for (int32_t t : outputs) {
            if (t >= 0 && static_cast<size_t>(t) < produced.size()) produced[t] = true;
        }
        operators.push_back(fb::CreateOperatorDirect(b, static_cast<uint32_t>(codes.size() - 1), &inputs, &outputs,
                                                     type, table));
        graph->modelNodeOfPlan[i] = static_cast<int>(graph->planNodes.size());
        graph->planNodes.push_back(plan->data[i]);
    }
    // Graph inputs: activations no node here produces; the mapping reads no graph outputs.
    std::vector<int32_t> inputs, outputs;
    for (size_t t = 0; t < context->tensors_size; ++t) {
        if (!produced[t] && context->tensors[t].allocation_type != kTfLiteMmapRo) inputs.push_back(static_cast<int32_t>(t));
    }
    const std::vector<flatbuffers::Offset<fb::SubGraph>> subgraphs{
            fb::CreateSubGraphDirect(b, &tensors, &inputs, &outputs, &operators, "vx")};
    fb::FinishModelBuffer(b, fb::CreateModelDirect(b, 3, &codes, &subgraphs, "vx delegate", &buffers));
    graph->model = tflite::Model::fromBuffer(std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()),
                                             error);
    if (graph->model == nullptr) return nullptr;
    return graph;
}

}  // namespace nnemu::vx
