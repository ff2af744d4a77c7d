// Quality of service (feature level 30): priorities, compilation and execution timeouts, and
// the MISSED_DEADLINE codes. A missed deadline is made certain with a 1 ns timeout: the device
// checks it after the runtime has computed it, so it has always passed. Nothing asserts on time.
#include "Fl30ApiHelpers.h"

namespace nnemu::apitest {
namespace {

TEST(QosTest, SetPriorityAcceptsOnlyTheThreeLevelsBeforeFinish) {
    EXPECT_EQ(ANeuralNetworksCompilation_setPriority(nullptr, ANEURALNETWORKS_PRIORITY_DEFAULT),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    ModelPtr model = makeAddModel();
    CompilationPtr compilation = unfinishedCompilation(model.get());
    for (int priority : {ANEURALNETWORKS_PRIORITY_LOW, ANEURALNETWORKS_PRIORITY_MEDIUM, ANEURALNETWORKS_PRIORITY_HIGH,
                         ANEURALNETWORKS_PRIORITY_DEFAULT}) {
        EXPECT_EQ(ANeuralNetworksCompilation_setPriority(compilation.get(), priority), ANEURALNETWORKS_NO_ERROR);
    }
    for (int priority : {0, 1, 89, 91, 101, 111, -100}) {
        EXPECT_EQ(ANeuralNetworksCompilation_setPriority(compilation.get(), priority), ANEURALNETWORKS_BAD_DATA)
                << priority;
    }
    ASSERT_EQ(ANeuralNetworksCompilation_setPriority(compilation.get(), ANEURALNETWORKS_PRIORITY_HIGH),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksCompilation_finish(compilation.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksCompilation_setPriority(compilation.get(), ANEURALNETWORKS_PRIORITY_LOW),
              ANEURALNETWORKS_BAD_STATE);
    // A prioritized compilation still runs.
    ExecutionPtr execution = newExecution(compilation.get());
    AddBuffers buffers;
    ASSERT_EQ(bindAddBuffers(execution.get(), buffers), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_compute(execution.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(buffers.output[0], 11.0f);
}

TEST(QosTest, CompilationTimeoutNeedsOneExplicitDeviceAndAnUnfinishedCompilation) {
    EXPECT_EQ(ANeuralNetworksCompilation_setTimeout(nullptr, 1000), ANEURALNETWORKS_UNEXPECTED_NULL);
    ModelPtr model = makeAddModel();
    CompilationPtr overAll = unfinishedCompilation(model.get());
    EXPECT_EQ(ANeuralNetworksCompilation_setTimeout(overAll.get(), 1000), ANEURALNETWORKS_BAD_DATA);
    const auto devices = allDeviceHandles();
    if (devices.size() > 1) {
        CompilationPtr several = unfinishedCompilation(model.get(), devices);
        EXPECT_EQ(ANeuralNetworksCompilation_setTimeout(several.get(), 1000), ANEURALNETWORKS_BAD_DATA);
    }
    CompilationPtr one = unfinishedCompilation(model.get(), {referenceDevice()});
    EXPECT_EQ(ANeuralNetworksCompilation_setTimeout(one.get(), 0), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksCompilation_finish(one.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksCompilation_setTimeout(one.get(), 1000), ANEURALNETWORKS_BAD_STATE);
}

TEST(QosTest, CompilationMissingItsDeadlineFailsWithAMissedDeadlineCode) {
    ModelPtr model = makeAddModel();
    for (const ANeuralNetworksDevice* device : devicesRunning(model.get())) {
        CompilationPtr compilation = unfinishedCompilation(model.get(), {device});
        ASSERT_EQ(ANeuralNetworksCompilation_setTimeout(compilation.get(), 1), ANEURALNETWORKS_NO_ERROR);
        EXPECT_TRUE(isMissedDeadline(ANeuralNetworksCompilation_finish(compilation.get())));
        ANeuralNetworksExecution* execution = nullptr;
        EXPECT_EQ(ANeuralNetworksExecution_create(compilation.get(), &execution), ANEURALNETWORKS_BAD_STATE);
        uint32_t alignment = 0;
        EXPECT_EQ(ANeuralNetworksCompilation_getPreferredMemoryAlignmentForInput(compilation.get(), 0, &alignment),
                  ANEURALNETWORKS_BAD_STATE);
    }
}

TEST(QosTest, GenerousTimeoutsLetWorkFinish) {
    ModelPtr model = makeAddModel();
    constexpr uint64_t kHour = 3600ull * 1000 * 1000 * 1000;
    for (uint64_t timeout : {kHour, UINT64_MAX}) {
        CompilationPtr compilation = unfinishedCompilation(model.get(), {referenceDevice()});
        ASSERT_EQ(ANeuralNetworksCompilation_setTimeout(compilation.get(), timeout), ANEURALNETWORKS_NO_ERROR);
        ASSERT_EQ(ANeuralNetworksCompilation_finish(compilation.get()), ANEURALNETWORKS_NO_ERROR);
        ExecutionPtr execution = newExecution(compilation.get());
        ASSERT_EQ(ANeuralNetworksExecution_setTimeout(execution.get(), timeout), ANEURALNETWORKS_NO_ERROR);
        AddBuffers buffers;
        ASSERT_EQ(bindAddBuffers(execution.get(), buffers), ANEURALNETWORKS_NO_ERROR);
        ASSERT_EQ(ANeuralNetworksExecution_compute(execution.get()), ANEURALNETWORKS_NO_ERROR);
        EXPECT_EQ(buffers.output[1], -18.0f);
    }
}

TEST(QosTest, ExecutionTimeoutChecksTheCompilationBeforeTheState) {
    EXPECT_EQ(ANeuralNetworksExecution_setTimeout(nullptr, 1000), ANEURALNETWORKS_UNEXPECTED_NULL);
    ModelPtr model = makeAddModel();
    CompilationPtr overAll = compile(model.get());
    ExecutionPtr fromAll = newExecution(overAll.get());
    EXPECT_EQ(ANeuralNetworksExecution_setTimeout(fromAll.get(), 1000), ANEURALNETWORKS_BAD_DATA);
    AddBuffers buffers;
    ASSERT_EQ(bindAddBuffers(fromAll.get(), buffers), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_compute(fromAll.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksExecution_setTimeout(fromAll.get(), 1000), ANEURALNETWORKS_BAD_DATA);

    const auto devices = allDeviceHandles();
    if (devices.size() > 1) {
        CompilationPtr several = compileFor(model.get(), devices);
        ExecutionPtr fromSeveral = newExecution(several.get());
        EXPECT_EQ(ANeuralNetworksExecution_setTimeout(fromSeveral.get(), 1000), ANEURALNETWORKS_BAD_DATA);
    }
    CompilationPtr one = compileFor(model.get(), {referenceDevice()});
    ExecutionPtr execution = newExecution(one.get());
    EXPECT_EQ(ANeuralNetworksExecution_setTimeout(execution.get(), 0), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(bindAddBuffers(execution.get(), buffers), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_compute(execution.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksExecution_setTimeout(execution.get(), 1000), ANEURALNETWORKS_BAD_STATE);
}

// Every device that runs the model, with no CPU fallback: the code is the device's.
TEST(QosTest, ComputeMissingItsDeadlineFailsWithAMissedDeadlineCode) {
    ModelPtr model = makeAddModel();
    const auto devices = devicesRunning(model.get());
    ASSERT_FALSE(devices.empty());
    for (const ANeuralNetworksDevice* device : devices) {
        CompilationPtr compilation = compileFor(model.get(), {device});
        ExecutionPtr execution = newExecution(compilation.get());
        ASSERT_EQ(ANeuralNetworksExecution_setTimeout(execution.get(), 1), ANEURALNETWORKS_NO_ERROR);
        AddBuffers buffers;
        ASSERT_EQ(bindAddBuffers(execution.get(), buffers), ANEURALNETWORKS_NO_ERROR);
        EXPECT_TRUE(isMissedDeadline(ANeuralNetworksExecution_compute(execution.get())));
        EXPECT_EQ(buffers.output[0], -1.0f);  // never written
        uint32_t rank = 0;
        EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandRank(execution.get(), 0, &rank), ANEURALNETWORKS_BAD_STATE);
    }
}

TEST(QosTest, StartComputeMissingItsDeadlineReportsItThroughTheEvent) {
    ModelPtr model = makeAddModel();
    CompilationPtr compilation = compileFor(model.get(), {referenceDevice()});
    ExecutionPtr execution = newExecution(compilation.get());
    ASSERT_EQ(ANeuralNetworksExecution_setTimeout(execution.get(), 1), ANEURALNETWORKS_NO_ERROR);
    AddBuffers buffers;
    ASSERT_EQ(bindAddBuffers(execution.get(), buffers), ANEURALNETWORKS_NO_ERROR);
    const EventPtr event = startCompute(execution.get());
    ASSERT_NE(event, nullptr);
    EXPECT_TRUE(isMissedDeadline(ANeuralNetworksEvent_wait(event.get())));
}

TEST(QosTest, BurstComputeMissingItsDeadlineFailsWithAMissedDeadlineCode) {
    ModelPtr model = makeAddModel();
    CompilationPtr compilation = compileFor(model.get(), {referenceDevice()});
    const BurstPtr burst = newBurst(compilation.get());
    ASSERT_NE(burst, nullptr);
    ExecutionPtr execution = newExecution(compilation.get());
    ASSERT_EQ(ANeuralNetworksExecution_setTimeout(execution.get(), 1), ANEURALNETWORKS_NO_ERROR);
    AddBuffers buffers;
    ASSERT_EQ(bindAddBuffers(execution.get(), buffers), ANEURALNETWORKS_NO_ERROR);
    EXPECT_TRUE(isMissedDeadline(ANeuralNetworksExecution_burstCompute(execution.get(), burst.get())));
}

}  // namespace
}  // namespace nnemu::apitest
