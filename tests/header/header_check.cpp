/*
 * Compile-only check: <android/NeuralNetworks.h> is self-contained C++17 and
 * declares the complete feature-level-29 NNAPI surface with the NDK's exact
 * signatures and C linkage (each function is bound to a pointer of the expected
 * type, so a wrong parameter type or const-ness is a compile error).
 *
 *   c++ -std=c++17 -Wall -Wextra -Werror -I runtime/include -c tests/header/header_check.cpp
 */
#include "header_check_common.h"

#include <type_traits>

// ---- enum and struct types ----
static_assert(std::is_enum<OperandCode>::value, "OperandCode is an enum");
static_assert(std::is_enum<OperationCode>::value, "OperationCode is an enum");
static_assert(std::is_enum<FuseCode>::value, "FuseCode is an enum");
static_assert(std::is_enum<PaddingCode>::value, "PaddingCode is an enum");
static_assert(std::is_enum<PreferenceCode>::value, "PreferenceCode is an enum");
static_assert(std::is_enum<DeviceTypeCode>::value, "DeviceTypeCode is an enum");
static_assert(std::is_enum<ResultCode>::value, "ResultCode is an enum");
static_assert(std::is_enum<DurationCode>::value, "DurationCode is an enum");
static_assert(std::is_same<ANeuralNetworksOperationType, int32_t>::value, "operation type");
static_assert(std::is_same<decltype(ANeuralNetworksOperandType::type), int32_t>::value, "");
static_assert(std::is_same<decltype(ANeuralNetworksOperandType::dimensionCount), uint32_t>::value,
              "");
static_assert(std::is_same<decltype(ANeuralNetworksOperandType::dimensions), const uint32_t*>::value,
              "");
static_assert(std::is_same<decltype(ANeuralNetworksOperandType::scale), float>::value, "");
static_assert(std::is_same<decltype(ANeuralNetworksOperandType::zeroPoint), int32_t>::value, "");
static_assert(std::is_same<decltype(ANeuralNetworksSymmPerChannelQuantParams::channelDim),
                           uint32_t>::value, "");
static_assert(std::is_same<decltype(ANeuralNetworksSymmPerChannelQuantParams::scaleCount),
                           uint32_t>::value, "");
static_assert(std::is_same<decltype(ANeuralNetworksSymmPerChannelQuantParams::scales),
                           const float*>::value, "");
static_assert(std::is_standard_layout<ANeuralNetworksOperandType>::value, "C layout");
static_assert(offsetof(ANeuralNetworksOperandType, type) == 0, "operand type layout");
static_assert(offsetof(ANeuralNetworksOperandType, dimensionCount) <
                      offsetof(ANeuralNetworksOperandType, dimensions) &&
                      offsetof(ANeuralNetworksOperandType, dimensions) <
                      offsetof(ANeuralNetworksOperandType, scale) &&
                      offsetof(ANeuralNetworksOperandType, scale) <
                      offsetof(ANeuralNetworksOperandType, zeroPoint),
              "operand type layout");

// ---- every public function, with its expected type: X(return, name, params) ----
static_assert(0 NN_PUBLIC_FUNCTIONS(NN_COUNT_ONE) == 43,
              "feature level 29 has 43 public functions");

// Redeclaring with C linkage is ill-formed if the header gave any function C++ linkage.
#define NN_REDECLARE(ret, name, params) ret name params;
extern "C" {
NN_PUBLIC_FUNCTIONS(NN_REDECLARE)
}
#undef NN_REDECLARE

using nn_any_function = void (*)();

size_t nnapi_header_check_functions_cpp(nn_any_function* out);

// Binds each function to a pointer of its exact expected type, then stores it type-erased.
size_t nnapi_header_check_functions_cpp(nn_any_function* out) {
    size_t n = 0;
#define NN_BIND(ret, name, params)                                                 \
    {                                                                              \
        static_assert(std::is_same<decltype(&name), ret(*) params>::value, #name); \
        ret(*const typed) params = name;                                           \
        out[n++] = reinterpret_cast<nn_any_function>(typed);                       \
    }
    NN_PUBLIC_FUNCTIONS(NN_BIND)
#undef NN_BIND
    return n;
}

int nnapi_header_check_usage_cpp();

// Never called: typical application code, to check that ordinary usage compiles.
int nnapi_header_check_usage_cpp() {
    uint32_t deviceCount = 0;
    ANeuralNetworksDevice* device = nullptr;
    const char* name = nullptr;
    const char* version = nullptr;
    int32_t deviceType = ANEURALNETWORKS_DEVICE_UNKNOWN;
    int64_t featureLevel = 0;
    if (ANeuralNetworks_getDeviceCount(&deviceCount) != ANEURALNETWORKS_NO_ERROR) return -1;
    if (deviceCount == 0 || ANeuralNetworks_getDevice(0, &device) != ANEURALNETWORKS_NO_ERROR)
        return -1;
    ANeuralNetworksDevice_getName(device, &name);
    ANeuralNetworksDevice_getVersion(device, &version);
    ANeuralNetworksDevice_getType(device, &deviceType);
    ANeuralNetworksDevice_getFeatureLevel(device, &featureLevel);

    ANeuralNetworksModel* model = nullptr;
    if (ANeuralNetworksModel_create(&model) != ANEURALNETWORKS_NO_ERROR) return -1;
    uint32_t dims[2] = {2, 3};
    ANeuralNetworksOperandType tensor = {ANEURALNETWORKS_TENSOR_FLOAT32, 2, dims, 0.0f, 0};
    ANeuralNetworksOperandType scalar = {ANEURALNETWORKS_INT32, 0, nullptr, 0.0f, 0};
    ANeuralNetworksOperandType filter{};
    filter.type = ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL;
    filter.dimensionCount = 2;
    filter.dimensions = dims;
    ANeuralNetworksModel_addOperand(model, &tensor);
    ANeuralNetworksModel_addOperand(model, &tensor);
    ANeuralNetworksModel_addOperand(model, &scalar);
    ANeuralNetworksModel_addOperand(model, &tensor);
    ANeuralNetworksModel_addOperand(model, &filter);
    const float scales[2] = {0.5f, 0.25f};
    ANeuralNetworksSymmPerChannelQuantParams channelQuant = {0, 2, scales};
    ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(model, 4, &channelQuant);
    int32_t fuse = ANEURALNETWORKS_FUSED_NONE;
    ANeuralNetworksModel_setOperandValue(model, 2, &fuse, sizeof(fuse));
    const uint32_t in[3] = {0, 1, 2};
    const uint32_t out[1] = {3};
    ANeuralNetworksModel_addOperation(model, ANEURALNETWORKS_ADD, 3, in, 1, out);
    ANeuralNetworksModel_identifyInputsAndOutputs(model, 2, in, 1, out);
    ANeuralNetworksModel_finish(model);

    bool supported[1] = {false};
    ANeuralNetworksModel_getSupportedOperationsForDevices(model, &device, 1, supported);

    ANeuralNetworksCompilation* compilation = nullptr;
    ANeuralNetworksCompilation_createForDevices(model, &device, 1, &compilation);
    uint8_t token[ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN] = {};
    ANeuralNetworksCompilation_setCaching(compilation, "/tmp", token);
    ANeuralNetworksCompilation_setPreference(compilation, ANEURALNETWORKS_PREFER_LOW_POWER);
    ANeuralNetworksCompilation_finish(compilation);

    ANeuralNetworksMemory* memory = nullptr;
    ANeuralNetworksMemory_createFromFd(4096, 3, 0, 0, &memory);
    ANeuralNetworksModel* model2 = nullptr;
    ANeuralNetworksModel_create(&model2);
    ANeuralNetworksModel_setOperandValueFromMemory(model2, 0, memory, 0, 24);
    ANeuralNetworksModel_free(model2);

    float a[6] = {}, c[6] = {};
    ANeuralNetworksExecution* execution = nullptr;
    ANeuralNetworksExecution_create(compilation, &execution);
    ANeuralNetworksExecution_setInput(execution, 0, nullptr, a, sizeof(a));
    ANeuralNetworksExecution_setInputFromMemory(execution, 1, &tensor, memory, 0, 24);
    ANeuralNetworksExecution_setOutput(execution, 0, nullptr, c, sizeof(c));
    ANeuralNetworksExecution_setMeasureTiming(execution, true);
    int status = ANeuralNetworksExecution_compute(execution);
    uint32_t rank = 0;
    uint32_t outDims[4];
    ANeuralNetworksExecution_getOutputOperandRank(execution, 0, &rank);
    ANeuralNetworksExecution_getOutputOperandDimensions(execution, 0, outDims);
    uint64_t duration = 0;
    ANeuralNetworksExecution_getDuration(execution, ANEURALNETWORKS_DURATION_IN_DRIVER, &duration);
    ANeuralNetworksExecution_free(execution);

    ANeuralNetworksBurst* burst = nullptr;
    ANeuralNetworksBurst_create(compilation, &burst);
    ANeuralNetworksExecution_create(compilation, &execution);
    ANeuralNetworksExecution_setOutputFromMemory(execution, 0, nullptr, memory, 0, 24);
    ANeuralNetworksExecution_burstCompute(execution, burst);
    ANeuralNetworksExecution_free(execution);
    ANeuralNetworksBurst_free(burst);

    ANeuralNetworksEvent* event = nullptr;
    ANeuralNetworksExecution_create(compilation, &execution);
    ANeuralNetworksExecution_startCompute(execution, &event);
    ANeuralNetworksEvent_wait(event);
    ANeuralNetworksEvent_free(event);
    ANeuralNetworksExecution_free(execution);

    ANeuralNetworksMemory_free(memory);
    ANeuralNetworksCompilation_free(compilation);
    ANeuralNetworksModel_free(model);
    return status;
}
