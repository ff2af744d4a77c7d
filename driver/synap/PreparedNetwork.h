// A model prepared on synap-npu. Preparing only keeps the model: the network is compiled at
// its first execution, when the input shapes are known, and those shapes are then frozen.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <vector>

#include "NpuCore.h"
#include "nnemu/hal/Device.h"

namespace nnemu::synap {

// Where the first inference's time went (microseconds), for logs and benchmarks.
struct JitCost {
    uint64_t loweringUs = 0;  // NNAPI model -> NPU program
    uint64_t loadUs = 0;      // NPU program -> core runtime (weight packing)
};

class PreparedNetwork final : public hal::IPreparedModel {
public:
    explicit PreparedNetwork(hal::Model model) : model_(std::move(model)) {}

    std::tuple<hal::ErrorStatus, std::vector<hal::OutputShape>, hal::Timing> executeSynchronously(
            const hal::Request& request, hal::MeasureTiming measure) override;

    JitCost jitCost() const { return jitCost_; }

private:
    // Compiles on first use; checks the shapes of later executions against the frozen ones.
    bool ensureCompiled(const std::vector<std::vector<uint32_t>>& inputDims);

    hal::Model model_;
    std::mutex mutex_;  // one execution at a time: the core's runtime is not reentrant
    std::unique_ptr<NpuCore> core_;
    std::vector<std::vector<uint32_t>> frozenInputDims_;
    JitCost jitCost_;
};

}  // namespace nnemu::synap
