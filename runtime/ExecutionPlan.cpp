#include "ExecutionPlan.h"

#include <android/NeuralNetworks.h>

#include <algorithm>
#include <limits>

#include "Memory.h"
#include "nnemu/base/Allocation.h"
#include "nnemu/base/Log.h"
#include "nnemu/base/Trace.h"
#include "nnemu/hal/OperandTypes.h"

namespace nnemu::runtime {
namespace {

using hal::ErrorStatus;
using hal::OperandLifeTime;

// A non-owning view of an application buffer bound by pointer.
class PointerPool final : public hal::MemoryPool {
public:
    PointerPool(void* pointer, size_t length) : pointer_(static_cast<uint8_t*>(pointer)), length_(length) {}
    uint8_t* data() const override { return pointer_; }
    size_t size() const override { return length_; }

private:
    uint8_t* pointer_;
    size_t length_;
};

float performanceOf(const Device& device, const hal::Model& model, const hal::Operation& operation,
                    hal::ExecutionPreference preference) {
    const hal::OperandType type = model.operands[operation.inputs.empty() ? 0 : operation.inputs[0]].type;
    hal::PerformanceInfo info;
    const bool isFloat32 = type == hal::OperandType::FLOAT32 || type == hal::OperandType::TENSOR_FLOAT32;
    if (model.relaxComputationFloat32toFloat16 && isFloat32) {
        info = type == hal::OperandType::FLOAT32 ? device.capabilities.relaxedFloat32toFloat16PerformanceScalar
                                                 : device.capabilities.relaxedFloat32toFloat16PerformanceTensor;
    } else {
        info = device.capabilities.lookup(type);
    }
    return preference == hal::ExecutionPreference::LOW_POWER ? info.powerUsage : info.execTime;
}

bool isConstantOrOmitted(OperandLifeTime lifetime) {
    return lifetime == OperandLifeTime::CONSTANT_COPY || lifetime == OperandLifeTime::CONSTANT_REFERENCE ||
           lifetime == OperandLifeTime::NO_VALUE || lifetime == OperandLifeTime::SUBGRAPH;
}

int checkMappings(const std::vector<Argument>& inputs, const std::vector<Argument>& outputs, const hal::Model& main) {
    trace::Span span("validate memories", "runtime");
    // A memory that cannot be mapped, or whose file was truncated below its region, fails the
    // run itself (OP_FAILED, as Android turns UNMAPPABLE into), rather than reaching a driver as
    // an invalid argument (BAD_DATA); so does a model's constant memory.
    for (const auto* arguments : {&inputs, &outputs}) {
        for (const auto& argument : *arguments) {
            if (argument.state == Argument::State::MEMORY && argument.memory->data() == nullptr) {
                NN_LOG(ERROR) << "an execution argument's memory cannot be mapped or no longer holds its region";
                return ANEURALNETWORKS_OP_FAILED;
            }
        }
    }
    for (const auto& pool : main.pools) {
        if (pool->size() != 0 && pool->data() == nullptr) {
            NN_LOG(ERROR) << "a memory holding model constants cannot be mapped or no longer holds its region";
            return ANEURALNETWORKS_OP_FAILED;
        }
    }
    return ANEURALNETWORKS_NO_ERROR;
}

}  // namespace

int ExecutionPlan::create(const ModelBuilder& model, const std::vector<const Device*>& devices,
                          const CompileOptions& options, std::unique_ptr<ExecutionPlan>* result) {
    auto plan = std::make_unique<ExecutionPlan>();
    plan->main_ = model.sharedModel();
    plan->allowFallback_ = options.allowFallback;
    const hal::Model& main = *plan->main_;
    plan->inputPosition_.assign(main.operands.size(), -1);
    plan->outputPosition_.assign(main.operands.size(), -1);
    for (size_t i = 0; i < main.inputIndexes.size(); ++i) plan->inputPosition_[main.inputIndexes[i]] = static_cast<int32_t>(i);
    for (size_t i = 0; i < main.outputIndexes.size(); ++i) plan->outputPosition_[main.outputIndexes[i]] = static_cast<int32_t>(i);

    int status = plan->partition(devices, options);
    if (status == ANEURALNETWORKS_NO_ERROR) status = plan->prepareSteps(options);
    // As Android's CompilationBuilder::finish: every other failure falls back when allowed (a
    // compilation that allows fallback has no deadline of its own, so a missed one is the driver's).
    if (status != ANEURALNETWORKS_NO_ERROR && status != ANEURALNETWORKS_BAD_DATA &&
        status != ANEURALNETWORKS_UNEXPECTED_NULL && options.allowFallback &&
        !model.hasOemOperation() &&
        cpuDevice() != nullptr) {
        NN_LOG(INFO) << "compilation failed on the chosen devices; running the whole model on nnapi-reference";
        plan->makeSimple(cpuDevice());
        status = plan->prepareSteps(options);
    }
    if (status == ANEURALNETWORKS_NO_ERROR) *result = std::move(plan);
    return status;
}

void ExecutionPlan::makeSimple(const Device* device) {
    steps_.clear();
    auto step = std::make_unique<PlanStep>();
    step->device = device;
    step->model = main_;
    step->inputs = main_->inputIndexes;
    step->outputs = main_->outputIndexes;
    steps_.push_back(std::move(step));
}

// One line per accelerator in the style TFLite reports its delegate's partitions, e.g.
// "Replacing 2 out of 3 operation(s) with synap-npu, yielding 3 partitions for the whole model."
void ExecutionPlan::logPartitionSummary(const std::vector<const Device*>& devices,
                                        const std::vector<size_t>& chosen) const {
    if (!logEnabled(LogLevel::VERBOSE)) return;
    size_t partitions = 0;
    for (size_t op = 0; op < chosen.size(); ++op) partitions += op == 0 || chosen[op] != chosen[op - 1];
    for (size_t d = 0; d < devices.size(); ++d) {
        if (devices[d]->isCpu) continue;
        const auto count = static_cast<size_t>(std::count(chosen.begin(), chosen.end(), d));
        NN_LOG(VERBOSE) << "Replacing " << count << " out of " << chosen.size() << " operation(s) with "
                        << devices[d]->name << ", yielding " << partitions << " partitions for the whole model.";
    }
}

int ExecutionPlan::partition(const std::vector<const Device*>& devices, const CompileOptions& options) {
    trace::Span span("partitioning", "compilation");
    span.arg("devices", devices.size()).arg("operations", main_->operations.size());
    const hal::Model& main = *main_;
    const size_t operationCount = main.operations.size();
    // Each device's answer for the whole model; errors or a wrong length mean "nothing".
    std::vector<std::vector<bool>> supported;
    for (const Device* device : devices) supported.push_back(supportedOperations(*device, main));
    std::vector<size_t> chosen(operationCount);
    for (size_t op = 0; op < operationCount; ++op) {
        float best = std::numeric_limits<float>::infinity();
        size_t bestDevice = devices.size();
        for (size_t d = 0; d < devices.size(); ++d) {
            if (!supported[d][op]) continue;
            const float value = performanceOf(*devices[d], main, main.operations[op], options.preference);
            // Strictly better wins; a tie goes to the CPU device.
            if (bestDevice == devices.size() || value < best || (value == best && devices[d]->isCpu)) {
                best = value;
                bestDevice = d;
            }
        }
        if (bestDevice == devices.size()) {
            NN_LOG(ERROR) << "no device supports operation " << op << " ("
                          << hal::operationName(main.operations[op].type) << ")";
            return ANEURALNETWORKS_BAD_DATA;
        }
        chosen[op] = bestDevice;
    }
    logPartitionSummary(devices, chosen);
    if (std::all_of(chosen.begin(), chosen.end(), [&](size_t d) { return d == chosen[0]; })) {
        makeSimple(devices[chosen[0]]);
        return ANEURALNETWORKS_NO_ERROR;
    }

    // Contiguous runs of the sorted order assigned to one device become steps.
    std::vector<size_t> stepOf(operationCount);
    std::vector<std::vector<uint32_t>> stepOperations;
    std::vector<const Device*> stepDevice;
    for (size_t op = 0; op < operationCount; ++op) {
        if (op == 0 || chosen[op] != chosen[op - 1]) {
            stepOperations.emplace_back();
            stepDevice.push_back(devices[chosen[op]]);
        }
        stepOf[op] = stepOperations.size() - 1;
        stepOperations.back().push_back(static_cast<uint32_t>(op));
    }
    std::vector<int64_t> writerStep(main.operands.size(), -1);
    std::vector<std::vector<size_t>> readerSteps(main.operands.size());
    for (size_t op = 0; op < operationCount; ++op) {
        for (uint32_t index : main.operations[op].outputs) writerStep[index] = static_cast<int64_t>(stepOf[op]);
        for (uint32_t index : main.operations[op].inputs) readerSteps[index].push_back(stepOf[op]);
    }
    steps_.clear();
    for (size_t s = 0; s < stepOperations.size(); ++s) {
        auto step = std::make_unique<PlanStep>();
        step->device = stepDevice[s];
        step->operationIndexes = stepOperations[s];
        auto owned = std::make_shared<hal::Model>();
        step->model = owned;
        hal::Model& model = *owned;
        model.operandValues = main.operandValues;
        model.pools = main.pools;
        model.relaxComputationFloat32toFloat16 = main.relaxComputationFloat32toFloat16;
        model.referenced = main.referenced;  // SUBGRAPH operands keep their indexes
        std::vector<int64_t> local(main.operands.size(), -1);
        auto use = [&](uint32_t index) -> uint32_t {
            if (local[index] >= 0) return static_cast<uint32_t>(local[index]);
            hal::Operand operand = main.operands[index];
            const bool writtenHere = writerStep[index] == static_cast<int64_t>(s);
            if (isConstantOrOmitted(operand.lifetime)) {
                // Kept as is: values and pools are shared with the main model.
            } else if (!writtenHere) {
                operand.lifetime = OperandLifeTime::MODEL_INPUT;
                step->inputs.push_back(index);
            } else {
                const bool readLater = std::any_of(readerSteps[index].begin(), readerSteps[index].end(),
                                                   [&](size_t r) { return r != s; });
                if (operand.lifetime == OperandLifeTime::MODEL_OUTPUT || readLater) {
                    operand.lifetime = OperandLifeTime::MODEL_OUTPUT;
                    step->outputs.push_back(index);
                } else {
                    operand.lifetime = OperandLifeTime::TEMPORARY_VARIABLE;
                }
            }
            local[index] = static_cast<int64_t>(model.operands.size());
            model.operands.push_back(std::move(operand));
            return static_cast<uint32_t>(local[index]);
        };
        for (uint32_t op : stepOperations[s]) {
            hal::Operation operation = main.operations[op];
            for (auto& index : operation.inputs) index = use(index);
            for (auto& index : operation.outputs) index = use(index);
            model.operations.push_back(std::move(operation));
        }
        for (uint32_t index : step->inputs) model.inputIndexes.push_back(static_cast<uint32_t>(local[index]));
        for (uint32_t index : step->outputs) model.outputIndexes.push_back(static_cast<uint32_t>(local[index]));
        for (auto& operand : model.operands) operand.numberOfConsumers = 0;
        for (const auto& operation : model.operations) {
            for (uint32_t index : operation.inputs) model.operands[index].numberOfConsumers++;
        }
        // Tensors crossing steps live in runtime buffers, so their shapes must be static.
        for (uint32_t index : step->outputs) {
            const hal::Operand& operand = main.operands[index];
            if (outputPosition_[index] < 0 && !hal::isFullySpecified(operand.type, operand.dimensions)) {
                NN_LOG(INFO) << "operand " << index << " crosses devices with an unknown shape";
                return ANEURALNETWORKS_OP_FAILED;
            }
        }
        NN_LOG(VERBOSE) << "step " << s << ": " << stepOperations[s].size() << " operation(s) on "
                        << step->device->name;
        steps_.push_back(std::move(step));
    }
    return ANEURALNETWORKS_NO_ERROR;
}

int ExecutionPlan::prepareSteps(const CompileOptions& options) {
    for (auto& step : steps_) {
        trace::Span span(step->device->name, "compilation");
        span.arg("operations", step->model->operations.size()).arg("nnapi cache", options.caching.token ? 1 : 0);
        auto [status, prepared] = prepareWithCaching(*step->device, step->model, options.preference,
                                                     options.caching, step->operationIndexes, options.qos);
        if (status != ErrorStatus::NONE || prepared == nullptr) {
            NN_LOG(ERROR) << step->device->name << " failed to prepare its part of the model";
            // The driver's code reaches the application (a createForDevices compilation): the
            // FL30 statuses and UNAVAILABLE_DEVICE as their own codes, the rest as OP_FAILED.
            const int result = resultFromStatus(status);
            return result >= ANEURALNETWORKS_UNAVAILABLE_DEVICE ? result : ANEURALNETWORKS_OP_FAILED;
        }
        step->prepared = std::move(prepared);
    }
    return ANEURALNETWORKS_NO_ERROR;
}

// Prepares `step`'s model on nnapi-reference once; nullptr if that fails.
static std::shared_ptr<hal::IPreparedModel> preparedOnCpu(PlanStep& step) {
    std::call_once(step.cpuOnce, [&step] {
        const Device* cpu = cpuDevice();
        if (cpu == nullptr) return;
        auto [status, prepared] = cpu->driver->prepareModel(
                *step.model, hal::ExecutionPreference::FAST_SINGLE_ANSWER, {}, {}, hal::CacheToken{});
        if (status == ErrorStatus::NONE) step.cpuPrepared = std::move(prepared);
    });
    return step.cpuPrepared;
}

int ExecutionPlan::execute(const std::vector<Argument>& inputs, const std::vector<Argument>& outputs,
                           bool measureTiming, std::vector<hal::OutputShape>* shapes,
                           hal::Timing* timing, const hal::Deadline& deadline,
                           uint64_t loopTimeoutDuration, bool fenced) const {
    shapes->clear();
    for (const auto& output : outputs) shapes->push_back({output.dims, true});
    *timing = {};
    const Memory::CheckScope checkOnce;  // the memories' files checked once for this execution
    if (int n = checkMappings(inputs, outputs, *main_)) return n;
    Temporaries temporaries(main_->operands.size());
    for (const auto& step : steps_) {
        int status = runStep(*step, *step->prepared, inputs, outputs, temporaries, measureTiming, shapes, timing,
                             deadline, loopTimeoutDuration, fenced);
        if (status == ANEURALNETWORKS_NO_ERROR) continue;
        const bool nothingElseToTry = steps_.size() == 1 && step->device->isCpu;
        // A deadline exists only without fallback: a missed one that may fall back is the driver's.
        if (status == ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE || !allowFallback_ || nothingElseToTry) {
            return status;
        }
        NN_LOG(WARNING) << step->device->name << " failed to execute its step; falling back to nnapi-reference";
        *timing = {};
        bool wholeModelRan = false;
        status = fallBack(*step, inputs, outputs, temporaries, shapes, &wholeModelRan, loopTimeoutDuration);
        if (status != ANEURALNETWORKS_NO_ERROR || wholeModelRan) return status;
    }
    return ANEURALNETWORKS_NO_ERROR;
}

int ExecutionPlan::fallBack(const PlanStep& failed, const std::vector<Argument>& inputs,
                            const std::vector<Argument>& outputs, Temporaries& temporaries,
                            std::vector<hal::OutputShape>* shapes, bool* wholeModelRan,
                            uint64_t loopTimeoutDuration) const {
    hal::Timing ignored;
    if (!failed.device->isCpu) {
        if (auto prepared = preparedOnCpu(const_cast<PlanStep&>(failed))) {
            // Fallback only happens without a deadline (timeouts need a single-device compilation).
            const int status = runStep(failed, *prepared, inputs, outputs, temporaries, false, shapes, &ignored,
                                       {}, loopTimeoutDuration);
            if (status == ANEURALNETWORKS_NO_ERROR || status == ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE ||
                isMissedDeadline(status)) {
                return status;
            }
        }
    }
    // Full fallback: the whole original model on nnapi-reference.
    PlanStep& whole = wholeModelOnCpu_;
    std::call_once(wholeModelOnce_, [&] {
        whole.device = cpuDevice();
        whole.model = main_;
        whole.inputs = main_->inputIndexes;
        whole.outputs = main_->outputIndexes;
    });
    auto prepared = preparedOnCpu(whole);
    if (prepared == nullptr) return ANEURALNETWORKS_OP_FAILED;
    *wholeModelRan = true;
    return runStep(whole, *prepared, inputs, outputs, temporaries, false, shapes, &ignored, {}, loopTimeoutDuration);
}

// Buffers for the tensors `step` passes to or takes from other steps. Their shapes are fully
// specified and at most 4 GiB (addOperand refuses more), but the machine may still refuse.
bool ExecutionPlan::allocateTemporaries(const PlanStep& step, Temporaries& temporaries) const {
    for (const auto* indexes : {&step.inputs, &step.outputs}) {
        for (uint32_t index : *indexes) {
            if (inputPosition_[index] >= 0 || outputPosition_[index] >= 0 || temporaries[index] != nullptr) continue;
            const hal::Operand& operand = main_->operands[index];
            const uint64_t bytes = hal::byteSize(operand.type, operand.dimensions);
            if (bytes <= std::numeric_limits<uint32_t>::max() &&
                guardAllocation([&] { temporaries[index] = std::make_shared<hal::HeapPool>(bytes); }).isOk()) {
                continue;
            }
            NN_LOG(ERROR) << "cannot allocate " << bytes << " bytes for operand " << index << " between steps";
            return false;
        }
    }
    return true;
}

int ExecutionPlan::runStep(const PlanStep& step, hal::IPreparedModel& prepared,
                           const std::vector<Argument>& inputs, const std::vector<Argument>& outputs,
                           Temporaries& temporaries, bool measureTiming,
                           std::vector<hal::OutputShape>* shapes, hal::Timing* timing,
                           const hal::Deadline& deadline, uint64_t loopTimeoutDuration, bool fenced) const {
    trace::Span span(step.device->name, "partition");
    if (span.active()) {
        span.arg("device", step.device->name).arg("operations", step.model->operations.size());
        if (&prepared != step.prepared.get()) span.arg("fallback", "nnapi-reference");
    }
    trace::Span schedule("schedule", "runtime");  // buffers between partitions, the request
    if (!allocateTemporaries(step, temporaries)) return ANEURALNETWORKS_OUT_OF_MEMORY;
    hal::Request request;
    request.loopTimeoutDuration = loopTimeoutDuration;
    request.fenced = fenced;
    auto bind = [&](uint32_t index) {
        hal::RequestArgument argument;
        const int32_t inputAt = inputPosition_[index];
        const int32_t outputAt = outputPosition_[index];
        const Argument* bound = inputAt >= 0 ? &inputs[inputAt] : outputAt >= 0 ? &outputs[outputAt] : nullptr;
        const auto poolIndex = static_cast<uint32_t>(request.pools.size());
        if (bound == nullptr) {  // a tensor passed between steps
            const auto& temporary = temporaries[index];
            request.pools.push_back(temporary);
            argument.location = {poolIndex, 0, static_cast<uint32_t>(temporary->size())};
            argument.dimensions = main_->operands[index].dimensions;
        } else if (bound->state == Argument::State::NO_VALUE) {
            argument.hasNoValue = true;
        } else {
            if (bound->state == Argument::State::POINTER) {
                request.pools.push_back(std::make_shared<PointerPool>(bound->pointer, bound->length));
                argument.location = {poolIndex, 0, static_cast<uint32_t>(bound->length)};
            } else {
                request.pools.push_back(bound->memory);
                argument.location = {poolIndex, static_cast<uint32_t>(bound->offset),
                                     static_cast<uint32_t>(bound->length)};
            }
            // A model output read by a later step has the shape its writer reported.
            argument.dimensions = outputAt >= 0 && inputAt < 0 ? (*shapes)[outputAt].dimensions : bound->dims;
        }
        return argument;
    };
    for (uint32_t index : step.inputs) request.inputs.push_back(bind(index));
    for (uint32_t index : step.outputs) request.outputs.push_back(bind(index));
    schedule.end();
    auto [status, stepShapes, stepTiming] =
            prepared.execute(request, measureTiming ? hal::MeasureTiming::YES : hal::MeasureTiming::NO, deadline);
    span.arg("result", resultFromStatus(status));
    if (status == ErrorStatus::NONE || status == ErrorStatus::OUTPUT_INSUFFICIENT_SIZE) {
        for (size_t j = 0; j < step.outputs.size() && j < stepShapes.size(); ++j) {
            const int32_t outputAt = outputPosition_[step.outputs[j]];
            if (outputAt >= 0) (*shapes)[outputAt] = stepShapes[j];
        }
    }
    if (status == ErrorStatus::NONE) *timing = stepTiming;
    return resultFromStatus(status);
}

}  // namespace nnemu::runtime
