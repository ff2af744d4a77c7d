// Reusable executions (feature level 5) and the execution state machine: preparation ->
// computation -> completed, and again from completed when reusable.
#include <sys/mman.h>

#include <cstring>

#include "Fl30ApiHelpers.h"

namespace nnemu::apitest {
namespace {

// An ADD model's execution made reusable with its buffers bound (`ready` says it all worked).
struct ReusableAdd {
    ModelPtr model = makeAddModel();
    CompilationPtr compilation;
    ExecutionPtr execution;
    AddBuffers buffers;
    bool ready = false;

    explicit ReusableAdd(std::vector<const ANeuralNetworksDevice*> devices = {}) {
        compilation = devices.empty() ? compile(model.get()) : compileFor(model.get(), devices);
        execution = newExecution(compilation.get());
        ready = ANeuralNetworksExecution_setReusable(execution.get(), true) == ANEURALNETWORKS_NO_ERROR &&
                bindAddBuffers(execution.get(), buffers) == ANEURALNETWORKS_NO_ERROR;
    }
};

TEST(ReusableExecutionTest, SetReusableOnlyInPreparation) {
    EXPECT_EQ(ANeuralNetworksExecution_setReusable(nullptr, true), ANEURALNETWORKS_UNEXPECTED_NULL);
    ModelPtr model = makeAddModel();
    CompilationPtr compilation = compile(model.get());
    ExecutionPtr execution = newExecution(compilation.get());
    EXPECT_EQ(ANeuralNetworksExecution_setReusable(execution.get(), true), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksExecution_setReusable(execution.get(), false), ANEURALNETWORKS_NO_ERROR);
    AddBuffers buffers;
    ASSERT_EQ(bindAddBuffers(execution.get(), buffers), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksExecution_setReusable(execution.get(), true), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_compute(execution.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksExecution_setReusable(execution.get(), false), ANEURALNETWORKS_BAD_STATE);
}

TEST(ReusableExecutionTest, NonReusableExecutionComputesOnce) {
    ModelPtr model = makeAddModel();
    CompilationPtr compilation = compile(model.get());
    ExecutionPtr execution = newExecution(compilation.get());
    AddBuffers buffers;
    ASSERT_EQ(bindAddBuffers(execution.get(), buffers), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_compute(execution.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksExecution_compute(execution.get()), ANEURALNETWORKS_BAD_STATE);
    ANeuralNetworksEvent* event = nullptr;
    EXPECT_EQ(ANeuralNetworksExecution_startCompute(execution.get(), &event), ANEURALNETWORKS_BAD_STATE);
}

// The bindings stay; the contents of the bound buffers change between computations.
TEST(ReusableExecutionTest, ComputesAgainWithChangedInputContents) {
    ReusableAdd add;
    ASSERT_TRUE(add.ready);
    ExecutionPtr& execution = add.execution;
    AddBuffers& buffers = add.buffers;
    for (int run = 0; run < 4; ++run) {
        buffers.input0[0] = static_cast<float>(run);
        buffers.input1[1] = static_cast<float>(100 * run);
        ASSERT_EQ(ANeuralNetworksExecution_compute(execution.get()), ANEURALNETWORKS_NO_ERROR) << run;
        EXPECT_EQ(buffers.output[0], static_cast<float>(run) + 10.0f);
        EXPECT_EQ(buffers.output[1], 2.0f + static_cast<float>(100 * run));
        uint32_t rank = 0;
        EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandRank(execution.get(), 0, &rank), ANEURALNETWORKS_NO_ERROR);
        EXPECT_EQ(rank, 1u);
        // Completed: it cannot be modified between computations.
        EXPECT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 0, nullptr, buffers.input0, kTensorBytes),
                  ANEURALNETWORKS_BAD_STATE);
        EXPECT_EQ(ANeuralNetworksExecution_setMeasureTiming(execution.get(), false), ANEURALNETWORKS_BAD_DATA);
    }
}

TEST(ReusableExecutionTest, EveryComputeCallReusesTheExecution) {
    ReusableAdd add({referenceDevice()});
    ASSERT_TRUE(add.ready);
    const BurstPtr burst = newBurst(add.compilation.get());
    ASSERT_NE(burst, nullptr);
    ExecutionPtr& execution = add.execution;
    AddBuffers& buffers = add.buffers;
    for (int run = 0; run < 3; ++run) {
        buffers.input0[1] = static_cast<float>(run);
        ASSERT_EQ(ANeuralNetworksExecution_burstCompute(execution.get(), burst.get()), ANEURALNETWORKS_NO_ERROR);
        EXPECT_EQ(buffers.output[1], static_cast<float>(run) - 20.0f);

        buffers.input0[1] = static_cast<float>(run + 10);
        ANeuralNetworksEvent* event = nullptr;
        ASSERT_EQ(ANeuralNetworksExecution_startCompute(execution.get(), &event), ANEURALNETWORKS_NO_ERROR);
        EventPtr owner(event);
        ASSERT_EQ(ANeuralNetworksEvent_wait(event), ANEURALNETWORKS_NO_ERROR);
        EXPECT_EQ(buffers.output[1], static_cast<float>(run + 10) - 20.0f);

        buffers.input0[1] = static_cast<float>(run + 20);
        ASSERT_EQ(ANeuralNetworksExecution_startComputeWithDependencies(execution.get(), nullptr, 0, 0, &event),
                  ANEURALNETWORKS_NO_ERROR);
        owner.reset(event);
        ASSERT_EQ(ANeuralNetworksEvent_wait(event), ANEURALNETWORKS_NO_ERROR);
        EXPECT_EQ(buffers.output[1], static_cast<float>(run + 20) - 20.0f);
    }
}

TEST(ReusableExecutionTest, CannotComputeWhileComputing) {
    ReusableAdd add;
    ASSERT_TRUE(add.ready);
    ExecutionPtr& execution = add.execution;
    TestFence gate;
    const ANeuralNetworksEvent* dependencies[] = {gate.event.get()};
    ANeuralNetworksEvent* event = nullptr;
    ASSERT_EQ(ANeuralNetworksExecution_startComputeWithDependencies(execution.get(), dependencies, 1, 0, &event),
              ANEURALNETWORKS_NO_ERROR);
    EventPtr owner(event);
    EXPECT_EQ(ANeuralNetworksExecution_compute(execution.get()), ANEURALNETWORKS_BAD_STATE);
    uint32_t rank = 0;
    EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandRank(execution.get(), 0, &rank), ANEURALNETWORKS_BAD_STATE);
    gate.signal();
    ASSERT_EQ(ANeuralNetworksEvent_wait(event), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksExecution_compute(execution.get()), ANEURALNETWORKS_NO_ERROR);
}

TEST(ReusableExecutionTest, MemoryInputsRewrittenInPlace) {
    ModelPtr model = makeAddModel();
    CompilationPtr compilation = compile(model.get());
    Fd fd(makeSharedMemoryFd(3 * kTensorBytes));
    ASSERT_GE(fd.get(), 0);
    ANeuralNetworksMemory* memory = nullptr;
    ASSERT_EQ(ANeuralNetworksMemory_createFromFd(3 * kTensorBytes, PROT_READ | PROT_WRITE, fd.get(), 0, &memory),
              ANEURALNETWORKS_NO_ERROR);
    MemoryPtr memoryOwner(memory);
    void* mapped = mmap(nullptr, 3 * kTensorBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
    ASSERT_NE(mapped, MAP_FAILED);
    auto* values = static_cast<float*>(mapped);
    ExecutionPtr execution = newExecution(compilation.get());
    ASSERT_EQ(ANeuralNetworksExecution_setReusable(execution.get(), true), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution.get(), 0, nullptr, memory, 0, kTensorBytes), 0);
    ASSERT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution.get(), 1, nullptr, memory, kTensorBytes,
                                                          kTensorBytes),
              0);
    ASSERT_EQ(ANeuralNetworksExecution_setOutputFromMemory(execution.get(), 0, nullptr, memory, 2 * kTensorBytes,
                                                           kTensorBytes),
              0);
    for (int run = 1; run <= 3; ++run) {
        const float in[4] = {1.0f * run, 2.0f * run, 3.0f * run, 4.0f * run};
        std::memcpy(values, in, sizeof(in));
        ASSERT_EQ(ANeuralNetworksExecution_compute(execution.get()), ANEURALNETWORKS_NO_ERROR);
        EXPECT_EQ(values[4], 4.0f * run);
        EXPECT_EQ(values[5], 6.0f * run);
    }
    munmap(mapped, 3 * kTensorBytes);
}

}  // namespace
}  // namespace nnemu::apitest
