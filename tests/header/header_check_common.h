/*
 * What header_check.c (C11) and header_check.cpp (C++17) both check of <android/NeuralNetworks.h>:
 * enum values the NDK fixes, and every feature-level-29 public function with its expected type
 * as an X-macro list, X(return, name, params), that each binds in its own language.
 */
#ifndef NNEMU_TESTS_HEADER_CHECK_COMMON_H
#define NNEMU_TESTS_HEADER_CHECK_COMMON_H

#include <android/NeuralNetworks.h>
#include <assert.h> /* static_assert in C11 */

/* ---- enum values ---- */
static_assert(ANEURALNETWORKS_FLOAT32 == 0, "OperandCode");
static_assert(ANEURALNETWORKS_TENSOR_QUANT8_ASYMM == 5, "OperandCode");
static_assert(ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL == 11, "OperandCode");
static_assert(ANEURALNETWORKS_TENSOR_QUANT8_SYMM == 13, "OperandCode");
static_assert(ANEURALNETWORKS_ADD == 0, "OperationCode");
static_assert(ANEURALNETWORKS_TANH == 28, "OperationCode");
static_assert(ANEURALNETWORKS_TRANSPOSE == 37, "OperationCode");
static_assert(ANEURALNETWORKS_ABS == 38, "OperationCode");
static_assert(ANEURALNETWORKS_RESIZE_NEAREST_NEIGHBOR == 94, "OperationCode");
static_assert(ANEURALNETWORKS_FUSED_RELU6 == 3, "FuseCode");
static_assert(ANEURALNETWORKS_PADDING_VALID == 2, "PaddingCode");
static_assert(ANEURALNETWORKS_PREFER_SUSTAINED_SPEED == 2, "PreferenceCode");
static_assert(ANEURALNETWORKS_DEVICE_ACCELERATOR == 4, "DeviceTypeCode");
static_assert(ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE == 8, "ResultCode");
static_assert(ANEURALNETWORKS_UNAVAILABLE_DEVICE == 9, "ResultCode");
static_assert(ANEURALNETWORKS_DURATION_IN_DRIVER == 1, "DurationCode");
static_assert(ANEURALNETWORKS_MAX_SIZE_OF_IMMEDIATELY_COPIED_VALUES == 128, "constant");
static_assert(ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN == 32, "constant");

/* ---- every public function, with its expected type: X(return, name, params) ---- */
#define NN_PUBLIC_FUNCTIONS(X)                                                                   \
    X(int, ANeuralNetworks_getDeviceCount, (uint32_t*))                                          \
    X(int, ANeuralNetworks_getDevice, (uint32_t, ANeuralNetworksDevice**))                       \
    X(int, ANeuralNetworksDevice_getName, (const ANeuralNetworksDevice*, const char**))          \
    X(int, ANeuralNetworksDevice_getType, (const ANeuralNetworksDevice*, int32_t*))              \
    X(int, ANeuralNetworksDevice_getVersion, (const ANeuralNetworksDevice*, const char**))       \
    X(int, ANeuralNetworksDevice_getFeatureLevel, (const ANeuralNetworksDevice*, int64_t*))      \
    X(int, ANeuralNetworksModel_getSupportedOperationsForDevices,                                \
      (const ANeuralNetworksModel*, const ANeuralNetworksDevice* const*, uint32_t, bool*))       \
    X(int, ANeuralNetworksCompilation_createForDevices,                                          \
      (ANeuralNetworksModel*, const ANeuralNetworksDevice* const*, uint32_t,                     \
       ANeuralNetworksCompilation**))                                                            \
    X(int, ANeuralNetworksMemory_createFromFd,                                                   \
      (size_t, int, int, size_t, ANeuralNetworksMemory**))                                       \
    X(int, ANeuralNetworksMemory_createFromAHardwareBuffer,                                      \
      (const AHardwareBuffer*, ANeuralNetworksMemory**))                                         \
    X(void, ANeuralNetworksMemory_free, (ANeuralNetworksMemory*))                                \
    X(int, ANeuralNetworksModel_create, (ANeuralNetworksModel**))                                \
    X(void, ANeuralNetworksModel_free, (ANeuralNetworksModel*))                                  \
    X(int, ANeuralNetworksModel_finish, (ANeuralNetworksModel*))                                 \
    X(int, ANeuralNetworksModel_addOperand,                                                      \
      (ANeuralNetworksModel*, const ANeuralNetworksOperandType*))                                \
    X(int, ANeuralNetworksModel_setOperandValue,                                                 \
      (ANeuralNetworksModel*, int32_t, const void*, size_t))                                     \
    X(int, ANeuralNetworksModel_setOperandSymmPerChannelQuantParams,                             \
      (ANeuralNetworksModel*, int32_t, const ANeuralNetworksSymmPerChannelQuantParams*))         \
    X(int, ANeuralNetworksModel_setOperandValueFromMemory,                                       \
      (ANeuralNetworksModel*, int32_t, const ANeuralNetworksMemory*, size_t, size_t))            \
    X(int, ANeuralNetworksModel_addOperation,                                                    \
      (ANeuralNetworksModel*, ANeuralNetworksOperationType, uint32_t, const uint32_t*,           \
       uint32_t, const uint32_t*))                                                               \
    X(int, ANeuralNetworksModel_identifyInputsAndOutputs,                                        \
      (ANeuralNetworksModel*, uint32_t, const uint32_t*, uint32_t, const uint32_t*))             \
    X(int, ANeuralNetworksModel_relaxComputationFloat32toFloat16, (ANeuralNetworksModel*, bool)) \
    X(int, ANeuralNetworksCompilation_create,                                                    \
      (ANeuralNetworksModel*, ANeuralNetworksCompilation**))                                     \
    X(void, ANeuralNetworksCompilation_free, (ANeuralNetworksCompilation*))                      \
    X(int, ANeuralNetworksCompilation_setPreference, (ANeuralNetworksCompilation*, int32_t))     \
    X(int, ANeuralNetworksCompilation_setCaching,                                                \
      (ANeuralNetworksCompilation*, const char*, const uint8_t*))                                \
    X(int, ANeuralNetworksCompilation_finish, (ANeuralNetworksCompilation*))                     \
    X(int, ANeuralNetworksExecution_create,                                                      \
      (ANeuralNetworksCompilation*, ANeuralNetworksExecution**))                                 \
    X(void, ANeuralNetworksExecution_free, (ANeuralNetworksExecution*))                          \
    X(int, ANeuralNetworksExecution_setInput,                                                    \
      (ANeuralNetworksExecution*, int32_t, const ANeuralNetworksOperandType*, const void*,       \
       size_t))                                                                                  \
    X(int, ANeuralNetworksExecution_setInputFromMemory,                                          \
      (ANeuralNetworksExecution*, int32_t, const ANeuralNetworksOperandType*,                    \
       const ANeuralNetworksMemory*, size_t, size_t))                                            \
    X(int, ANeuralNetworksExecution_setOutput,                                                   \
      (ANeuralNetworksExecution*, int32_t, const ANeuralNetworksOperandType*, void*, size_t))    \
    X(int, ANeuralNetworksExecution_setOutputFromMemory,                                         \
      (ANeuralNetworksExecution*, int32_t, const ANeuralNetworksOperandType*,                    \
       const ANeuralNetworksMemory*, size_t, size_t))                                            \
    X(int, ANeuralNetworksExecution_startCompute,                                                \
      (ANeuralNetworksExecution*, ANeuralNetworksEvent**))                                       \
    X(int, ANeuralNetworksExecution_compute, (ANeuralNetworksExecution*))                        \
    X(int, ANeuralNetworksExecution_getOutputOperandRank,                                        \
      (ANeuralNetworksExecution*, int32_t, uint32_t*))                                           \
    X(int, ANeuralNetworksExecution_getOutputOperandDimensions,                                  \
      (ANeuralNetworksExecution*, int32_t, uint32_t*))                                           \
    X(int, ANeuralNetworksExecution_setMeasureTiming, (ANeuralNetworksExecution*, bool))         \
    X(int, ANeuralNetworksExecution_getDuration,                                                 \
      (const ANeuralNetworksExecution*, int32_t, uint64_t*))                                     \
    X(int, ANeuralNetworksEvent_wait, (ANeuralNetworksEvent*))                                   \
    X(void, ANeuralNetworksEvent_free, (ANeuralNetworksEvent*))                                  \
    X(int, ANeuralNetworksBurst_create, (ANeuralNetworksCompilation*, ANeuralNetworksBurst**))   \
    X(void, ANeuralNetworksBurst_free, (ANeuralNetworksBurst*))                                  \
    X(int, ANeuralNetworksExecution_burstCompute,                                                \
      (ANeuralNetworksExecution*, ANeuralNetworksBurst*))

#define NN_COUNT_ONE(ret, name, params) +1

#endif
