/* A minimal NNAPI application, written only against the public header: it builds
 * out = relu(a + b) * c for 2x3 float tensors (c a constant), compiles it (on the device named
 * by --device, or wherever the runtime chooses), runs it (once, or --runs N times) and checks
 * each result: a run that fails prints its result code and the program goes on to the next. */
#include <android/NeuralNetworks.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                              \
    do {                                                                         \
        int status_ = (call);                                                    \
        if (status_ != ANEURALNETWORKS_NO_ERROR) {                               \
            fprintf(stderr, "nnapi_example: %s failed with %d\n", #call, status_); \
            return 1;                                                            \
        }                                                                        \
    } while (0)

static int find_device(const char* name, ANeuralNetworksDevice** found) {
    uint32_t count = 0;
    CHECK(ANeuralNetworks_getDeviceCount(&count));
    for (uint32_t i = 0; i < count; ++i) {
        ANeuralNetworksDevice* device = NULL;
        const char* device_name = NULL;
        CHECK(ANeuralNetworks_getDevice(i, &device));
        CHECK(ANeuralNetworksDevice_getName(device, &device_name));
        if (strcmp(device_name, name) == 0) {
            *found = device;
            return 0;
        }
    }
    fprintf(stderr, "nnapi_example: no device named %s\n", name);
    return 1;
}

static int build_model(ANeuralNetworksModel* model, const float* c) {
    const uint32_t dims[2] = {2, 3};
    const ANeuralNetworksOperandType tensor = {ANEURALNETWORKS_TENSOR_FLOAT32, 2, dims, 0.0f, 0};
    const ANeuralNetworksOperandType scalar = {ANEURALNETWORKS_INT32, 0, NULL, 0.0f, 0};
    /* operands: 0 a, 1 b, 2 relu fuse code, 3 sum, 4 c, 5 no fuse code, 6 out */
    for (int i = 0; i < 7; ++i) {
        const int is_scalar = i == 2 || i == 5;
        CHECK(ANeuralNetworksModel_addOperand(model, is_scalar ? &scalar : &tensor));
    }
    const int32_t relu = ANEURALNETWORKS_FUSED_RELU, none = ANEURALNETWORKS_FUSED_NONE;
    CHECK(ANeuralNetworksModel_setOperandValue(model, 2, &relu, sizeof relu));
    CHECK(ANeuralNetworksModel_setOperandValue(model, 4, c, 6 * sizeof(float)));
    CHECK(ANeuralNetworksModel_setOperandValue(model, 5, &none, sizeof none));
    const uint32_t add_in[3] = {0, 1, 2}, add_out[1] = {3};
    const uint32_t mul_in[3] = {3, 4, 5}, mul_out[1] = {6};
    CHECK(ANeuralNetworksModel_addOperation(model, ANEURALNETWORKS_ADD, 3, add_in, 1, add_out));
    CHECK(ANeuralNetworksModel_addOperation(model, ANEURALNETWORKS_MUL, 3, mul_in, 1, mul_out));
    const uint32_t inputs[2] = {0, 1}, outputs[1] = {6};
    CHECK(ANeuralNetworksModel_identifyInputsAndOutputs(model, 2, inputs, 1, outputs));
    CHECK(ANeuralNetworksModel_finish(model));
    return 0;
}

/* One execution; its result code (the application's view of a failure). */
static int run_once(ANeuralNetworksCompilation* compilation, const float* a, const float* b, float* out) {
    ANeuralNetworksExecution* execution = NULL;
    int status = ANeuralNetworksExecution_create(compilation, &execution);
    if (status != ANEURALNETWORKS_NO_ERROR) return status;
    status = ANeuralNetworksExecution_setInput(execution, 0, NULL, a, 6 * sizeof(float));
    if (status == ANEURALNETWORKS_NO_ERROR) status = ANeuralNetworksExecution_setInput(execution, 1, NULL, b, 6 * sizeof(float));
    if (status == ANEURALNETWORKS_NO_ERROR) status = ANeuralNetworksExecution_setOutput(execution, 0, NULL, out, 6 * sizeof(float));
    ANeuralNetworksEvent* event = NULL;
    if (status == ANEURALNETWORKS_NO_ERROR) status = ANeuralNetworksExecution_startCompute(execution, &event);
    if (status == ANEURALNETWORKS_NO_ERROR) status = ANeuralNetworksEvent_wait(event);
    ANeuralNetworksEvent_free(event);
    ANeuralNetworksExecution_free(execution);
    return status;
}

int main(int argc, char** argv) {
    const char* device_name = NULL;
    int runs = 1;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
            device_name = argv[++i];
        } else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc && atoi(argv[i + 1]) > 0 &&
                   atoi(argv[i + 1]) <= 1000) {
            runs = atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: %s [--device NAME] [--runs N]\n", argv[0]);
            return 2;
        }
    }
    const float a[6] = {1, -2, 3, -4, 5, -6};
    const float b[6] = {0.5f, 1, -4, 2, 0, 1};
    const float c[6] = {2, 2, 2, 3, 3, 3};
    float out[6] = {0};

    ANeuralNetworksModel* model = NULL;
    CHECK(ANeuralNetworksModel_create(&model));
    if (build_model(model, c) != 0) return 1;

    ANeuralNetworksCompilation* compilation = NULL;
    if (device_name != NULL) {
        ANeuralNetworksDevice* device = NULL;
        if (find_device(device_name, &device) != 0) return 1;
        const ANeuralNetworksDevice* devices[1] = {device};
        CHECK(ANeuralNetworksCompilation_createForDevices(model, devices, 1, &compilation));
    } else {
        CHECK(ANeuralNetworksCompilation_create(model, &compilation));
    }
    CHECK(ANeuralNetworksCompilation_setPreference(compilation, ANEURALNETWORKS_PREFER_FAST_SINGLE_ANSWER));
    CHECK(ANeuralNetworksCompilation_finish(compilation));

    int failures = 0;
    for (int run = 1; run <= runs; ++run) {
        if (runs > 1) printf("run %d: ", run);
        const int status = run_once(compilation, a, b, out);
        if (status != ANEURALNETWORKS_NO_ERROR) {
            printf("failed with %d\n", status);
            ++failures;
            continue;
        }
        int mismatches = 0;
        printf("relu(a + b) * c =");
        for (int i = 0; i < 6; ++i) {
            const float sum = a[i] + b[i];
            const float expected = (sum > 0 ? sum : 0) * c[i];
            printf(" %g", out[i]);
            mismatches += fabsf(out[i] - expected) > 1e-6f;
        }
        printf(runs > 1 ? " %s\n" : "\n%s\n", mismatches ? "MISMATCH" : "OK");
        failures += mismatches != 0;
    }

    ANeuralNetworksCompilation_free(compilation);
    ANeuralNetworksModel_free(model);
    return failures ? 1 : 0;
}
