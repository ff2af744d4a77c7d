// Flatbuffer options -> builtin_op_data.h structs. The enums differ: flatbuffer padding counts
// from SAME = 0, TfLitePadding from Unknown = 0; activation codes are the same numbers.
#include "BuiltinData.h"

#include <cstdlib>

#include "nnemu/delegate/TfLiteAbi.h"
#include "nnemu/tflite/tflite_generated.h"

namespace nnemu::tflite {
namespace {

template <typename T>
T* allocate() {
    return static_cast<T*>(std::calloc(1, sizeof(T)));
}

TfLitePadding padding(fb::Padding value) {
    return value == fb::Padding_SAME ? kTfLitePaddingSame : value == fb::Padding_VALID ? kTfLitePaddingValid
                                                                                        : kTfLitePaddingUnknown;
}

TfLiteFusedActivation activation(fb::ActivationFunctionType value) {
    return static_cast<TfLiteFusedActivation>(static_cast<int>(value));
}

void* convData(const fb::Operator& op) {
    const fb::Conv2DOptions* o = op.builtin_options_as_Conv2DOptions();
    if (o == nullptr) return nullptr;
    auto* data = allocate<TfLiteConvParams>();
    data->padding = padding(o->padding());
    data->stride_width = o->stride_w();
    data->stride_height = o->stride_h();
    data->activation = activation(o->fused_activation_function());
    data->dilation_width_factor = o->dilation_w_factor();
    data->dilation_height_factor = o->dilation_h_factor();
    return data;
}

void* depthwiseData(const fb::Operator& op) {
    const fb::DepthwiseConv2DOptions* o = op.builtin_options_as_DepthwiseConv2DOptions();
    if (o == nullptr) return nullptr;
    auto* data = allocate<TfLiteDepthwiseConvParams>();
    *data = {padding(o->padding()), o->stride_w(), o->stride_h(), o->depth_multiplier(),
             activation(o->fused_activation_function()), o->dilation_w_factor(), o->dilation_h_factor()};
    return data;
}

void* poolData(const fb::Operator& op) {
    const fb::Pool2DOptions* o = op.builtin_options_as_Pool2DOptions();
    if (o == nullptr) return nullptr;
    auto* data = allocate<TfLitePoolParams>();
    data->padding = padding(o->padding());
    data->stride_width = o->stride_w();
    data->stride_height = o->stride_h();
    data->filter_width = o->filter_width();
    data->filter_height = o->filter_height();
    data->activation = activation(o->fused_activation_function());
    return data;
}

void* fullyConnectedData(const fb::Operator& op) {
    const fb::FullyConnectedOptions* o = op.builtin_options_as_FullyConnectedOptions();
    if (o == nullptr) return nullptr;
    auto* data = allocate<TfLiteFullyConnectedParams>();
    data->activation = activation(o->fused_activation_function());
    data->weights_format = static_cast<TfLiteFullyConnectedWeightsFormat>(static_cast<int>(o->weights_format()));
    data->keep_num_dims = o->keep_num_dims();
    data->asymmetric_quantize_inputs = o->asymmetric_quantize_inputs();
    return data;
}

void* reshapeData(const fb::Operator& op) {
    auto* data = allocate<TfLiteReshapeParams>();
    const fb::ReshapeOptions* o = op.builtin_options_as_ReshapeOptions();
    if (o != nullptr && o->new_shape() != nullptr && o->new_shape()->size() <= NNEMU_TFLITE_RESHAPE_MAX_DIMENSIONS) {
        data->num_dimensions = static_cast<int>(o->new_shape()->size());
        for (int i = 0; i < data->num_dimensions; ++i) data->shape[i] = o->new_shape()->Get(i);
    }
    return data;
}

void* elementwiseData(const fb::Operator& op, fb::BuiltinOperator code) {
    fb::ActivationFunctionType fused = fb::ActivationFunctionType_NONE;
    bool potScale = true;
    if (code == fb::BuiltinOperator_ADD && op.builtin_options_as_AddOptions() != nullptr) {
        fused = op.builtin_options_as_AddOptions()->fused_activation_function();
        potScale = op.builtin_options_as_AddOptions()->pot_scale_int16();
    } else if (code == fb::BuiltinOperator_SUB && op.builtin_options_as_SubOptions() != nullptr) {
        fused = op.builtin_options_as_SubOptions()->fused_activation_function();
        potScale = op.builtin_options_as_SubOptions()->pot_scale_int16();
    } else if (code == fb::BuiltinOperator_MUL && op.builtin_options_as_MulOptions() != nullptr) {
        fused = op.builtin_options_as_MulOptions()->fused_activation_function();
    }
    // TfLiteAddParams and TfLiteSubParams share TfLiteMulParams' leading field.
    auto* data = allocate<TfLiteAddParams>();
    data->activation = activation(fused);
    data->pot_scale_int16 = potScale;
    return data;
}

void* shapeData(const fb::Operator& op, fb::BuiltinOperator code) {
    switch (code) {
        case fb::BuiltinOperator_SPLIT: {
            auto* data = allocate<TfLiteSplitParams>();
            data->num_splits = op.builtin_options_as_SplitOptions() ? op.builtin_options_as_SplitOptions()->num_splits() : 0;
            return data;
        }
        case fb::BuiltinOperator_SQUEEZE: {
            auto* data = allocate<TfLiteSqueezeParams>();
            const fb::SqueezeOptions* o = op.builtin_options_as_SqueezeOptions();
            if (o != nullptr && o->squeeze_dims() != nullptr &&
                o->squeeze_dims()->size() <= NNEMU_TFLITE_SQUEEZE_MAX_DIMENSIONS) {
                data->num_squeeze_dims = static_cast<int>(o->squeeze_dims()->size());
                for (int i = 0; i < data->num_squeeze_dims; ++i) data->squeeze_dims[i] = o->squeeze_dims()->Get(i);
            }
            return data;
        }
        case fb::BuiltinOperator_RESIZE_BILINEAR: {
            auto* data = allocate<TfLiteResizeBilinearParams>();
            if (const fb::ResizeBilinearOptions* o = op.builtin_options_as_ResizeBilinearOptions()) {
                *data = {o->align_corners(), o->half_pixel_centers()};
            }
            return data;
        }
        case fb::BuiltinOperator_RESIZE_NEAREST_NEIGHBOR: {
            auto* data = allocate<TfLiteResizeNearestNeighborParams>();
            if (const fb::ResizeNearestNeighborOptions* o = op.builtin_options_as_ResizeNearestNeighborOptions()) {
                *data = {o->align_corners(), o->half_pixel_centers()};
            }
            return data;
        }
        case fb::BuiltinOperator_GATHER: {
            auto* data = allocate<TfLiteGatherParams>();
            if (const fb::GatherOptions* o = op.builtin_options_as_GatherOptions()) *data = {o->axis(), o->batch_dims()};
            return data;
        }
        default: return nullptr;
    }
}

void* convert(const Node& node) {
    const auto& op = *static_cast<const fb::Operator*>(node.options);
    const auto code = static_cast<fb::BuiltinOperator>(node.builtinCode);
    switch (code) {
        case fb::BuiltinOperator_CONV_2D: return convData(op);
        case fb::BuiltinOperator_DEPTHWISE_CONV_2D: return depthwiseData(op);
        case fb::BuiltinOperator_AVERAGE_POOL_2D:
        case fb::BuiltinOperator_MAX_POOL_2D: return poolData(op);
        case fb::BuiltinOperator_FULLY_CONNECTED: return fullyConnectedData(op);
        case fb::BuiltinOperator_RESHAPE: return reshapeData(op);
        case fb::BuiltinOperator_ADD:
        case fb::BuiltinOperator_SUB:
        case fb::BuiltinOperator_MUL: return elementwiseData(op, code);
        case fb::BuiltinOperator_SOFTMAX: {
            auto* data = allocate<TfLiteSoftmaxParams>();
            data->beta = op.builtin_options_as_SoftmaxOptions() ? op.builtin_options_as_SoftmaxOptions()->beta() : 1.0f;
            return data;
        }
        case fb::BuiltinOperator_CONCATENATION: {
            const fb::ConcatenationOptions* o = op.builtin_options_as_ConcatenationOptions();
            if (o == nullptr) return nullptr;
            auto* data = allocate<TfLiteConcatenationParams>();
            *data = {o->axis(), activation(o->fused_activation_function())};
            return data;
        }
        case fb::BuiltinOperator_MEAN: {
            auto* data = allocate<TfLiteReducerParams>();
            data->keep_dims = op.builtin_options_as_ReducerOptions() && op.builtin_options_as_ReducerOptions()->keep_dims();
            return data;
        }
        default: return shapeData(op, code);
    }
}

}  // namespace

void FreeBuiltinData::operator()(void* data) const { std::free(data); }

BuiltinData builtinDataOf(const Node& node) {
    if (node.options == nullptr || node.builtinCode < 0) return BuiltinData(nullptr);
    return BuiltinData(convert(node));
}

}  // namespace nnemu::tflite
