#include "NpuFaults.h"

#include "SynapLog.h"
#include "nnemu/hal/StatusConversion.h"

namespace nnemu::synap {

std::optional<hal::ErrorStatus> injectedFault(props::faults::Point point) {
    std::optional<props::faults::Injection> fault = props::faults::check(props::faults::Driver::NPU, point);
    if (!fault) return std::nullopt;
    SYNAP_LOG(WARNING) << fault->message;
    if (fault->code == StatusCode::OK) return std::nullopt;
    return hal::toErrorStatus(fault->code);
}

}  // namespace nnemu::synap
