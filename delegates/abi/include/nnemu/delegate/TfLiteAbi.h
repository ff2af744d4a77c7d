// TensorFlow Lite's external-delegate C ABI, declared by nnemu from the documented layouts of
// tensorflow/lite/core/c/common.h and builtin_op_data.h (TensorFlow Lite 2.15 and later, LP64).
// Only what a delegate plugin and its host exchange is declared; every offset either side
// relies on is checked below, so a layout change fails the build instead of a run.
//
// The layouts are TFLite 2.15's: TfLiteRegistration has `async_kernel` (2.13) and
// `inplace_operator` (2.14), and the plugin passes it by value to
// ReplaceNodeSubsetsWithDelegateKernels. Fields appended by later versions (at the ends of the
// structs) are not declared and never touched. Per-channel scales are read only when their count
// matches the quantized dimension (vx/ContextGraph.cpp), so a TfLiteFloatArray laid out otherwise
// keeps those nodes on the host rather than being misread.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum TfLiteStatus {
    kTfLiteOk = 0,
    kTfLiteError = 1,
    kTfLiteDelegateError = 2,
    kTfLiteApplicationError = 3,
} TfLiteStatus;

typedef enum TfLiteType {
    kTfLiteNoType = 0,
    kTfLiteFloat32 = 1,
    kTfLiteInt32 = 2,
    kTfLiteUInt8 = 3,
    kTfLiteInt64 = 4,
    kTfLiteString = 5,
    kTfLiteBool = 6,
    kTfLiteInt16 = 7,
    kTfLiteComplex64 = 8,
    kTfLiteInt8 = 9,
    kTfLiteFloat16 = 10,
    kTfLiteFloat64 = 11,
    kTfLiteComplex128 = 12,
    kTfLiteResource = 14,
} TfLiteType;

// A size followed by that many elements (flexible array member).
typedef struct TfLiteIntArray {
    int size;
    int data[];
} TfLiteIntArray;

typedef struct TfLiteFloatArray {
    int size;
    float data[];
} TfLiteFloatArray;

typedef struct TfLiteQuantizationParams {
    float scale;
    int32_t zero_point;
} TfLiteQuantizationParams;

typedef enum TfLiteQuantizationType {
    kTfLiteNoQuantization = 0,
    kTfLiteAffineQuantization = 1,
} TfLiteQuantizationType;

typedef struct TfLiteQuantization {
    TfLiteQuantizationType type;
    void* params;  // TfLiteAffineQuantization* when type is kTfLiteAffineQuantization
} TfLiteQuantization;

typedef struct TfLiteAffineQuantization {
    TfLiteFloatArray* scale;
    TfLiteIntArray* zero_point;
    int32_t quantized_dimension;
} TfLiteAffineQuantization;

typedef enum TfLiteAllocationType {
    kTfLiteMemNone = 0,
    kTfLiteMmapRo = 1,  // constant data of the model file
    kTfLiteArenaRw = 2,
    kTfLiteArenaRwPersistent = 3,
    kTfLiteDynamic = 4,
    kTfLitePersistentRo = 5,
    kTfLiteCustom = 6,
} TfLiteAllocationType;

typedef int TfLiteBufferHandle;
struct TfLiteDelegate;
struct TfLiteContext;

typedef union TfLitePtrUnion {
    int32_t* i32;
    int64_t* i64;
    float* f;
    uint8_t* uint8;
    int8_t* int8;
    char* raw;
    const char* raw_const;
    void* data;
} TfLitePtrUnion;

typedef struct TfLiteTensor {
    TfLiteType type;
    TfLitePtrUnion data;
    TfLiteIntArray* dims;
    TfLiteQuantizationParams params;
    TfLiteAllocationType allocation_type;
    size_t bytes;
    const void* allocation;
    const char* name;
    struct TfLiteDelegate* delegate;
    TfLiteBufferHandle buffer_handle;
    bool data_is_stale;
    bool is_variable;
    TfLiteQuantization quantization;
    void* sparsity;  // TfLiteSparsity*
    const TfLiteIntArray* dims_signature;
} TfLiteTensor;

typedef struct TfLiteNode {
    TfLiteIntArray* inputs;
    TfLiteIntArray* outputs;
    TfLiteIntArray* intermediates;
    TfLiteIntArray* temporaries;
    void* user_data;  // a delegate kernel's: what its init returned
    void* builtin_data;
    const void* custom_initial_data;
    int custom_initial_data_size;
    struct TfLiteDelegate* delegate;
    bool might_have_side_effect;
} TfLiteNode;

typedef struct TfLiteRegistration {
    void* (*init)(struct TfLiteContext* context, const char* buffer, size_t length);
    void (*free)(struct TfLiteContext* context, void* buffer);
    TfLiteStatus (*prepare)(struct TfLiteContext* context, TfLiteNode* node);
    TfLiteStatus (*invoke)(struct TfLiteContext* context, TfLiteNode* node);
    const char* (*profiling_string)(const struct TfLiteContext* context, const TfLiteNode* node);
    int32_t builtin_code;
    const char* custom_name;
    int version;
    void* registration_external;                                             // TfLiteOperator*
    void* (*async_kernel)(struct TfLiteContext* context, TfLiteNode* node);  // TfLiteAsyncKernel*
    uint64_t inplace_operator;
} TfLiteRegistration;

// What a delegate kernel's init receives (as `buffer`, length 0) for one partition.
typedef struct TfLiteDelegateParams {
    struct TfLiteDelegate* delegate;
    TfLiteIntArray* nodes_to_replace;
    TfLiteIntArray* input_tensors;
    TfLiteIntArray* output_tensors;
} TfLiteDelegateParams;

typedef struct TfLiteContext {
    size_t tensors_size;
    TfLiteStatus (*GetExecutionPlan)(struct TfLiteContext* context, TfLiteIntArray** execution_plan);
    TfLiteTensor* tensors;
    void* impl_;
    TfLiteStatus (*ResizeTensor)(struct TfLiteContext* context, TfLiteTensor* tensor, TfLiteIntArray* new_size);
    void (*ReportError)(struct TfLiteContext* context, const char* msg, ...);
    TfLiteStatus (*AddTensors)(struct TfLiteContext* context, int tensors_to_add, int* first_new_tensor_index);
    TfLiteStatus (*GetNodeAndRegistration)(struct TfLiteContext* context, int node_index, TfLiteNode** node,
                                           TfLiteRegistration** registration);
    TfLiteStatus (*ReplaceNodeSubsetsWithDelegateKernels)(struct TfLiteContext* context,
                                                          TfLiteRegistration registration,
                                                          const TfLiteIntArray* nodes_to_replace,
                                                          struct TfLiteDelegate* delegate);
    int recommended_num_threads;
    void* (*GetExternalContext)(struct TfLiteContext* context, int type);
    void (*SetExternalContext)(struct TfLiteContext* context, int type, void* external_context);
    bool allow_fp32_relax_to_fp16;
    void* profiler;
    void* (*AllocatePersistentBuffer)(struct TfLiteContext* context, size_t bytes);
    TfLiteStatus (*AllocateBufferForEval)(struct TfLiteContext* context, size_t bytes, void** ptr);
    TfLiteStatus (*RequestScratchBufferInArena)(struct TfLiteContext* context, size_t bytes, int* buffer_idx);
    void* (*GetScratchBuffer)(struct TfLiteContext* context, int buffer_idx);
    TfLiteStatus (*ResizeTensorExplicit)(struct TfLiteContext* context, TfLiteTensor* tensor, int dims,
                                         const int* shape);
    TfLiteStatus (*PreviewDelegatePartitioning)(struct TfLiteContext* context, const TfLiteIntArray* nodes_to_replace,
                                                TfLiteDelegateParams** partition_params_array, int* num_partitions);
    TfLiteTensor* (*GetTensor)(const struct TfLiteContext* context, int tensor_idx);
    void* (*GetEvalTensor)(const struct TfLiteContext* context, int tensor_idx);
    TfLiteStatus (*GetModelMetadata)(const struct TfLiteContext* context, const char* name, const char** ptr,
                                     size_t* bytes);
    TfLiteStatus (*AcquireSubgraphContext)(struct TfLiteContext* context, int subgraph_index,
                                           struct TfLiteContext** acquired_context);
    TfLiteStatus (*ReleaseSubgraphContext)(struct TfLiteContext* context, int subgraph_index);
} TfLiteContext;

typedef enum TfLiteDelegateFlags {
    kTfLiteDelegateFlagsNone = 0,
    kTfLiteDelegateFlagsAllowDynamicTensors = 1,
    kTfLiteDelegateFlagsRequirePropagatedShapes = 2,
    kTfLiteDelegateFlagsPerOperatorProfiling = 4,
} TfLiteDelegateFlags;

typedef struct TfLiteDelegate {
    void* data_;
    TfLiteStatus (*Prepare)(TfLiteContext* context, struct TfLiteDelegate* delegate);
    TfLiteStatus (*CopyFromBufferHandle)(TfLiteContext* context, struct TfLiteDelegate* delegate,
                                         TfLiteBufferHandle buffer_handle, TfLiteTensor* tensor);
    TfLiteStatus (*CopyToBufferHandle)(TfLiteContext* context, struct TfLiteDelegate* delegate,
                                       TfLiteBufferHandle buffer_handle, TfLiteTensor* tensor);
    void (*FreeBufferHandle)(TfLiteContext* context, struct TfLiteDelegate* delegate, TfLiteBufferHandle* handle);
    int64_t flags;
    void* opaque_delegate_builder;  // TfLiteOpaqueDelegateBuilder*; null for a plain delegate
} TfLiteDelegate;

// builtin_data of the operators the vx delegate reads (builtin_op_data.h).
typedef enum TfLitePadding {
    kTfLitePaddingUnknown = 0,
    kTfLitePaddingSame = 1,
    kTfLitePaddingValid = 2,
} TfLitePadding;

typedef enum TfLiteFusedActivation {
    kTfLiteActNone = 0,
    kTfLiteActRelu = 1,
    kTfLiteActReluN1To1 = 2,
    kTfLiteActRelu6 = 3,
    kTfLiteActTanh = 4,
    kTfLiteActSignBit = 5,
    kTfLiteActSigmoid = 6,
} TfLiteFusedActivation;

typedef struct TfLitePaddingValues {
    int width;
    int height;
    int width_offset;
    int height_offset;
} TfLitePaddingValues;

// The activation comes before the dilations (the version-1 fields first).
typedef struct TfLiteConvParams {
    TfLitePadding padding;
    int stride_width;
    int stride_height;
    TfLiteFusedActivation activation;
    int dilation_width_factor;
    int dilation_height_factor;
} TfLiteConvParams;

typedef struct TfLiteConv3DParams {
    TfLitePadding padding;
    int stride_width;
    int stride_height;
    int stride_depth;
    int dilation_width_factor;
    int dilation_height_factor;
    int dilation_depth_factor;
    TfLiteFusedActivation activation;
} TfLiteConv3DParams;

typedef TfLiteConv3DParams TfLiteConv3DTransposeParams;

typedef struct TfLiteDepthwiseConvParams {
    TfLitePadding padding;
    int stride_width;
    int stride_height;
    int depth_multiplier;
    TfLiteFusedActivation activation;
    int dilation_width_factor;
    int dilation_height_factor;
} TfLiteDepthwiseConvParams;

typedef struct TfLitePoolParams {
    TfLitePadding padding;
    int stride_width;
    int stride_height;
    int filter_width;
    int filter_height;
    TfLiteFusedActivation activation;
    struct {
        TfLitePaddingValues padding;
    } computed;
} TfLitePoolParams;

typedef enum TfLiteFullyConnectedWeightsFormat {
    kTfLiteFullyConnectedWeightsFormatDefault = 0,
    kTfLiteFullyConnectedWeightsFormatShuffled4x16Int8 = 1,
} TfLiteFullyConnectedWeightsFormat;

typedef struct TfLiteFullyConnectedParams {
    TfLiteFusedActivation activation;
    TfLiteFullyConnectedWeightsFormat weights_format;
    bool keep_num_dims;
    bool asymmetric_quantize_inputs;
} TfLiteFullyConnectedParams;

typedef struct TfLiteSoftmaxParams {
    float beta;
} TfLiteSoftmaxParams;

#define NNEMU_TFLITE_RESHAPE_MAX_DIMENSIONS 8
typedef struct TfLiteReshapeParams {
    int shape[NNEMU_TFLITE_RESHAPE_MAX_DIMENSIONS];
    int num_dimensions;
} TfLiteReshapeParams;

typedef struct TfLiteAddParams {
    TfLiteFusedActivation activation;
    bool pot_scale_int16;
} TfLiteAddParams;

typedef struct TfLiteMulParams {
    TfLiteFusedActivation activation;
} TfLiteMulParams;

typedef struct TfLiteSubParams {
    TfLiteFusedActivation activation;
    bool pot_scale_int16;
} TfLiteSubParams;

typedef struct TfLiteConcatenationParams {
    int axis;
    TfLiteFusedActivation activation;
} TfLiteConcatenationParams;

typedef struct TfLiteReducerParams {
    bool keep_dims;
} TfLiteReducerParams;

typedef struct TfLiteSplitParams {
    int num_splits;
} TfLiteSplitParams;

typedef struct TfLiteSplitVParams {
    int num_splits;
} TfLiteSplitVParams;

#define NNEMU_TFLITE_SQUEEZE_MAX_DIMENSIONS 8
typedef struct TfLiteSqueezeParams {
    int squeeze_dims[NNEMU_TFLITE_SQUEEZE_MAX_DIMENSIONS];
    int num_squeeze_dims;
} TfLiteSqueezeParams;

typedef struct TfLiteResizeBilinearParams {
    bool align_corners;
    bool half_pixel_centers;
} TfLiteResizeBilinearParams;

typedef struct TfLiteResizeNearestNeighborParams {
    bool align_corners;
    bool half_pixel_centers;
} TfLiteResizeNearestNeighborParams;

typedef struct TfLiteGatherParams {
    int axis;
    int batch_dims;
} TfLiteGatherParams;

typedef struct TfLiteArgMaxParams {
    TfLiteType output_type;
} TfLiteArgMaxParams;

typedef struct TfLiteArgMinParams {
    TfLiteType output_type;
} TfLiteArgMinParams;

typedef struct TfLiteDivParams {
    TfLiteFusedActivation activation;
} TfLiteDivParams;

typedef struct TfLiteL2NormParams {
    TfLiteFusedActivation activation;
} TfLiteL2NormParams;

typedef struct TfLiteLocalResponseNormParams {
    int radius;
    float bias;
    float alpha;
    float beta;
} TfLiteLocalResponseNormParams;

// `offset` since TensorFlow Lite 2.13; the hosts this ABI targets (2.15+) all have it.
typedef struct TfLiteStridedSliceParams {
    int begin_mask;
    int end_mask;
    int ellipsis_mask;
    int new_axis_mask;
    int shrink_axis_mask;
    bool offset;
} TfLiteStridedSliceParams;

typedef struct TfLiteDepthToSpaceParams {
    int block_size;
} TfLiteDepthToSpaceParams;

typedef struct TfLiteSpaceToDepthParams {
    int block_size;
} TfLiteSpaceToDepthParams;

// `activation` since TensorFlow Lite 2.12.
typedef struct TfLiteTransposeConvParams {
    TfLitePadding padding;
    int stride_width;
    int stride_height;
    TfLiteFusedActivation activation;
} TfLiteTransposeConvParams;

typedef struct TfLiteShapeParams {
    TfLiteType out_type;
} TfLiteShapeParams;

typedef struct TfLiteUnpackParams {
    int num;
    int axis;
} TfLiteUnpackParams;

// Shape and indexing builtins (the tools' CPU kernels).
typedef struct TfLiteOneHotParams {
    int axis;
} TfLiteOneHotParams;

typedef struct TfLiteUniqueParams {
    TfLiteType index_out_type;
} TfLiteUniqueParams;

typedef struct TfLiteReverseSequenceParams {
    int seq_dim;
    int batch_dim;
} TfLiteReverseSequenceParams;

typedef struct TfLiteCumsumParams {
    bool exclusive;
    bool reverse;
} TfLiteCumsumParams;

typedef struct TfLiteIfParams {
    int then_subgraph_index;
    int else_subgraph_index;
} TfLiteIfParams;

typedef struct TfLiteWhileParams {
    int cond_subgraph_index;
    int body_subgraph_index;
} TfLiteWhileParams;

typedef struct TfLiteRNNParams {
    TfLiteFusedActivation activation;
    bool asymmetric_quantize_inputs;
} TfLiteRNNParams;

typedef struct TfLiteSVDFParams {
    int rank;
    TfLiteFusedActivation activation;
    bool asymmetric_quantize_inputs;
} TfLiteSVDFParams;

typedef enum {
    kTfLiteLSTMFullKernel = 0,
    kTfLiteLSTMBasicKernel,
} TfLiteLSTMKernelType;

typedef struct TfLiteLSTMParams {
    TfLiteFusedActivation activation;
    float cell_clip;
    float proj_clip;
    TfLiteLSTMKernelType kernel_type;
    bool asymmetric_quantize_inputs;
} TfLiteLSTMParams;

typedef struct TfLiteSequenceRNNParams {
    bool time_major;
    TfLiteFusedActivation activation;
    bool asymmetric_quantize_inputs;
} TfLiteSequenceRNNParams;

typedef struct TfLiteBidirectionalSequenceRNNParams {
    bool time_major;
    TfLiteFusedActivation activation;
    bool merge_outputs;
    bool asymmetric_quantize_inputs;
} TfLiteBidirectionalSequenceRNNParams;

typedef struct TfLiteUnidirectionalSequenceLSTMParams {
    TfLiteFusedActivation activation;
    float cell_clip;
    float proj_clip;
    bool time_major;
    bool asymmetric_quantize_inputs;
    bool diagonal_recurrent_tensors;
} TfLiteUnidirectionalSequenceLSTMParams;

typedef struct TfLiteBidirectionalSequenceLSTMParams {
    TfLiteFusedActivation activation;
    float cell_clip;
    float proj_clip;
    bool merge_outputs;
    bool time_major;
    bool asymmetric_quantize_inputs;
} TfLiteBidirectionalSequenceLSTMParams;

typedef enum {
    kTfLiteLshProjectionUnknown = 0,
    kTfLiteLshProjectionSparse = 1,
    kTfLiteLshProjectionDense = 2,
} TfLiteLSHProjectionType;

typedef struct TfLiteLSHProjectionParams {
    TfLiteLSHProjectionType type;
} TfLiteLSHProjectionParams;

// Resource variables and their initialization (VAR_HANDLE, CALL_ONCE).
typedef struct TfLiteVarHandleParams {
    const char* container;     // not owned: the model's strings, nullptr when absent
    const char* shared_name;
} TfLiteVarHandleParams;

typedef struct TfLiteCallOnceParams {
    int init_subgraph_index;
} TfLiteCallOnceParams;

// Hashtables (HASHTABLE) and SKIP_GRAM.
typedef struct TfLiteHashtableParams {
    int table_id;
    TfLiteType key_dtype;
    TfLiteType value_dtype;
} TfLiteHashtableParams;

typedef struct TfLiteSkipGramParams {
    int ngram_size;
    int max_skip_size;
    bool include_all_ngrams;
} TfLiteSkipGramParams;

typedef struct TfLiteBucketizeParams {
    const float* boundaries;   // not owned: the model's data
    int num_boundaries;
} TfLiteBucketizeParams;

// Elementwise CPU kernels' options.
typedef struct TfLiteGeluParams {
    bool approximate;
} TfLiteGeluParams;

typedef struct TfLiteFakeQuantParams {
    float min;
    float max;
    int num_bits;
    bool narrow_range;
} TfLiteFakeQuantParams;

// Parameters of builtins lowered as TFLite's NNAPI delegate lowers them (LEAKY_RELU, PACK,
// MIRROR_PAD, BATCH_MATMUL).
typedef struct TfLiteLeakyReluParams {
    float alpha;
} TfLiteLeakyReluParams;

typedef struct TfLitePackParams {
    int values_count;
    int axis;
} TfLitePackParams;

typedef enum {
    kTfLiteMirrorPaddingUnknown = 0,
    kTfLiteMirrorPaddingReflect,
    kTfLiteMirrorPaddingSymmetric,
} TfLiteMirrorPaddingMode;

typedef struct TfLiteMirrorPaddingParams {
    TfLiteMirrorPaddingMode mode;
} TfLiteMirrorPaddingParams;

typedef struct TfLiteBatchMatMulParams {
    bool adj_x;
    bool adj_y;
    bool asymmetric_quantize_inputs;
} TfLiteBatchMatMulParams;

// The plugin entry points TFLite's external delegate loader looks up with dlsym.
typedef TfLiteDelegate* (*TfLitePluginCreateDelegate)(char** options_keys, char** options_values, size_t num_options,
                                                      void (*report_error)(const char*));
typedef void (*TfLitePluginDestroyDelegate)(TfLiteDelegate* delegate);

#ifdef __cplusplus
}  // extern "C"

// The LP64 layout both sides rely on.
static_assert(sizeof(void*) == 8 && sizeof(size_t) == 8 && sizeof(int) == 4, "LP64 only");
static_assert(sizeof(TfLiteIntArray) == 4 && offsetof(TfLiteIntArray, size) == 0 && offsetof(TfLiteIntArray, data) == 4);
static_assert(sizeof(TfLiteFloatArray) == 4 && offsetof(TfLiteFloatArray, size) == 0 &&
              offsetof(TfLiteFloatArray, data) == 4);
static_assert(sizeof(TfLiteQuantizationParams) == 8 && offsetof(TfLiteQuantizationParams, scale) == 0 &&
              offsetof(TfLiteQuantizationParams, zero_point) == 4);
static_assert(sizeof(TfLiteQuantization) == 16 && offsetof(TfLiteQuantization, type) == 0 &&
              offsetof(TfLiteQuantization, params) == 8);
static_assert(offsetof(TfLiteAffineQuantization, scale) == 0 && offsetof(TfLiteAffineQuantization, zero_point) == 8 &&
              offsetof(TfLiteAffineQuantization, quantized_dimension) == 16);
static_assert(sizeof(TfLitePtrUnion) == 8);
static_assert(offsetof(TfLiteTensor, type) == 0 && offsetof(TfLiteTensor, data) == 8 &&
              offsetof(TfLiteTensor, dims) == 16 && offsetof(TfLiteTensor, params) == 24 &&
              offsetof(TfLiteTensor, allocation_type) == 32 && offsetof(TfLiteTensor, bytes) == 40 &&
              offsetof(TfLiteTensor, allocation) == 48 && offsetof(TfLiteTensor, name) == 56 &&
              offsetof(TfLiteTensor, delegate) == 64 && offsetof(TfLiteTensor, buffer_handle) == 72 &&
              offsetof(TfLiteTensor, data_is_stale) == 76 && offsetof(TfLiteTensor, is_variable) == 77 &&
              offsetof(TfLiteTensor, quantization) == 80 && offsetof(TfLiteTensor, sparsity) == 96 &&
              offsetof(TfLiteTensor, dims_signature) == 104);
// The host's tensors array is indexed with this stride.
static_assert(sizeof(TfLiteTensor) == 112);
static_assert(offsetof(TfLiteNode, inputs) == 0 && offsetof(TfLiteNode, outputs) == 8 &&
              offsetof(TfLiteNode, intermediates) == 16 && offsetof(TfLiteNode, temporaries) == 24 &&
              offsetof(TfLiteNode, user_data) == 32 && offsetof(TfLiteNode, builtin_data) == 40 &&
              offsetof(TfLiteNode, custom_initial_data) == 48 &&
              offsetof(TfLiteNode, custom_initial_data_size) == 56 && offsetof(TfLiteNode, delegate) == 64 &&
              offsetof(TfLiteNode, might_have_side_effect) == 72);
static_assert(offsetof(TfLiteRegistration, init) == 0 && offsetof(TfLiteRegistration, free) == 8 &&
              offsetof(TfLiteRegistration, prepare) == 16 && offsetof(TfLiteRegistration, invoke) == 24 &&
              offsetof(TfLiteRegistration, profiling_string) == 32 &&
              offsetof(TfLiteRegistration, builtin_code) == 40 && offsetof(TfLiteRegistration, custom_name) == 48 &&
              offsetof(TfLiteRegistration, version) == 56 &&
              offsetof(TfLiteRegistration, registration_external) == 64 &&
              offsetof(TfLiteRegistration, async_kernel) == 72 &&
              offsetof(TfLiteRegistration, inplace_operator) == 80);
// Passed by value to ReplaceNodeSubsetsWithDelegateKernels: its size is part of the call ABI.
static_assert(sizeof(TfLiteRegistration) == 88);
static_assert(sizeof(TfLiteDelegateParams) == 32 && offsetof(TfLiteDelegateParams, delegate) == 0 &&
              offsetof(TfLiteDelegateParams, nodes_to_replace) == 8 &&
              offsetof(TfLiteDelegateParams, input_tensors) == 16 &&
              offsetof(TfLiteDelegateParams, output_tensors) == 24);
static_assert(offsetof(TfLiteContext, tensors_size) == 0 && offsetof(TfLiteContext, GetExecutionPlan) == 8 &&
              offsetof(TfLiteContext, tensors) == 16 && offsetof(TfLiteContext, impl_) == 24 &&
              offsetof(TfLiteContext, ResizeTensor) == 32 && offsetof(TfLiteContext, ReportError) == 40 &&
              offsetof(TfLiteContext, AddTensors) == 48 && offsetof(TfLiteContext, GetNodeAndRegistration) == 56 &&
              offsetof(TfLiteContext, ReplaceNodeSubsetsWithDelegateKernels) == 64 &&
              offsetof(TfLiteContext, recommended_num_threads) == 72 &&
              offsetof(TfLiteContext, GetExternalContext) == 80 && offsetof(TfLiteContext, SetExternalContext) == 88 &&
              offsetof(TfLiteContext, allow_fp32_relax_to_fp16) == 96 && offsetof(TfLiteContext, profiler) == 104 &&
              offsetof(TfLiteContext, AllocatePersistentBuffer) == 112 &&
              offsetof(TfLiteContext, AllocateBufferForEval) == 120 &&
              offsetof(TfLiteContext, RequestScratchBufferInArena) == 128 &&
              offsetof(TfLiteContext, GetScratchBuffer) == 136 && offsetof(TfLiteContext, ResizeTensorExplicit) == 144 &&
              offsetof(TfLiteContext, PreviewDelegatePartitioning) == 152 &&
              offsetof(TfLiteContext, GetTensor) == 160 && offsetof(TfLiteContext, GetEvalTensor) == 168 &&
              offsetof(TfLiteContext, GetModelMetadata) == 176 &&
              offsetof(TfLiteContext, AcquireSubgraphContext) == 184 &&
              offsetof(TfLiteContext, ReleaseSubgraphContext) == 192 && sizeof(TfLiteContext) == 200);
static_assert(offsetof(TfLiteDelegate, data_) == 0 && offsetof(TfLiteDelegate, Prepare) == 8 &&
              offsetof(TfLiteDelegate, CopyFromBufferHandle) == 16 &&
              offsetof(TfLiteDelegate, CopyToBufferHandle) == 24 && offsetof(TfLiteDelegate, FreeBufferHandle) == 32 &&
              offsetof(TfLiteDelegate, flags) == 40 && offsetof(TfLiteDelegate, opaque_delegate_builder) == 48 &&
              sizeof(TfLiteDelegate) == 56);
// builtin_data: every field either side reads or writes, at TFLite's offsets.
#define NNEMU_TFLITE_AT(type, field, offset) (offsetof(type, field) == (offset))
static_assert(NNEMU_TFLITE_AT(TfLiteConvParams, padding, 0) && NNEMU_TFLITE_AT(TfLiteConvParams, stride_width, 4) &&
              NNEMU_TFLITE_AT(TfLiteConvParams, stride_height, 8) && NNEMU_TFLITE_AT(TfLiteConvParams, activation, 12) &&
              NNEMU_TFLITE_AT(TfLiteConvParams, dilation_width_factor, 16) &&
              NNEMU_TFLITE_AT(TfLiteConvParams, dilation_height_factor, 20) && sizeof(TfLiteConvParams) == 24);
static_assert(NNEMU_TFLITE_AT(TfLiteConv3DParams, padding, 0) && NNEMU_TFLITE_AT(TfLiteConv3DParams, stride_width, 4) &&
              NNEMU_TFLITE_AT(TfLiteConv3DParams, stride_height, 8) && NNEMU_TFLITE_AT(TfLiteConv3DParams, stride_depth, 12) &&
              NNEMU_TFLITE_AT(TfLiteConv3DParams, dilation_width_factor, 16) &&
              NNEMU_TFLITE_AT(TfLiteConv3DParams, dilation_height_factor, 20) &&
              NNEMU_TFLITE_AT(TfLiteConv3DParams, dilation_depth_factor, 24) &&
              NNEMU_TFLITE_AT(TfLiteConv3DParams, activation, 28) && sizeof(TfLiteConv3DParams) == 32);
static_assert(NNEMU_TFLITE_AT(TfLiteDepthwiseConvParams, padding, 0) &&
              NNEMU_TFLITE_AT(TfLiteDepthwiseConvParams, stride_width, 4) &&
              NNEMU_TFLITE_AT(TfLiteDepthwiseConvParams, stride_height, 8) &&
              NNEMU_TFLITE_AT(TfLiteDepthwiseConvParams, depth_multiplier, 12) &&
              NNEMU_TFLITE_AT(TfLiteDepthwiseConvParams, activation, 16) &&
              NNEMU_TFLITE_AT(TfLiteDepthwiseConvParams, dilation_width_factor, 20) &&
              NNEMU_TFLITE_AT(TfLiteDepthwiseConvParams, dilation_height_factor, 24) &&
              sizeof(TfLiteDepthwiseConvParams) == 28);
static_assert(NNEMU_TFLITE_AT(TfLitePoolParams, padding, 0) && NNEMU_TFLITE_AT(TfLitePoolParams, stride_width, 4) &&
              NNEMU_TFLITE_AT(TfLitePoolParams, stride_height, 8) && NNEMU_TFLITE_AT(TfLitePoolParams, filter_width, 12) &&
              NNEMU_TFLITE_AT(TfLitePoolParams, filter_height, 16) && NNEMU_TFLITE_AT(TfLitePoolParams, activation, 20) &&
              NNEMU_TFLITE_AT(TfLitePoolParams, computed, 24) && sizeof(TfLitePoolParams) == 40);
static_assert(NNEMU_TFLITE_AT(TfLiteFullyConnectedParams, activation, 0) &&
              NNEMU_TFLITE_AT(TfLiteFullyConnectedParams, weights_format, 4) &&
              NNEMU_TFLITE_AT(TfLiteFullyConnectedParams, keep_num_dims, 8) &&
              NNEMU_TFLITE_AT(TfLiteFullyConnectedParams, asymmetric_quantize_inputs, 9) &&
              sizeof(TfLiteFullyConnectedParams) == 12);
static_assert(NNEMU_TFLITE_AT(TfLiteSoftmaxParams, beta, 0) && sizeof(TfLiteSoftmaxParams) == 4);
static_assert(NNEMU_TFLITE_AT(TfLiteReshapeParams, shape, 0) && NNEMU_TFLITE_AT(TfLiteReshapeParams, num_dimensions, 32) &&
              sizeof(TfLiteReshapeParams) == 36);
static_assert(NNEMU_TFLITE_AT(TfLiteAddParams, activation, 0) && NNEMU_TFLITE_AT(TfLiteAddParams, pot_scale_int16, 4) &&
              sizeof(TfLiteAddParams) == 8);
static_assert(NNEMU_TFLITE_AT(TfLiteSubParams, activation, 0) && NNEMU_TFLITE_AT(TfLiteSubParams, pot_scale_int16, 4) &&
              sizeof(TfLiteSubParams) == 8);
static_assert(NNEMU_TFLITE_AT(TfLiteMulParams, activation, 0) && sizeof(TfLiteMulParams) == 4);
static_assert(NNEMU_TFLITE_AT(TfLiteConcatenationParams, axis, 0) &&
              NNEMU_TFLITE_AT(TfLiteConcatenationParams, activation, 4) && sizeof(TfLiteConcatenationParams) == 8);
static_assert(NNEMU_TFLITE_AT(TfLiteReducerParams, keep_dims, 0) && sizeof(TfLiteReducerParams) == 1);
static_assert(NNEMU_TFLITE_AT(TfLiteSplitParams, num_splits, 0) && sizeof(TfLiteSplitParams) == 4);
static_assert(NNEMU_TFLITE_AT(TfLiteSplitVParams, num_splits, 0) && sizeof(TfLiteSplitVParams) == 4);
static_assert(NNEMU_TFLITE_AT(TfLiteSqueezeParams, squeeze_dims, 0) &&
              NNEMU_TFLITE_AT(TfLiteSqueezeParams, num_squeeze_dims, 32) && sizeof(TfLiteSqueezeParams) == 36);
static_assert(NNEMU_TFLITE_AT(TfLiteResizeBilinearParams, align_corners, 0) &&
              NNEMU_TFLITE_AT(TfLiteResizeBilinearParams, half_pixel_centers, 1) &&
              sizeof(TfLiteResizeBilinearParams) == 2);
static_assert(NNEMU_TFLITE_AT(TfLiteResizeNearestNeighborParams, align_corners, 0) &&
              NNEMU_TFLITE_AT(TfLiteResizeNearestNeighborParams, half_pixel_centers, 1) &&
              sizeof(TfLiteResizeNearestNeighborParams) == 2);
static_assert(NNEMU_TFLITE_AT(TfLiteGatherParams, axis, 0) && NNEMU_TFLITE_AT(TfLiteGatherParams, batch_dims, 4) &&
              sizeof(TfLiteGatherParams) == 8);
static_assert(NNEMU_TFLITE_AT(TfLiteArgMaxParams, output_type, 0) && sizeof(TfLiteArgMaxParams) == 4 &&
              NNEMU_TFLITE_AT(TfLiteArgMinParams, output_type, 0) && sizeof(TfLiteArgMinParams) == 4);
static_assert(NNEMU_TFLITE_AT(TfLiteDivParams, activation, 0) && sizeof(TfLiteDivParams) == 4 &&
              NNEMU_TFLITE_AT(TfLiteL2NormParams, activation, 0) && sizeof(TfLiteL2NormParams) == 4);
static_assert(NNEMU_TFLITE_AT(TfLiteLocalResponseNormParams, radius, 0) &&
              NNEMU_TFLITE_AT(TfLiteLocalResponseNormParams, bias, 4) &&
              NNEMU_TFLITE_AT(TfLiteLocalResponseNormParams, alpha, 8) &&
              NNEMU_TFLITE_AT(TfLiteLocalResponseNormParams, beta, 12) && sizeof(TfLiteLocalResponseNormParams) == 16);
static_assert(NNEMU_TFLITE_AT(TfLiteStridedSliceParams, begin_mask, 0) &&
              NNEMU_TFLITE_AT(TfLiteStridedSliceParams, end_mask, 4) &&
              NNEMU_TFLITE_AT(TfLiteStridedSliceParams, ellipsis_mask, 8) &&
              NNEMU_TFLITE_AT(TfLiteStridedSliceParams, new_axis_mask, 12) &&
              NNEMU_TFLITE_AT(TfLiteStridedSliceParams, shrink_axis_mask, 16) &&
              NNEMU_TFLITE_AT(TfLiteStridedSliceParams, offset, 20) && sizeof(TfLiteStridedSliceParams) == 24);
static_assert(NNEMU_TFLITE_AT(TfLiteDepthToSpaceParams, block_size, 0) && sizeof(TfLiteDepthToSpaceParams) == 4 &&
              NNEMU_TFLITE_AT(TfLiteSpaceToDepthParams, block_size, 0) && sizeof(TfLiteSpaceToDepthParams) == 4);
static_assert(NNEMU_TFLITE_AT(TfLiteTransposeConvParams, padding, 0) &&
              NNEMU_TFLITE_AT(TfLiteTransposeConvParams, stride_width, 4) &&
              NNEMU_TFLITE_AT(TfLiteTransposeConvParams, stride_height, 8) &&
              NNEMU_TFLITE_AT(TfLiteTransposeConvParams, activation, 12) && sizeof(TfLiteTransposeConvParams) == 16);
static_assert(NNEMU_TFLITE_AT(TfLiteShapeParams, out_type, 0) && sizeof(TfLiteShapeParams) == 4 &&
              NNEMU_TFLITE_AT(TfLiteUnpackParams, num, 0) && NNEMU_TFLITE_AT(TfLiteUnpackParams, axis, 4) &&
              sizeof(TfLiteUnpackParams) == 8);
static_assert(NNEMU_TFLITE_AT(TfLiteIfParams, then_subgraph_index, 0) &&
              NNEMU_TFLITE_AT(TfLiteIfParams, else_subgraph_index, 4) && sizeof(TfLiteIfParams) == 8 &&
              NNEMU_TFLITE_AT(TfLiteWhileParams, cond_subgraph_index, 0) &&
              NNEMU_TFLITE_AT(TfLiteWhileParams, body_subgraph_index, 4) && sizeof(TfLiteWhileParams) == 8);
static_assert(NNEMU_TFLITE_AT(TfLiteRNNParams, activation, 0) &&
              NNEMU_TFLITE_AT(TfLiteRNNParams, asymmetric_quantize_inputs, 4) && sizeof(TfLiteRNNParams) == 8 &&
              NNEMU_TFLITE_AT(TfLiteSVDFParams, rank, 0) && NNEMU_TFLITE_AT(TfLiteSVDFParams, activation, 4) &&
              NNEMU_TFLITE_AT(TfLiteSVDFParams, asymmetric_quantize_inputs, 8) && sizeof(TfLiteSVDFParams) == 12);
static_assert(NNEMU_TFLITE_AT(TfLiteLSTMParams, activation, 0) && NNEMU_TFLITE_AT(TfLiteLSTMParams, cell_clip, 4) &&
              NNEMU_TFLITE_AT(TfLiteLSTMParams, proj_clip, 8) && NNEMU_TFLITE_AT(TfLiteLSTMParams, kernel_type, 12) &&
              NNEMU_TFLITE_AT(TfLiteLSTMParams, asymmetric_quantize_inputs, 16) && sizeof(TfLiteLSTMParams) == 20);
static_assert(NNEMU_TFLITE_AT(TfLiteSequenceRNNParams, time_major, 0) &&
              NNEMU_TFLITE_AT(TfLiteSequenceRNNParams, activation, 4) &&
              NNEMU_TFLITE_AT(TfLiteSequenceRNNParams, asymmetric_quantize_inputs, 8) &&
              sizeof(TfLiteSequenceRNNParams) == 12);
static_assert(NNEMU_TFLITE_AT(TfLiteBidirectionalSequenceRNNParams, time_major, 0) &&
              NNEMU_TFLITE_AT(TfLiteBidirectionalSequenceRNNParams, activation, 4) &&
              NNEMU_TFLITE_AT(TfLiteBidirectionalSequenceRNNParams, merge_outputs, 8) &&
              NNEMU_TFLITE_AT(TfLiteBidirectionalSequenceRNNParams, asymmetric_quantize_inputs, 9) &&
              sizeof(TfLiteBidirectionalSequenceRNNParams) == 12);
static_assert(NNEMU_TFLITE_AT(TfLiteUnidirectionalSequenceLSTMParams, activation, 0) &&
              NNEMU_TFLITE_AT(TfLiteUnidirectionalSequenceLSTMParams, cell_clip, 4) &&
              NNEMU_TFLITE_AT(TfLiteUnidirectionalSequenceLSTMParams, proj_clip, 8) &&
              NNEMU_TFLITE_AT(TfLiteUnidirectionalSequenceLSTMParams, time_major, 12) &&
              NNEMU_TFLITE_AT(TfLiteUnidirectionalSequenceLSTMParams, asymmetric_quantize_inputs, 13) &&
              NNEMU_TFLITE_AT(TfLiteUnidirectionalSequenceLSTMParams, diagonal_recurrent_tensors, 14) &&
              sizeof(TfLiteUnidirectionalSequenceLSTMParams) == 16);
static_assert(NNEMU_TFLITE_AT(TfLiteBidirectionalSequenceLSTMParams, activation, 0) &&
              NNEMU_TFLITE_AT(TfLiteBidirectionalSequenceLSTMParams, cell_clip, 4) &&
              NNEMU_TFLITE_AT(TfLiteBidirectionalSequenceLSTMParams, proj_clip, 8) &&
              NNEMU_TFLITE_AT(TfLiteBidirectionalSequenceLSTMParams, merge_outputs, 12) &&
              NNEMU_TFLITE_AT(TfLiteBidirectionalSequenceLSTMParams, time_major, 13) &&
              NNEMU_TFLITE_AT(TfLiteBidirectionalSequenceLSTMParams, asymmetric_quantize_inputs, 14) &&
              sizeof(TfLiteBidirectionalSequenceLSTMParams) == 16);
static_assert(NNEMU_TFLITE_AT(TfLiteGeluParams, approximate, 0) && sizeof(TfLiteGeluParams) == 1);
static_assert(NNEMU_TFLITE_AT(TfLiteLSHProjectionParams, type, 0) && sizeof(TfLiteLSHProjectionParams) == 4);
static_assert(NNEMU_TFLITE_AT(TfLiteBucketizeParams, boundaries, 0) &&
              NNEMU_TFLITE_AT(TfLiteBucketizeParams, num_boundaries, 8) && sizeof(TfLiteBucketizeParams) == 16);
static_assert(NNEMU_TFLITE_AT(TfLiteFakeQuantParams, min, 0) && NNEMU_TFLITE_AT(TfLiteFakeQuantParams, max, 4) &&
              NNEMU_TFLITE_AT(TfLiteFakeQuantParams, num_bits, 8) &&
              NNEMU_TFLITE_AT(TfLiteFakeQuantParams, narrow_range, 12) && sizeof(TfLiteFakeQuantParams) == 16);
static_assert(NNEMU_TFLITE_AT(TfLiteLeakyReluParams, alpha, 0) && sizeof(TfLiteLeakyReluParams) == 4 &&
              NNEMU_TFLITE_AT(TfLitePackParams, values_count, 0) && NNEMU_TFLITE_AT(TfLitePackParams, axis, 4) &&
              sizeof(TfLitePackParams) == 8);
static_assert(NNEMU_TFLITE_AT(TfLiteMirrorPaddingParams, mode, 0) && sizeof(TfLiteMirrorPaddingParams) == 4 &&
              kTfLiteMirrorPaddingReflect == 1 && kTfLiteMirrorPaddingSymmetric == 2);
static_assert(NNEMU_TFLITE_AT(TfLiteBatchMatMulParams, adj_x, 0) && NNEMU_TFLITE_AT(TfLiteBatchMatMulParams, adj_y, 1) &&
              NNEMU_TFLITE_AT(TfLiteBatchMatMulParams, asymmetric_quantize_inputs, 2) &&
              sizeof(TfLiteBatchMatMulParams) == 3);
static_assert(NNEMU_TFLITE_AT(TfLiteOneHotParams, axis, 0) && sizeof(TfLiteOneHotParams) == 4 &&
              NNEMU_TFLITE_AT(TfLiteUniqueParams, index_out_type, 0) && sizeof(TfLiteUniqueParams) == 4 &&
              NNEMU_TFLITE_AT(TfLiteReverseSequenceParams, seq_dim, 0) &&
              NNEMU_TFLITE_AT(TfLiteReverseSequenceParams, batch_dim, 4) && sizeof(TfLiteReverseSequenceParams) == 8 &&
              NNEMU_TFLITE_AT(TfLiteCumsumParams, exclusive, 0) && NNEMU_TFLITE_AT(TfLiteCumsumParams, reverse, 1) &&
              sizeof(TfLiteCumsumParams) == 2);
static_assert(NNEMU_TFLITE_AT(TfLiteVarHandleParams, container, 0) &&
              NNEMU_TFLITE_AT(TfLiteVarHandleParams, shared_name, 8) && sizeof(TfLiteVarHandleParams) == 16 &&
              NNEMU_TFLITE_AT(TfLiteCallOnceParams, init_subgraph_index, 0) && sizeof(TfLiteCallOnceParams) == 4);
#undef NNEMU_TFLITE_AT
#endif
