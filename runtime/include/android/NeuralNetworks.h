/*
 * nnemu: public NNAPI C interface. The constants of every feature level through 8; the
 * functions of a level are declared when the application asks for that API level (see
 * NNEMU_NNAPI_API_LEVEL below).
 *
 * Source-compatible with the Android NDK <android/NeuralNetworks.h>: same
 * names, values, types and signatures. Written for nnemu; behaviour is
 * described in the project's specification, not here.
 */

#ifndef ANDROID_FRAMEWORKS_ML_NN_RUNTIME_NEURAL_NETWORKS_H
#define ANDROID_FRAMEWORKS_ML_NN_RUNTIME_NEURAL_NETWORKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Android availability annotations have no meaning on Linux. */
#ifndef __INTRODUCED_IN
#define __INTRODUCED_IN(api_level)
#endif
#ifndef __NNAPI_INTRODUCED_IN
#define __NNAPI_INTRODUCED_IN(api_level)
#endif

/* The API level whose functions are declared. On Android it is __ANDROID_API__ (the NDK's
 * minSdkVersion), as the NDK header does. Elsewhere an application may ask for a level by defining
 * __ANDROID_API__ or NNEMU_NNAPI_API_LEVEL; otherwise it sees what this build of libneuralnetworks
 * implements and exports. */
#define NNEMU_NNAPI_IMPLEMENTED_API_LEVEL 33
#ifndef NNEMU_NNAPI_API_LEVEL
#ifdef __ANDROID_API__
#define NNEMU_NNAPI_API_LEVEL __ANDROID_API__
#else
#define NNEMU_NNAPI_API_LEVEL NNEMU_NNAPI_IMPLEMENTED_API_LEVEL
#endif
#endif
#ifndef __NNAPI_FL5_MIN_ANDROID_API__
#define __NNAPI_FL5_MIN_ANDROID_API__ 31
#endif
/* Feature level 8 has no API level of its own; nnemu declares its functions from API 33 (Android 13,
 * whose runtime was the first at feature level 8). */
#ifndef __NNAPI_FL8_MIN_ANDROID_API__
#define __NNAPI_FL8_MIN_ANDROID_API__ 33
#endif

/* Opaque; only meaningful on Android (see <android/hardware_buffer.h>). */
#ifndef ANDROID_HARDWARE_BUFFER_H
typedef struct AHardwareBuffer AHardwareBuffer;
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Operand types (ANeuralNetworksOperandType::type) ---- */
typedef enum {
    ANEURALNETWORKS_FLOAT32 = 0,
    ANEURALNETWORKS_INT32 = 1,
    ANEURALNETWORKS_UINT32 = 2,
    ANEURALNETWORKS_TENSOR_FLOAT32 = 3,
    ANEURALNETWORKS_TENSOR_INT32 = 4,
    ANEURALNETWORKS_TENSOR_QUANT8_ASYMM = 5,
    /* feature level 29 */
    ANEURALNETWORKS_BOOL = 6,
    ANEURALNETWORKS_TENSOR_QUANT16_SYMM = 7,
    ANEURALNETWORKS_TENSOR_FLOAT16 = 8,
    ANEURALNETWORKS_TENSOR_BOOL8 = 9,
    ANEURALNETWORKS_FLOAT16 = 10,
    ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL = 11,
    ANEURALNETWORKS_TENSOR_QUANT16_ASYMM = 12,
    ANEURALNETWORKS_TENSOR_QUANT8_SYMM = 13,
    /* feature level 30 */
    ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED = 14,
    ANEURALNETWORKS_MODEL = 15
} OperandCode;

/* ---- Operation types (ANeuralNetworksModel_addOperation) ---- */
typedef enum {
    /* feature level 27 */
    ANEURALNETWORKS_ADD = 0,
    ANEURALNETWORKS_AVERAGE_POOL_2D = 1,
    ANEURALNETWORKS_CONCATENATION = 2,
    ANEURALNETWORKS_CONV_2D = 3,
    ANEURALNETWORKS_DEPTHWISE_CONV_2D = 4,
    ANEURALNETWORKS_DEPTH_TO_SPACE = 5,
    ANEURALNETWORKS_DEQUANTIZE = 6,
    ANEURALNETWORKS_EMBEDDING_LOOKUP = 7,
    ANEURALNETWORKS_FLOOR = 8,
    ANEURALNETWORKS_FULLY_CONNECTED = 9,
    ANEURALNETWORKS_HASHTABLE_LOOKUP = 10,
    ANEURALNETWORKS_L2_NORMALIZATION = 11,
    ANEURALNETWORKS_L2_POOL_2D = 12,
    ANEURALNETWORKS_LOCAL_RESPONSE_NORMALIZATION = 13,
    ANEURALNETWORKS_LOGISTIC = 14,
    ANEURALNETWORKS_LSH_PROJECTION = 15,
    ANEURALNETWORKS_LSTM = 16,
    ANEURALNETWORKS_MAX_POOL_2D = 17,
    ANEURALNETWORKS_MUL = 18,
    ANEURALNETWORKS_RELU = 19,
    ANEURALNETWORKS_RELU1 = 20,
    ANEURALNETWORKS_RELU6 = 21,
    ANEURALNETWORKS_RESHAPE = 22,
    ANEURALNETWORKS_RESIZE_BILINEAR = 23,
    ANEURALNETWORKS_RNN = 24,
    ANEURALNETWORKS_SOFTMAX = 25,
    ANEURALNETWORKS_SPACE_TO_DEPTH = 26,
    ANEURALNETWORKS_SVDF = 27,
    ANEURALNETWORKS_TANH = 28,
    /* feature level 28 */
    ANEURALNETWORKS_BATCH_TO_SPACE_ND = 29,
    ANEURALNETWORKS_DIV = 30,
    ANEURALNETWORKS_MEAN = 31,
    ANEURALNETWORKS_PAD = 32,
    ANEURALNETWORKS_SPACE_TO_BATCH_ND = 33,
    ANEURALNETWORKS_SQUEEZE = 34,
    ANEURALNETWORKS_STRIDED_SLICE = 35,
    ANEURALNETWORKS_SUB = 36,
    ANEURALNETWORKS_TRANSPOSE = 37,
    /* feature level 29 */
    ANEURALNETWORKS_ABS = 38,
    ANEURALNETWORKS_ARGMAX = 39,
    ANEURALNETWORKS_ARGMIN = 40,
    ANEURALNETWORKS_AXIS_ALIGNED_BBOX_TRANSFORM = 41,
    ANEURALNETWORKS_BIDIRECTIONAL_SEQUENCE_LSTM = 42,
    ANEURALNETWORKS_BIDIRECTIONAL_SEQUENCE_RNN = 43,
    ANEURALNETWORKS_BOX_WITH_NMS_LIMIT = 44,
    ANEURALNETWORKS_CAST = 45,
    ANEURALNETWORKS_CHANNEL_SHUFFLE = 46,
    ANEURALNETWORKS_DETECTION_POSTPROCESSING = 47,
    ANEURALNETWORKS_EQUAL = 48,
    ANEURALNETWORKS_EXP = 49,
    ANEURALNETWORKS_EXPAND_DIMS = 50,
    ANEURALNETWORKS_GATHER = 51,
    ANEURALNETWORKS_GENERATE_PROPOSALS = 52,
    ANEURALNETWORKS_GREATER = 53,
    ANEURALNETWORKS_GREATER_EQUAL = 54,
    ANEURALNETWORKS_GROUPED_CONV_2D = 55,
    ANEURALNETWORKS_HEATMAP_MAX_KEYPOINT = 56,
    ANEURALNETWORKS_INSTANCE_NORMALIZATION = 57,
    ANEURALNETWORKS_LESS = 58,
    ANEURALNETWORKS_LESS_EQUAL = 59,
    ANEURALNETWORKS_LOG = 60,
    ANEURALNETWORKS_LOGICAL_AND = 61,
    ANEURALNETWORKS_LOGICAL_NOT = 62,
    ANEURALNETWORKS_LOGICAL_OR = 63,
    ANEURALNETWORKS_LOG_SOFTMAX = 64,
    ANEURALNETWORKS_MAXIMUM = 65,
    ANEURALNETWORKS_MINIMUM = 66,
    ANEURALNETWORKS_NEG = 67,
    ANEURALNETWORKS_NOT_EQUAL = 68,
    ANEURALNETWORKS_PAD_V2 = 69,
    ANEURALNETWORKS_POW = 70,
    ANEURALNETWORKS_PRELU = 71,
    ANEURALNETWORKS_QUANTIZE = 72,
    ANEURALNETWORKS_QUANTIZED_16BIT_LSTM = 73,
    ANEURALNETWORKS_RANDOM_MULTINOMIAL = 74,
    ANEURALNETWORKS_REDUCE_ALL = 75,
    ANEURALNETWORKS_REDUCE_ANY = 76,
    ANEURALNETWORKS_REDUCE_MAX = 77,
    ANEURALNETWORKS_REDUCE_MIN = 78,
    ANEURALNETWORKS_REDUCE_PROD = 79,
    ANEURALNETWORKS_REDUCE_SUM = 80,
    ANEURALNETWORKS_ROI_ALIGN = 81,
    ANEURALNETWORKS_ROI_POOLING = 82,
    ANEURALNETWORKS_RSQRT = 83,
    ANEURALNETWORKS_SELECT = 84,
    ANEURALNETWORKS_SIN = 85,
    ANEURALNETWORKS_SLICE = 86,
    ANEURALNETWORKS_SPLIT = 87,
    ANEURALNETWORKS_SQRT = 88,
    ANEURALNETWORKS_TILE = 89,
    ANEURALNETWORKS_TOPK_V2 = 90,
    ANEURALNETWORKS_TRANSPOSE_CONV_2D = 91,
    ANEURALNETWORKS_UNIDIRECTIONAL_SEQUENCE_LSTM = 92,
    ANEURALNETWORKS_UNIDIRECTIONAL_SEQUENCE_RNN = 93,
    ANEURALNETWORKS_RESIZE_NEAREST_NEIGHBOR = 94,
    /* feature level 30 */
    ANEURALNETWORKS_QUANTIZED_LSTM = 95,
    ANEURALNETWORKS_IF = 96,
    ANEURALNETWORKS_WHILE = 97,
    ANEURALNETWORKS_ELU = 98,
    ANEURALNETWORKS_HARD_SWISH = 99,
    ANEURALNETWORKS_FILL = 100,
    ANEURALNETWORKS_RANK = 101,
    /* feature level 6 */
    ANEURALNETWORKS_BATCH_MATMUL = 102,
    ANEURALNETWORKS_PACK = 103,
    /* feature level 7 */
    ANEURALNETWORKS_MIRROR_PAD = 104,
    ANEURALNETWORKS_REVERSE = 105
} OperationCode;

/* ---- Fused activation function (scalar INT32 operand) ---- */
typedef enum {
    ANEURALNETWORKS_FUSED_NONE = 0,
    ANEURALNETWORKS_FUSED_RELU = 1,
    ANEURALNETWORKS_FUSED_RELU1 = 2,
    ANEURALNETWORKS_FUSED_RELU6 = 3
} FuseCode;

/* ---- Implicit padding scheme (0 is not a valid value) ---- */
typedef enum {
    ANEURALNETWORKS_PADDING_SAME = 1,
    ANEURALNETWORKS_PADDING_VALID = 2
} PaddingCode;

/* ---- Compilation preference (ANeuralNetworksCompilation_setPreference) ---- */
typedef enum {
    ANEURALNETWORKS_PREFER_LOW_POWER = 0,
    ANEURALNETWORKS_PREFER_FAST_SINGLE_ANSWER = 1,
    ANEURALNETWORKS_PREFER_SUSTAINED_SPEED = 2
} PreferenceCode;

/* ---- Device kind (ANeuralNetworksDevice_getType), feature level 29 ---- */
typedef enum {
    ANEURALNETWORKS_DEVICE_UNKNOWN = 0,
    ANEURALNETWORKS_DEVICE_OTHER = 1,
    ANEURALNETWORKS_DEVICE_CPU = 2,
    ANEURALNETWORKS_DEVICE_GPU = 3,
    ANEURALNETWORKS_DEVICE_ACCELERATOR = 4
} DeviceTypeCode;

/* ---- Result codes returned by every int-valued function ---- */
typedef enum {
    ANEURALNETWORKS_NO_ERROR = 0,
    ANEURALNETWORKS_OUT_OF_MEMORY = 1,
    ANEURALNETWORKS_INCOMPLETE = 2,
    ANEURALNETWORKS_UNEXPECTED_NULL = 3,
    ANEURALNETWORKS_BAD_DATA = 4,
    ANEURALNETWORKS_OP_FAILED = 5,
    ANEURALNETWORKS_BAD_STATE = 6,
    ANEURALNETWORKS_UNMAPPABLE = 7,
    ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE = 8,
    ANEURALNETWORKS_UNAVAILABLE_DEVICE = 9,
    /* feature level 30 */
    ANEURALNETWORKS_MISSED_DEADLINE_TRANSIENT = 10,
    ANEURALNETWORKS_MISSED_DEADLINE_PERSISTENT = 11,
    ANEURALNETWORKS_RESOURCE_EXHAUSTED_TRANSIENT = 12,
    ANEURALNETWORKS_RESOURCE_EXHAUSTED_PERSISTENT = 13,
    ANEURALNETWORKS_DEAD_OBJECT = 14
} ResultCode;

/* Values of at most this many bytes are copied by ANeuralNetworksModel_setOperandValue. */
enum { ANEURALNETWORKS_MAX_SIZE_OF_IMMEDIATELY_COPIED_VALUES = 128 };

/* Length in bytes of the token given to ANeuralNetworksCompilation_setCaching. */
enum { ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN = 32 };

/* ---- Duration kinds (ANeuralNetworksExecution_getDuration), feature level 29 ---- */
typedef enum {
    ANEURALNETWORKS_DURATION_ON_HARDWARE = 0,
    ANEURALNETWORKS_DURATION_IN_DRIVER = 1,
    /* feature level 30: fenced executions, counted from when the dependencies signalled */
    ANEURALNETWORKS_FENCED_DURATION_ON_HARDWARE = 2,
    ANEURALNETWORKS_FENCED_DURATION_IN_DRIVER = 3
} DurationCode;

/* ---- Relative execution priority (ANeuralNetworksCompilation_setPriority), feature level 30 ---- */
typedef enum {
    ANEURALNETWORKS_PRIORITY_LOW = 90,
    ANEURALNETWORKS_PRIORITY_MEDIUM = 100,
    ANEURALNETWORKS_PRIORITY_HIGH = 110,
    ANEURALNETWORKS_PRIORITY_DEFAULT = ANEURALNETWORKS_PRIORITY_MEDIUM
} PriorityCode;

/* ---- NNAPI feature levels (ANeuralNetworks_getRuntimeFeatureLevel), feature level 5 ---- */
typedef enum {
    ANEURALNETWORKS_FEATURE_LEVEL_1 = 27,
    ANEURALNETWORKS_FEATURE_LEVEL_2 = 28,
    ANEURALNETWORKS_FEATURE_LEVEL_3 = 29,
    ANEURALNETWORKS_FEATURE_LEVEL_4 = 30,
    ANEURALNETWORKS_FEATURE_LEVEL_5 = 31,
    ANEURALNETWORKS_FEATURE_LEVEL_6 = 1000006,
    ANEURALNETWORKS_FEATURE_LEVEL_7 = 1000007,
    ANEURALNETWORKS_FEATURE_LEVEL_8 = 1000008
} FeatureLevelCode;

/* ---- Opaque handles ---- */
typedef struct ANeuralNetworksMemory ANeuralNetworksMemory;
typedef struct ANeuralNetworksModel ANeuralNetworksModel;
typedef struct ANeuralNetworksCompilation ANeuralNetworksCompilation;
typedef struct ANeuralNetworksExecution ANeuralNetworksExecution;
typedef struct ANeuralNetworksEvent ANeuralNetworksEvent;
typedef struct ANeuralNetworksBurst ANeuralNetworksBurst;   /* feature level 29 */
typedef struct ANeuralNetworksDevice ANeuralNetworksDevice; /* feature level 29 */
typedef struct ANeuralNetworksMemoryDesc ANeuralNetworksMemoryDesc; /* feature level 30 */

/* Type, shape and quantization of one operand. */
typedef struct ANeuralNetworksOperandType {
    int32_t type;                /* an OperandCode or an extension type */
    uint32_t dimensionCount;     /* 0 for scalars and unknown-rank tensors */
    const uint32_t* dimensions;  /* dimensionCount entries, 0 = unknown */
    float scale;                 /* quantized types only, otherwise 0 */
    int32_t zeroPoint;           /* quantized types only, otherwise 0 */
} ANeuralNetworksOperandType;

/* Per-channel scales of a TENSOR_QUANT8_SYMM_PER_CHANNEL operand (feature level 29). */
typedef struct ANeuralNetworksSymmPerChannelQuantParams {
    uint32_t channelDim;
    uint32_t scaleCount;
    const float* scales;
} ANeuralNetworksSymmPerChannelQuantParams;

typedef int32_t ANeuralNetworksOperationType;

/* ---- Devices (feature level 29) ---- */
int ANeuralNetworks_getDeviceCount(uint32_t* numDevices) __NNAPI_INTRODUCED_IN(29);
int ANeuralNetworks_getDevice(uint32_t devIndex, ANeuralNetworksDevice** device)
        __NNAPI_INTRODUCED_IN(29);
int ANeuralNetworksDevice_getName(const ANeuralNetworksDevice* device, const char** name)
        __NNAPI_INTRODUCED_IN(29);
int ANeuralNetworksDevice_getType(const ANeuralNetworksDevice* device, int32_t* type)
        __NNAPI_INTRODUCED_IN(29);
int ANeuralNetworksDevice_getVersion(const ANeuralNetworksDevice* device, const char** version)
        __NNAPI_INTRODUCED_IN(29);
int ANeuralNetworksDevice_getFeatureLevel(const ANeuralNetworksDevice* device,
                                          int64_t* featureLevel) __NNAPI_INTRODUCED_IN(29);
int ANeuralNetworksModel_getSupportedOperationsForDevices(
        const ANeuralNetworksModel* model, const ANeuralNetworksDevice* const* devices,
        uint32_t numDevices, bool* supportedOps) __NNAPI_INTRODUCED_IN(29);
int ANeuralNetworksCompilation_createForDevices(ANeuralNetworksModel* model,
                                                const ANeuralNetworksDevice* const* devices,
                                                uint32_t numDevices,
                                                ANeuralNetworksCompilation** compilation)
        __NNAPI_INTRODUCED_IN(29);

/* ---- Memory ---- */
int ANeuralNetworksMemory_createFromFd(size_t size, int protect, int fd, size_t offset,
                                       ANeuralNetworksMemory** memory) __NNAPI_INTRODUCED_IN(27);
int ANeuralNetworksMemory_createFromAHardwareBuffer(const AHardwareBuffer* ahwb,
                                                    ANeuralNetworksMemory** memory)
        __NNAPI_INTRODUCED_IN(29);
void ANeuralNetworksMemory_free(ANeuralNetworksMemory* memory) __NNAPI_INTRODUCED_IN(27);

/* ---- Models ---- */
int ANeuralNetworksModel_create(ANeuralNetworksModel** model) __NNAPI_INTRODUCED_IN(27);
void ANeuralNetworksModel_free(ANeuralNetworksModel* model) __NNAPI_INTRODUCED_IN(27);
int ANeuralNetworksModel_finish(ANeuralNetworksModel* model) __NNAPI_INTRODUCED_IN(27);
int ANeuralNetworksModel_addOperand(ANeuralNetworksModel* model,
                                    const ANeuralNetworksOperandType* type)
        __NNAPI_INTRODUCED_IN(27);
int ANeuralNetworksModel_setOperandValue(ANeuralNetworksModel* model, int32_t index,
                                         const void* buffer, size_t length)
        __NNAPI_INTRODUCED_IN(27);
int ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(
        ANeuralNetworksModel* model, int32_t index,
        const ANeuralNetworksSymmPerChannelQuantParams* channelQuant) __NNAPI_INTRODUCED_IN(29);
int ANeuralNetworksModel_setOperandValueFromMemory(ANeuralNetworksModel* model, int32_t index,
                                                   const ANeuralNetworksMemory* memory,
                                                   size_t offset, size_t length)
        __NNAPI_INTRODUCED_IN(27);
int ANeuralNetworksModel_addOperation(ANeuralNetworksModel* model,
                                      ANeuralNetworksOperationType type, uint32_t inputCount,
                                      const uint32_t* inputs, uint32_t outputCount,
                                      const uint32_t* outputs) __NNAPI_INTRODUCED_IN(27);
int ANeuralNetworksModel_identifyInputsAndOutputs(ANeuralNetworksModel* model,
                                                  uint32_t inputCount, const uint32_t* inputs,
                                                  uint32_t outputCount, const uint32_t* outputs)
        __NNAPI_INTRODUCED_IN(27);
int ANeuralNetworksModel_relaxComputationFloat32toFloat16(ANeuralNetworksModel* model, bool allow)
        __NNAPI_INTRODUCED_IN(28);

/* ---- Compilations ---- */
int ANeuralNetworksCompilation_create(ANeuralNetworksModel* model,
                                      ANeuralNetworksCompilation** compilation)
        __NNAPI_INTRODUCED_IN(27);
void ANeuralNetworksCompilation_free(ANeuralNetworksCompilation* compilation)
        __NNAPI_INTRODUCED_IN(27);
int ANeuralNetworksCompilation_setPreference(ANeuralNetworksCompilation* compilation,
                                             int32_t preference) __NNAPI_INTRODUCED_IN(27);
int ANeuralNetworksCompilation_setCaching(ANeuralNetworksCompilation* compilation,
                                          const char* cacheDir, const uint8_t* token)
        __NNAPI_INTRODUCED_IN(29);
int ANeuralNetworksCompilation_finish(ANeuralNetworksCompilation* compilation)
        __NNAPI_INTRODUCED_IN(27);

/* ---- Executions ---- */
int ANeuralNetworksExecution_create(ANeuralNetworksCompilation* compilation,
                                    ANeuralNetworksExecution** execution)
        __NNAPI_INTRODUCED_IN(27);
void ANeuralNetworksExecution_free(ANeuralNetworksExecution* execution)
        __NNAPI_INTRODUCED_IN(27);
int ANeuralNetworksExecution_setInput(ANeuralNetworksExecution* execution, int32_t index,
                                      const ANeuralNetworksOperandType* type, const void* buffer,
                                      size_t length) __NNAPI_INTRODUCED_IN(27);
int ANeuralNetworksExecution_setInputFromMemory(ANeuralNetworksExecution* execution,
                                                int32_t index,
                                                const ANeuralNetworksOperandType* type,
                                                const ANeuralNetworksMemory* memory,
                                                size_t offset, size_t length)
        __NNAPI_INTRODUCED_IN(27);
int ANeuralNetworksExecution_setOutput(ANeuralNetworksExecution* execution, int32_t index,
                                       const ANeuralNetworksOperandType* type, void* buffer,
                                       size_t length) __NNAPI_INTRODUCED_IN(27);
int ANeuralNetworksExecution_setOutputFromMemory(ANeuralNetworksExecution* execution,
                                                 int32_t index,
                                                 const ANeuralNetworksOperandType* type,
                                                 const ANeuralNetworksMemory* memory,
                                                 size_t offset, size_t length)
        __NNAPI_INTRODUCED_IN(27);
int ANeuralNetworksExecution_startCompute(ANeuralNetworksExecution* execution,
                                          ANeuralNetworksEvent** event)
        __NNAPI_INTRODUCED_IN(27);
int ANeuralNetworksExecution_compute(ANeuralNetworksExecution* execution)
        __NNAPI_INTRODUCED_IN(29);
int ANeuralNetworksExecution_getOutputOperandRank(ANeuralNetworksExecution* execution,
                                                  int32_t index, uint32_t* rank)
        __NNAPI_INTRODUCED_IN(29);
int ANeuralNetworksExecution_getOutputOperandDimensions(ANeuralNetworksExecution* execution,
                                                        int32_t index, uint32_t* dimensions)
        __NNAPI_INTRODUCED_IN(29);
int ANeuralNetworksExecution_setMeasureTiming(ANeuralNetworksExecution* execution, bool measure)
        __NNAPI_INTRODUCED_IN(29);
int ANeuralNetworksExecution_getDuration(const ANeuralNetworksExecution* execution,
                                         int32_t durationCode, uint64_t* duration)
        __NNAPI_INTRODUCED_IN(29);

/* ---- Events ---- */
int ANeuralNetworksEvent_wait(ANeuralNetworksEvent* event) __NNAPI_INTRODUCED_IN(27);
void ANeuralNetworksEvent_free(ANeuralNetworksEvent* event) __NNAPI_INTRODUCED_IN(27);

/* ---- Bursts (feature level 29) ---- */
int ANeuralNetworksBurst_create(ANeuralNetworksCompilation* compilation,
                                ANeuralNetworksBurst** burst) __NNAPI_INTRODUCED_IN(29);
void ANeuralNetworksBurst_free(ANeuralNetworksBurst* burst) __NNAPI_INTRODUCED_IN(29);
int ANeuralNetworksExecution_burstCompute(ANeuralNetworksExecution* execution,
                                          ANeuralNetworksBurst* burst)
        __NNAPI_INTRODUCED_IN(29);

#if NNEMU_NNAPI_API_LEVEL >= 30
/* ---- Memory domains (feature level 30) ---- */
int ANeuralNetworksMemoryDesc_create(ANeuralNetworksMemoryDesc** desc) __NNAPI_INTRODUCED_IN(30);
void ANeuralNetworksMemoryDesc_free(ANeuralNetworksMemoryDesc* desc) __NNAPI_INTRODUCED_IN(30);
int ANeuralNetworksMemoryDesc_addInputRole(ANeuralNetworksMemoryDesc* desc,
                                           const ANeuralNetworksCompilation* compilation,
                                           uint32_t index, float frequency)
        __NNAPI_INTRODUCED_IN(30);
int ANeuralNetworksMemoryDesc_addOutputRole(ANeuralNetworksMemoryDesc* desc,
                                            const ANeuralNetworksCompilation* compilation,
                                            uint32_t index, float frequency)
        __NNAPI_INTRODUCED_IN(30);
int ANeuralNetworksMemoryDesc_setDimensions(ANeuralNetworksMemoryDesc* desc, uint32_t rank,
                                            const uint32_t* dimensions) __NNAPI_INTRODUCED_IN(30);
int ANeuralNetworksMemoryDesc_finish(ANeuralNetworksMemoryDesc* desc) __NNAPI_INTRODUCED_IN(30);
int ANeuralNetworksMemory_createFromDesc(const ANeuralNetworksMemoryDesc* desc,
                                         ANeuralNetworksMemory** memory) __NNAPI_INTRODUCED_IN(30);
int ANeuralNetworksMemory_copy(const ANeuralNetworksMemory* src, const ANeuralNetworksMemory* dst)
        __NNAPI_INTRODUCED_IN(30);

/* ---- Device liveness (feature level 30) ---- */
int ANeuralNetworksDevice_wait(const ANeuralNetworksDevice* device) __NNAPI_INTRODUCED_IN(30);

/* ---- Control flow (feature level 30) ---- */
int ANeuralNetworksModel_setOperandValueFromModel(ANeuralNetworksModel* model, int32_t index,
                                                  const ANeuralNetworksModel* value)
        __NNAPI_INTRODUCED_IN(30);
int ANeuralNetworksExecution_setLoopTimeout(ANeuralNetworksExecution* execution,
                                            uint64_t duration) __NNAPI_INTRODUCED_IN(30);
uint64_t ANeuralNetworks_getDefaultLoopTimeout(void) __NNAPI_INTRODUCED_IN(30);
uint64_t ANeuralNetworks_getMaximumLoopTimeout(void) __NNAPI_INTRODUCED_IN(30);

/* ---- Quality of service (feature level 30) ---- */
int ANeuralNetworksCompilation_setPriority(ANeuralNetworksCompilation* compilation, int priority)
        __NNAPI_INTRODUCED_IN(30);
int ANeuralNetworksCompilation_setTimeout(ANeuralNetworksCompilation* compilation,
                                          uint64_t duration) __NNAPI_INTRODUCED_IN(30);
int ANeuralNetworksExecution_setTimeout(ANeuralNetworksExecution* execution, uint64_t duration)
        __NNAPI_INTRODUCED_IN(30);

/* ---- Fenced execution (feature level 30) ---- */
int ANeuralNetworksEvent_createFromSyncFenceFd(int sync_fence_fd, ANeuralNetworksEvent** event)
        __NNAPI_INTRODUCED_IN(30);
int ANeuralNetworksEvent_getSyncFenceFd(const ANeuralNetworksEvent* event, int* sync_fence_fd)
        __NNAPI_INTRODUCED_IN(30);
int ANeuralNetworksExecution_startComputeWithDependencies(
        ANeuralNetworksExecution* execution, const ANeuralNetworksEvent* const* dependencies,
        uint32_t num_dependencies, uint64_t duration, ANeuralNetworksEvent** event)
        __NNAPI_INTRODUCED_IN(30);
#endif /* NNEMU_NNAPI_API_LEVEL >= 30 */

#if NNEMU_NNAPI_API_LEVEL >= __NNAPI_FL5_MIN_ANDROID_API__
/* ---- Feature-level discovery, padding, alignment, reusable executions (feature level 5) ---- */
int64_t ANeuralNetworks_getRuntimeFeatureLevel(void) __NNAPI_INTRODUCED_IN(31);
int ANeuralNetworksExecution_enableInputAndOutputPadding(ANeuralNetworksExecution* execution,
                                                         bool enable) __NNAPI_INTRODUCED_IN(31);
int ANeuralNetworksCompilation_getPreferredMemoryAlignmentForInput(
        const ANeuralNetworksCompilation* compilation, uint32_t index, uint32_t* alignment)
        __NNAPI_INTRODUCED_IN(31);
int ANeuralNetworksCompilation_getPreferredMemoryPaddingForInput(
        const ANeuralNetworksCompilation* compilation, uint32_t index, uint32_t* padding)
        __NNAPI_INTRODUCED_IN(31);
int ANeuralNetworksCompilation_getPreferredMemoryAlignmentForOutput(
        const ANeuralNetworksCompilation* compilation, uint32_t index, uint32_t* alignment)
        __NNAPI_INTRODUCED_IN(31);
int ANeuralNetworksCompilation_getPreferredMemoryPaddingForOutput(
        const ANeuralNetworksCompilation* compilation, uint32_t index, uint32_t* padding)
        __NNAPI_INTRODUCED_IN(31);
int ANeuralNetworksExecution_setReusable(ANeuralNetworksExecution* execution, bool reusable)
        __NNAPI_INTRODUCED_IN(31);
#endif /* NNEMU_NNAPI_API_LEVEL >= __NNAPI_FL5_MIN_ANDROID_API__ */

#ifdef __cplusplus
}
#endif

#endif /* ANDROID_FRAMEWORKS_ML_NN_RUNTIME_NEURAL_NETWORKS_H */
