// ANeuralNetworksExecution, ANeuralNetworksEvent and ANeuralNetworksBurst.
#pragma once

#include <android/NeuralNetworks.h>

#include <atomic>
#include <future>
#include <mutex>
#include <vector>

#include "Compilation.h"

namespace nnemu::runtime {

class Execution {
public:
    explicit Execution(const Compilation* compilation);

    int setInput(int32_t index, const ANeuralNetworksOperandType* type, const void* buffer, size_t length);
    int setInputFromMemory(int32_t index, const ANeuralNetworksOperandType* type,
                           std::shared_ptr<const hal::MemoryPool> memory, size_t offset, size_t length);
    int setOutput(int32_t index, const ANeuralNetworksOperandType* type, void* buffer, size_t length);
    int setOutputFromMemory(int32_t index, const ANeuralNetworksOperandType* type,
                            std::shared_ptr<const hal::MemoryPool> memory, size_t offset, size_t length);
    int setMeasureTiming(bool measure);
    int setLoopTimeout(uint64_t duration);

    // Marks the execution started; BAD_STATE if it already was, else BAD_DATA if an argument is unset.
    int start();
    // Runs a started execution to completion and records its results.
    int run();

    int getOutputOperandRank(int32_t index, uint32_t* rank) const;
    int getOutputOperandDimensions(int32_t index, uint32_t* dimensions) const;
    int getDuration(int32_t durationCode, uint64_t* duration) const;

    const Compilation* compilation() const { return compilation_; }

private:
    enum class State { PREPARATION, COMPUTING, COMPLETED };

    int bind(bool isInput, int32_t index, const ANeuralNetworksOperandType* type, Argument argument);
    int checkOutputQuery(int32_t index) const;

    const Compilation* compilation_;
    std::vector<Argument> inputs_;
    std::vector<Argument> outputs_;
    bool measureTiming_ = false;
    uint64_t loopTimeout_ = hal::kLoopTimeoutDefault;  // ns, per WHILE loop
    std::atomic<State> state_{State::PREPARATION};
    int completion_ = ANEURALNETWORKS_NO_ERROR;
    std::vector<hal::OutputShape> shapes_;
    hal::Timing timing_;
};

struct Event {
    std::shared_future<int> result;
};

struct Burst {
    const Compilation* compilation;
    std::mutex busy;  // one execution at a time
};

}  // namespace nnemu::runtime
