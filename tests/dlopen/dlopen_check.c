/* Loads libneuralnetworks.so the way TensorFlow Lite's NNAPI delegate does (dlopen by bare name)
 * and checks what it infers from the exports: all 23 mandatory feature-level-27 functions, the
 * markers of levels 28, 29 and 30, and none of level 5's (nnemu's library implements level 30). */
#include <dlfcn.h>
#include <stdio.h>

static const char* const kMandatory[] = {
    "ANeuralNetworksMemory_createFromFd", "ANeuralNetworksMemory_free", "ANeuralNetworksModel_create",
    "ANeuralNetworksModel_free", "ANeuralNetworksModel_finish", "ANeuralNetworksModel_addOperand",
    "ANeuralNetworksModel_setOperandValue", "ANeuralNetworksModel_setOperandValueFromMemory",
    "ANeuralNetworksModel_addOperation", "ANeuralNetworksModel_identifyInputsAndOutputs",
    "ANeuralNetworksCompilation_create", "ANeuralNetworksCompilation_free",
    "ANeuralNetworksCompilation_setPreference", "ANeuralNetworksCompilation_finish",
    "ANeuralNetworksExecution_create", "ANeuralNetworksExecution_free", "ANeuralNetworksExecution_setInput",
    "ANeuralNetworksExecution_setInputFromMemory", "ANeuralNetworksExecution_setOutput",
    "ANeuralNetworksExecution_setOutputFromMemory", "ANeuralNetworksExecution_startCompute",
    "ANeuralNetworksEvent_wait", "ANeuralNetworksEvent_free",
    /* the delegate's feature-level markers for 28, 29 and 30 */
    "ANeuralNetworksModel_relaxComputationFloat32toFloat16", "ANeuralNetworks_getDeviceCount",
    "ANeuralNetworksCompilation_setTimeout",
};
static const char* const kAbsent[] = {
    "ANeuralNetworks_getRuntimeFeatureLevel",
    "ANeuralNetworksExecution_setReusable", "ANeuralNetworks_getSLDriverImpl",
};

int main(void) {
    void* library = dlopen("libneuralnetworks.so", RTLD_LAZY | RTLD_LOCAL);
    if (library == NULL) {
        fprintf(stderr, "dlopen failed: %s\n", dlerror());
        return 1;
    }
    int failures = 0;
    for (size_t i = 0; i < sizeof kMandatory / sizeof kMandatory[0]; ++i) {
        if (dlsym(library, kMandatory[i]) == NULL) {
            fprintf(stderr, "missing export %s\n", kMandatory[i]);
            ++failures;
        }
    }
    for (size_t i = 0; i < sizeof kAbsent / sizeof kAbsent[0]; ++i) {
        if (dlsym(library, kAbsent[i]) != NULL) {
            fprintf(stderr, "exports %s, but that feature level is not implemented\n", kAbsent[i]);
            ++failures;
        }
    }
    typedef int (*GetDeviceCount)(unsigned*);
    unsigned count = 0;
    GetDeviceCount getDeviceCount = (GetDeviceCount)dlsym(library, "ANeuralNetworks_getDeviceCount");
    if (getDeviceCount == NULL || getDeviceCount(&count) != 0 || count == 0) {
        fprintf(stderr, "no device reported\n");
        ++failures;
    }
    dlclose(library);
    printf("%s\n", failures ? "FAILED" : "OK");
    return failures ? 1 : 0;
}
