#include "Device.h"

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

}  // namespace nnemu::runtime
