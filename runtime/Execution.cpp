#include "Execution.h"

#include "ArgumentChecks.h"
#include "FeatureLevel.h"
#include "MemoryDesc.h"
#include "ResultCode.h"
#include "nnemu/base/Log.h"
#include "nnemu/base/Trace.h"
#include "nnemu/hal/OperandTypes.h"
#include "nnemu/hal/Validation.h"

namespace nnemu::runtime {

Execution::Execution(const Compilation* compilation) : compilation_(compilation) {
    const hal::Model& model = compilation->model();
    auto unset = [&](uint32_t index) {
        Argument argument;
        argument.dims = model.operands[index].dimensions;
        return argument;
    };
    for (uint32_t index : model.inputIndexes) inputs_.push_back(unset(index));
    for (uint32_t index : model.outputIndexes) outputs_.push_back(unset(index));
}

namespace {

// The dims an operand type given at binding time sets: it must be a valid type with the model's
// type code and, where the model knows the rank, the same rank and every known dimension.
Result<std::vector<uint32_t>> typedDims(const ANeuralNetworksOperandType& type, const hal::Operand& operand) {
    std::vector<uint32_t> given;
    if (!dimensionsOf(type, &given)) return badData("dimensionCount does not match the dimensions pointer");
    if (type.type != static_cast<int32_t>(operand.type)) return badData("the type code differs from the model's");
    NNEMU_RETURN_IF_ERROR(hal::validateOperandType(type.type, given, type.scale, type.zeroPoint));
    if (!hal::dimsCompatible(operand.dimensions, given)) {
        return badData("dimensions " + hal::dimsToString(given) + " contradict the model's " +
                       hal::dimsToString(operand.dimensions));
    }
    return given;
}

// The data an argument names: a pointer needs a non-zero length that fits 32 bits (a null
// pointer with length 0 is an omitted value), a memory region must lie inside its memory, and
// an output's memory must be writable.
int checkData(bool isInput, const Argument& argument) {
    if (argument.state == Argument::State::POINTER && (argument.length == 0 || argument.length > UINT32_MAX)) {
        NN_LOG(ERROR) << "a buffer needs a length between 1 and 2^32 - 1, not " << argument.length;
        return ANEURALNETWORKS_BAD_DATA;
    }
    if (argument.state != Argument::State::MEMORY) return ANEURALNETWORKS_NO_ERROR;
    if (!isInput && !argument.memory->writable()) {
        NN_LOG(ERROR) << "an output cannot be bound to a memory created read-only (PROT_READ)";
        return ANEURALNETWORKS_BAD_DATA;
    }
    const size_t size = argument.memory->size();
    if (argument.offset > size || argument.length > size - argument.offset ||
        argument.offset + argument.length > UINT32_MAX) {
        NN_LOG(ERROR) << "region [" << argument.offset << ", +" << argument.length
                      << ") lies outside the memory of " << size << " bytes";
        return ANEURALNETWORKS_BAD_DATA;
    }
    return ANEURALNETWORKS_NO_ERROR;
}

}  // namespace

// Setting an input or output that is already set is BAD_STATE (Android 11 on), checked after
// the data the new argument names and before its length.
static int checkUnset(const char* what, int32_t index, const Argument& current) {
    if (current.state == Argument::State::UNSET) return ANEURALNETWORKS_NO_ERROR;
    NN_LOG(ERROR) << what << " " << index << " has already been set";
    return ANEURALNETWORKS_BAD_STATE;
}

// After the entry point's null checks, in Android's order: the execution's state, the position,
// the type given, the data the argument names, whether it is already set, then its length.
int Execution::bind(bool isInput, int32_t index, const ANeuralNetworksOperandType* type, Argument argument) {
    const char* what = isInput ? "input" : "output";
    if (state_ != State::PREPARATION) {
        NN_LOG(ERROR) << "cannot bind an " << what << " of an execution that has started";
        return ANEURALNETWORKS_BAD_STATE;
    }
    auto& arguments = isInput ? inputs_ : outputs_;
    if (index < 0 || static_cast<size_t>(index) >= arguments.size()) {
        NN_LOG(ERROR) << what << " index " << index << " out of range";
        return ANEURALNETWORKS_BAD_DATA;
    }
    anyBound_ = true;  // as in Android: from here on, even if the binding fails, padding is fixed
    const hal::Model& model = compilation_->model();
    const hal::Operand& operand =
            model.operands[isInput ? model.inputIndexes[index] : model.outputIndexes[index]];
    std::vector<uint32_t> dims = operand.dimensions;
    if (type != nullptr) {
        Result<std::vector<uint32_t>> typed = typedDims(*type, operand);
        if (!typed.isOk()) {
            NN_LOG(ERROR) << what << " " << index << ": the type given does not fit the model's operand: "
                          << typed.message();
            return toResultCode(typed.status());
        }
        dims = std::move(typed).value();
    }
    if (const DeviceMemory* device = deviceMemoryOf(argument)) {  // its shape is known at compute
        const auto position = static_cast<uint32_t>(index);
        if (int n = device->checkBinding(compilation(), isInput, position, dims, argument.offset, argument.length)) {
            return n;
        }
        if (int n = checkUnset(what, index, arguments[index])) return n;
        argument.dims = std::move(dims);
        arguments[index] = std::move(argument);
        return ANEURALNETWORKS_NO_ERROR;
    }
    const bool hasValue = argument.state != Argument::State::NO_VALUE;
    if (hasValue && isInput && !hal::isFullySpecified(operand.type, dims)) {
        NN_LOG(ERROR) << "input " << index << ": shape " << hal::dimsToString(dims) << " is not fully specified";
        return ANEURALNETWORKS_BAD_DATA;
    }
    if (int n = checkData(isInput, argument)) return n;
    if (int n = checkUnset(what, index, arguments[index])) return n;
    if (hasValue) {
        const uint64_t needed = hal::byteSize(operand.type, dims);
        // With padding enabled the length may exceed the raw size (never fall short of it).
        const bool padded = padding_ && needed < argument.length;
        if (needed != 0 && needed != argument.length && !padded) {
            NN_LOG(ERROR) << what << " " << index << ": length " << argument.length << " but the operand needs "
                          << needed << " bytes" << (padding_ ? "" : " (padding is not enabled)");
            return ANEURALNETWORKS_BAD_DATA;
        }
        // The padded region was checked to lie in its memory; drivers get the raw length.
        if (padded && needed != 0) argument.length = needed;
    }
    argument.dims = std::move(dims);
    arguments[index] = std::move(argument);
    return ANEURALNETWORKS_NO_ERROR;
}

int Execution::setInput(int32_t index, const ANeuralNetworksOperandType* type, const void* buffer, size_t length) {
    Argument argument;
    argument.state = buffer == nullptr ? Argument::State::NO_VALUE : Argument::State::POINTER;
    argument.pointer = const_cast<void*>(buffer);
    argument.length = length;
    return bind(true, index, type, std::move(argument));
}

int Execution::setOutput(int32_t index, const ANeuralNetworksOperandType* type, void* buffer, size_t length) {
    Argument argument;
    argument.state = buffer == nullptr ? Argument::State::NO_VALUE : Argument::State::POINTER;
    argument.pointer = buffer;
    argument.length = length;
    return bind(false, index, type, std::move(argument));
}

static Argument memoryArgument(std::shared_ptr<const hal::MemoryPool> memory, size_t offset, size_t length) {
    Argument argument;
    argument.state = Argument::State::MEMORY;
    argument.memory = std::move(memory);
    argument.offset = offset;
    argument.length = length;
    return argument;
}

int Execution::setInputFromMemory(int32_t index, const ANeuralNetworksOperandType* type,
                                  std::shared_ptr<const hal::MemoryPool> memory, size_t offset, size_t length) {
    return bind(true, index, type, memoryArgument(std::move(memory), offset, length));
}

int Execution::setOutputFromMemory(int32_t index, const ANeuralNetworksOperandType* type,
                                   std::shared_ptr<const hal::MemoryPool> memory, size_t offset, size_t length) {
    return bind(false, index, type, memoryArgument(std::move(memory), offset, length));
}

// Android checks the compilation's devices (BAD_DATA) before the state (BAD_STATE).
int Execution::setMeasureTiming(bool measure) {
    if (!compilation_->canMeasureTiming()) {
        NN_LOG(ERROR) << "timing can only be measured for a compilation made for exactly one device";
        return ANEURALNETWORKS_BAD_DATA;
    }
    if (state_ != State::PREPARATION) return ANEURALNETWORKS_BAD_STATE;
    measureTiming_ = measure;
    return ANEURALNETWORKS_NO_ERROR;
}

// Feature level 30. Longer than the maximum is clamped silently (as Android does, with a log).
int Execution::setLoopTimeout(uint64_t duration) {
    if (state_ != State::PREPARATION) {
        NN_LOG(ERROR) << "ANeuralNetworksExecution_setLoopTimeout: the execution has already started";
        return ANEURALNETWORKS_BAD_STATE;
    }
    if (duration > hal::kLoopTimeoutMaximum) {
        NN_LOG(WARNING) << "ANeuralNetworksExecution_setLoopTimeout: " << duration << " ns clamped to the maximum "
                        << hal::kLoopTimeoutMaximum << " ns";
        duration = hal::kLoopTimeoutMaximum;
    }
    loopTimeout_ = duration;
    return ANEURALNETWORKS_NO_ERROR;
}

int Execution::setTimeout(uint64_t duration) {
    if (!compilation_->acceptsTimeouts()) {
        NN_LOG(ERROR) << "ANeuralNetworksExecution_setTimeout: the compilation was not made by createForDevices "
                         "for exactly one device";
        return ANEURALNETWORKS_BAD_DATA;
    }
    if (state_ != State::PREPARATION) return ANEURALNETWORKS_BAD_STATE;
    timeout_ = duration;
    return ANEURALNETWORKS_NO_ERROR;
}

int Execution::addExtensionAttribute(const char* extension, uint16_t code, const void* data, size_t length) {
    const char* function = "ANeuralNetworksExecution_addExtensionAttribute";
    if (state_ != State::PREPARATION) return ANEURALNETWORKS_BAD_STATE;
    if (!compilation_->canMeasureTiming()) {
        NN_LOG(ERROR) << function << ": only for a compilation made by createForDevices for one device";
        return ANEURALNETWORKS_BAD_DATA;
    }
    return attributes_.add(function, extension, code, data, length);
}

int Execution::setReusable(bool reusable) {
    if (state_ != State::PREPARATION) return ANEURALNETWORKS_BAD_STATE;
    reusable_ = reusable;
    return ANEURALNETWORKS_NO_ERROR;
}

int Execution::enableInputAndOutputPadding(bool enable) {
    if (state_ != State::PREPARATION || anyBound_) {
        NN_LOG(ERROR) << "ANeuralNetworksExecution_enableInputAndOutputPadding: inputs or outputs are already set";
        return ANEURALNETWORKS_BAD_STATE;
    }
    padding_ = enable;
    return ANEURALNETWORKS_NO_ERROR;
}

int Execution::start() {
    trace::Span span("validate", "runtime");
    const State from = state_;
    if (!canStartFrom(from)) {
        NN_LOG(ERROR) << (from == State::COMPUTING ? "the execution is computing"
                                                   : "the execution has already been computed and is not reusable");
        return ANEURALNETWORKS_BAD_STATE;
    }
    // What can change between the computations of a reusable execution (a memory's mapping, a
    // device memory's shape) is checked by every run of the plan.
    for (const auto* arguments : {&inputs_, &outputs_}) {
        for (size_t i = 0; i < arguments->size(); ++i) {
            if ((*arguments)[i].state == Argument::State::UNSET) {
                NN_LOG(ERROR) << (arguments == &inputs_ ? "input " : "output ") << i << " was never set";
                return ANEURALNETWORKS_BAD_DATA;
            }
        }
    }
    State expected = from;  // checked again: another thread may have started it meanwhile
    if (!state_.compare_exchange_strong(expected, State::COMPUTING)) {
        NN_LOG(ERROR) << "the execution has already started";
        return ANEURALNETWORKS_BAD_STATE;
    }
    // The timeout counts from the compute call (nnapi-fl30plus.md §3.4).
    deadline_ = timeout_ != 0 ? hal::deadlineAfter(timeout_) : std::nullopt;
    return ANEURALNETWORKS_NO_ERROR;
}

int Execution::checkFenced(uint64_t duration) const {
    if (!canStartFrom(state_)) return ANEURALNETWORKS_BAD_STATE;
    if (duration > 0 && !compilation_->acceptsTimeouts()) {
        NN_LOG(ERROR) << "ANeuralNetworksExecution_startComputeWithDependencies: a duration needs a compilation "
                         "made by createForDevices for exactly one device";
        return ANEURALNETWORKS_BAD_DATA;
    }
    const hal::Model& model = compilation_->model();
    for (size_t i = 0; i < outputs_.size(); ++i) {
        if (outputs_[i].state == Argument::State::NO_VALUE) continue;
        if (!hal::isFullySpecified(model.operands[model.outputIndexes[i]].type, outputs_[i].dims)) {
            NN_LOG(ERROR) << "ANeuralNetworksExecution_startComputeWithDependencies: output " << i
                          << " is not fully specified";
            return ANEURALNETWORKS_BAD_DATA;
        }
    }
    return ANEURALNETWORKS_NO_ERROR;
}

int Execution::run(const hal::Deadline& afterFences, bool fenced) {
    static std::atomic<uint64_t> executions{0};  // numbers the trace's execution spans
    trace::Span span("execution", "runtime");
    if (span.active()) {
        span.arg("execution", executions.fetch_add(1, std::memory_order_relaxed))
                .arg("partitions", compilation_->plan()->stepCount());
    }
    hal::Deadline deadline = deadline_;
    if (afterFences && (!deadline || *afterFences < *deadline)) deadline = afterFences;
    // Device memories (MemoryDesc.h) are swapped for their buffers around the plan's run.
    auto runPlan = [this, &deadline, fenced](const std::vector<Argument>& inputs,
                                             const std::vector<Argument>& outputs) {
        return compilation_->plan()->execute(inputs, outputs, measureTiming_, &shapes_, &timing_, deadline,
                                             loopTimeout_, fenced);
    };
    const int result = executeWithDeviceMemories(inputs_, outputs_, &shapes_, runPlan);
    span.arg("result", result);
    completion_ = result;
    state_ = State::COMPLETED;  // a reusable execution may start again from here: read nothing after
    return result;
}

int Execution::complete(int result) {
    completion_ = result;
    shapes_.clear();
    for (const auto& output : outputs_) shapes_.push_back({output.dims, true});
    timing_ = {};
    state_ = State::COMPLETED;
    return result;
}

// Android's order: completed, then completed without an error other than an output too small,
// then the index.
int Execution::checkOutputQuery(int32_t index) const {
    if (state_ != State::COMPLETED) return ANEURALNETWORKS_BAD_STATE;
    if (completion_ != ANEURALNETWORKS_NO_ERROR && completion_ != ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE) {
        return ANEURALNETWORKS_BAD_STATE;
    }
    if (index < 0 || static_cast<size_t>(index) >= outputs_.size()) return ANEURALNETWORKS_BAD_DATA;
    return ANEURALNETWORKS_NO_ERROR;
}

int Execution::getOutputOperandRank(int32_t index, uint32_t* rank) const {
    if (int n = checkOutputQuery(index)) return n;
    *rank = static_cast<uint32_t>(shapes_[index].dimensions.size());
    return shapes_[index].isSufficient ? ANEURALNETWORKS_NO_ERROR : ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE;
}

int Execution::getOutputOperandDimensions(int32_t index, uint32_t* dimensions) const {
    if (int n = checkOutputQuery(index)) return n;
    const auto& dims = shapes_[index].dimensions;
    if (dims.empty()) return ANEURALNETWORKS_BAD_DATA;  // a scalar has no dimensions
    std::copy(dims.begin(), dims.end(), dimensions);
    return shapes_[index].isSufficient ? ANEURALNETWORKS_NO_ERROR : ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE;
}

// Android checks the duration code before the state.
int Execution::getDuration(int32_t durationCode, uint64_t* duration) const {
    // From feature level 30 the fenced codes: the computation starts once its dependencies have
    // signalled, so they equal the plain ones.
    const bool fenced = kRuntimeFeatureLevel >= 30 && (durationCode == ANEURALNETWORKS_FENCED_DURATION_ON_HARDWARE ||
                                                       durationCode == ANEURALNETWORKS_FENCED_DURATION_IN_DRIVER);
    if (fenced) durationCode -= 2;
    if (durationCode != ANEURALNETWORKS_DURATION_ON_HARDWARE && durationCode != ANEURALNETWORKS_DURATION_IN_DRIVER) {
        NN_LOG(ERROR) << "ANeuralNetworksExecution_getDuration: unknown duration code " << durationCode;
        return ANEURALNETWORKS_BAD_DATA;
    }
    // Not completed, completed with an error, or timing not requested: BAD_STATE and UINT64_MAX
    // (nnapi-fl30plus.md §1.4), in that order.
    if (state_ != State::COMPLETED || completion_ != ANEURALNETWORKS_NO_ERROR || !measureTiming_) {
        if (state_ != State::COMPLETED || completion_ != ANEURALNETWORKS_NO_ERROR) {
            NN_LOG(ERROR) << "ANeuralNetworksExecution_getDuration: the execution "
                          << (state_ != State::COMPLETED ? "has not completed" : "failed");
        }
        *duration = UINT64_MAX;
        return ANEURALNETWORKS_BAD_STATE;
    }
    const uint64_t micros = durationCode == ANEURALNETWORKS_DURATION_ON_HARDWARE ? timing_.timeOnDevice
                                                                                 : timing_.timeInDriver;
    // A measured value never reads as "not available": clamped below UINT64_MAX.
    *duration = micros == hal::kNoTiming ? UINT64_MAX
                : micros >= (UINT64_MAX - 1) / 1000 ? UINT64_MAX - 1
                                                    : micros * 1000;
    return ANEURALNETWORKS_NO_ERROR;
}

int startComputation(Execution* run, std::function<int()> work, int fence, std::shared_future<int>* result) {
    run->retain();
    try {
        *result = std::async(std::launch::async, [run, work = std::move(work), fence] {
            const int n = work();
            run->release();  // the last reference when the application freed it meanwhile
            if (fence >= 0) signalFence(fence);
            return n;
        }).share();
    } catch (const std::exception& e) {  // std::system_error: no thread; std::bad_alloc
        NN_LOG(ERROR) << "cannot start the computation's thread: " << e.what();
        const int n = run->complete(ANEURALNETWORKS_OP_FAILED);
        run->release();
        return n;
    }
    return ANEURALNETWORKS_NO_ERROR;
}

}  // namespace nnemu::runtime
