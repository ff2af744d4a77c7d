// The NNAPI device of a given name, as an application finds it through the C API.
#pragma once

#include <android/NeuralNetworks.h>

#include <string>

namespace nnemu::test {

// nullptr when no device has that name.
inline ANeuralNetworksDevice* deviceNamed(const std::string& wanted) {
    uint32_t count = 0;
    ANeuralNetworks_getDeviceCount(&count);
    for (uint32_t i = 0; i < count; ++i) {
        ANeuralNetworksDevice* device = nullptr;
        const char* name = nullptr;
        ANeuralNetworks_getDevice(i, &device);
        ANeuralNetworksDevice_getName(device, &name);
        if (name != nullptr && wanted == name) return device;
    }
    return nullptr;
}

}  // namespace nnemu::test
