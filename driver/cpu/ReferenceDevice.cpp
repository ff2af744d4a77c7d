// The `nnapi-reference` device: every operation with a reference kernel, run in-process.
#include <atomic>
#include <optional>

#include "nnemu/cpu/Executor.h"
#include "nnemu/cpu/Kernels.h"
#include "nnemu/hal/ControlFlow.h"
#include "nnemu/hal/DeviceRegistry.h"
#include "nnemu/base/Log.h"
#include "nnemu/hal/OperandTypes.h"
#include "nnemu/hal/StatusConversion.h"
#include "nnemu/hal/Validation.h"
#include "nnemu/props/Faults.h"

namespace nnemu::cpu {
namespace {

using hal::ErrorStatus;

bool hasKernel(hal::OperationType type) {
    return hal::findSignature(type) != nullptr && findKernel(type) != nullptr;
}

// IF and WHILE are interpreted by the executor: they run when every operation of every
// referenced subgraph has a kernel.
bool canRun(const hal::Model& model, hal::OperationType type) {
    if (!hal::isControlFlow(type)) return hasKernel(type);
    for (const auto& graph : model.referenced) {
        for (const auto& operation : graph.operations) {
            if (!hal::isControlFlow(operation.type) && !hasKernel(operation.type)) return false;
        }
    }
    return true;
}

// The fault properties vendor.nnemu.fault.cpu.<point> (nnemu/props/Faults.h): the status to
// fail with, or nullopt (nothing injected, or a delay already slept). One branch when none is set.
std::optional<ErrorStatus> cpuFault(props::faults::Point point) {
    if (!props::faults::armed()) [[likely]] return std::nullopt;
    std::optional<props::faults::Injection> fault = props::faults::check(props::faults::Driver::CPU, point);
    if (!fault) return std::nullopt;
    NN_LOG(WARNING) << "nnapi-reference: " << fault->message;
    if (fault->code == StatusCode::OK) return std::nullopt;
    return hal::toErrorStatus(fault->code);
}

class ReferencePreparedModel final : public hal::IPreparedModel {
public:
    explicit ReferencePreparedModel(hal::Model model) : model_(std::move(model)) {}

    std::tuple<ErrorStatus, std::vector<hal::OutputShape>, hal::Timing> executeSynchronously(
            const hal::Request& request, hal::MeasureTiming measure) override {
        return execute(request, measure, std::nullopt);
    }

    std::tuple<ErrorStatus, std::vector<hal::OutputShape>, hal::Timing> execute(
            const hal::Request& request, hal::MeasureTiming, const hal::Deadline& deadline) override {
        if (dead_.load(std::memory_order_relaxed)) [[unlikely]] {
            NN_LOG(ERROR) << "nnapi-reference died under this compilation (DEAD_OBJECT): it runs nothing more";
            return {ErrorStatus::DEAD_OBJECT, {}, {}};
        }
        std::optional<ErrorStatus> fault;
        if (props::faults::armed()) [[unlikely]] {
            if (request.fenced) fault = cpuFault(props::faults::Point::FENCE);
            if (!fault) fault = cpuFault(props::faults::Point::EXECUTE);
            if (fault == ErrorStatus::DEAD_OBJECT) dead_.store(true, std::memory_order_relaxed);
            if (fault && fault != ErrorStatus::OUTPUT_INSUFFICIENT_SIZE) return {*fault, {}, {}};
        }
        auto [status, shapes] = executeModel(model_, request, deadline);
        if (fault && status == ErrorStatus::NONE) return outputTooSmall(request, std::move(shapes));
        // Like the Android runtime's own CPU path, the reference device reports no timing.
        return {status, std::move(shapes), hal::Timing{}};
    }

private:
    // An injected OUTPUT_INSUFFICIENT_SIZE: the outputs of unknown size are reported too small,
    // with the shapes the run gave them; none such, and the run stands.
    std::tuple<ErrorStatus, std::vector<hal::OutputShape>, hal::Timing> outputTooSmall(
            const hal::Request& request, std::vector<hal::OutputShape> shapes) const {
        bool any = false;
        for (size_t i = 0; i < request.outputs.size() && i < shapes.size(); ++i) {
            const hal::Operand& operand = model_.operands[model_.outputIndexes[i]];
            const auto& dims = request.outputs[i].dimensions.empty() ? operand.dimensions : request.outputs[i].dimensions;
            if (hal::isFullySpecified(operand.type, dims)) continue;
            shapes[i].isSufficient = false;
            any = true;
        }
        if (!any) {
            NN_LOG(WARNING) << "nnapi-reference: OUTPUT_INSUFFICIENT_SIZE not injected: every output of this "
                               "execution has a known size";
            return {ErrorStatus::NONE, std::move(shapes), hal::Timing{}};
        }
        return {ErrorStatus::OUTPUT_INSUFFICIENT_SIZE, std::move(shapes), hal::Timing{}};
    }

    hal::Model model_;
    std::atomic<bool> dead_{false};  // an injected DEAD_OBJECT: the device died for this compilation
};

class ReferenceDevice final : public hal::IDevice {
public:
    std::string getName() const override { return "nnapi-reference"; }
    std::string getVersionString() const override { return "nnemu-" NNEMU_VERSION; }
    // Every operation through feature level 7 has a reference kernel; the runtime reports the
    // smaller of this and its own level.
    int64_t getFeatureLevel() const override { return kReferenceFeatureLevel; }
    hal::DeviceType getType() const override { return hal::DeviceType::CPU; }

    hal::Capabilities getCapabilities() const override {
        hal::Capabilities capabilities;
        const hal::PerformanceInfo unit{1.0f, 1.0f};
        capabilities.relaxedFloat32toFloat16PerformanceScalar = unit;
        capabilities.relaxedFloat32toFloat16PerformanceTensor = unit;
        for (int32_t code = 0; code < hal::kNumberOfOperandTypes; ++code) {
            capabilities.operandPerformance.push_back({static_cast<hal::OperandType>(code), unit});
        }
        return capabilities;
    }

    std::pair<ErrorStatus, std::vector<bool>> getSupportedOperations(const hal::Model& model) override {
        if (const Status valid = hal::validateModel(model); !valid) {
            NN_LOG(ERROR) << "nnapi-reference: invalid model: " << valid.message();
            return {ErrorStatus::INVALID_ARGUMENT, {}};
        }
        props::faults::refresh();  // the fault properties, read at every compilation
        std::vector<bool> supported;
        for (const auto& operation : model.operations) {
            supported.push_back(canRun(model, operation.type));
        }
        return {ErrorStatus::NONE, supported};
    }

    hal::PrepareResult prepareModel(const hal::Model& model, hal::ExecutionPreference preference,
                                    const std::vector<int>&, const std::vector<int>&,
                                    const hal::CacheToken&) override {
        if (static_cast<int32_t>(preference) < 0 || static_cast<int32_t>(preference) > 2) {
            return {ErrorStatus::INVALID_ARGUMENT, nullptr};
        }
        if (const Status valid = hal::validateModel(model); !valid) {
            NN_LOG(ERROR) << "nnapi-reference: invalid model: " << valid.message();
            return {ErrorStatus::INVALID_ARGUMENT, nullptr};
        }
        for (const auto& operation : model.operations) {
            if (!canRun(model, operation.type)) {
                NN_LOG(ERROR) << "nnapi-reference: no kernel for " << hal::operationName(operation.type);
                return {ErrorStatus::INVALID_ARGUMENT, nullptr};
            }
        }
        if (auto fault = cpuFault(props::faults::Point::PREPARE)) return {*fault, nullptr};
        return {ErrorStatus::NONE, std::make_shared<ReferencePreparedModel>(model)};
    }
};

// Rank 100: listed after every accelerator, as Android lists its CPU device last.
const hal::DeviceRegistrar kRegistrar(100, [] { return std::make_shared<ReferenceDevice>(); });

}  // namespace
}  // namespace nnemu::cpu
