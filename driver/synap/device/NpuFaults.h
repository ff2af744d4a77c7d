// synap-npu's side of the fault properties (nnemu/props/Faults.h): one call per fault point,
// free beyond one predictable branch while no fault property is set.
#pragma once

#include <optional>

#include "nnemu/hal/Types.h"
#include "nnemu/props/Faults.h"

namespace nnemu::synap {

// Logs the injected fault in the board's format; the HAL status to fail with, or nullopt
// (nothing injected, or a delay already slept).
std::optional<hal::ErrorStatus> injectedFault(props::faults::Point point);

inline std::optional<hal::ErrorStatus> npuFault(props::faults::Point point) {
    if (!props::faults::armed()) [[likely]] return std::nullopt;
    return injectedFault(point);
}

}  // namespace nnemu::synap
