// Fenced execution (feature level 30): sync-fence events and startComputeWithDependencies.
// On Linux a fenced computation's fence is an eventfd that polls readable when it ends; the
// tests hold computations back with eventfds of their own, so "not yet readable" is certain.
#include <poll.h>

#include "Fl30ApiHelpers.h"

namespace nnemu::apitest {
namespace {

// A finished single-device compilation of the ADD model and an execution of it bound to `buffers`.
struct FencedRun {
    ModelPtr model = makeAddModel();
    CompilationPtr compilation = compileFor(model.get(), {referenceDevice()});
    ExecutionPtr execution = newExecution(compilation.get());
    AddBuffers buffers;
    FencedRun() { EXPECT_EQ(bindAddBuffers(execution.get(), buffers), ANEURALNETWORKS_NO_ERROR); }

    int start(const std::vector<const ANeuralNetworksEvent*>& dependencies, EventPtr* event, uint64_t duration = 0) {
        ANeuralNetworksEvent* created = nullptr;
        const int n = ANeuralNetworksExecution_startComputeWithDependencies(
                execution.get(), dependencies.data(), static_cast<uint32_t>(dependencies.size()), duration, &created);
        event->reset(created);
        return n;
    }
};

TEST(FencedExecutionTest, CreateFromSyncFenceFdRefusesNullAndNonPositiveFds) {
    Fd fd(eventfd(0, EFD_CLOEXEC));
    EXPECT_EQ(ANeuralNetworksEvent_createFromSyncFenceFd(fd.get(), nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
    for (int bad : {0, -1, -5}) {
        ANeuralNetworksEvent* event = reinterpret_cast<ANeuralNetworksEvent*>(&fd);
        EXPECT_EQ(ANeuralNetworksEvent_createFromSyncFenceFd(bad, &event), ANEURALNETWORKS_BAD_DATA) << bad;
        EXPECT_EQ(event, nullptr);
    }
}

TEST(FencedExecutionTest, SyncFenceEventDupsTheFdAndWaitsForItToBeReadable) {
    TestFence fence;
    ASSERT_NE(fence.event, nullptr);
    int dup = -1;
    ASSERT_EQ(ANeuralNetworksEvent_getSyncFenceFd(fence.event.get(), &dup), ANEURALNETWORKS_NO_ERROR);
    Fd dupOwner(dup);
    EXPECT_NE(dup, fence.fd.get());
    EXPECT_FALSE(readable(dup));
    fence.signal();
    EXPECT_TRUE(readable(dup));
    EXPECT_EQ(ANeuralNetworksEvent_wait(fence.event.get()), ANEURALNETWORKS_NO_ERROR);
    // The event keeps its own duplicate: closing the application's fd changes nothing.
    fence.fd.reset();
    EXPECT_EQ(ANeuralNetworksEvent_wait(fence.event.get()), ANEURALNETWORKS_NO_ERROR);
}

TEST(FencedExecutionTest, GetSyncFenceFdOfAnEventWithoutFenceIsBadDataAndMinusOne) {
    int fd = 7;
    EXPECT_EQ(ANeuralNetworksEvent_getSyncFenceFd(nullptr, &fd), ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(fd, -1);  // on every error, a null event included (Android 11 on)
    fd = 7;
    FencedRun run;
    ANeuralNetworksEvent* event = nullptr;
    ASSERT_EQ(ANeuralNetworksExecution_startCompute(run.execution.get(), &event), ANEURALNETWORKS_NO_ERROR);
    EventPtr owner(event);
    EXPECT_EQ(ANeuralNetworksEvent_getSyncFenceFd(event, nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksEvent_getSyncFenceFd(event, &fd), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(fd, -1);
    EXPECT_EQ(ANeuralNetworksEvent_wait(event), ANEURALNETWORKS_NO_ERROR);
}

TEST(FencedExecutionTest, StartComputeWithDependenciesRefusesNulls) {
    FencedRun run;
    int sentinel = 0;
    auto* event = reinterpret_cast<ANeuralNetworksEvent*>(&sentinel);
    EXPECT_EQ(ANeuralNetworksExecution_startComputeWithDependencies(nullptr, nullptr, 0, 0, &event),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(event, nullptr);
    EXPECT_EQ(ANeuralNetworksExecution_startComputeWithDependencies(run.execution.get(), nullptr, 0, 0, nullptr),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksExecution_startComputeWithDependencies(run.execution.get(), nullptr, 1, 0, &event),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    const ANeuralNetworksEvent* nullEntry[] = {nullptr};
    EXPECT_EQ(ANeuralNetworksExecution_startComputeWithDependencies(run.execution.get(), nullEntry, 1, 0, &event),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(event, nullptr);
    // None of that started the execution.
    EventPtr owner;
    ASSERT_EQ(run.start({}, &owner), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksEvent_wait(owner.get()), ANEURALNETWORKS_NO_ERROR);
}

TEST(FencedExecutionTest, DurationNeedsASingleDeviceCompilation) {
    ModelPtr model = makeAddModel();
    CompilationPtr compilation = compile(model.get());
    ExecutionPtr execution = newExecution(compilation.get());
    AddBuffers buffers;
    ASSERT_EQ(bindAddBuffers(execution.get(), buffers), ANEURALNETWORKS_NO_ERROR);
    ANeuralNetworksEvent* event = nullptr;
    EXPECT_EQ(ANeuralNetworksExecution_startComputeWithDependencies(execution.get(), nullptr, 0, 1000, &event),
              ANEURALNETWORKS_BAD_DATA);
    ASSERT_EQ(ANeuralNetworksExecution_startComputeWithDependencies(execution.get(), nullptr, 0, 0, &event),
              ANEURALNETWORKS_NO_ERROR);
    EventPtr owner(event);
    EXPECT_EQ(ANeuralNetworksEvent_wait(event), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(buffers.output[0], 11.0f);
}

TEST(FencedExecutionTest, OutputsMustBeFullySpecified) {
    AddModelOptions options;
    options.outputDims = {0};
    ModelPtr model = makeAddModel(options);
    CompilationPtr compilation = compileFor(model.get(), {referenceDevice()});
    ExecutionPtr execution = newExecution(compilation.get());
    AddBuffers buffers;
    ASSERT_EQ(bindAddBuffers(execution.get(), buffers), ANEURALNETWORKS_NO_ERROR);
    ANeuralNetworksEvent* event = nullptr;
    EXPECT_EQ(ANeuralNetworksExecution_startComputeWithDependencies(execution.get(), nullptr, 0, 0, &event),
              ANEURALNETWORKS_BAD_DATA);
    // Giving the output's shape at binding time makes it fully specified.
    ExecutionPtr typed = newExecution(compilation.get());
    const std::vector<uint32_t> outputDims{2};  // outlives the type that points to it
    const ANeuralNetworksOperandType outputType = tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, outputDims);
    ASSERT_EQ(ANeuralNetworksExecution_setInput(typed.get(), 0, nullptr, buffers.input0, kTensorBytes), 0);
    ASSERT_EQ(ANeuralNetworksExecution_setInput(typed.get(), 1, nullptr, buffers.input1, kTensorBytes), 0);
    ASSERT_EQ(ANeuralNetworksExecution_setOutput(typed.get(), 0, &outputType, buffers.output, kTensorBytes), 0);
    ASSERT_EQ(ANeuralNetworksExecution_startComputeWithDependencies(typed.get(), nullptr, 0, 0, &event),
              ANEURALNETWORKS_NO_ERROR);
    EventPtr owner(event);
    EXPECT_EQ(ANeuralNetworksEvent_wait(event), ANEURALNETWORKS_NO_ERROR);
}

TEST(FencedExecutionTest, FenceBecomesReadableWhenTheComputationEnds) {
    TestFence dependency;
    FencedRun run;
    EventPtr event;
    ASSERT_EQ(run.start({dependency.event.get()}, &event), ANEURALNETWORKS_NO_ERROR);
    int fd = -1;
    ASSERT_EQ(ANeuralNetworksEvent_getSyncFenceFd(event.get(), &fd), ANEURALNETWORKS_NO_ERROR);
    Fd fence(fd);
    EXPECT_FALSE(readable(fence.get()));  // held back by the dependency
    EventPtr again;
    EXPECT_EQ(run.start({}, &again), ANEURALNETWORKS_BAD_STATE);  // computing
    dependency.signal();
    EXPECT_TRUE(readable(fence.get(), true));
    EXPECT_EQ(ANeuralNetworksEvent_wait(event.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(run.buffers.output[0], 11.0f);
    EXPECT_EQ(run.buffers.output[1], -18.0f);
    EXPECT_EQ(run.start({}, &again), ANEURALNETWORKS_BAD_STATE);  // completed, not reusable
}

// The second execution adds input 1 to the first one's output: it must run after it.
TEST(FencedExecutionTest, ChainOfTwoFencedExecutions) {
    TestFence gate;
    FencedRun first;
    FencedRun second;
    ExecutionPtr chained = newExecution(second.compilation.get());
    float chainedOutput[2] = {0.0f, 0.0f};
    ASSERT_EQ(ANeuralNetworksExecution_setInput(chained.get(), 0, nullptr, first.buffers.output, kTensorBytes), 0);
    ASSERT_EQ(ANeuralNetworksExecution_setInput(chained.get(), 1, nullptr, first.buffers.input1, kTensorBytes), 0);
    ASSERT_EQ(ANeuralNetworksExecution_setOutput(chained.get(), 0, nullptr, chainedOutput, kTensorBytes), 0);

    EventPtr firstEvent;
    ASSERT_EQ(first.start({gate.event.get()}, &firstEvent), ANEURALNETWORKS_NO_ERROR);
    const ANeuralNetworksEvent* dependencies[] = {firstEvent.get()};
    ANeuralNetworksEvent* secondEvent = nullptr;
    ASSERT_EQ(ANeuralNetworksExecution_startComputeWithDependencies(chained.get(), dependencies, 1, 0, &secondEvent),
              ANEURALNETWORKS_NO_ERROR);
    EventPtr secondOwner(secondEvent);
    int fd = -1;
    ASSERT_EQ(ANeuralNetworksEvent_getSyncFenceFd(secondEvent, &fd), ANEURALNETWORKS_NO_ERROR);
    Fd secondFence(fd);
    EXPECT_FALSE(readable(secondFence.get()));
    gate.signal();
    EXPECT_EQ(ANeuralNetworksEvent_wait(secondEvent), ANEURALNETWORKS_NO_ERROR);
    EXPECT_TRUE(readable(secondFence.get()));
    EXPECT_EQ(chainedOutput[0], 21.0f);   // (1 + 10) + 10
    EXPECT_EQ(chainedOutput[1], -38.0f);  // (2 - 20) - 20
}

// A dependency that already failed fails the call; one that fails later fails the wait.
TEST(FencedExecutionTest, FailedDependencies) {
    FencedRun failing;
    EventPtr failed;
    ASSERT_EQ(ANeuralNetworksExecution_setTimeout(failing.execution.get(), 1), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(failing.start({}, &failed), ANEURALNETWORKS_NO_ERROR);
    EXPECT_TRUE(isMissedDeadline(ANeuralNetworksEvent_wait(failed.get())));
    FencedRun dependent;
    EventPtr event;
    EXPECT_EQ(dependent.start({failed.get()}, &event), ANEURALNETWORKS_OP_FAILED);
    EXPECT_EQ(event, nullptr);

    // Later: the first computation waits for a gate, then misses the 1 ns allowed after it.
    TestFence gate;
    FencedRun late;
    EventPtr lateEvent;
    ASSERT_EQ(late.start({gate.event.get()}, &lateEvent, 1), ANEURALNETWORKS_NO_ERROR);
    FencedRun after;
    EventPtr afterEvent;
    ASSERT_EQ(after.start({lateEvent.get()}, &afterEvent), ANEURALNETWORKS_NO_ERROR);
    gate.signal();
    EXPECT_EQ(ANeuralNetworksEvent_wait(afterEvent.get()), ANEURALNETWORKS_OP_FAILED);
    EXPECT_TRUE(isMissedDeadline(ANeuralNetworksEvent_wait(lateEvent.get())));
    EXPECT_EQ(after.buffers.output[0], -1.0f);
}

// A dependency without a fence (startCompute's event) is waited for inside the call.
TEST(FencedExecutionTest, DependencyWithoutFence) {
    FencedRun first;
    ANeuralNetworksEvent* plain = nullptr;
    ASSERT_EQ(ANeuralNetworksExecution_startCompute(first.execution.get(), &plain), ANEURALNETWORKS_NO_ERROR);
    EventPtr plainOwner(plain);
    FencedRun second;
    EventPtr event;
    ASSERT_EQ(second.start({plain}, &event), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksEvent_wait(event.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(first.buffers.output[0], 11.0f);
}

TEST(FencedExecutionTest, FencedDurationsFollowTheTimingRules) {
    FencedRun run;
    ASSERT_EQ(ANeuralNetworksExecution_setMeasureTiming(run.execution.get(), true), ANEURALNETWORKS_NO_ERROR);
    EventPtr event;
    ASSERT_EQ(run.start({}, &event), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksEvent_wait(event.get()), ANEURALNETWORKS_NO_ERROR);
    uint64_t duration = 0;
    for (int32_t code : {ANEURALNETWORKS_DURATION_ON_HARDWARE, ANEURALNETWORKS_DURATION_IN_DRIVER,
                         ANEURALNETWORKS_FENCED_DURATION_ON_HARDWARE, ANEURALNETWORKS_FENCED_DURATION_IN_DRIVER}) {
        EXPECT_EQ(ANeuralNetworksExecution_getDuration(run.execution.get(), code, &duration), ANEURALNETWORKS_NO_ERROR)
                << code;
    }
    EXPECT_EQ(ANeuralNetworksExecution_getDuration(run.execution.get(), 4, &duration), ANEURALNETWORKS_BAD_DATA);
}

}  // namespace
}  // namespace nnemu::apitest
