/*
 * nnemu: the NNAPI Support Library (SL) table, as an SL loader (TensorFlow Lite's
 * --nnapi_support_library_path, Android's platform shim) expects it. Layout-compatible with the
 * tables those loaders use: same field names, order and types (see nnapi-fl30plus.md §4).
 *
 * The loader dlopens the library, calls ANeuralNetworks_getSLDriverImpl() and reads
 * implFeatureLevel to learn which table type the pointer really points to. Every pointer has the
 * signature of the same-named NNAPI function. The SL_* functions exist only in the table.
 */

#ifndef NNEMU_NEURAL_NETWORKS_SUPPORT_LIBRARY_IMPL_H
#define NNEMU_NEURAL_NETWORKS_SUPPORT_LIBRARY_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "NeuralNetworks.h"
#include "NeuralNetworksExtensions.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Diagnostics (feature level 5) ---- */
typedef enum {
    ANNDIAG_NO_ERROR = 0,
    ANNDIAG_FAILED_TO_LOAD_SL = 1,
    ANNDIAG_FAILED_TO_REGISTER_SERVICE = 2,
    ANNDIAG_GENERAL_ERROR = 3,
    ANNDIAG_INVALID_ARGUMENT = 4
} ANeuralNetworksDiagnosticResultCode;

/* What kind of numbers a model's inputs (or outputs) hold. */
typedef enum {
    ANNDIAG_DATA_CLASS_UNKNOWN = 0,
    ANNDIAG_DATA_CLASS_OTHER = 1,
    ANNDIAG_DATA_CLASS_FLOAT32 = 2,
    ANNDIAG_DATA_CLASS_FLOAT16 = 3,
    ANNDIAG_DATA_CLASS_QUANT = 4,
    ANNDIAG_DATA_CLASS_MIXED = 5
} ANeuralNetworksDiagnosticDataClass;

/* Which call ran an execution. */
typedef enum {
    ANNDIAG_EXECUTION_MODE_UNKNOWN = 0,
    ANNDIAG_EXECUTION_MODE_ASYNC = 1,
    ANNDIAG_EXECUTION_MODE_SYNC = 2,
    ANNDIAG_EXECUTION_MODE_BURST = 3,
    ANNDIAG_EXECUTION_MODE_ASYNC_WITH_DEPS = 4
} ANeuralNetworksDiagnosticExecutionMode;

/* Opaque records handed to the diagnostic callbacks, valid only during the call. */
typedef struct ANeuralNetworksDiagnosticCompilationInfo ANeuralNetworksDiagnosticCompilationInfo;
typedef struct ANeuralNetworksDiagnosticExecutionInfo ANeuralNetworksDiagnosticExecutionInfo;

typedef void (*ANeuralNetworksDiagnosticCompilationFinishedCallback)(
        const void* context, const ANeuralNetworksDiagnosticCompilationInfo* info);
typedef void (*ANeuralNetworksDiagnosticExecutionFinishedCallback)(
        const void* context, const ANeuralNetworksDiagnosticExecutionInfo* info);

/* ---- Device capabilities (SL_ANeuralNetworksDevice_getPerformanceInfo) ---- */
typedef enum {
    SL_ANEURALNETWORKS_CAPABILITIES_PERFORMANCE_RELAXED_SCALAR = 0,
    SL_ANEURALNETWORKS_CAPABILITIES_PERFORMANCE_RELAXED_TENSOR = 1,
    SL_ANEURALNETWORKS_CAPABILITIES_PERFORMANCE_IF = 2,
    SL_ANEURALNETWORKS_CAPABILITIES_PERFORMANCE_WHILE = 3
} SL_ANeuralNetworksPerformanceInfoCode;

/* Cost relative to the CPU; lower is better. */
typedef struct {
    float execTime;
    float powerUsage;
} SL_ANeuralNetworksPerformanceInfo;

typedef struct {
    int32_t operandType;
    SL_ANeuralNetworksPerformanceInfo performanceInfo;
} SL_ANeuralNetworksOperandPerformanceInfo;

/* One operand type a vendor extension declares. */
typedef struct {
    uint32_t byteSize;
    uint16_t type;
    bool isTensor;
} SL_ANeuralNetworksExtensionOperandTypeInformation;

/* ---- The tables ---- */

/* The head of every table: which table type follows (a feature level code: 31 = FL5,
 * 1000006 = FL6, 1000007 = FL7, 1000008 = FL8). */
typedef struct NnApiSLDriverImpl {
    int64_t implFeatureLevel;
} NnApiSLDriverImpl;

/* Feature level 5 table: 104 function pointers after the head. A NULL pointer means the
 * implementation does not provide that function. */
typedef struct NnApiSLDriverImplFL5 {
    NnApiSLDriverImpl base;
    /* #0, LP64 offset 8 */
    int (*ANeuralNetworksBurst_create)(ANeuralNetworksCompilation* compilation,
            ANeuralNetworksBurst** burst);
    /* #1, LP64 offset 16 */
    void (*ANeuralNetworksBurst_free)(ANeuralNetworksBurst* burst);
    /* #2, LP64 offset 24 */
    int (*ANeuralNetworksCompilation_createForDevices)(ANeuralNetworksModel* model,
            const ANeuralNetworksDevice* const* devices, uint32_t numDevices,
            ANeuralNetworksCompilation** compilation);
    /* #3, LP64 offset 32 */
    int (*ANeuralNetworksCompilation_finish)(ANeuralNetworksCompilation* compilation);
    /* #4, LP64 offset 40 */
    void (*ANeuralNetworksCompilation_free)(ANeuralNetworksCompilation* compilation);
    /* #5, LP64 offset 48 */
    int (*ANeuralNetworksCompilation_getPreferredMemoryAlignmentForInput)(
            const ANeuralNetworksCompilation* compilation, uint32_t index, uint32_t* alignment);
    /* #6, LP64 offset 56 */
    int (*ANeuralNetworksCompilation_getPreferredMemoryAlignmentForOutput)(
            const ANeuralNetworksCompilation* compilation, uint32_t index, uint32_t* alignment);
    /* #7, LP64 offset 64 */
    int (*ANeuralNetworksCompilation_getPreferredMemoryPaddingForInput)(
            const ANeuralNetworksCompilation* compilation, uint32_t index, uint32_t* padding);
    /* #8, LP64 offset 72 */
    int (*ANeuralNetworksCompilation_getPreferredMemoryPaddingForOutput)(
            const ANeuralNetworksCompilation* compilation, uint32_t index, uint32_t* padding);
    /* #9, LP64 offset 80 */
    int (*ANeuralNetworksCompilation_setCaching)(ANeuralNetworksCompilation* compilation,
            const char* cacheDir, const uint8_t* token);
    /* #10, LP64 offset 88 */
    int (*ANeuralNetworksCompilation_setPreference)(ANeuralNetworksCompilation* compilation,
            int32_t preference);
    /* #11, LP64 offset 96 */
    int (*ANeuralNetworksCompilation_setPriority)(ANeuralNetworksCompilation* compilation,
            int priority);
    /* #12, LP64 offset 104 */
    int (*ANeuralNetworksCompilation_setTimeout)(ANeuralNetworksCompilation* compilation,
            uint64_t duration);
    /* #13, LP64 offset 112 */
    int (*ANeuralNetworksDevice_getExtensionSupport)(const ANeuralNetworksDevice* device,
            const char* extensionName, bool* isExtensionSupported);
    /* #14, LP64 offset 120 */
    int (*ANeuralNetworksDevice_getFeatureLevel)(const ANeuralNetworksDevice* device,
            int64_t* featureLevel);
    /* #15, LP64 offset 128 */
    int (*ANeuralNetworksDevice_getName)(const ANeuralNetworksDevice* device, const char** name);
    /* #16, LP64 offset 136 */
    int (*ANeuralNetworksDevice_getType)(const ANeuralNetworksDevice* device, int32_t* type);
    /* #17, LP64 offset 144 */
    int (*ANeuralNetworksDevice_getVersion)(const ANeuralNetworksDevice* device,
            const char** version);
    /* #18, LP64 offset 152 */
    int (*ANeuralNetworksDevice_wait)(const ANeuralNetworksDevice* device);
    /* #19, LP64 offset 160 */
    int (*ANeuralNetworksEvent_createFromSyncFenceFd)(int sync_fence_fd,
            ANeuralNetworksEvent** event);
    /* #20, LP64 offset 168 */
    void (*ANeuralNetworksEvent_free)(ANeuralNetworksEvent* event);
    /* #21, LP64 offset 176 */
    int (*ANeuralNetworksEvent_getSyncFenceFd)(const ANeuralNetworksEvent* event,
            int* sync_fence_fd);
    /* #22, LP64 offset 184 */
    int (*ANeuralNetworksEvent_wait)(ANeuralNetworksEvent* event);
    /* #23, LP64 offset 192 */
    int (*ANeuralNetworksExecution_burstCompute)(ANeuralNetworksExecution* execution,
            ANeuralNetworksBurst* burst);
    /* #24, LP64 offset 200 */
    int (*ANeuralNetworksExecution_compute)(ANeuralNetworksExecution* execution);
    /* #25, LP64 offset 208 */
    int (*ANeuralNetworksExecution_create)(ANeuralNetworksCompilation* compilation,
            ANeuralNetworksExecution** execution);
    /* #26, LP64 offset 216 */
    int (*ANeuralNetworksExecution_enableInputAndOutputPadding)(ANeuralNetworksExecution* execution,
            bool enable);
    /* #27, LP64 offset 224 */
    void (*ANeuralNetworksExecution_free)(ANeuralNetworksExecution* execution);
    /* #28, LP64 offset 232 */
    int (*ANeuralNetworksExecution_getDuration)(const ANeuralNetworksExecution* execution,
            int32_t durationCode, uint64_t* duration);
    /* #29, LP64 offset 240 */
    int (*ANeuralNetworksExecution_getOutputOperandDimensions)(ANeuralNetworksExecution* execution,
            int32_t index, uint32_t* dimensions);
    /* #30, LP64 offset 248 */
    int (*ANeuralNetworksExecution_getOutputOperandRank)(ANeuralNetworksExecution* execution,
            int32_t index, uint32_t* rank);
    /* #31, LP64 offset 256 */
    int (*ANeuralNetworksExecution_setInput)(ANeuralNetworksExecution* execution, int32_t index,
            const ANeuralNetworksOperandType* type, const void* buffer, size_t length);
    /* #32, LP64 offset 264 */
    int (*ANeuralNetworksExecution_setInputFromMemory)(ANeuralNetworksExecution* execution,
            int32_t index, const ANeuralNetworksOperandType* type,
            const ANeuralNetworksMemory* memory, size_t offset, size_t length);
    /* #33, LP64 offset 272 */
    int (*ANeuralNetworksExecution_setLoopTimeout)(ANeuralNetworksExecution* execution,
            uint64_t duration);
    /* #34, LP64 offset 280 */
    int (*ANeuralNetworksExecution_setMeasureTiming)(ANeuralNetworksExecution* execution,
            bool measure);
    /* #35, LP64 offset 288 */
    int (*ANeuralNetworksExecution_setOutput)(ANeuralNetworksExecution* execution, int32_t index,
            const ANeuralNetworksOperandType* type, void* buffer, size_t length);
    /* #36, LP64 offset 296 */
    int (*ANeuralNetworksExecution_setOutputFromMemory)(ANeuralNetworksExecution* execution,
            int32_t index, const ANeuralNetworksOperandType* type,
            const ANeuralNetworksMemory* memory, size_t offset, size_t length);
    /* #37, LP64 offset 304 */
    int (*ANeuralNetworksExecution_setReusable)(ANeuralNetworksExecution* execution, bool reusable);
    /* #38, LP64 offset 312 */
    int (*ANeuralNetworksExecution_setTimeout)(ANeuralNetworksExecution* execution,
            uint64_t duration);
    /* #39, LP64 offset 320 */
    int (*ANeuralNetworksExecution_startComputeWithDependencies)(
            ANeuralNetworksExecution* execution, const ANeuralNetworksEvent* const* dependencies,
            uint32_t num_dependencies, uint64_t duration, ANeuralNetworksEvent** event);
    /* #40, LP64 offset 328 */
    int (*ANeuralNetworksMemoryDesc_addInputRole)(ANeuralNetworksMemoryDesc* desc,
            const ANeuralNetworksCompilation* compilation, uint32_t index, float frequency);
    /* #41, LP64 offset 336 */
    int (*ANeuralNetworksMemoryDesc_addOutputRole)(ANeuralNetworksMemoryDesc* desc,
            const ANeuralNetworksCompilation* compilation, uint32_t index, float frequency);
    /* #42, LP64 offset 344 */
    int (*ANeuralNetworksMemoryDesc_create)(ANeuralNetworksMemoryDesc** desc);
    /* #43, LP64 offset 352 */
    int (*ANeuralNetworksMemoryDesc_finish)(ANeuralNetworksMemoryDesc* desc);
    /* #44, LP64 offset 360 */
    void (*ANeuralNetworksMemoryDesc_free)(ANeuralNetworksMemoryDesc* desc);
    /* #45, LP64 offset 368 */
    int (*ANeuralNetworksMemoryDesc_setDimensions)(ANeuralNetworksMemoryDesc* desc, uint32_t rank,
            const uint32_t* dimensions);
    /* #46, LP64 offset 376 */
    int (*ANeuralNetworksMemory_copy)(const ANeuralNetworksMemory* src,
            const ANeuralNetworksMemory* dst);
    /* #47, LP64 offset 384 */
    int (*ANeuralNetworksMemory_createFromAHardwareBuffer)(const AHardwareBuffer* ahwb,
            ANeuralNetworksMemory** memory);
    /* #48, LP64 offset 392 */
    int (*ANeuralNetworksMemory_createFromDesc)(const ANeuralNetworksMemoryDesc* desc,
            ANeuralNetworksMemory** memory);
    /* #49, LP64 offset 400 */
    int (*ANeuralNetworksMemory_createFromFd)(size_t size, int protect, int fd, size_t offset,
            ANeuralNetworksMemory** memory);
    /* #50, LP64 offset 408 */
    void (*ANeuralNetworksMemory_free)(ANeuralNetworksMemory* memory);
    /* #51, LP64 offset 416 */
    int (*ANeuralNetworksModel_addOperand)(ANeuralNetworksModel* model,
            const ANeuralNetworksOperandType* type);
    /* #52, LP64 offset 424 */
    int (*ANeuralNetworksModel_addOperation)(ANeuralNetworksModel* model,
            ANeuralNetworksOperationType type, uint32_t inputCount, const uint32_t* inputs,
            uint32_t outputCount, const uint32_t* outputs);
    /* #53, LP64 offset 432 */
    int (*ANeuralNetworksModel_create)(ANeuralNetworksModel** model);
    /* #54, LP64 offset 440 */
    int (*ANeuralNetworksModel_finish)(ANeuralNetworksModel* model);
    /* #55, LP64 offset 448 */
    void (*ANeuralNetworksModel_free)(ANeuralNetworksModel* model);
    /* #56, LP64 offset 456 */
    int (*ANeuralNetworksModel_getExtensionOperandType)(ANeuralNetworksModel* model,
            const char* extensionName, uint16_t operandCodeWithinExtension, int32_t* type);
    /* #57, LP64 offset 464 */
    int (*ANeuralNetworksModel_getExtensionOperationType)(ANeuralNetworksModel* model,
            const char* extensionName, uint16_t operationCodeWithinExtension,
            ANeuralNetworksOperationType* type);
    /* #58, LP64 offset 472 */
    int (*ANeuralNetworksModel_getSupportedOperationsForDevices)(const ANeuralNetworksModel* model,
            const ANeuralNetworksDevice* const* devices, uint32_t numDevices, bool* supportedOps);
    /* #59, LP64 offset 480 */
    int (*ANeuralNetworksModel_identifyInputsAndOutputs)(ANeuralNetworksModel* model,
            uint32_t inputCount, const uint32_t* inputs, uint32_t outputCount,
            const uint32_t* outputs);
    /* #60, LP64 offset 488 */
    int (*ANeuralNetworksModel_relaxComputationFloat32toFloat16)(ANeuralNetworksModel* model,
            bool allow);
    /* #61, LP64 offset 496 */
    int (*ANeuralNetworksModel_setOperandExtensionData)(ANeuralNetworksModel* model, int32_t index,
            const void* data, size_t length);
    /* #62, LP64 offset 504 */
    int (*ANeuralNetworksModel_setOperandSymmPerChannelQuantParams)(ANeuralNetworksModel* model,
            int32_t index, const ANeuralNetworksSymmPerChannelQuantParams* channelQuant);
    /* #63, LP64 offset 512 */
    int (*ANeuralNetworksModel_setOperandValue)(ANeuralNetworksModel* model, int32_t index,
            const void* buffer, size_t length);
    /* #64, LP64 offset 520 */
    int (*ANeuralNetworksModel_setOperandValueFromMemory)(ANeuralNetworksModel* model,
            int32_t index, const ANeuralNetworksMemory* memory, size_t offset, size_t length);
    /* #65, LP64 offset 528 */
    int (*ANeuralNetworksModel_setOperandValueFromModel)(ANeuralNetworksModel* model, int32_t index,
            const ANeuralNetworksModel* value);
    /* #66, LP64 offset 536 */
    uint64_t (*ANeuralNetworks_getDefaultLoopTimeout)(void);
    /* #67, LP64 offset 544 */
    int (*ANeuralNetworks_getDevice)(uint32_t devIndex, ANeuralNetworksDevice** device);
    /* #68, LP64 offset 552 */
    int (*ANeuralNetworks_getDeviceCount)(uint32_t* numDevices);
    /* #69, LP64 offset 560 */
    uint64_t (*ANeuralNetworks_getMaximumLoopTimeout)(void);
    /* #70, LP64 offset 568 */
    int64_t (*ANeuralNetworks_getRuntimeFeatureLevel)(void);
    /* #71, LP64 offset 576 */
    int (*SL_ANeuralNetworksCompilation_setCachingFromFds)(ANeuralNetworksCompilation* compilation,
            const int* modelCacheFds, const uint32_t numModelCacheFiles, const int* dataCacheFds,
            const uint32_t numDataCacheFiles, const uint8_t* token);
    /* #72, LP64 offset 584 */
    int (*SL_ANeuralNetworksDevice_getNumberOfCacheFilesNeeded)(const ANeuralNetworksDevice* device,
            uint32_t* numModelCacheFiles, uint32_t* numDataCacheFiles);
    /* #73, LP64 offset 592 */
    int (*SL_ANeuralNetworksDevice_getPerformanceInfo)(const ANeuralNetworksDevice* device,
            int32_t performanceInfoKind, SL_ANeuralNetworksPerformanceInfo* performanceInfo);
    /* #74, LP64 offset 600 */
    int (*SL_ANeuralNetworksDevice_forEachOperandPerformanceInfo)(
            const ANeuralNetworksDevice* device, void* context,
            void (*callback)(SL_ANeuralNetworksOperandPerformanceInfo, void*));
    /* #75, LP64 offset 608 */
    int (*SL_ANeuralNetworksDevice_getVendorExtensionCount)(const ANeuralNetworksDevice* device,
            uint32_t* vendorExtensionCount);
    /* #76, LP64 offset 616 */
    int (*SL_ANeuralNetworksDevice_getVendorExtensionName)(const ANeuralNetworksDevice* device,
            uint32_t vendorExtensionIndex, const char** extensionName);
    /* #77, LP64 offset 624 */
    int (*SL_ANeuralNetworksDevice_forEachVendorExtensionOperandTypeInformation)(
            const ANeuralNetworksDevice* device, uint32_t vendorExtensionIndex, void* context,
            void (*callback)(SL_ANeuralNetworksExtensionOperandTypeInformation, void*));
    /* #78, LP64 offset 632 */
    int32_t (*SL_ANeuralNetworksDiagnosticCompilationInfo_getSessionId)(
            const ANeuralNetworksDiagnosticCompilationInfo* diagnosticCompilationInfo);
    /* #79, LP64 offset 640 */
    int64_t (*SL_ANeuralNetworksDiagnosticCompilationInfo_getNnApiVersion)(
            const ANeuralNetworksDiagnosticCompilationInfo* diagnosticCompilationInfo);
    /* #80, LP64 offset 648 */
    const uint8_t* (*SL_ANeuralNetworksDiagnosticCompilationInfo_getModelArchHash)(
            const ANeuralNetworksDiagnosticCompilationInfo* diagnosticCompilationInfo);
    /* #81, LP64 offset 656 */
    const char* (*SL_ANeuralNetworksDiagnosticCompilationInfo_getDeviceIds)(
            const ANeuralNetworksDiagnosticCompilationInfo* diagnosticCompilationInfo);
    /* #82, LP64 offset 664 */
    int32_t (*SL_ANeuralNetworksDiagnosticCompilationInfo_getErrorCode)(
            const ANeuralNetworksDiagnosticCompilationInfo* diagnosticCompilationInfo);
    /* #83, LP64 offset 672 */
    ANeuralNetworksDiagnosticDataClass (*SL_ANeuralNetworksDiagnosticCompilationInfo_getInputDataClass)(
            const ANeuralNetworksDiagnosticCompilationInfo* diagnosticCompilationInfo);
    /* #84, LP64 offset 680 */
    ANeuralNetworksDiagnosticDataClass (*SL_ANeuralNetworksDiagnosticCompilationInfo_getOutputDataClass)(
            const ANeuralNetworksDiagnosticCompilationInfo* diagnosticCompilationInfo);
    /* #85, LP64 offset 688 */
    uint64_t (*SL_ANeuralNetworksDiagnosticCompilationInfo_getCompilationTimeNanos)(
            const ANeuralNetworksDiagnosticCompilationInfo* diagnosticCompilationInfo);
    /* #86, LP64 offset 696 */
    bool (*SL_ANeuralNetworksDiagnosticCompilationInfo_isCachingEnabled)(
            const ANeuralNetworksDiagnosticCompilationInfo* diagnosticCompilationInfo);
    /* #87, LP64 offset 704 */
    bool (*SL_ANeuralNetworksDiagnosticCompilationInfo_isControlFlowUsed)(
            const ANeuralNetworksDiagnosticCompilationInfo* diagnosticCompilationInfo);
    /* #88, LP64 offset 712 */
    bool (*SL_ANeuralNetworksDiagnosticCompilationInfo_areDynamicTensorsUsed)(
            const ANeuralNetworksDiagnosticCompilationInfo* diagnosticCompilationInfo);
    /* #89, LP64 offset 720 */
    int32_t (*SL_ANeuralNetworksDiagnosticExecutionInfo_getSessionId)(
            const ANeuralNetworksDiagnosticExecutionInfo* diagnosticExecutionInfo);
    /* #90, LP64 offset 728 */
    int64_t (*SL_ANeuralNetworksDiagnosticExecutionInfo_getNnApiVersion)(
            const ANeuralNetworksDiagnosticExecutionInfo* diagnosticExecutionInfo);
    /* #91, LP64 offset 736 */
    const uint8_t* (*SL_ANeuralNetworksDiagnosticExecutionInfo_getModelArchHash)(
            const ANeuralNetworksDiagnosticExecutionInfo* diagnosticExecutionInfo);
    /* #92, LP64 offset 744 */
    const char* (*SL_ANeuralNetworksDiagnosticExecutionInfo_getDeviceIds)(
            const ANeuralNetworksDiagnosticExecutionInfo* diagnosticExecutionInfo);
    /* #93, LP64 offset 752 */
    ANeuralNetworksDiagnosticExecutionMode (*SL_ANeuralNetworksDiagnosticExecutionInfo_getExecutionMode)(
            const ANeuralNetworksDiagnosticExecutionInfo* diagnosticExecutionInfo);
    /* #94, LP64 offset 760 */
    ANeuralNetworksDiagnosticDataClass (*SL_ANeuralNetworksDiagnosticExecutionInfo_getInputDataClass)(
            const ANeuralNetworksDiagnosticExecutionInfo* diagnosticExecutionInfo);
    /* #95, LP64 offset 768 */
    ANeuralNetworksDiagnosticDataClass (*SL_ANeuralNetworksDiagnosticExecutionInfo_getOutputDataClass)(
            const ANeuralNetworksDiagnosticExecutionInfo* diagnosticExecutionInfo);
    /* #96, LP64 offset 776 */
    uint32_t (*SL_ANeuralNetworksDiagnosticExecutionInfo_getErrorCode)(
            const ANeuralNetworksDiagnosticExecutionInfo* diagnosticExecutionInfo);
    /* #97, LP64 offset 784 */
    uint64_t (*SL_ANeuralNetworksDiagnosticExecutionInfo_getRuntimeExecutionTimeNanos)(
            const ANeuralNetworksDiagnosticExecutionInfo* diagnosticExecutionInfo);
    /* #98, LP64 offset 792 */
    uint64_t (*SL_ANeuralNetworksDiagnosticExecutionInfo_getDriverExecutionTimeNanos)(
            const ANeuralNetworksDiagnosticExecutionInfo* diagnosticExecutionInfo);
    /* #99, LP64 offset 800 */
    uint64_t (*SL_ANeuralNetworksDiagnosticExecutionInfo_getHardwareExecutionTimeNanos)(
            const ANeuralNetworksDiagnosticExecutionInfo* diagnosticExecutionInfo);
    /* #100, LP64 offset 808 */
    bool (*SL_ANeuralNetworksDiagnosticExecutionInfo_isCachingEnabled)(
            const ANeuralNetworksDiagnosticExecutionInfo* diagnosticExecutionInfo);
    /* #101, LP64 offset 816 */
    bool (*SL_ANeuralNetworksDiagnosticExecutionInfo_isControlFlowUsed)(
            const ANeuralNetworksDiagnosticExecutionInfo* diagnosticExecutionInfo);
    /* #102, LP64 offset 824 */
    bool (*SL_ANeuralNetworksDiagnosticExecutionInfo_areDynamicTensorsUsed)(
            const ANeuralNetworksDiagnosticExecutionInfo* diagnosticExecutionInfo);
    /* #103, LP64 offset 832 */
    void (*SL_ANeuralNetworksDiagnostic_registerCallbacks)(
            ANeuralNetworksDiagnosticCompilationFinishedCallback compilationCallback,
            ANeuralNetworksDiagnosticExecutionFinishedCallback executionCallback,
            void* callbackContext);
} NnApiSLDriverImplFL5;

/* Feature levels 6 and 7 added operations, not functions: same table, another implFeatureLevel. */
typedef struct NnApiSLDriverImplFL5 NnApiSLDriverImplFL6;
typedef NnApiSLDriverImplFL6 NnApiSLDriverImplFL7;

/* Feature level 8 table: the FL5 table (nested, so the level is base.base.implFeatureLevel)
 * followed by the two extension-attribute functions. */
typedef struct NnApiSLDriverImplFL8 {
    NnApiSLDriverImplFL5 base;
    /* LP64 offset 840 */
    int (*ANeuralNetworksCompilation_addExtensionAttribute)(ANeuralNetworksCompilation* compilation,
            const char* extensionName, uint16_t attributeCodeWithinExtension, const void* data,
            size_t length);
    /* LP64 offset 848 */
    int (*ANeuralNetworksExecution_addExtensionAttribute)(ANeuralNetworksExecution* execution,
            const char* extensionName, uint16_t attributeCodeWithinExtension, const void* data,
            size_t length);
} NnApiSLDriverImplFL8;

/* The library's table, statically allocated: valid until the library is unloaded. Exported by
 * nnemu's libneuralnetworks.so (an FL5-shaped table at feature level 7, see
 * docs/api.md, "Support Library"). */
NnApiSLDriverImpl* ANeuralNetworks_getSLDriverImpl(void);

#ifdef __cplusplus
}
#endif

#endif /* NNEMU_NEURAL_NETWORKS_SUPPORT_LIBRARY_IMPL_H */
