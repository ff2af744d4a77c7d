// ANeuralNetworksDevice: a registered driver with the facts the runtime caches about it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "nnemu/hal/Device.h"

namespace nnemu::runtime {

struct Device {
    std::shared_ptr<hal::IDevice> driver;
    std::string name;
    std::string version;
    hal::Capabilities capabilities;
    bool isCpu = false;
};

// Every device, in the public order (drivers by priority, nnapi-reference last). Stable for
// the process lifetime, so the pointers serve as ANeuralNetworksDevice handles.
const std::vector<Device>& allDevices();
const Device* findDevice(const void* handle);  // nullptr if `handle` is not a device
const Device* cpuDevice();

}  // namespace nnemu::runtime
