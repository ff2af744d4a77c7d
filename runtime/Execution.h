// ANeuralNetworksExecution, ANeuralNetworksEvent and ANeuralNetworksBurst.
#pragma once

#include <android/NeuralNetworks.h>

#include <atomic>
#include <functional>
#include <future>
#include <mutex>
#include <vector>

#include "Compilation.h"
#include "Event.h"
#include "RefCounted.h"

namespace nnemu::runtime {

// Reference-counted (RefCounted.h): a computation in flight holds a reference, so
// ANeuralNetworksExecution_free during it only drops the application's.
class Execution final : public RefCounted {
public:
    explicit Execution(const Compilation* compilation);

    int setInput(int32_t index, const ANeuralNetworksOperandType* type, const void* buffer, size_t length);
    int setInputFromMemory(int32_t index, const ANeuralNetworksOperandType* type,
                           std::shared_ptr<const hal::MemoryPool> memory, size_t offset, size_t length);
    int setOutput(int32_t index, const ANeuralNetworksOperandType* type, void* buffer, size_t length);
    int setOutputFromMemory(int32_t index, const ANeuralNetworksOperandType* type,
                            std::shared_ptr<const hal::MemoryPool> memory, size_t offset, size_t length);
    int setMeasureTiming(bool measure);
    // Feature levels 30 and 5 (nnapi-fl30plus.md §3.3, §3.4, §3.8).
    int setLoopTimeout(uint64_t duration);
    int setTimeout(uint64_t duration);
    int setReusable(bool reusable);
    // Feature level 8 (ExtensionAttributes.h): BAD_STATE once a computation started.
    int addExtensionAttribute(const char* extension, uint16_t code, const void* data, size_t length);
    int enableInputAndOutputPadding(bool enable);

    // Marks the execution started (from preparation, or from completed when reusable); BAD_STATE
    // if it cannot start, else BAD_DATA if an argument is unset.
    int start();
    // What startComputeWithDependencies checks beyond start(): BAD_STATE, then BAD_DATA for a
    // `duration` without a single-device compilation or an output not fully specified.
    int checkFenced(uint64_t duration) const;
    // Runs a started execution to completion and records its results. `afterFences`: the deadline
    // that startComputeWithDependencies' duration sets once the dependencies have signalled.
    // `fenced`: started by startComputeWithDependencies.
    int run(const hal::Deadline& afterFences = {}, bool fenced = false);
    // Completes a started execution without running it (a dependency failed).
    int complete(int result);

    int getOutputOperandRank(int32_t index, uint32_t* rank) const;
    int getOutputOperandDimensions(int32_t index, uint32_t* dimensions) const;
    int getDuration(int32_t durationCode, uint64_t* duration) const;

    const Compilation* compilation() const { return compilation_.get(); }
    // Between a successful start() and the end of that computation.
    bool computing() const { return state_ == State::COMPUTING; }

private:
    enum class State { PREPARATION, COMPUTING, COMPLETED };
    bool canStartFrom(State state) const {
        return state == State::PREPARATION || (state == State::COMPLETED && reusable_);
    }

    int bind(bool isInput, int32_t index, const ANeuralNetworksOperandType* type, Argument argument);
    int checkOutputQuery(int32_t index) const;

    const Ref<const Compilation> compilation_;
    std::vector<Argument> inputs_;
    std::vector<Argument> outputs_;
    bool measureTiming_ = false;
    uint64_t loopTimeout_ = hal::kLoopTimeoutDefault;  // ns, per WHILE loop
    uint64_t timeout_ = 0;   // ns; 0: none
    hal::Deadline deadline_;  // of the current computation, from timeout_
    bool reusable_ = false;
    ExtensionAttributes attributes_;
    bool padding_ = false;
    bool anyBound_ = false;  // a set{Input,Output}* call reached a valid index: padding is fixed
    std::atomic<State> state_{State::PREPARATION};
    int completion_ = ANEURALNETWORKS_NO_ERROR;
    std::vector<hal::OutputShape> shapes_;
    hal::Timing timing_;
};

// Runs `work`, the computation of `run` (started), on a thread of its own that holds a reference
// to `run` until `work` has returned, then signals `fence` (if not -1): an application may free
// the execution or its event at any time. When no thread can be started the execution completes
// with OP_FAILED, which is returned.
int startComputation(Execution* run, std::function<int()> work, int fence, std::shared_future<int>* result);

// Reference-counted like executions: a burstCompute in flight holds it.
struct Burst final : RefCounted {
    explicit Burst(const Compilation* source) : compilation(source) {}
    const Ref<const Compilation> compilation;
    std::mutex busy;  // one execution at a time
};

}  // namespace nnemu::runtime
