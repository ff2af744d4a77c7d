/*
 * Compile-only check: <android/NeuralNetworks.h> is self-contained C11 and
 * declares the complete feature-level-29 NNAPI surface with the NDK's exact
 * signatures (each function is bound to a pointer of the expected type, so a
 * wrong parameter type or const-ness fails under -Werror).
 *
 *   cc -std=c11 -Wall -Wextra -Werror -I runtime/include -c tests/header/header_check.c
 */
#include "header_check_common.h"

/* ---- types ---- */
_Static_assert(sizeof(ANeuralNetworksOperationType) == sizeof(int32_t), "operation type");
_Static_assert(offsetof(ANeuralNetworksOperandType, type) == 0, "operand type layout");
_Static_assert(offsetof(ANeuralNetworksOperandType, dimensionCount) >
                       offsetof(ANeuralNetworksOperandType, type), "operand type layout");
_Static_assert(offsetof(ANeuralNetworksOperandType, dimensions) >
                       offsetof(ANeuralNetworksOperandType, dimensionCount), "operand type layout");
_Static_assert(offsetof(ANeuralNetworksOperandType, scale) >
                       offsetof(ANeuralNetworksOperandType, dimensions), "operand type layout");
_Static_assert(offsetof(ANeuralNetworksOperandType, zeroPoint) >
                       offsetof(ANeuralNetworksOperandType, scale), "operand type layout");
_Static_assert(offsetof(ANeuralNetworksSymmPerChannelQuantParams, channelDim) == 0, "layout");
_Static_assert(offsetof(ANeuralNetworksSymmPerChannelQuantParams, scales) >
                       offsetof(ANeuralNetworksSymmPerChannelQuantParams, scaleCount), "layout");

/* ---- every public function, with its expected type: X(return, name, params) ---- */
enum { NN_PUBLIC_FUNCTION_COUNT = 0 NN_PUBLIC_FUNCTIONS(NN_COUNT_ONE) };
_Static_assert(NN_PUBLIC_FUNCTION_COUNT == 43, "feature level 29 has 43 public functions");

typedef void (*nn_any_function)(void);

size_t nnapi_header_check_functions(nn_any_function* out);

/* Binds each function to a pointer of its exact expected type, then stores it type-erased. */
size_t nnapi_header_check_functions(nn_any_function* out) {
    size_t n = 0;
#define NN_BIND(ret, name, params)                   \
    {                                                \
        ret(*const typed) params = name;             \
        out[n++] = (nn_any_function)typed;           \
    }
    NN_PUBLIC_FUNCTIONS(NN_BIND)
#undef NN_BIND
    return n;
}

int nnapi_header_check_usage(void);

/* Never called: typical application code, to check that ordinary usage compiles. */
int nnapi_header_check_usage(void) {
    uint32_t deviceCount = 0;
    ANeuralNetworksDevice* device = NULL;
    const char* name = NULL;
    int32_t deviceType = ANEURALNETWORKS_DEVICE_UNKNOWN;
    int64_t featureLevel = 0;
    if (ANeuralNetworks_getDeviceCount(&deviceCount) != ANEURALNETWORKS_NO_ERROR) return -1;
    if (deviceCount == 0 || ANeuralNetworks_getDevice(0, &device) != ANEURALNETWORKS_NO_ERROR)
        return -1;
    ANeuralNetworksDevice_getName(device, &name);
    ANeuralNetworksDevice_getType(device, &deviceType);
    ANeuralNetworksDevice_getFeatureLevel(device, &featureLevel);

    ANeuralNetworksModel* model = NULL;
    if (ANeuralNetworksModel_create(&model) != ANEURALNETWORKS_NO_ERROR) return -1;
    uint32_t dims[2] = {2, 3};
    ANeuralNetworksOperandType tensor = {ANEURALNETWORKS_TENSOR_FLOAT32, 2, dims, 0.0f, 0};
    ANeuralNetworksOperandType scalar = {ANEURALNETWORKS_INT32, 0, NULL, 0.0f, 0};
    ANeuralNetworksModel_addOperand(model, &tensor);
    ANeuralNetworksModel_addOperand(model, &tensor);
    ANeuralNetworksModel_addOperand(model, &scalar);
    ANeuralNetworksModel_addOperand(model, &tensor);
    int32_t fuse = ANEURALNETWORKS_FUSED_NONE;
    ANeuralNetworksModel_setOperandValue(model, 2, &fuse, sizeof(fuse));
    uint32_t in[3] = {0, 1, 2};
    uint32_t out[1] = {3};
    ANeuralNetworksModel_addOperation(model, ANEURALNETWORKS_ADD, 3, in, 1, out);
    ANeuralNetworksModel_identifyInputsAndOutputs(model, 2, in, 1, out);
    ANeuralNetworksModel_relaxComputationFloat32toFloat16(model, true);
    ANeuralNetworksModel_finish(model);

    const ANeuralNetworksDevice* devices[1] = {device};
    bool supported[1] = {false};
    ANeuralNetworksModel_getSupportedOperationsForDevices(model, devices, 1, supported);

    ANeuralNetworksCompilation* compilation = NULL;
    ANeuralNetworksCompilation_createForDevices(model, devices, 1, &compilation);
    uint8_t token[ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN] = {0};
    ANeuralNetworksCompilation_setCaching(compilation, "/tmp", token);
    ANeuralNetworksCompilation_setPreference(compilation, ANEURALNETWORKS_PREFER_SUSTAINED_SPEED);
    ANeuralNetworksCompilation_finish(compilation);

    float a[6] = {0}, b[6] = {0}, c[6] = {0};
    ANeuralNetworksExecution* execution = NULL;
    ANeuralNetworksExecution_create(compilation, &execution);
    ANeuralNetworksExecution_setInput(execution, 0, NULL, a, sizeof(a));
    ANeuralNetworksExecution_setInput(execution, 1, &tensor, b, sizeof(b));
    ANeuralNetworksExecution_setOutput(execution, 0, NULL, c, sizeof(c));
    ANeuralNetworksExecution_setMeasureTiming(execution, true);
    int status = ANeuralNetworksExecution_compute(execution);
    uint32_t rank = 0;
    uint32_t outDims[4];
    ANeuralNetworksExecution_getOutputOperandRank(execution, 0, &rank);
    ANeuralNetworksExecution_getOutputOperandDimensions(execution, 0, outDims);
    uint64_t duration = 0;
    ANeuralNetworksExecution_getDuration(execution, ANEURALNETWORKS_DURATION_ON_HARDWARE,
                                         &duration);
    ANeuralNetworksExecution_free(execution);

    ANeuralNetworksBurst* burst = NULL;
    ANeuralNetworksBurst_create(compilation, &burst);
    ANeuralNetworksExecution_create(compilation, &execution);
    ANeuralNetworksExecution_burstCompute(execution, burst);
    ANeuralNetworksExecution_free(execution);
    ANeuralNetworksBurst_free(burst);

    ANeuralNetworksEvent* event = NULL;
    ANeuralNetworksExecution_create(compilation, &execution);
    ANeuralNetworksExecution_startCompute(execution, &event);
    ANeuralNetworksEvent_wait(event);
    ANeuralNetworksEvent_free(event);
    ANeuralNetworksExecution_free(execution);

    ANeuralNetworksCompilation_free(compilation);
    ANeuralNetworksModel_free(model);
    return status;
}
