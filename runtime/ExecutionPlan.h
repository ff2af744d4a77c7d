// The result of compiling a model: one step per contiguous run of operations assigned to one
// device (a single step when one device takes everything), each prepared on its device.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "CompilationCache.h"
#include "Device.h"
#include "ModelBuilder.h"
#include "ResultCode.h"
#include "nnemu/hal/Types.h"

namespace nnemu::runtime {

// One execution input or output as the application bound it.
struct Argument {
    enum class State { UNSET, POINTER, MEMORY, NO_VALUE };
    State state = State::UNSET;
    void* pointer = nullptr;
    std::shared_ptr<const hal::MemoryPool> memory;
    size_t offset = 0;
    size_t length = 0;
    std::vector<uint32_t> dims;  // the model's dims refined by the binding
};

struct PlanStep {
    const Device* device = nullptr;
    std::shared_ptr<const hal::Model> model;  // the plan's main model itself for a one-step plan
    std::vector<uint32_t> inputs;   // main-model operand of each step input
    std::vector<uint32_t> outputs;  // main-model operand of each step output
    std::shared_ptr<hal::IPreparedModel> prepared;
    std::vector<uint32_t> operationIndexes;  // in the main model; empty for a one-step plan
    std::once_flag cpuOnce;  // the step re-prepared on the CPU for partial fallback
    std::shared_ptr<hal::IPreparedModel> cpuPrepared;
};

struct CompileOptions {
    hal::ExecutionPreference preference = hal::ExecutionPreference::FAST_SINGLE_ANSWER;
    bool allowFallback = true;  // false for createForDevices
    CacheSettings caching;      // setCaching's directory and token
    hal::PrepareQos qos;        // setPriority, and setTimeout's deadline
};

class ExecutionPlan {
public:
    // Partitions `model` over `devices` and prepares every step; ANEURALNETWORKS_* code.
    static int create(const ModelBuilder& model, const std::vector<const Device*>& devices,
                      const CompileOptions& options, std::unique_ptr<ExecutionPlan>* plan);

    // Runs the plan with the application's arguments; ANEURALNETWORKS_* code. `shapes` gets one
    // entry per model output (also on OUTPUT_INSUFFICIENT_SIZE). A missed `deadline` never falls back.
    // `loopTimeoutDuration` bounds each WHILE loop (ns; feature level 30). `fenced`: started by
    // startComputeWithDependencies, which the devices' requests say (a fallback run is not).
    int execute(const std::vector<Argument>& inputs, const std::vector<Argument>& outputs,
                bool measureTiming, std::vector<hal::OutputShape>* shapes, hal::Timing* timing,
                const hal::Deadline& deadline = {}, uint64_t loopTimeoutDuration = hal::kLoopTimeoutDefault,
                bool fenced = false) const;

    const hal::Model& model() const { return *main_; }
    size_t stepCount() const { return steps_.size(); }
    const PlanStep& step(size_t i) const { return *steps_[i]; }

private:
    int partition(const std::vector<const Device*>& devices, const CompileOptions& options);
    void logPartitionSummary(const std::vector<const Device*>& devices, const std::vector<size_t>& chosen) const;
    int prepareSteps(const CompileOptions& options);
    void makeSimple(const Device* device);
    using Temporaries = std::vector<std::shared_ptr<hal::HeapPool>>;
    bool allocateTemporaries(const PlanStep& step, Temporaries& temporaries) const;
    int runStep(const PlanStep& step, hal::IPreparedModel& prepared, const std::vector<Argument>& inputs,
                const std::vector<Argument>& outputs, Temporaries& temporaries, bool measureTiming,
                std::vector<hal::OutputShape>* shapes, hal::Timing* timing, const hal::Deadline& deadline,
                uint64_t loopTimeoutDuration, bool fenced = false) const;
    // Partial fallback: the failed step again on nnapi-reference; then the whole model there.
    int fallBack(const PlanStep& failed, const std::vector<Argument>& inputs,
                 const std::vector<Argument>& outputs, Temporaries& temporaries,
                 std::vector<hal::OutputShape>* shapes, bool* wholeModelRan, uint64_t loopTimeoutDuration) const;

    // Shared with the finished ModelBuilder (immutable): the application may free its model.
    std::shared_ptr<const hal::Model> main_;
    bool allowFallback_ = true;
    std::vector<std::unique_ptr<PlanStep>> steps_;
    std::vector<int32_t> inputPosition_;   // per main operand: model input position or -1
    std::vector<int32_t> outputPosition_;  // per main operand: model output position or -1
    mutable std::once_flag wholeModelOnce_;
    mutable PlanStep wholeModelOnCpu_;  // full fallback, prepared on first need
};

}  // namespace nnemu::runtime
