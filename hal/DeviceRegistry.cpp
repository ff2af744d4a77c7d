#include "nnemu/hal/DeviceRegistry.h"

#include <algorithm>
#include <mutex>

namespace nnemu::hal {
namespace {

struct Entry {
    int rank;
    DeviceFactory factory;
};

std::vector<Entry>& pending() {
    static std::vector<Entry> entries;
    return entries;
}

}  // namespace

void registerDevice(int rank, DeviceFactory factory) {
    pending().push_back({rank, std::move(factory)});
}

const std::vector<std::shared_ptr<IDevice>>& registeredDevices() {
    static std::once_flag once;
    static std::vector<std::shared_ptr<IDevice>> devices;
    std::call_once(once, [] {
        auto entries = pending();
        std::stable_sort(entries.begin(), entries.end(),
                         [](const Entry& a, const Entry& b) { return a.rank < b.rank; });
        for (const auto& entry : entries) {
            if (auto device = entry.factory()) devices.push_back(std::move(device));
        }
    });
    return devices;
}

PerformanceInfo Capabilities::lookup(OperandType type) const {
    for (const auto& entry : operandPerformance) {
        if (entry.type == type) return entry.info;
    }
    return {};
}

}  // namespace nnemu::hal
