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

// The driver's feature level, never above the runtime's (nnapi-fl30plus.md §3.7); -1 when the
// driver cannot say.
int64_t featureLevelOf(const Device& device);
// What the device claims of `model`, limited to the operations its feature level covers
// (nnapi-fl30plus.md §2.4); all false when the driver fails or answers with the wrong length.
std::vector<bool> supportedOperations(const Device& device, const hal::Model& model);

}  // namespace nnemu::runtime
