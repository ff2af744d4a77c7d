#include "PreparedNetwork.h"

#include "Compiler.h"
#include "nnemu/hal/Log.h"
#include "nnemu/hal/OperandTypes.h"

namespace nnemu::synap {
namespace {

using Clock = std::chrono::steady_clock;
using hal::ErrorStatus;

uint64_t microsSince(Clock::time_point start) {
    return static_cast<uint64_t>(
            std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count());
}

// The bytes of request argument `argument`, or nullptr when it does not fit its pool.
uint8_t* argumentData(const hal::Request& request, const hal::RequestArgument& argument) {
    const auto& at = argument.location;
    if (argument.hasNoValue || at.poolIndex >= request.pools.size()) return nullptr;
    const auto& pool = request.pools[at.poolIndex];
    if (uint64_t{at.offset} + at.length > pool->size() || pool->data() == nullptr) return nullptr;
    return pool->data() + at.offset;
}

}  // namespace

bool PreparedNetwork::ensureCompiled(const std::vector<std::vector<uint32_t>>& inputDims) {
    if (core_ != nullptr) {
        if (inputDims == frozenInputDims_) return true;
        NN_LOG(ERROR) << "synap-npu: input shapes cannot change after the first inference";
        return false;
    }
    const auto start = Clock::now();
    std::vector<uint8_t> program;
    std::string error;
    if (!compileProgram(model_, inputDims, &program, &error)) {
        NN_LOG(ERROR) << "synap-npu: compilation failed: " << error;
        return false;
    }
    jitCost_.loweringUs = microsSince(start);
    const auto loadStart = Clock::now();
    core_ = NpuCore::load(std::move(program), &error);
    if (core_ == nullptr) {
        NN_LOG(ERROR) << "synap-npu: " << error;
        return false;
    }
    jitCost_.loadUs = microsSince(loadStart);
    frozenInputDims_ = inputDims;
    NN_LOG(INFO) << "synap-npu: compiled a network of " << core_->layerCount() << " layers (lowering "
                 << jitCost_.loweringUs << " us, core load " << jitCost_.loadUs << " us)";
    return true;
}

std::tuple<ErrorStatus, std::vector<hal::OutputShape>, hal::Timing> PreparedNetwork::executeSynchronously(
        const hal::Request& request, hal::MeasureTiming measure) {
    const auto start = Clock::now();
    if (request.inputs.size() != model_.inputIndexes.size() || request.outputs.size() != model_.outputIndexes.size()) {
        return {ErrorStatus::INVALID_ARGUMENT, {}, {}};
    }
    std::vector<std::vector<uint32_t>> inputDims;
    std::vector<const uint8_t*> inputs;
    for (size_t i = 0; i < request.inputs.size(); ++i) {
        const auto& argument = request.inputs[i];
        const hal::Operand& operand = model_.operands[model_.inputIndexes[i]];
        const auto& dims = argument.dimensions.empty() ? operand.dimensions : argument.dimensions;
        const uint8_t* data = argumentData(request, argument);
        if (data == nullptr || hal::byteSize(operand.type, dims) != argument.location.length) {
            NN_LOG(ERROR) << "synap-npu: input " << i << " is omitted or does not match its shape";
            return {ErrorStatus::INVALID_ARGUMENT, {}, {}};
        }
        inputDims.push_back(dims);
        inputs.push_back(data);
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (!ensureCompiled(inputDims)) return {ErrorStatus::GENERAL_FAILURE, {}, {}};

    std::vector<hal::OutputShape> shapes;
    std::vector<uint8_t*> outputs;
    bool sufficient = true;
    for (size_t i = 0; i < request.outputs.size(); ++i) {
        const auto& argument = request.outputs[i];
        const bool fits = core_->outputBytes(i) <= argument.location.length;
        shapes.push_back({core_->outputDims(i), fits});
        sufficient = sufficient && fits;
        outputs.push_back(argumentData(request, argument));
        if (outputs.back() == nullptr && fits) {
            NN_LOG(ERROR) << "synap-npu: output " << i << " is omitted or lies outside its memory";
            return {ErrorStatus::INVALID_ARGUMENT, {}, {}};
        }
    }
    if (!sufficient) return {ErrorStatus::OUTPUT_INSUFFICIENT_SIZE, shapes, {}};
    const auto deviceStart = Clock::now();
    std::string error;
    if (!core_->run(inputs, outputs, &error)) {
        NN_LOG(ERROR) << "synap-npu: " << error;
        return {ErrorStatus::GENERAL_FAILURE, {}, {}};
    }
    hal::Timing timing;
    if (measure == hal::MeasureTiming::YES) {
        timing.timeOnDevice = microsSince(deviceStart);
        timing.timeInDriver = microsSince(start);
    }
    return {ErrorStatus::NONE, shapes, timing};
}

}  // namespace nnemu::synap
