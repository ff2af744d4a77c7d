// Device enumeration through the public API and the delegate's device rules.
#include "DelegateTargets.h"

namespace nnemu::tflite {
namespace {

constexpr const char* kReferenceDevice = "nnapi-reference";

struct Device {
    std::string name;
    const ANeuralNetworksDevice* handle;
};

std::vector<Device> listDevices() {
    std::vector<Device> devices;
    uint32_t count = 0;
    if (ANeuralNetworks_getDeviceCount(&count) != ANEURALNETWORKS_NO_ERROR) return devices;
    for (uint32_t i = 0; i < count; ++i) {
        ANeuralNetworksDevice* device = nullptr;
        const char* name = nullptr;
        if (ANeuralNetworks_getDevice(i, &device) == ANEURALNETWORKS_NO_ERROR &&
            ANeuralNetworksDevice_getName(device, &name) == ANEURALNETWORKS_NO_ERROR && name != nullptr) {
            devices.push_back({name, device});
        }
    }
    return devices;
}

}  // namespace

Status chooseDelegateTargets(const DelegateOptions& options, DelegateTargets* targets) {
    const std::vector<Device> devices = listDevices();
    for (const Device& device : devices) {
        targets->deviceNames.push_back(device.name);
        if (device.name == kReferenceDevice) targets->reference = device.handle;
    }
    if (targets->reference == nullptr) {
        return unavailable(std::string("the NNAPI device ") + kReferenceDevice + " is not available");
    }
    if (!options.useNnapi) return {};
    if (!options.acceleratorName.empty()) {
        for (const Device& device : devices) {
            if (device.name == options.acceleratorName) targets->accelerators.push_back(device.handle);
        }
        if (targets->accelerators.empty()) {
            std::string available;
            for (const Device& device : devices) available += (available.empty() ? "" : ",") + device.name;
            return unavailable("could not find the NNAPI accelerator '" + options.acceleratorName + "' (available: " +
                               available + ")");
        }
    } else if (options.disableNnapiCpu) {
        for (const Device& device : devices) {
            if (device.name != kReferenceDevice) targets->accelerators.push_back(device.handle);
        }
    } else if (devices.size() > 1) {
        for (const Device& device : devices) targets->accelerators.push_back(device.handle);
        targets->runtimeChoice = true;
    }
    return {};
}

}  // namespace nnemu::tflite
