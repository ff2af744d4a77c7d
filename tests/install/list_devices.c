// A client of the installed package: lists the NNAPI devices; fails unless both are there.
#include <android/NeuralNetworks.h>
#include <stdio.h>

int main(void) {
    uint32_t count = 0;
    if (ANeuralNetworks_getDeviceCount(&count) != ANEURALNETWORKS_NO_ERROR) return 1;
    for (uint32_t i = 0; i < count; ++i) {
        ANeuralNetworksDevice* device = NULL;
        const char* name = NULL;
        if (ANeuralNetworks_getDevice(i, &device) != ANEURALNETWORKS_NO_ERROR ||
            ANeuralNetworksDevice_getName(device, &name) != ANEURALNETWORKS_NO_ERROR) {
            return 1;
        }
        printf("%s\n", name);
    }
    return count >= 2 ? 0 : 1;
}
