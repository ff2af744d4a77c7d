// Flatbuffer options -> builtin_op_data.h structs, once per node when a .tflite file is read.
// The enums differ: flatbuffer padding counts from SAME = 0, TfLitePadding from Unknown = 0;
// flatbuffer tensor types from FLOAT32 = 0, TfLiteType from NoType = 0 (the others agree);
// activation codes are the same numbers. Missing options give the zeroed struct, as TFLite's
// interpreter gives its kernels.
#include "BuiltinData.h"

#include <algorithm>
#include <cstdlib>

#include "RandomSparseAbi.h"
#include "nnemu/delegate/TfLiteAbi.h"

namespace nnemu::tflite {
namespace {

// Delegates built against a newer TFLite may read fields appended to a struct since (e.g.
// quantized_bias_type): every struct gets zeroed room for them, which reads as their defaults.
constexpr size_t kMinBuiltinDataBytes = 64;

template <typename T>
T* allocate() {
    return static_cast<T*>(std::calloc(1, std::max(sizeof(T), kMinBuiltinDataBytes)));
}

// A zeroed T, filled from the options when the node has them.
template <typename T, typename Options, typename Fill>
void* make(const Options* options, Fill fill) {
    T* data = allocate<T>();
    if (data != nullptr && options != nullptr) fill(*options, *data);
    return data;
}

TfLitePadding padding(fb::Padding value) {
    return value == fb::Padding_SAME ? kTfLitePaddingSame : value == fb::Padding_VALID ? kTfLitePaddingValid
                                                                                        : kTfLitePaddingUnknown;
}

TfLiteFusedActivation activation(fb::ActivationFunctionType value) {
    // A code the schema does not define reads as none, as TFLite's own parser reads it.
    const int code = static_cast<int>(value);
    return code >= kTfLiteActNone && code <= kTfLiteActSignBit ? static_cast<TfLiteFusedActivation>(code) : kTfLiteActNone;
}

TfLiteType tensorType(fb::TensorType value) {
    switch (value) {
        case fb::TensorType_FLOAT32: return kTfLiteFloat32;
        case fb::TensorType_FLOAT16: return kTfLiteFloat16;
        case fb::TensorType_INT32: return kTfLiteInt32;
        case fb::TensorType_UINT8: return kTfLiteUInt8;
        case fb::TensorType_INT64: return kTfLiteInt64;
        case fb::TensorType_BOOL: return kTfLiteBool;
        case fb::TensorType_INT16: return kTfLiteInt16;
        case fb::TensorType_INT8: return kTfLiteInt8;
        case fb::TensorType_STRING: return kTfLiteString;
        default: return kTfLiteNoType;   // a type the front end does not read, or no type at all
    }
}

void* convolution(const fb::Operator& op, fb::BuiltinOperator code) {
    switch (code) {
        case fb::BuiltinOperator_CONV_2D:
            return make<TfLiteConvParams>(op.builtin_options_as_Conv2DOptions(), [](const auto& o, auto& d) {
                d = {padding(o.padding()), o.stride_w(), o.stride_h(), activation(o.fused_activation_function()),
                     o.dilation_w_factor(), o.dilation_h_factor()};
            });
        case fb::BuiltinOperator_DEPTHWISE_CONV_2D:
            return make<TfLiteDepthwiseConvParams>(op.builtin_options_as_DepthwiseConv2DOptions(),
                                                   [](const auto& o, auto& d) {
                d = {padding(o.padding()), o.stride_w(), o.stride_h(), o.depth_multiplier(),
                     activation(o.fused_activation_function()), o.dilation_w_factor(), o.dilation_h_factor()};
            });
        case fb::BuiltinOperator_TRANSPOSE_CONV:
            return make<TfLiteTransposeConvParams>(op.builtin_options_as_TransposeConvOptions(),
                                                   [](const auto& o, auto& d) {
                d = {padding(o.padding()), o.stride_w(), o.stride_h(), activation(o.fused_activation_function())};
            });
        case fb::BuiltinOperator_CONV_3D:
        case fb::BuiltinOperator_CONV_3D_TRANSPOSE:   // TFLite's typedef of the same struct
            return make<TfLiteConv3DParams>(op.builtin_options_as_Conv3DOptions(), [](const auto& o, auto& d) {
                d = {padding(o.padding()),    o.stride_w(),          o.stride_h(),
                     o.stride_d(),            o.dilation_w_factor(), o.dilation_h_factor(),
                     o.dilation_d_factor(),   activation(o.fused_activation_function())};
            });
        case fb::BuiltinOperator_AVERAGE_POOL_2D:
        case fb::BuiltinOperator_MAX_POOL_2D:
        case fb::BuiltinOperator_L2_POOL_2D:
            return make<TfLitePoolParams>(op.builtin_options_as_Pool2DOptions(), [](const auto& o, auto& d) {
                d.padding = padding(o.padding());
                d.stride_width = o.stride_w();
                d.stride_height = o.stride_h();
                d.filter_width = o.filter_width();
                d.filter_height = o.filter_height();
                d.activation = activation(o.fused_activation_function());
            });
        case fb::BuiltinOperator_FULLY_CONNECTED:
            return make<TfLiteFullyConnectedParams>(op.builtin_options_as_FullyConnectedOptions(),
                                                    [](const auto& o, auto& d) {
                d = {activation(o.fused_activation_function()),
                     // Any format but the default is refused by the lowering (TFLite refuses an
                     // unknown one at load; here the node is refused).
                     o.weights_format() == fb::FullyConnectedOptionsWeightsFormat_DEFAULT
                             ? kTfLiteFullyConnectedWeightsFormatDefault
                             : kTfLiteFullyConnectedWeightsFormatShuffled4x16Int8,
                     o.keep_num_dims(), o.asymmetric_quantize_inputs()};
            });
        default: return nullptr;
    }
}

void* elementwise(const fb::Operator& op, fb::BuiltinOperator code) {
    switch (code) {
        case fb::BuiltinOperator_ADD:
            return make<TfLiteAddParams>(op.builtin_options_as_AddOptions(), [](const auto& o, auto& d) {
                d = {activation(o.fused_activation_function()), o.pot_scale_int16()};
            });
        case fb::BuiltinOperator_SUB:
            return make<TfLiteSubParams>(op.builtin_options_as_SubOptions(), [](const auto& o, auto& d) {
                d = {activation(o.fused_activation_function()), o.pot_scale_int16()};
            });
        case fb::BuiltinOperator_MUL:
            return make<TfLiteMulParams>(op.builtin_options_as_MulOptions(), [](const auto& o, auto& d) {
                d.activation = activation(o.fused_activation_function());
            });
        case fb::BuiltinOperator_DIV:
            return make<TfLiteDivParams>(op.builtin_options_as_DivOptions(), [](const auto& o, auto& d) {
                d.activation = activation(o.fused_activation_function());
            });
        case fb::BuiltinOperator_L2_NORMALIZATION:
            return make<TfLiteL2NormParams>(op.builtin_options_as_L2NormOptions(), [](const auto& o, auto& d) {
                d.activation = activation(o.fused_activation_function());
            });
        case fb::BuiltinOperator_LOCAL_RESPONSE_NORMALIZATION:
            return make<TfLiteLocalResponseNormParams>(op.builtin_options_as_LocalResponseNormalizationOptions(),
                                                       [](const auto& o, auto& d) {
                d = {o.radius(), o.bias(), o.alpha(), o.beta()};
            });
        case fb::BuiltinOperator_SOFTMAX:
            return make<TfLiteSoftmaxParams>(op.builtin_options_as_SoftmaxOptions(),
                                             [](const auto& o, auto& d) { d.beta = o.beta(); });
        case fb::BuiltinOperator_CONCATENATION:
            return make<TfLiteConcatenationParams>(op.builtin_options_as_ConcatenationOptions(),
                                                   [](const auto& o, auto& d) {
                d = {o.axis(), activation(o.fused_activation_function())};
            });
        case fb::BuiltinOperator_MEAN:
        case fb::BuiltinOperator_SUM:
        case fb::BuiltinOperator_REDUCE_MAX:
        case fb::BuiltinOperator_REDUCE_MIN:
        case fb::BuiltinOperator_REDUCE_PROD:
        case fb::BuiltinOperator_REDUCE_ANY:
        case fb::BuiltinOperator_REDUCE_ALL:
            return make<TfLiteReducerParams>(op.builtin_options_as_ReducerOptions(),
                                             [](const auto& o, auto& d) { d.keep_dims = o.keep_dims(); });
        case fb::BuiltinOperator_ARG_MAX:
            return make<TfLiteArgMaxParams>(op.builtin_options_as_ArgMaxOptions(),
                                            [](const auto& o, auto& d) { d.output_type = tensorType(o.output_type()); });
        case fb::BuiltinOperator_ARG_MIN:
            return make<TfLiteArgMinParams>(op.builtin_options_as_ArgMinOptions(),
                                            [](const auto& o, auto& d) { d.output_type = tensorType(o.output_type()); });
        default: return nullptr;
    }
}

// Options of builtins only the CPU kernels run (src/cpu/Activation.cpp).
void* cpuElementwise(const fb::Operator& op, fb::BuiltinOperator code) {
    switch (code) {
        case fb::BuiltinOperator_BUCKETIZE: {
            // Options without their boundaries make TFLite refuse the model: no parameters here,
            // and the kernel says so.
            const fb::BucketizeOptions* options = op.builtin_options_as_BucketizeOptions();
            if (options != nullptr && options->boundaries() == nullptr) return nullptr;
            return make<TfLiteBucketizeParams>(options, [](const auto& o, auto& d) {
                d.boundaries = o.boundaries()->data();
                d.num_boundaries = static_cast<int>(o.boundaries()->size());
            });
        }
        case fb::BuiltinOperator_GELU:
            return make<TfLiteGeluParams>(op.builtin_options_as_GeluOptions(),
                                          [](const auto& o, auto& d) { d.approximate = o.approximate(); });
        case fb::BuiltinOperator_FAKE_QUANT:
            return make<TfLiteFakeQuantParams>(op.builtin_options_as_FakeQuantOptions(), [](const auto& o, auto& d) {
                d = {o.min(), o.max(), o.num_bits(), o.narrow_range()};
            });
        default: return nullptr;
    }
}

// Copies at most `capacity` values; more leave the struct's count at 0.
template <typename Vector>
int copyDims(const Vector* values, int32_t* out, int capacity) {
    if (values == nullptr || values->size() > static_cast<uint32_t>(capacity)) return 0;
    for (uint32_t i = 0; i < values->size(); ++i) out[i] = values->Get(i);
    return static_cast<int>(values->size());
}

void* shape(const fb::Operator& op, fb::BuiltinOperator code) {
    switch (code) {
        case fb::BuiltinOperator_RESHAPE:
            return make<TfLiteReshapeParams>(op.builtin_options_as_ReshapeOptions(), [](const auto& o, auto& d) {
                d.num_dimensions = copyDims(o.new_shape(), d.shape, NNEMU_TFLITE_RESHAPE_MAX_DIMENSIONS);
            });
        case fb::BuiltinOperator_SQUEEZE:
            return make<TfLiteSqueezeParams>(op.builtin_options_as_SqueezeOptions(), [](const auto& o, auto& d) {
                d.num_squeeze_dims = copyDims(o.squeeze_dims(), d.squeeze_dims, NNEMU_TFLITE_SQUEEZE_MAX_DIMENSIONS);
            });
        case fb::BuiltinOperator_SPLIT:
            return make<TfLiteSplitParams>(op.builtin_options_as_SplitOptions(),
                                           [](const auto& o, auto& d) { d.num_splits = o.num_splits(); });
        case fb::BuiltinOperator_SPLIT_V:
            return make<TfLiteSplitVParams>(op.builtin_options_as_SplitVOptions(),
                                            [](const auto& o, auto& d) { d.num_splits = o.num_splits(); });
        case fb::BuiltinOperator_UNPACK:
            return make<TfLiteUnpackParams>(op.builtin_options_as_UnpackOptions(),
                                            [](const auto& o, auto& d) { d = {o.num(), o.axis()}; });
        case fb::BuiltinOperator_SHAPE:
            return make<TfLiteShapeParams>(op.builtin_options_as_ShapeOptions(),
                                           [](const auto& o, auto& d) { d.out_type = tensorType(o.out_type()); });
        case fb::BuiltinOperator_STRIDED_SLICE:
            return make<TfLiteStridedSliceParams>(op.builtin_options_as_StridedSliceOptions(),
                                                  [](const auto& o, auto& d) {
                d = {o.begin_mask(), o.end_mask(), o.ellipsis_mask(), o.new_axis_mask(), o.shrink_axis_mask(),
                     o.offset()};
            });
        case fb::BuiltinOperator_SPACE_TO_DEPTH:
            return make<TfLiteSpaceToDepthParams>(op.builtin_options_as_SpaceToDepthOptions(),
                                                  [](const auto& o, auto& d) { d.block_size = o.block_size(); });
        case fb::BuiltinOperator_DEPTH_TO_SPACE:
            return make<TfLiteDepthToSpaceParams>(op.builtin_options_as_DepthToSpaceOptions(),
                                                  [](const auto& o, auto& d) { d.block_size = o.block_size(); });
        case fb::BuiltinOperator_GATHER:
            return make<TfLiteGatherParams>(op.builtin_options_as_GatherOptions(),
                                            [](const auto& o, auto& d) { d = {o.axis(), o.batch_dims()}; });
        case fb::BuiltinOperator_RESIZE_BILINEAR:
            return make<TfLiteResizeBilinearParams>(op.builtin_options_as_ResizeBilinearOptions(),
                                                    [](const auto& o, auto& d) {
                d = {o.align_corners(), o.half_pixel_centers()};
            });
        case fb::BuiltinOperator_RESIZE_NEAREST_NEIGHBOR:
            return make<TfLiteResizeNearestNeighborParams>(op.builtin_options_as_ResizeNearestNeighborOptions(),
                                                           [](const auto& o, auto& d) {
                d = {o.align_corners(), o.half_pixel_centers()};
            });
        default: return nullptr;
    }
}

void* sequenceAndControl(const fb::Operator& op, fb::BuiltinOperator code) {
    switch (code) {
        case fb::BuiltinOperator_LSH_PROJECTION:
            return make<TfLiteLSHProjectionParams>(op.builtin_options_as_LSHProjectionOptions(),
                                                   [](const auto& o, auto& d) {
                // A value the schema does not define reads as unknown, as TFLite's parser reads it.
                d.type = o.type() == fb::LSHProjectionType_SPARSE ? kTfLiteLshProjectionSparse
                         : o.type() == fb::LSHProjectionType_DENSE ? kTfLiteLshProjectionDense
                                                                   : kTfLiteLshProjectionUnknown;
            });
        case fb::BuiltinOperator_RNN:
            return make<TfLiteRNNParams>(op.builtin_options_as_RNNOptions(), [](const auto& o, auto& d) {
                d = {activation(o.fused_activation_function()), o.asymmetric_quantize_inputs()};
            });
        case fb::BuiltinOperator_SVDF:
            return make<TfLiteSVDFParams>(op.builtin_options_as_SVDFOptions(), [](const auto& o, auto& d) {
                d = {o.rank(), activation(o.fused_activation_function()), o.asymmetric_quantize_inputs()};
            });
        case fb::BuiltinOperator_LSTM:
            return make<TfLiteLSTMParams>(op.builtin_options_as_LSTMOptions(), [](const auto& o, auto& d) {
                d = {activation(o.fused_activation_function()), o.cell_clip(), o.proj_clip(),
                     o.kernel_type() == fb::LSTMKernelType_BASIC ? kTfLiteLSTMBasicKernel : kTfLiteLSTMFullKernel,
                     o.asymmetric_quantize_inputs()};
            });
        case fb::BuiltinOperator_UNIDIRECTIONAL_SEQUENCE_RNN:
            return make<TfLiteSequenceRNNParams>(op.builtin_options_as_SequenceRNNOptions(), [](const auto& o, auto& d) {
                d = {o.time_major(), activation(o.fused_activation_function()), o.asymmetric_quantize_inputs()};
            });
        case fb::BuiltinOperator_BIDIRECTIONAL_SEQUENCE_RNN:
            return make<TfLiteBidirectionalSequenceRNNParams>(op.builtin_options_as_BidirectionalSequenceRNNOptions(),
                                                              [](const auto& o, auto& d) {
                d = {o.time_major(), activation(o.fused_activation_function()), o.merge_outputs(),
                     o.asymmetric_quantize_inputs()};
            });
        case fb::BuiltinOperator_UNIDIRECTIONAL_SEQUENCE_LSTM:
            return make<TfLiteUnidirectionalSequenceLSTMParams>(
                    op.builtin_options_as_UnidirectionalSequenceLSTMOptions(), [](const auto& o, auto& d) {
                d = {activation(o.fused_activation_function()), o.cell_clip(), o.proj_clip(), o.time_major(),
                     o.asymmetric_quantize_inputs(), false};
            });
        case fb::BuiltinOperator_BIDIRECTIONAL_SEQUENCE_LSTM:
            return make<TfLiteBidirectionalSequenceLSTMParams>(
                    op.builtin_options_as_BidirectionalSequenceLSTMOptions(), [](const auto& o, auto& d) {
                d = {activation(o.fused_activation_function()), o.cell_clip(), o.proj_clip(), o.merge_outputs(),
                     o.time_major(), o.asymmetric_quantize_inputs()};
            });
        case fb::BuiltinOperator_WHILE:
            return make<TfLiteWhileParams>(op.builtin_options_as_WhileOptions(), [](const auto& o, auto& d) {
                d = {o.cond_subgraph_index(), o.body_subgraph_index()};
            });
        case fb::BuiltinOperator_IF:
            return make<TfLiteIfParams>(op.builtin_options_as_IfOptions(), [](const auto& o, auto& d) {
                d = {o.then_subgraph_index(), o.else_subgraph_index()};
            });
        default: return nullptr;
    }
}

// Builtins lowered as TFLite's NNAPI delegate lowers them (LowerActivation.cpp and friends).
void* delegateLowered(const fb::Operator& op, fb::BuiltinOperator code) {
    switch (code) {
        case fb::BuiltinOperator_LEAKY_RELU:
            return make<TfLiteLeakyReluParams>(op.builtin_options_as_LeakyReluOptions(),
                                               [](const auto& o, auto& d) { d.alpha = o.alpha(); });
        case fb::BuiltinOperator_PACK:
            return make<TfLitePackParams>(op.builtin_options_as_PackOptions(),
                                          [](const auto& o, auto& d) { d = {o.values_count(), o.axis()}; });
        case fb::BuiltinOperator_MIRROR_PAD:
            return make<TfLiteMirrorPaddingParams>(op.builtin_options_as_MirrorPadOptions(), [](const auto& o, auto& d) {
                d.mode = o.mode() == fb::MirrorPadMode_REFLECT     ? kTfLiteMirrorPaddingReflect
                         : o.mode() == fb::MirrorPadMode_SYMMETRIC ? kTfLiteMirrorPaddingSymmetric
                                                                   : kTfLiteMirrorPaddingUnknown;
            });
        case fb::BuiltinOperator_BATCH_MATMUL:
            return make<TfLiteBatchMatMulParams>(op.builtin_options_as_BatchMatMulOptions(), [](const auto& o, auto& d) {
                d = {o.adj_x(), o.adj_y(), o.asymmetric_quantize_inputs()};
            });
        default: return nullptr;
    }
}

void* shapeAndIndexing(const fb::Operator& op, fb::BuiltinOperator code) {
    switch (code) {
        case fb::BuiltinOperator_ONE_HOT:
            return make<TfLiteOneHotParams>(op.builtin_options_as_OneHotOptions(),
                                            [](const auto& o, auto& d) { d.axis = o.axis(); });
        case fb::BuiltinOperator_UNIQUE:
            // TFLite's parser: int64 when the options say so, int32 for any other type; no
            // options leave kTfLiteNoType, which the kernel refuses.
            return make<TfLiteUniqueParams>(op.builtin_options_as_UniqueOptions(), [](const auto& o, auto& d) {
                d.index_out_type = o.idx_out_type() == fb::TensorType_INT64 ? kTfLiteInt64 : kTfLiteInt32;
            });
        case fb::BuiltinOperator_REVERSE_SEQUENCE:
            return make<TfLiteReverseSequenceParams>(op.builtin_options_as_ReverseSequenceOptions(),
                                                     [](const auto& o, auto& d) { d = {o.seq_dim(), o.batch_dim()}; });
        case fb::BuiltinOperator_CUMSUM:
            return make<TfLiteCumsumParams>(op.builtin_options_as_CumsumOptions(),
                                            [](const auto& o, auto& d) { d = {o.exclusive(), o.reverse()}; });
        default: return nullptr;
    }
}

// Resource variables (VAR_HANDLE) and their initialization (CALL_ONCE): src/cpu/Variables.cpp.
void* resources(const fb::Operator& op, fb::BuiltinOperator code) {
    switch (code) {
        case fb::BuiltinOperator_VAR_HANDLE:
            // Flatbuffer strings end in a NUL: the names point into the model's bytes.
            return make<TfLiteVarHandleParams>(op.builtin_options_as_VarHandleOptions(), [](const auto& o, auto& d) {
                d.container = o.container() != nullptr ? o.container()->c_str() : nullptr;
                d.shared_name = o.shared_name() != nullptr ? o.shared_name()->c_str() : nullptr;
            });
        case fb::BuiltinOperator_CALL_ONCE:
            return make<TfLiteCallOnceParams>(op.builtin_options_as_CallOnceOptions(),
                                              [](const auto& o, auto& d) { d.init_subgraph_index = o.init_subgraph_index(); });
        case fb::BuiltinOperator_HASHTABLE:
            return make<TfLiteHashtableParams>(op.builtin_options_as_HashtableOptions(), [](const auto& o, auto& d) {
                d = {o.table_id(), tensorType(o.key_dtype()), tensorType(o.value_dtype())};
            });
        case fb::BuiltinOperator_SKIP_GRAM:
            return make<TfLiteSkipGramParams>(op.builtin_options_as_SkipGramOptions(), [](const auto& o, auto& d) {
                d = {o.ngram_size(), o.max_skip_size(), o.include_all_ngrams()};
            });
        default: return nullptr;
    }
}

// The random builtins (one options table for the three) and EMBEDDING_LOOKUP_SPARSE.
void* randomAndSparse(const fb::Operator& op, fb::BuiltinOperator code) {
    switch (code) {
        case fb::BuiltinOperator_RANDOM_UNIFORM:
        case fb::BuiltinOperator_RANDOM_STANDARD_NORMAL:
        case fb::BuiltinOperator_MULTINOMIAL:
            return make<TfLiteRandomParams>(op.builtin_options_as_RandomOptions(),
                                            [](const auto& o, auto& d) {
                                                d = {static_cast<int>(o.seed()), static_cast<int>(o.seed2())};
                                            });
        case fb::BuiltinOperator_EMBEDDING_LOOKUP_SPARSE:
            return make<TfLiteEmbeddingLookupSparseParams>(
                    op.builtin_options_as_EmbeddingLookupSparseOptions(), [](const auto& o, auto& d) {
                        d.combiner = o.combiner() == fb::CombinerType_MEAN    ? kTfLiteCombinerTypeMean
                                     : o.combiner() == fb::CombinerType_SQRTN ? kTfLiteCombinerTypeSqrtn
                                                                              : kTfLiteCombinerTypeSum;
                    });
        default: return nullptr;
    }
}

}  // namespace

void FreeBuiltinData::operator()(void* data) const { std::free(data); }

BuiltinData builtinDataOf(int32_t builtinCode, const fb::Operator& op) {
    const auto code = static_cast<fb::BuiltinOperator>(builtinCode);
    for (void* (*convert)(const fb::Operator&, fb::BuiltinOperator) : {convolution, elementwise, shape, sequenceAndControl, cpuElementwise,
                                                                  delegateLowered, shapeAndIndexing, resources,
                                                                  randomAndSparse}) {
        if (void* data = convert(op, code)) return BuiltinData(data);
    }
    return BuiltinData(nullptr);
}

}  // namespace nnemu::tflite
