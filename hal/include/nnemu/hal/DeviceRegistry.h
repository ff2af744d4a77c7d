// The process-wide list of drivers, in priority order (lower rank first).
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "nnemu/hal/Device.h"

namespace nnemu::hal {

using DeviceFactory = std::function<std::shared_ptr<IDevice>()>;

// Drivers register a factory from a static initializer; rank orders the public device list
// (synap-npu before nnapi-reference).
void registerDevice(int rank, DeviceFactory factory);

// Instantiates every registered device once, in rank order; the same objects for the process.
const std::vector<std::shared_ptr<IDevice>>& registeredDevices();

struct DeviceRegistrar {
    DeviceRegistrar(int rank, DeviceFactory factory) { registerDevice(rank, std::move(factory)); }
};

}  // namespace nnemu::hal
