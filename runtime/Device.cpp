#include "Device.h"

#include <algorithm>

#include "FeatureLevel.h"
#include "Memory.h"
#include "ModelFeatureLevel.h"
#include "nnemu/hal/DeviceRegistry.h"

namespace nnemu::runtime {

const std::vector<Device>& allDevices() {
    static const std::vector<Device> devices = [] {
        std::vector<Device> list;
        for (const auto& driver : hal::registeredDevices()) {
            Device device;
            device.driver = driver;
            device.name = driver->getName();
            device.version = driver->getVersionString();
            device.capabilities = driver->getCapabilities();
            device.isCpu = driver->getType() == hal::DeviceType::CPU;
            list.push_back(std::move(device));
        }
        return list;
    }();
    return devices;
}

const Device* findDevice(const void* handle) {
    for (const auto& device : allDevices()) {
        if (&device == handle) return &device;
    }
    return nullptr;
}

const Device* cpuDevice() {
    for (const auto& device : allDevices()) {
        if (device.name == "nnapi-reference") return &device;
    }
    return nullptr;
}

int64_t featureLevelOf(const Device& device) {
    const int64_t level = device.driver->getFeatureLevel();
    return level < 0 ? -1 : std::min(level, kRuntimeFeatureLevel);
}

std::vector<bool> supportedOperations(const Device& device, const hal::Model& model) {
    const Memory::CheckScope checkOnce;  // the memories' files checked once for the whole answer
    auto [status, flags] = device.driver->getSupportedOperations(model);
    if (status != hal::ErrorStatus::NONE || flags.size() != model.operations.size()) {
        return std::vector<bool>(model.operations.size(), false);
    }
    const std::vector<bool> within = operationsWithinLevel(model, featureLevelOf(device));
    for (size_t i = 0; i < flags.size(); ++i) flags[i] = flags[i] && within[i];
    return flags;
}

}  // namespace nnemu::runtime
