/* A separate NNAPI application for the statistics tests: builds a small convolution network,
 * compiles it (for the default devices, or only for --device NAME; with --cache DIR in the NNAPI
 * compilation cache of that directory), runs it --runs times, prints "READY", and with --hold reads commands
 * on stdin: "run <n>" runs n more times and prints "READY" again; anything else, or the end of
 * input, frees everything and exits. */
#include <android/NeuralNetworks.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char* what, int status) {
    fprintf(stderr, "npu_client: %s failed with %d\n", what, status);
    return 1;
}

static int run(ANeuralNetworksCompilation* compilation, int runs) {
    float input[192], output[128];
    for (int i = 0; i < 192; ++i) input[i] = (float)(i % 17) / 8.0f - 1.0f;
    for (int i = 0; i < runs; ++i) {
        ANeuralNetworksExecution* execution = NULL;
        ANeuralNetworksExecution_create(compilation, &execution);
        ANeuralNetworksExecution_setInput(execution, 0, NULL, input, sizeof input);
        ANeuralNetworksExecution_setOutput(execution, 0, NULL, output, sizeof output);
        const int status = ANeuralNetworksExecution_compute(execution);
        ANeuralNetworksExecution_free(execution);
        if (status != 0) return status;
    }
    return 0;
}

static ANeuralNetworksDevice* find_device(const char* name) {
    uint32_t count = 0;
    ANeuralNetworks_getDeviceCount(&count);
    for (uint32_t i = 0; i < count; ++i) {
        ANeuralNetworksDevice* device = NULL;
        const char* device_name = NULL;
        if (ANeuralNetworks_getDevice(i, &device) == 0 && ANeuralNetworksDevice_getName(device, &device_name) == 0 &&
            strcmp(device_name, name) == 0) {
            return device;
        }
    }
    return NULL;
}

int main(int argc, char** argv) {
    int runs = 1, hold = 0;
    const char* device_name = NULL;
    const char* cache_dir = NULL;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) runs = atoi(argv[++i]);
        else if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) device_name = argv[++i];
        else if (strcmp(argv[i], "--hold") == 0) hold = 1;
        else if (strcmp(argv[i], "--cache") == 0 && i + 1 < argc) cache_dir = argv[++i];
        else return fail("argument parsing", -1);
    }
    /* input [1,8,8,3] -> conv 3x3 SAME relu6 (3 -> 4) -> conv 1x1 (4 -> 2) -> output [1,8,8,2] */
    static const uint32_t in_dims[4] = {1, 8, 8, 3}, f1_dims[4] = {4, 3, 3, 3}, b1_dims[1] = {4};
    static const uint32_t mid_dims[4] = {1, 8, 8, 4}, f2_dims[4] = {2, 1, 1, 4}, b2_dims[1] = {2};
    static const uint32_t out_dims[4] = {1, 8, 8, 2};
    const ANeuralNetworksOperandType in = {ANEURALNETWORKS_TENSOR_FLOAT32, 4, in_dims, 0, 0};
    const ANeuralNetworksOperandType f1 = {ANEURALNETWORKS_TENSOR_FLOAT32, 4, f1_dims, 0, 0};
    const ANeuralNetworksOperandType b1 = {ANEURALNETWORKS_TENSOR_FLOAT32, 1, b1_dims, 0, 0};
    const ANeuralNetworksOperandType mid = {ANEURALNETWORKS_TENSOR_FLOAT32, 4, mid_dims, 0, 0};
    const ANeuralNetworksOperandType f2 = {ANEURALNETWORKS_TENSOR_FLOAT32, 4, f2_dims, 0, 0};
    const ANeuralNetworksOperandType b2 = {ANEURALNETWORKS_TENSOR_FLOAT32, 1, b2_dims, 0, 0};
    const ANeuralNetworksOperandType out = {ANEURALNETWORKS_TENSOR_FLOAT32, 4, out_dims, 0, 0};
    const ANeuralNetworksOperandType scalar = {ANEURALNETWORKS_INT32, 0, NULL, 0, 0};
    const ANeuralNetworksOperandType* types[] = {&in, &f1, &b1, &scalar, &scalar, &scalar, &scalar, &mid,
                                                 &f2, &b2, &scalar, &out};
    float w1[4 * 27], w2[8], bias1[4] = {0.1f, -0.2f, 0.3f, 0}, bias2[2] = {0.5f, -0.5f};
    for (int i = 0; i < 108; ++i) w1[i] = (float)((i * 13) % 7 - 3) / 10.0f;
    for (int i = 0; i < 8; ++i) w2[i] = (float)(i % 3) - 1.0f;
    const int32_t same = ANEURALNETWORKS_PADDING_SAME, one = 1, relu6 = ANEURALNETWORKS_FUSED_RELU6, none = 0;
    ANeuralNetworksModel* model = NULL;
    int status = ANeuralNetworksModel_create(&model);
    for (int i = 0; i < 12 && status == 0; ++i) status = ANeuralNetworksModel_addOperand(model, types[i]);
    if (status != 0) return fail("addOperand", status);
    ANeuralNetworksModel_setOperandValue(model, 1, w1, sizeof w1);
    ANeuralNetworksModel_setOperandValue(model, 2, bias1, sizeof bias1);
    ANeuralNetworksModel_setOperandValue(model, 3, &same, sizeof same);
    ANeuralNetworksModel_setOperandValue(model, 4, &one, sizeof one);
    ANeuralNetworksModel_setOperandValue(model, 5, &one, sizeof one);
    ANeuralNetworksModel_setOperandValue(model, 6, &relu6, sizeof relu6);
    ANeuralNetworksModel_setOperandValue(model, 8, w2, sizeof w2);
    ANeuralNetworksModel_setOperandValue(model, 9, bias2, sizeof bias2);
    ANeuralNetworksModel_setOperandValue(model, 10, &none, sizeof none);
    const uint32_t conv1[7] = {0, 1, 2, 3, 4, 5, 6}, conv1_out[1] = {7};
    const uint32_t conv2[7] = {7, 8, 9, 3, 4, 5, 10}, conv2_out[1] = {11}, inputs[1] = {0};
    if ((status = ANeuralNetworksModel_addOperation(model, ANEURALNETWORKS_CONV_2D, 7, conv1, 1, conv1_out)) ||
        (status = ANeuralNetworksModel_addOperation(model, ANEURALNETWORKS_CONV_2D, 7, conv2, 1, conv2_out)) ||
        (status = ANeuralNetworksModel_identifyInputsAndOutputs(model, 1, inputs, 1, conv2_out)) ||
        (status = ANeuralNetworksModel_finish(model))) {
        return fail("building the model", status);
    }
    ANeuralNetworksCompilation* compilation = NULL;
    if (device_name != NULL) {
        const ANeuralNetworksDevice* devices[1] = {find_device(device_name)};
        if (devices[0] == NULL) return fail("finding the device", -1);
        status = ANeuralNetworksCompilation_createForDevices(model, devices, 1, &compilation);
    } else {
        status = ANeuralNetworksCompilation_create(model, &compilation);
    }
    static const uint8_t token[ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN] = {0x5A};
    if (status == 0 && cache_dir != NULL) status = ANeuralNetworksCompilation_setCaching(compilation, cache_dir, token);
    if (status || (status = ANeuralNetworksCompilation_finish(compilation))) return fail("compiling", status);
    if ((status = run(compilation, runs)) != 0) return fail("compute", status);
    printf("READY\n");
    fflush(stdout);
    char line[64];
    while (hold && fgets(line, sizeof line, stdin) != NULL && strncmp(line, "run ", 4) == 0) {
        if ((status = run(compilation, atoi(line + 4))) != 0) return fail("compute", status);
        printf("READY\n");
        fflush(stdout);
    }
    ANeuralNetworksCompilation_free(compilation);
    ANeuralNetworksModel_free(model);
    return 0;
}
