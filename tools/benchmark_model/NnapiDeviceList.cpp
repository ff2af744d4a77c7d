#include "NnapiDeviceList.h"

#include <android/NeuralNetworks.h>

namespace nnemu::benchmark {

std::vector<std::string> nnapiDeviceNames() {
    std::vector<std::string> names;
    uint32_t count = 0;
    if (ANeuralNetworks_getDeviceCount(&count) != ANEURALNETWORKS_NO_ERROR) return names;
    for (uint32_t i = 0; i < count; ++i) {
        ANeuralNetworksDevice* device = nullptr;
        const char* name = nullptr;
        if (ANeuralNetworks_getDevice(i, &device) == ANEURALNETWORKS_NO_ERROR &&
            ANeuralNetworksDevice_getName(device, &name) == ANEURALNETWORKS_NO_ERROR && name != nullptr) {
            names.emplace_back(name);
        }
    }
    return names;
}

std::string joinDeviceNames(const std::vector<std::string>& names) {
    std::string joined;
    for (const std::string& name : names) {
        if (!joined.empty()) joined += ',';
        joined += name;
    }
    return joined;
}

}  // namespace nnemu::benchmark
