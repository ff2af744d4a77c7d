// Object lifetimes around computations in flight: an application may free an execution, its
// compilation, model, memories, bursts and dependency events while a computation that uses them
// still runs. Android's runtime refuses (and logs) the free of an in-flight execution, which
// Google's NDK memory-domain sample relies on; nnemu logs one error line and frees it once the
// computation completes. Nothing crashes, the results are exact, and nothing leaks (these tests
// run under ASan with leak detection and under TSan: scripts/sanitize.sh).
#include <sys/mman.h>

#include <atomic>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "Fl30ApiHelpers.h"

namespace nnemu::apitest {
namespace {

// Default selection (create) or one device (createForDevices).
struct Selection {
    std::string name;
    const ANeuralNetworksDevice* device = nullptr;  // null: every device
};

// Every way to compile: default selection, then each device that runs the whole `model`.
std::vector<Selection> selectionsFor(ANeuralNetworksModel* model) {
    std::vector<Selection> result{{"default", nullptr}};
    for (const ANeuralNetworksDevice* device : devicesRunning(model)) {
        const char* name = nullptr;
        EXPECT_EQ(ANeuralNetworksDevice_getName(device, &name), ANEURALNETWORKS_NO_ERROR);
        result.push_back({name, device});
    }
    return result;
}

CompilationPtr compileWith(ANeuralNetworksModel* model, const Selection& selection) {
    return selection.device == nullptr ? compile(model) : compileFor(model, {selection.device});
}

// output[n] = input0[n] + input1[n] (float32, no activation): large enough that a computation
// is usually still running when the test frees what it uses.
ModelPtr makeWideAdd(uint32_t n) { return makeAddModel({.input0Dims = {n}, .input1Dims = {n}, .outputDims = {n}}); }

struct WideBuffers {
    explicit WideBuffers(uint32_t n) : input0(n), input1(n), output(n, -1.0f) {
        for (uint32_t i = 0; i < n; ++i) {
            input0[i] = static_cast<float>(i % 977) * 0.5f;
            input1[i] = static_cast<float>(i % 131) - 64.0f;
        }
    }
    int bind(ANeuralNetworksExecution* execution) {
        const size_t bytes = output.size() * sizeof(float);
        if (int n = ANeuralNetworksExecution_setInput(execution, 0, nullptr, input0.data(), bytes)) return n;
        if (int n = ANeuralNetworksExecution_setInput(execution, 1, nullptr, input1.data(), bytes)) return n;
        return ANeuralNetworksExecution_setOutput(execution, 0, nullptr, output.data(), bytes);
    }
    // A new execution of `compilation` with these buffers bound; null, with a test failure, when
    // it cannot be created or bound.
    ExecutionPtr boundExecution(ANeuralNetworksCompilation* compilation) {
        ExecutionPtr execution = newExecution(compilation);
        if (execution == nullptr) return nullptr;
        const int bound = bind(execution.get());
        EXPECT_EQ(bound, ANEURALNETWORKS_NO_ERROR);
        return bound == ANEURALNETWORKS_NO_ERROR ? std::move(execution) : nullptr;
    }
    // boundExecution() (into *execution), started asynchronously: its event, or null with a test
    // failure.
    EventPtr start(ANeuralNetworksCompilation* compilation, ExecutionPtr* execution) {
        *execution = boundExecution(compilation);
        return *execution == nullptr ? nullptr : startCompute(execution->get());
    }
    void expectSums() const {
        for (size_t i = 0; i < output.size(); ++i) {
            ASSERT_EQ(output[i], input0[i] + input1[i]) << "element " << i;
        }
    }
    std::vector<float> input0, input1, output;
};

// How many stderr lines name `function`.
int linesNaming(const std::string& log, const std::string& function) {
    int count = 0;
    for (size_t at = log.find(function); at != std::string::npos; at = log.find(function, at + 1)) ++count;
    return count;
}

// A fenced computation held back by a fence of the test's: its execution, compilation, model,
// memories and the dependency's event are all freed before the fence signals. The execution's
// free logs one error line; the result is then exact, read through the test's own mapping.
TEST(LifetimeTest, EverythingFreedWhileAFencedComputationWaits) {
    ModelPtr probe = makeAddModel();
    for (const Selection& selection : selectionsFor(probe.get())) {
        SCOPED_TRACE(selection.name);
        ModelPtr model = makeAddModel();
        CompilationPtr compilation = compileWith(model.get(), selection);
        ASSERT_NE(compilation, nullptr);
        ExecutionPtr execution = newExecution(compilation.get());
        auto input = std::make_unique<FdMemory>(2);
        auto output = std::make_unique<FdMemory>(2);
        input->floats()[0] = 1.5f;
        input->floats()[1] = -4.0f;
        const float addend[2] = {0.25f, 8.0f};
        ASSERT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution.get(), 0, nullptr, input->get(), 0, 8),
                  ANEURALNETWORKS_NO_ERROR);
        ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 1, nullptr, addend, sizeof(addend)),
                  ANEURALNETWORKS_NO_ERROR);
        ASSERT_EQ(ANeuralNetworksExecution_setOutputFromMemory(execution.get(), 0, nullptr, output->get(), 0, 8),
                  ANEURALNETWORKS_NO_ERROR);
        TestFence gate;
        const ANeuralNetworksEvent* dependencies[] = {gate.event.get()};
        ANeuralNetworksEvent* done = nullptr;
        ASSERT_EQ(ANeuralNetworksExecution_startComputeWithDependencies(execution.get(), dependencies, 1, 0, &done),
                  ANEURALNETWORKS_NO_ERROR);
        EventPtr event(done);

        testing::internal::CaptureStderr();
        execution.reset();
        const std::string log = testing::internal::GetCapturedStderr();
        EXPECT_EQ(linesNaming(log, "ANeuralNetworksExecution_free"), 1) << log;
        compilation.reset();
        model.reset();
        // The test keeps its mappings of both files; only the NNAPI memories go.
        float* in = input->floats();
        float* out = output->floats();
        ANeuralNetworksMemory_free(input->release());
        ANeuralNetworksMemory_free(output->release());
        gate.event.reset();

        gate.signal();
        ASSERT_EQ(ANeuralNetworksEvent_wait(event.get()), ANEURALNETWORKS_NO_ERROR);
        EXPECT_EQ(out[0], in[0] + addend[0]);
        EXPECT_EQ(out[1], in[1] + addend[1]);
    }
}

// startCompute, then the execution and its compilation freed at once (the computation is usually
// still running); the event still reports the result and the outputs are exact.
TEST(LifetimeTest, ExecutionAndCompilationFreedRightAfterStartCompute) {
    constexpr uint32_t kSize = 1u << 18;
    ModelPtr model = makeWideAdd(kSize);
    for (const Selection& selection : selectionsFor(model.get())) {
        SCOPED_TRACE(selection.name);
        for (int round = 0; round < 5; ++round) {
            CompilationPtr compilation = compileWith(model.get(), selection);
            ASSERT_NE(compilation, nullptr);
            WideBuffers buffers(kSize);
            ExecutionPtr execution;
            EventPtr event = buffers.start(compilation.get(), &execution);
            ASSERT_NE(event, nullptr);
            testing::internal::CaptureStderr();
            execution.reset();
            compilation.reset();
            const std::string log = testing::internal::GetCapturedStderr();
            EXPECT_LE(linesNaming(log, "ANeuralNetworksExecution_free"), 1) << log;
            ASSERT_EQ(ANeuralNetworksEvent_wait(event.get()), ANEURALNETWORKS_NO_ERROR);
            buffers.expectSums();
        }
    }
}

// Event_free waits for its computation (as Android's does), after which the execution is
// completed: its outputs are written and it may be queried.
TEST(LifetimeTest, EventFreedWhileComputingWaitsForTheComputation) {
    constexpr uint32_t kSize = 1u << 18;
    ModelPtr model = makeWideAdd(kSize);
    CompilationPtr compilation = compile(model.get());
    ASSERT_NE(compilation, nullptr);
    WideBuffers buffers(kSize);
    ExecutionPtr execution;
    EventPtr event = buffers.start(compilation.get(), &execution);
    ASSERT_NE(event, nullptr);
    ANeuralNetworksEvent_free(event.release());
    uint32_t rank = 0;
    EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandRank(execution.get(), 0, &rank), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(rank, 1u);
    buffers.expectSums();
}

// A burst and its compilation freed by one thread while another computes through the burst.
TEST(LifetimeTest, BurstFreedDuringBurstCompute) {
    constexpr uint32_t kSize = 1u << 18;
    ModelPtr model = makeWideAdd(kSize);
    for (const Selection& selection : selectionsFor(model.get())) {
        SCOPED_TRACE(selection.name);
        CompilationPtr compilation = compileWith(model.get(), selection);
        ASSERT_NE(compilation, nullptr);
        ANeuralNetworksBurst* burst = nullptr;
        ASSERT_EQ(ANeuralNetworksBurst_create(compilation.get(), &burst), ANEURALNETWORKS_NO_ERROR);
        WideBuffers buffers(kSize);
        ExecutionPtr execution = buffers.boundExecution(compilation.get());
        ASSERT_NE(execution, nullptr);
        std::atomic<int> result{-1};
        std::thread computing([&] { result = ANeuralNetworksExecution_burstCompute(execution.get(), burst); });
        // setReusable is BAD_STATE once the computation has started (the burst is held by then).
        while (ANeuralNetworksExecution_setReusable(execution.get(), false) == ANEURALNETWORKS_NO_ERROR) {
            std::this_thread::yield();
        }
        ANeuralNetworksBurst_free(burst);
        compilation.reset();
        computing.join();
        EXPECT_EQ(result, ANEURALNETWORKS_NO_ERROR);
        buffers.expectSums();
    }
}

// An execution may outlive the handle of its compilation: bound and computed afterwards.
TEST(LifetimeTest, ExecutionOutlivesItsCompilationHandle) {
    ModelPtr model = makeAddModel();
    CompilationPtr compilation = compile(model.get());
    ASSERT_NE(compilation, nullptr);
    ExecutionPtr execution = newExecution(compilation.get());
    compilation.reset();
    model.reset();
    AddBuffers buffers;
    ASSERT_EQ(bindAddBuffers(execution.get(), buffers), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_compute(execution.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(buffers.output[0], 11.0f);
    EXPECT_EQ(buffers.output[1], -18.0f);
}

// The pattern of Google's NDK sample for memory domains (Android 11): a state kept in two device
// memories (ANeuralNetworksMemory_createFromDesc) that executions use in turn, each execution
// chained to the previous one's event with startComputeWithDependencies and freed right after
// it is scheduled, the previous event freed once the next is scheduled; the state is copied in
// and out of an fd memory with ANeuralNetworksMemory_copy. Bit for bit against the same float
// additions done here, on every device and on default selection.
TEST(LifetimeTest, NdkMemoryDomainSequence) {
    constexpr int kSteps = 12;
    ModelPtr probe = makeAddModel();
    const std::vector<Selection> selections = selectionsFor(probe.get());
    EXPECT_EQ(selections.size(), 1 + allDeviceHandles().size());  // every device runs it
    for (const Selection& selection : selections) {
        SCOPED_TRACE(selection.name);
        ModelPtr model = makeAddModel();
        CompilationPtr compilation = compileWith(model.get(), selection);
        ASSERT_NE(compilation, nullptr);
        auto stateMemory = [&] {
            ANeuralNetworksMemoryDesc* desc = nullptr;
            EXPECT_EQ(ANeuralNetworksMemoryDesc_create(&desc), ANEURALNETWORKS_NO_ERROR);
            EXPECT_EQ(ANeuralNetworksMemoryDesc_addInputRole(desc, compilation.get(), 0, 1.0f),
                      ANEURALNETWORKS_NO_ERROR);
            EXPECT_EQ(ANeuralNetworksMemoryDesc_addOutputRole(desc, compilation.get(), 0, 1.0f),
                      ANEURALNETWORKS_NO_ERROR);
            EXPECT_EQ(ANeuralNetworksMemoryDesc_finish(desc), ANEURALNETWORKS_NO_ERROR);
            ANeuralNetworksMemory* memory = nullptr;
            EXPECT_EQ(ANeuralNetworksMemory_createFromDesc(desc, &memory), ANEURALNETWORKS_NO_ERROR);
            ANeuralNetworksMemoryDesc_free(desc);
            return MemoryPtr(memory);
        };
        MemoryPtr state[2] = {stateMemory(), stateMemory()};
        ASSERT_NE(state[0], nullptr);
        ASSERT_NE(state[1], nullptr);
        FdMemory io(2);
        io.floats()[0] = 0.1f;
        io.floats()[1] = -3.7f;
        ASSERT_EQ(ANeuralNetworksMemory_copy(io.get(), state[0].get()), ANEURALNETWORKS_NO_ERROR);
        const float step[2] = {0.3f, 1.0f / 3.0f};
        float expected[2] = {0.1f, -3.7f};

        ANeuralNetworksEvent* previous = nullptr;
        for (int i = 0; i < kSteps; ++i) {
            ANeuralNetworksExecution* execution = nullptr;
            ASSERT_EQ(ANeuralNetworksExecution_create(compilation.get(), &execution), ANEURALNETWORKS_NO_ERROR);
            ASSERT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution, 0, nullptr, state[i % 2].get(), 0, 0),
                      ANEURALNETWORKS_NO_ERROR);
            ASSERT_EQ(ANeuralNetworksExecution_setInput(execution, 1, nullptr, step, sizeof(step)),
                      ANEURALNETWORKS_NO_ERROR);
            ASSERT_EQ(ANeuralNetworksExecution_setOutputFromMemory(execution, 0, nullptr, state[1 - i % 2].get(), 0, 0),
                      ANEURALNETWORKS_NO_ERROR);
            ANeuralNetworksEvent* next = nullptr;
            const ANeuralNetworksEvent* dependencies[] = {previous};
            ASSERT_EQ(ANeuralNetworksExecution_startComputeWithDependencies(execution, dependencies,
                                                                            previous == nullptr ? 0 : 1, 0, &next),
                      ANEURALNETWORKS_NO_ERROR);
            testing::internal::CaptureStderr();
            ANeuralNetworksExecution_free(execution);
            testing::internal::GetCapturedStderr();
            ANeuralNetworksEvent_free(previous);
            previous = next;
            expected[0] += step[0];
            expected[1] += step[1];
        }
        ASSERT_EQ(ANeuralNetworksEvent_wait(previous), ANEURALNETWORKS_NO_ERROR);
        ANeuralNetworksEvent_free(previous);
        ASSERT_EQ(ANeuralNetworksMemory_copy(state[kSteps % 2].get(), io.get()), ANEURALNETWORKS_NO_ERROR);
        EXPECT_EQ(io.floats()[0], expected[0]);
        EXPECT_EQ(io.floats()[1], expected[1]);
    }
}

}  // namespace
}  // namespace nnemu::apitest
