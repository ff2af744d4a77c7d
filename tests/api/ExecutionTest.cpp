// ANeuralNetworksExecution_*, ANeuralNetworksEvent_* and ANeuralNetworksBurst_*: binding rules,
// the one-shot life cycle, output shapes (also dynamic and insufficient), timing and bursts.
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <thread>
#include <vector>

#include "AddModel.h"

namespace nnemu::apitest {
namespace {

class ExecutionTest : public ::testing::Test {
protected:
    void SetUp() override {
        makeAddExecution({.activation = ANEURALNETWORKS_FUSED_RELU}, &model_, &compilation_, &execution_);
    }
    ANeuralNetworksExecution* execution() { return execution_.get(); }
    // With FUSED_RELU: {1 + 10, max(0, 2 - 20)}.
    void expectSums(const AddBuffers& buffers) {
        EXPECT_EQ(buffers.output[0], 11.0f);
        EXPECT_EQ(buffers.output[1], 0.0f);
    }

    ModelPtr model_;
    CompilationPtr compilation_;
    ExecutionPtr execution_;
    AddBuffers buffers_;
};

// ---- create / free -----------------------------------------------------------------------------

TEST_F(ExecutionTest, CreateRejectsNull) {
    ANeuralNetworksExecution* raw = nullptr;
    EXPECT_EQ(ANeuralNetworksExecution_create(nullptr, &raw), ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksExecution_create(compilation_.get(), nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
}

TEST_F(ExecutionTest, CreateFromUnfinishedCompilationIsBadState) {
    ANeuralNetworksCompilation* raw = nullptr;
    ASSERT_EQ(ANeuralNetworksCompilation_create(model_.get(), &raw), ANEURALNETWORKS_NO_ERROR);
    CompilationPtr unfinished(raw);
    ANeuralNetworksExecution* execution = nullptr;
    EXPECT_EQ(ANeuralNetworksExecution_create(unfinished.get(), &execution), ANEURALNETWORKS_BAD_STATE);
}

// A create refused for the compilation's state leaves a null result, whatever the pointer held.
TEST_F(ExecutionTest, CreateFromUnfinishedCompilationNullsTheResult) {
    ANeuralNetworksCompilation* raw = nullptr;
    ASSERT_EQ(ANeuralNetworksCompilation_create(model_.get(), &raw), ANEURALNETWORKS_NO_ERROR);
    CompilationPtr unfinished(raw);
    int sentinel = 0;
    auto* execution = reinterpret_cast<ANeuralNetworksExecution*>(&sentinel);
    EXPECT_EQ(ANeuralNetworksExecution_create(unfinished.get(), &execution), ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(execution, nullptr);
    auto* burst = reinterpret_cast<ANeuralNetworksBurst*>(&sentinel);
    EXPECT_EQ(ANeuralNetworksBurst_create(unfinished.get(), &burst), ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(burst, nullptr);
}

TEST_F(ExecutionTest, FreeAcceptsNull) {
    ANeuralNetworksExecution_free(nullptr);
    ANeuralNetworksEvent_free(nullptr);
    ANeuralNetworksBurst_free(nullptr);
}

TEST_F(ExecutionTest, FreeWithoutCompute) {
    ASSERT_EQ(bindAddBuffers(execution(), buffers_), ANEURALNETWORKS_NO_ERROR);
    execution_.reset();
}

// ---- A full run by pointer ---------------------------------------------------------------------

TEST_F(ExecutionTest, ComputeByPointer) {
    ASSERT_EQ(bindAddBuffers(execution(), buffers_), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_compute(execution()), ANEURALNETWORKS_NO_ERROR);
    expectSums(buffers_);
    uint32_t rank = 0;
    EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandRank(execution(), 0, &rank), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(rank, 1u);
    uint32_t dims[1] = {0};
    EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandDimensions(execution(), 0, dims), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(dims[0], 2u);
}

// A type that repeats the model's own is accepted.
TEST_F(ExecutionTest, ComputeWithMatchingTypes) {
    const std::vector<uint32_t> dims{2};
    const ANeuralNetworksOperandType type = tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, dims);
    ASSERT_EQ(ANeuralNetworksExecution_setInput(execution(), 0, &type, buffers_.input0, kTensorBytes),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setInput(execution(), 1, &type, buffers_.input1, kTensorBytes),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setOutput(execution(), 0, &type, buffers_.output, kTensorBytes),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_compute(execution()), ANEURALNETWORKS_NO_ERROR);
    expectSums(buffers_);
}

// Since Android 11, setting an input or output a second time is BAD_STATE, by pointer or from a
// memory, and the first binding stays. It is checked after the index and the type given.
TEST_F(ExecutionTest, SettingAnArgumentTwiceIsBadState) {
    ASSERT_EQ(bindAddBuffers(execution(), buffers_), ANEURALNETWORKS_NO_ERROR);
    float other[2] = {100.0f, 200.0f};
    EXPECT_EQ(ANeuralNetworksExecution_setInput(execution(), 0, nullptr, other, sizeof(other)),
              ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution(), 0, nullptr, other, sizeof(other)),
              ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(ANeuralNetworksExecution_setInput(execution(), 0, nullptr, nullptr, 0), ANEURALNETWORKS_BAD_STATE);
    Fd fd(makeSharedMemoryFd(kTensorBytes));
    MemoryPtr memory = memoryFromFd(fd.get(), kTensorBytes);
    ASSERT_NE(memory, nullptr);
    EXPECT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution(), 1, nullptr, memory.get(), 0, kTensorBytes),
              ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(ANeuralNetworksExecution_setOutputFromMemory(execution(), 0, nullptr, memory.get(), 0, kTensorBytes),
              ANEURALNETWORKS_BAD_STATE);
    // The index, the type and the memory region are checked first.
    EXPECT_EQ(ANeuralNetworksExecution_setInput(execution(), 2, nullptr, other, sizeof(other)),
              ANEURALNETWORKS_BAD_DATA);
    const std::vector<uint32_t> dims{2};  // outlives the type that points at it
    const ANeuralNetworksOperandType wrongType = tensorType(ANEURALNETWORKS_TENSOR_INT32, dims);
    EXPECT_EQ(ANeuralNetworksExecution_setInput(execution(), 0, &wrongType, other, sizeof(other)),
              ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution(), 1, nullptr, memory.get(), 4, kTensorBytes),
              ANEURALNETWORKS_BAD_DATA);
    // The length is checked after: a wrong one on a set position is still BAD_STATE.
    EXPECT_EQ(ANeuralNetworksExecution_setInput(execution(), 0, nullptr, other, 4), ANEURALNETWORKS_BAD_STATE);
    ASSERT_EQ(ANeuralNetworksExecution_compute(execution()), ANEURALNETWORKS_NO_ERROR);
    expectSums(buffers_);
}

// Executions of one compilation may run at the same time on several threads.
TEST_F(ExecutionTest, ConcurrentExecutionsOfOneCompilation) {
    constexpr int kThreads = 4;
    std::vector<AddBuffers> buffers(kThreads);
    std::vector<int> results(kThreads, -1);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        buffers[t].input0[0] = static_cast<float>(t);
        threads.emplace_back([&, t] {
            ANeuralNetworksExecution* raw = nullptr;
            results[t] = ANeuralNetworksExecution_create(compilation_.get(), &raw);
            ExecutionPtr run(raw);
            if (results[t] == ANEURALNETWORKS_NO_ERROR) results[t] = bindAddBuffers(raw, buffers[t]);
            if (results[t] == ANEURALNETWORKS_NO_ERROR) results[t] = ANeuralNetworksExecution_compute(raw);
        });
    }
    for (auto& thread : threads) thread.join();
    for (int t = 0; t < kThreads; ++t) {
        EXPECT_EQ(results[t], ANEURALNETWORKS_NO_ERROR) << "thread " << t;
        EXPECT_EQ(buffers[t].output[0], static_cast<float>(t) + 10.0f) << "thread " << t;
        EXPECT_EQ(buffers[t].output[1], 0.0f) << "thread " << t;
    }
}

// ---- setInput / setOutput ----------------------------------------------------------------------

TEST_F(ExecutionTest, SetInputRejectsNull) {
    EXPECT_EQ(ANeuralNetworksExecution_setInput(nullptr, 0, nullptr, buffers_.input0, kTensorBytes),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksExecution_setInput(execution(), 0, nullptr, nullptr, kTensorBytes),
              ANEURALNETWORKS_UNEXPECTED_NULL);
}

TEST_F(ExecutionTest, SetOutputRejectsNull) {
    EXPECT_EQ(ANeuralNetworksExecution_setOutput(nullptr, 0, nullptr, buffers_.output, kTensorBytes),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution(), 0, nullptr, nullptr, kTensorBytes),
              ANEURALNETWORKS_UNEXPECTED_NULL);
}

TEST_F(ExecutionTest, SetInputRejectsBadIndex) {
    EXPECT_EQ(ANeuralNetworksExecution_setInput(execution(), -1, nullptr, buffers_.input0, kTensorBytes),
              ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_setInput(execution(), 2, nullptr, buffers_.input0, kTensorBytes),
              ANEURALNETWORKS_BAD_DATA);
}

TEST_F(ExecutionTest, SetOutputRejectsBadIndex) {
    EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution(), -1, nullptr, buffers_.output, kTensorBytes),
              ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution(), 1, nullptr, buffers_.output, kTensorBytes),
              ANEURALNETWORKS_BAD_DATA);
}

TEST_F(ExecutionTest, SetInputRejectsWrongLength) {
    EXPECT_EQ(ANeuralNetworksExecution_setInput(execution(), 0, nullptr, buffers_.input0, kTensorBytes - 4),
              ANEURALNETWORKS_BAD_DATA);
    const float big[4] = {};
    EXPECT_EQ(ANeuralNetworksExecution_setInput(execution(), 0, nullptr, big, sizeof(big)), ANEURALNETWORKS_BAD_DATA);
}

TEST_F(ExecutionTest, SetOutputRejectsWrongLength) {
    EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution(), 0, nullptr, buffers_.output, kTensorBytes - 4),
              ANEURALNETWORKS_BAD_DATA);
    float big[4] = {};
    EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution(), 0, nullptr, big, sizeof(big)), ANEURALNETWORKS_BAD_DATA);
}

TEST_F(ExecutionTest, SetInputRejectsIncompatibleTypes) {
    const std::vector<uint32_t> two{2}, three{3}, twoByOne{2, 1};
    const ANeuralNetworksOperandType wrongCode = tensorType(ANEURALNETWORKS_TENSOR_INT32, two);
    const ANeuralNetworksOperandType wrongDims = tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, three);
    const ANeuralNetworksOperandType wrongRank = tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, twoByOne);
    const ANeuralNetworksOperandType badQuant = tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, two, 1.0f, 0);
    const ANeuralNetworksOperandType noDims{ANEURALNETWORKS_TENSOR_FLOAT32, 1, nullptr, 0.0f, 0};
    const float values[3] = {};
    EXPECT_EQ(ANeuralNetworksExecution_setInput(execution(), 0, &wrongCode, values, kTensorBytes),
              ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_setInput(execution(), 0, &wrongDims, values, sizeof(values)),
              ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_setInput(execution(), 0, &wrongRank, values, kTensorBytes),
              ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_setInput(execution(), 0, &badQuant, values, kTensorBytes),
              ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_setInput(execution(), 0, &noDims, values, kTensorBytes),
              ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution(), 0, &wrongDims, buffers_.output, kTensorBytes),
              ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution(), 0, &wrongCode, buffers_.output, kTensorBytes),
              ANEURALNETWORKS_BAD_DATA);
    // A binding may only fill in unknown dimensions, never turn a known one into unknown.
    const std::vector<uint32_t> unknown{0};
    const ANeuralNetworksOperandType unknownDims = tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, unknown);
    EXPECT_EQ(ANeuralNetworksExecution_setInput(execution(), 0, &unknownDims, values, kTensorBytes),
              ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution(), 0, &unknownDims, buffers_.output, kTensorBytes),
              ANEURALNETWORKS_BAD_DATA);
}

// dimensionCount and dimensions must agree in a type given at binding time (BAD_DATA).
TEST_F(ExecutionTest, TypeWithInconsistentDimensionsIsBadData) {
    const uint32_t two[] = {2};
    const ANeuralNetworksOperandType arrayWithoutCount{ANEURALNETWORKS_TENSOR_FLOAT32, 0, two, 0.0f, 0};
    const ANeuralNetworksOperandType countWithoutArray{ANEURALNETWORKS_TENSOR_FLOAT32, 1, nullptr, 0.0f, 0};
    for (const ANeuralNetworksOperandType* type : {&arrayWithoutCount, &countWithoutArray}) {
        EXPECT_EQ(ANeuralNetworksExecution_setInput(execution(), 0, type, buffers_.input0, kTensorBytes),
                  ANEURALNETWORKS_BAD_DATA);
        EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution(), 0, type, buffers_.output, kTensorBytes),
                  ANEURALNETWORKS_BAD_DATA);
    }
}

// A type without dimensions for a tensor of known rank contradicts the rank: it does not mean
// "keep the model's shape".
TEST_F(ExecutionTest, TypeWithoutDimensionsForAKnownRankIsBadData) {
    const ANeuralNetworksOperandType rankless = tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, {});
    EXPECT_EQ(ANeuralNetworksExecution_setInput(execution(), 0, &rankless, buffers_.input0, kTensorBytes),
              ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution(), 0, &rankless, buffers_.output, kTensorBytes),
              ANEURALNETWORKS_BAD_DATA);
}

// A model input of unknown size must get its shape from the binding.
TEST(UnknownInputTest, InputShapeComesFromTheBinding) {
    ModelPtr model = makeAddModel({.input0Dims = {0}});
    ASSERT_NE(model, nullptr);
    CompilationPtr compilation = compile(model.get());
    ASSERT_NE(compilation, nullptr);
    ExecutionPtr execution = newExecution(compilation.get());
    ASSERT_NE(execution, nullptr);
    AddBuffers buffers;
    EXPECT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 0, nullptr, buffers.input0, kTensorBytes),
              ANEURALNETWORKS_BAD_DATA);  // no shape anywhere
    const std::vector<uint32_t> two{2}, three{3}, twoByOne{2, 1};
    const ANeuralNetworksOperandType wrongRank = tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, twoByOne);
    EXPECT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 0, &wrongRank, buffers.input0, kTensorBytes),
              ANEURALNETWORKS_BAD_DATA);
    const ANeuralNetworksOperandType longer = tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, three);
    EXPECT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 0, &longer, buffers.input0, kTensorBytes),
              ANEURALNETWORKS_BAD_DATA);  // [3] needs 12 bytes
    const ANeuralNetworksOperandType exact = tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, two);
    ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 0, &exact, buffers.input0, kTensorBytes),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 1, nullptr, buffers.input1, kTensorBytes),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setOutput(execution.get(), 0, nullptr, buffers.output, kTensorBytes),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_compute(execution.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(buffers.output[0], 11.0f);
    EXPECT_EQ(buffers.output[1], -18.0f);
}

// ---- Sizes that do not fit ---------------------------------------------------------------------

// Dimensions given at binding whose byte size a plain 64-bit product would wrap to the buffer's
// 8 bytes, or to 0; and a size over 4 GiB that does not wrap. None can be an operand.
const std::vector<std::vector<uint32_t>> kSizesThatDoNotFit{
        {17362, 27905, 49477, 384773},  // 4 * product = 2^65 + 8
        {65536, 65536, 65536, 65536},   // 4 * product = 2^66
        {65536, 65536, 1, 1},           // 16 GiB
        {UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX}};

TEST(OversizedBindingTest, InputTypeWhoseSizeDoesNotFitIsBadData) {
    ModelPtr model = makeAddModel({.input0Dims = {0, 0, 0, 0}, .outputDims = {}});
    ASSERT_NE(model, nullptr);
    CompilationPtr compilation = compile(model.get());
    ASSERT_NE(compilation, nullptr);
    ExecutionPtr execution = newExecution(compilation.get());
    float buffer[2] = {};
    for (const auto& dims : kSizesThatDoNotFit) {
        const ANeuralNetworksOperandType type = tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, dims);
        EXPECT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 0, &type, buffer, sizeof(buffer)),
                  ANEURALNETWORKS_BAD_DATA);
    }
    const std::vector<uint32_t> fits{1, 1, 1, 2};
    const ANeuralNetworksOperandType type = tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, fits);
    EXPECT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 0, &type, buffer, sizeof(buffer)),
              ANEURALNETWORKS_NO_ERROR);
}

TEST(OversizedBindingTest, OutputTypeWhoseSizeDoesNotFitIsBadData) {
    ModelPtr model = makeAddModel({.outputDims = {0, 0, 0, 0}});
    ASSERT_NE(model, nullptr);
    CompilationPtr compilation = compile(model.get());
    ASSERT_NE(compilation, nullptr);
    ExecutionPtr execution = newExecution(compilation.get());
    float buffer[2] = {};
    for (const auto& dims : kSizesThatDoNotFit) {
        const ANeuralNetworksOperandType type = tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, dims);
        EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution.get(), 0, &type, buffer, sizeof(buffer)),
                  ANEURALNETWORKS_BAD_DATA);
    }
}

// The same sizes declared in the model are refused by addOperand.
TEST(OversizedBindingTest, OperandWhoseSizeDoesNotFitIsBadData) {
    ModelPtr model = newModel();
    for (const auto& dims : kSizesThatDoNotFit) {
        const ANeuralNetworksOperandType type = tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, dims);
        EXPECT_EQ(ANeuralNetworksModel_addOperand(model.get(), &type), ANEURALNETWORKS_BAD_DATA);
    }
}

// ---- compute / startCompute: states ------------------------------------------------------------

TEST_F(ExecutionTest, ComputeRejectsNull) {
    EXPECT_EQ(ANeuralNetworksExecution_compute(nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
}

TEST_F(ExecutionTest, ComputeBeforeArgumentsAreSetIsBadData) {
    EXPECT_EQ(ANeuralNetworksExecution_compute(execution()), ANEURALNETWORKS_BAD_DATA);
    ASSERT_EQ(ANeuralNetworksExecution_setInput(execution(), 0, nullptr, buffers_.input0, kTensorBytes),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setInput(execution(), 1, nullptr, buffers_.input1, kTensorBytes),
              ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksExecution_compute(execution()), ANEURALNETWORKS_BAD_DATA);  // output unset
    ANeuralNetworksEvent* event = nullptr;
    EXPECT_EQ(ANeuralNetworksExecution_startCompute(execution(), &event), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(event, nullptr);
    // The refused attempts did not start the execution.
    ASSERT_EQ(ANeuralNetworksExecution_setOutput(execution(), 0, nullptr, buffers_.output, kTensorBytes),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_compute(execution()), ANEURALNETWORKS_NO_ERROR);
    expectSums(buffers_);
}

TEST_F(ExecutionTest, ComputeTwiceIsBadState) {
    ASSERT_EQ(bindAddBuffers(execution(), buffers_), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_compute(execution()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksExecution_compute(execution()), ANEURALNETWORKS_BAD_STATE);
    ANeuralNetworksEvent* event = nullptr;
    EXPECT_EQ(ANeuralNetworksExecution_startCompute(execution(), &event), ANEURALNETWORKS_BAD_STATE);
    ANeuralNetworksEvent_free(event);
}

TEST_F(ExecutionTest, BindingAfterComputeIsBadState) {
    ASSERT_EQ(bindAddBuffers(execution(), buffers_), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_compute(execution()), ANEURALNETWORKS_NO_ERROR);
    const float other[2] = {};
    float out[2] = {};
    EXPECT_EQ(ANeuralNetworksExecution_setInput(execution(), 0, nullptr, other, sizeof(other)),
              ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution(), 0, nullptr, out, sizeof(out)),
              ANEURALNETWORKS_BAD_STATE);
    const Fd fd(makeSharedMemoryFd(64));
    ASSERT_GE(fd.get(), 0);
    MemoryPtr memory = memoryFromFd(fd.get(), 64);
    ASSERT_NE(memory, nullptr);
    EXPECT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution(), 0, nullptr, memory.get(), 0, kTensorBytes),
              ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(ANeuralNetworksExecution_setOutputFromMemory(execution(), 0, nullptr, memory.get(), 0, kTensorBytes),
              ANEURALNETWORKS_BAD_STATE);
    expectSums(buffers_);
}

TEST_F(ExecutionTest, StartComputeAndWait) {
    ASSERT_EQ(bindAddBuffers(execution(), buffers_), ANEURALNETWORKS_NO_ERROR);
    ANeuralNetworksEvent* raw = nullptr;
    ASSERT_EQ(ANeuralNetworksExecution_startCompute(execution(), &raw), ANEURALNETWORKS_NO_ERROR);
    EventPtr event(raw);
    ASSERT_NE(event, nullptr);
    EXPECT_EQ(ANeuralNetworksEvent_wait(event.get()), ANEURALNETWORKS_NO_ERROR);
    expectSums(buffers_);
    EXPECT_EQ(ANeuralNetworksEvent_wait(event.get()), ANEURALNETWORKS_NO_ERROR);  // waiting again is fine
    uint32_t rank = 0;
    EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandRank(execution(), 0, &rank), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(rank, 1u);
}

TEST_F(ExecutionTest, StartComputeRejectsNull) {
    int sentinel = 0;
    auto* event = reinterpret_cast<ANeuralNetworksEvent*>(&sentinel);
    EXPECT_EQ(ANeuralNetworksExecution_startCompute(nullptr, &event), ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(event, nullptr);  // as Android: the result is nulled once it is known to exist
    ASSERT_EQ(bindAddBuffers(execution(), buffers_), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksExecution_startCompute(execution(), nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
    // The refused call did not start the execution.
    EXPECT_EQ(ANeuralNetworksExecution_compute(execution()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksEvent_wait(nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
}

TEST_F(ExecutionTest, StartComputeTwiceIsBadState) {
    ASSERT_EQ(bindAddBuffers(execution(), buffers_), ANEURALNETWORKS_NO_ERROR);
    ANeuralNetworksEvent* raw = nullptr;
    ASSERT_EQ(ANeuralNetworksExecution_startCompute(execution(), &raw), ANEURALNETWORKS_NO_ERROR);
    EventPtr event(raw);
    ANeuralNetworksEvent* second = nullptr;
    EXPECT_EQ(ANeuralNetworksExecution_startCompute(execution(), &second), ANEURALNETWORKS_BAD_STATE);
    ANeuralNetworksEvent_free(second);
    EXPECT_EQ(ANeuralNetworksExecution_compute(execution()), ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(ANeuralNetworksEvent_wait(event.get()), ANEURALNETWORKS_NO_ERROR);
    expectSums(buffers_);
}

// Freeing the event without waiting is allowed (it waits for completion itself).
TEST_F(ExecutionTest, EventFreeWithoutWait) {
    ASSERT_EQ(bindAddBuffers(execution(), buffers_), ANEURALNETWORKS_NO_ERROR);
    ANeuralNetworksEvent* event = nullptr;
    ASSERT_EQ(ANeuralNetworksExecution_startCompute(execution(), &event), ANEURALNETWORKS_NO_ERROR);
    ANeuralNetworksEvent_free(event);
    expectSums(buffers_);
}

// A started execution answers null arguments with UNEXPECTED_NULL and bad values with BAD_STATE:
// null pointers, then the state, then values.
TEST_F(ExecutionTest, StartedExecutionChecksNullThenStateThenValues) {
    ASSERT_EQ(bindAddBuffers(execution(), buffers_), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_compute(execution()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksExecution_setInput(execution(), 7, nullptr, nullptr, kTensorBytes),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution(), 7, nullptr, nullptr, kTensorBytes),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksExecution_startCompute(execution(), nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
    const std::vector<uint32_t> three{3};
    const ANeuralNetworksOperandType wrongDims = tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, three);
    EXPECT_EQ(ANeuralNetworksExecution_setInput(execution(), 7, nullptr, buffers_.input0, kTensorBytes),
              ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(ANeuralNetworksExecution_setInput(execution(), 0, &wrongDims, buffers_.input0, kTensorBytes),
              ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(ANeuralNetworksExecution_setInput(execution(), 0, nullptr, buffers_.input0, 1),
              ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution(), 0, nullptr, buffers_.output, 0),
              ANEURALNETWORKS_BAD_STATE);
    expectSums(buffers_);
}

// ---- Output shape queries ----------------------------------------------------------------------

TEST_F(ExecutionTest, OutputQueriesRejectNull) {
    ASSERT_EQ(bindAddBuffers(execution(), buffers_), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_compute(execution()), ANEURALNETWORKS_NO_ERROR);
    uint32_t value = 0;
    EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandRank(nullptr, 0, &value), ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandRank(execution(), 0, nullptr),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandDimensions(nullptr, 0, &value),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandDimensions(execution(), 0, nullptr),
              ANEURALNETWORKS_UNEXPECTED_NULL);
}

TEST_F(ExecutionTest, OutputQueriesBeforeComputeAreBadState) {
    uint32_t rank = 0;
    uint32_t dims[1] = {};
    EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandRank(execution(), 0, &rank), ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandDimensions(execution(), 0, dims), ANEURALNETWORKS_BAD_STATE);
    ASSERT_EQ(bindAddBuffers(execution(), buffers_), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandRank(execution(), 0, &rank), ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandDimensions(execution(), 0, dims), ANEURALNETWORKS_BAD_STATE);
}

// Before the run, a bad index is still BAD_STATE: the state comes first.
TEST_F(ExecutionTest, OutputQueriesCheckStateBeforeIndex) {
    uint32_t value = 0;
    EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandRank(execution(), 5, &value), ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandDimensions(execution(), -1, &value), ANEURALNETWORKS_BAD_STATE);
}

// A failed execution answers BAD_STATE before it looks at the index.
TEST_F(ExecutionTest, OutputQueriesOfAFailedExecutionAreBadStateWhateverTheIndex) {
    const ANeuralNetworksDevice* device = referenceDevice();
    ASSERT_NE(device, nullptr);
    CompilationPtr single = compileFor(model_.get(), {device});
    ASSERT_NE(single, nullptr);
    ExecutionPtr failing = newExecution(single.get());
    ASSERT_EQ(ANeuralNetworksExecution_setTimeout(failing.get(), 1), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(bindAddBuffers(failing.get(), buffers_), ANEURALNETWORKS_NO_ERROR);
    ASSERT_NE(ANeuralNetworksExecution_compute(failing.get()), ANEURALNETWORKS_NO_ERROR);
    uint32_t value = 0;
    EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandRank(failing.get(), 0, &value), ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandRank(failing.get(), 7, &value), ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandDimensions(failing.get(), -1, &value),
              ANEURALNETWORKS_BAD_STATE);
}

TEST_F(ExecutionTest, OutputQueriesRejectBadIndex) {
    ASSERT_EQ(bindAddBuffers(execution(), buffers_), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_compute(execution()), ANEURALNETWORKS_NO_ERROR);
    uint32_t value = 0;
    EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandRank(execution(), 1, &value), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandRank(execution(), -1, &value), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandDimensions(execution(), 1, &value), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandDimensions(execution(), -1, &value), ANEURALNETWORKS_BAD_DATA);
}

// ---- Dynamic output shapes ---------------------------------------------------------------------

class DynamicOutputTest : public ::testing::TestWithParam<std::vector<uint32_t>> {
protected:
    void SetUp() override { makeAddExecution({.outputDims = GetParam()}, &model_, &compilation_, &execution_); }
    void bindInputs() {
        ASSERT_EQ(ANeuralNetworksExecution_setInput(execution_.get(), 0, nullptr, buffers_.input0, kTensorBytes),
                  ANEURALNETWORKS_NO_ERROR);
        ASSERT_EQ(ANeuralNetworksExecution_setInput(execution_.get(), 1, nullptr, buffers_.input1, kTensorBytes),
                  ANEURALNETWORKS_NO_ERROR);
    }

    ModelPtr model_;
    CompilationPtr compilation_;
    ExecutionPtr execution_;
    AddBuffers buffers_;
};

// The output's real shape is reported after the run.
TEST_P(DynamicOutputTest, ReportsTheRealShape) {
    bindInputs();
    ASSERT_EQ(ANeuralNetworksExecution_setOutput(execution_.get(), 0, nullptr, buffers_.output, kTensorBytes),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_compute(execution_.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(buffers_.output[0], 11.0f);
    EXPECT_EQ(buffers_.output[1], -18.0f);
    uint32_t rank = 0;
    ASSERT_EQ(ANeuralNetworksExecution_getOutputOperandRank(execution_.get(), 0, &rank), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(rank, 1u);
    uint32_t dims[1] = {0};
    ASSERT_EQ(ANeuralNetworksExecution_getOutputOperandDimensions(execution_.get(), 0, dims),
              ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(dims[0], 2u);
}

// With an unknown output size, a buffer larger than needed is accepted.
TEST_P(DynamicOutputTest, AcceptsALargerBuffer) {
    bindInputs();
    float output[8];
    std::fill(std::begin(output), std::end(output), -1.0f);
    ASSERT_EQ(ANeuralNetworksExecution_setOutput(execution_.get(), 0, nullptr, output, sizeof(output)),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_compute(execution_.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(output[0], 11.0f);
    EXPECT_EQ(output[1], -18.0f);
    uint32_t dims[1] = {0};
    ASSERT_EQ(ANeuralNetworksExecution_getOutputOperandDimensions(execution_.get(), 0, dims),
              ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(dims[0], 2u);
}

// A buffer too small for the real result: OUTPUT_INSUFFICIENT_SIZE, and the real dims are still
// reported (with the same code) so the application can size a new buffer.
TEST_P(DynamicOutputTest, TooSmallBufferIsOutputInsufficientSize) {
    bindInputs();
    float output[1] = {-1.0f};
    ASSERT_EQ(ANeuralNetworksExecution_setOutput(execution_.get(), 0, nullptr, output, sizeof(output)),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_compute(execution_.get()), ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE);
    uint32_t rank = 0;
    EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandRank(execution_.get(), 0, &rank),
              ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE);
    EXPECT_EQ(rank, 1u);
    uint32_t dims[1] = {0};
    EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandDimensions(execution_.get(), 0, dims),
              ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE);
    EXPECT_EQ(dims[0], 2u);
    EXPECT_EQ(ANeuralNetworksExecution_compute(execution_.get()), ANEURALNETWORKS_BAD_STATE);
}

TEST_P(DynamicOutputTest, TooSmallBufferThroughStartCompute) {
    bindInputs();
    float output[1] = {-1.0f};
    ASSERT_EQ(ANeuralNetworksExecution_setOutput(execution_.get(), 0, nullptr, output, sizeof(output)),
              ANEURALNETWORKS_NO_ERROR);
    ANeuralNetworksEvent* raw = nullptr;
    ASSERT_EQ(ANeuralNetworksExecution_startCompute(execution_.get(), &raw), ANEURALNETWORKS_NO_ERROR);
    EventPtr event(raw);
    EXPECT_EQ(ANeuralNetworksEvent_wait(event.get()), ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE);
    uint32_t dims[1] = {0};
    EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandDimensions(execution_.get(), 0, dims),
              ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE);
    EXPECT_EQ(dims[0], 2u);
}

// The application may give the shape at binding time; the length is then checked against it.
TEST_P(DynamicOutputTest, ShapeGivenAtBinding) {
    bindInputs();
    const std::vector<uint32_t> two{2}, three{3};
    const ANeuralNetworksOperandType exact = tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, two);
    const ANeuralNetworksOperandType wrong = tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, three);
    EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution_.get(), 0, &exact, buffers_.output, kTensorBytes / 2),
              ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution_.get(), 0, &wrong, buffers_.output, kTensorBytes),
              ANEURALNETWORKS_BAD_DATA);  // [3] needs 12 bytes
    ASSERT_EQ(ANeuralNetworksExecution_setOutput(execution_.get(), 0, &exact, buffers_.output, kTensorBytes),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_compute(execution_.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(buffers_.output[0], 11.0f);
    EXPECT_EQ(buffers_.output[1], -18.0f);
}

INSTANTIATE_TEST_SUITE_P(UnknownDims, DynamicOutputTest, ::testing::Values(std::vector<uint32_t>{0}));
INSTANTIATE_TEST_SUITE_P(UnknownRank, DynamicOutputTest, ::testing::Values(std::vector<uint32_t>{}));

// A shape given at binding that contradicts the model's known rank is refused.
TEST(DynamicOutputBindingTest, ShapeMustKeepTheKnownRank) {
    ModelPtr model = makeAddModel({.outputDims = {0}});
    ASSERT_NE(model, nullptr);
    CompilationPtr compilation = compile(model.get());
    ASSERT_NE(compilation, nullptr);
    ExecutionPtr execution = newExecution(compilation.get());
    const std::vector<uint32_t> rank2{1, 2};
    const ANeuralNetworksOperandType type = tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, rank2);
    float output[2] = {};
    EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution.get(), 0, &type, output, sizeof(output)),
              ANEURALNETWORKS_BAD_DATA);
}

// A non-null buffer needs a non-zero length even when the output's size is unknown.
TEST(DynamicOutputBindingTest, BufferWithZeroLengthIsBadData) {
    ModelPtr model = makeAddModel({.outputDims = {0}});
    ASSERT_NE(model, nullptr);
    CompilationPtr compilation = compile(model.get());
    ASSERT_NE(compilation, nullptr);
    ExecutionPtr execution = newExecution(compilation.get());
    float output[2] = {};
    EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution.get(), 0, nullptr, output, 0), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution.get(), 0, nullptr, output, sizeof(output)),
              ANEURALNETWORKS_NO_ERROR);
}

// ---- Timing ------------------------------------------------------------------------------------

TEST_F(ExecutionTest, SetMeasureTimingRejectsNull) {
    EXPECT_EQ(ANeuralNetworksExecution_setMeasureTiming(nullptr, true), ANEURALNETWORKS_UNEXPECTED_NULL);
}

// Only compilations made by createForDevices with exactly one device can be timed.
TEST_F(ExecutionTest, SetMeasureTimingOnCompilationCreateIsBadData) {
    EXPECT_EQ(ANeuralNetworksExecution_setMeasureTiming(execution(), true), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_setMeasureTiming(execution(), false), ANEURALNETWORKS_BAD_DATA);
}

// As in Android, the compilation's devices are checked before the execution's state.
TEST_F(ExecutionTest, SetMeasureTimingChecksDevicesBeforeState) {
    ASSERT_EQ(bindAddBuffers(execution(), buffers_), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_compute(execution()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksExecution_setMeasureTiming(execution(), true), ANEURALNETWORKS_BAD_DATA);
}

TEST_F(ExecutionTest, SetMeasureTimingWithSeveralDevicesIsBadData) {
    const std::vector<const ANeuralNetworksDevice*> devices = allDeviceHandles();
    if (devices.size() < 2) GTEST_SKIP() << "only one device";
    CompilationPtr compilation = compileFor(model_.get(), devices);
    ASSERT_NE(compilation, nullptr);
    ExecutionPtr execution = newExecution(compilation.get());
    EXPECT_EQ(ANeuralNetworksExecution_setMeasureTiming(execution.get(), true), ANEURALNETWORKS_BAD_DATA);
}

class TimingTest : public ExecutionTest {
protected:
    void SetUp() override {
        ExecutionTest::SetUp();
        const ANeuralNetworksDevice* device = referenceDevice();
        ASSERT_NE(device, nullptr);
        single_ = compileFor(model_.get(), {device});
        ASSERT_NE(single_, nullptr);
        timed_ = newExecution(single_.get());
        ASSERT_NE(timed_, nullptr);
    }
    CompilationPtr single_;
    ExecutionPtr timed_;
};

TEST_F(TimingTest, MeasuredRunReportsDurations) {
    ASSERT_EQ(ANeuralNetworksExecution_setMeasureTiming(timed_.get(), true), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(bindAddBuffers(timed_.get(), buffers_), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_compute(timed_.get()), ANEURALNETWORKS_NO_ERROR);
    expectSums(buffers_);
    // The CPU reference device provides no figures: both read UINT64_MAX.
    for (int32_t code : {ANEURALNETWORKS_DURATION_ON_HARDWARE, ANEURALNETWORKS_DURATION_IN_DRIVER}) {
        uint64_t duration = 0;
        EXPECT_EQ(ANeuralNetworksExecution_getDuration(timed_.get(), code, &duration), ANEURALNETWORKS_NO_ERROR);
        EXPECT_EQ(duration, UINT64_MAX) << "duration code " << code;
    }
    uint64_t duration = 0;
    EXPECT_EQ(ANeuralNetworksExecution_getDuration(timed_.get(), 4, &duration), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_getDuration(timed_.get(), -1, &duration), ANEURALNETWORKS_BAD_DATA);
}

TEST_F(TimingTest, SetMeasureTimingAfterStartIsBadState) {
    ASSERT_EQ(bindAddBuffers(timed_.get(), buffers_), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_compute(timed_.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksExecution_setMeasureTiming(timed_.get(), true), ANEURALNETWORKS_BAD_STATE);
}

TEST_F(TimingTest, GetDurationRejectsNull) {
    uint64_t duration = 0;
    EXPECT_EQ(ANeuralNetworksExecution_getDuration(nullptr, ANEURALNETWORKS_DURATION_ON_HARDWARE, &duration),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksExecution_getDuration(timed_.get(), ANEURALNETWORKS_DURATION_ON_HARDWARE, nullptr),
              ANEURALNETWORKS_UNEXPECTED_NULL);
}

TEST_F(TimingTest, GetDurationBeforeComputeIsBadState) {
    ASSERT_EQ(ANeuralNetworksExecution_setMeasureTiming(timed_.get(), true), ANEURALNETWORKS_NO_ERROR);
    uint64_t duration = 0;
    EXPECT_EQ(ANeuralNetworksExecution_getDuration(timed_.get(), ANEURALNETWORKS_DURATION_ON_HARDWARE, &duration),
              ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(duration, UINT64_MAX);
}

// As in Android, the duration code is checked before the execution's state.
TEST_F(TimingTest, GetDurationChecksTheCodeBeforeTheState) {
    ASSERT_EQ(ANeuralNetworksExecution_setMeasureTiming(timed_.get(), true), ANEURALNETWORKS_NO_ERROR);
    uint64_t duration = 0;
    EXPECT_EQ(ANeuralNetworksExecution_getDuration(timed_.get(), 4, &duration), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_getDuration(execution(), -1, &duration), ANEURALNETWORKS_BAD_DATA);
    ASSERT_EQ(bindAddBuffers(execution(), buffers_), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_compute(execution()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksExecution_getDuration(execution(), 4, &duration), ANEURALNETWORKS_BAD_DATA);
}

// Without setMeasureTiming(true): BAD_STATE and UINT64_MAX.
TEST_F(TimingTest, GetDurationWithoutMeasureTimingIsBadState) {
    ASSERT_EQ(bindAddBuffers(timed_.get(), buffers_), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_compute(timed_.get()), ANEURALNETWORKS_NO_ERROR);
    uint64_t duration = 0;
    EXPECT_EQ(ANeuralNetworksExecution_getDuration(timed_.get(), ANEURALNETWORKS_DURATION_ON_HARDWARE, &duration),
              ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(duration, UINT64_MAX);
    duration = 0;
    EXPECT_EQ(ANeuralNetworksExecution_getDuration(timed_.get(), ANEURALNETWORKS_DURATION_IN_DRIVER, &duration),
              ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(duration, UINT64_MAX);
}

// A computation that failed has no duration: BAD_STATE and UINT64_MAX (Android 11 on).
TEST_F(TimingTest, GetDurationOfAFailedExecutionIsBadState) {
    ASSERT_EQ(ANeuralNetworksExecution_setMeasureTiming(timed_.get(), true), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setTimeout(timed_.get(), 1), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(bindAddBuffers(timed_.get(), buffers_), ANEURALNETWORKS_NO_ERROR);
    ASSERT_NE(ANeuralNetworksExecution_compute(timed_.get()), ANEURALNETWORKS_NO_ERROR);
    for (int32_t code : {ANEURALNETWORKS_DURATION_ON_HARDWARE, ANEURALNETWORKS_DURATION_IN_DRIVER}) {
        uint64_t duration = 0;
        EXPECT_EQ(ANeuralNetworksExecution_getDuration(timed_.get(), code, &duration), ANEURALNETWORKS_BAD_STATE);
        EXPECT_EQ(duration, UINT64_MAX);
    }
}

TEST_F(TimingTest, MeasureTimingFalseIsLikeNotAsking) {
    ASSERT_EQ(ANeuralNetworksExecution_setMeasureTiming(timed_.get(), true), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setMeasureTiming(timed_.get(), false), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(bindAddBuffers(timed_.get(), buffers_), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_compute(timed_.get()), ANEURALNETWORKS_NO_ERROR);
    uint64_t duration = 0;
    EXPECT_EQ(ANeuralNetworksExecution_getDuration(timed_.get(), ANEURALNETWORKS_DURATION_IN_DRIVER, &duration),
              ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(duration, UINT64_MAX);
}

// ---- Bursts ------------------------------------------------------------------------------------

TEST_F(ExecutionTest, BurstCreateRejectsNull) {
    ANeuralNetworksBurst* burst = nullptr;
    EXPECT_EQ(ANeuralNetworksBurst_create(nullptr, &burst), ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksBurst_create(compilation_.get(), nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
}

TEST_F(ExecutionTest, BurstCreateOnUnfinishedCompilationIsBadState) {
    ANeuralNetworksCompilation* raw = nullptr;
    ASSERT_EQ(ANeuralNetworksCompilation_create(model_.get(), &raw), ANEURALNETWORKS_NO_ERROR);
    CompilationPtr unfinished(raw);
    ANeuralNetworksBurst* burst = nullptr;
    EXPECT_EQ(ANeuralNetworksBurst_create(unfinished.get(), &burst), ANEURALNETWORKS_BAD_STATE);
}

class BurstTest : public ExecutionTest {
protected:
    void SetUp() override {
        ExecutionTest::SetUp();
        ANeuralNetworksBurst* raw = nullptr;
        ASSERT_EQ(ANeuralNetworksBurst_create(compilation_.get(), &raw), ANEURALNETWORKS_NO_ERROR);
        burst_.reset(raw);
    }
    BurstPtr burst_;
};

TEST_F(BurstTest, SeveralExecutionsThroughOneBurst) {
    for (int round = 0; round < 3; ++round) {
        ExecutionPtr execution = newExecution(compilation_.get());
        ASSERT_NE(execution, nullptr);
        AddBuffers buffers;
        buffers.input0[0] = static_cast<float>(round);
        ASSERT_EQ(bindAddBuffers(execution.get(), buffers), ANEURALNETWORKS_NO_ERROR);
        ASSERT_EQ(ANeuralNetworksExecution_burstCompute(execution.get(), burst_.get()), ANEURALNETWORKS_NO_ERROR);
        EXPECT_EQ(buffers.output[0], static_cast<float>(round) + 10.0f);
        EXPECT_EQ(buffers.output[1], 0.0f);
        uint32_t dims[1] = {0};
        EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandDimensions(execution.get(), 0, dims),
                  ANEURALNETWORKS_NO_ERROR);
        EXPECT_EQ(dims[0], 2u);
    }
}

TEST_F(BurstTest, BurstComputeRejectsNull) {
    EXPECT_EQ(ANeuralNetworksExecution_burstCompute(nullptr, burst_.get()), ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksExecution_burstCompute(execution(), nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
}

TEST_F(BurstTest, ExecutionOfAnotherCompilationIsBadData) {
    CompilationPtr other = compile(model_.get());
    ASSERT_NE(other, nullptr);
    ExecutionPtr foreign = newExecution(other.get());
    ASSERT_NE(foreign, nullptr);
    ASSERT_EQ(bindAddBuffers(foreign.get(), buffers_), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksExecution_burstCompute(foreign.get(), burst_.get()), ANEURALNETWORKS_BAD_DATA);
    // The refused call did not start the execution.
    EXPECT_EQ(ANeuralNetworksExecution_compute(foreign.get()), ANEURALNETWORKS_NO_ERROR);
    expectSums(buffers_);
}

// As in Android, the compilation check (BAD_DATA) comes before the execution's state.
TEST_F(BurstTest, ForeignExecutionIsBadDataEvenWhenStarted) {
    CompilationPtr other = compile(model_.get());
    ASSERT_NE(other, nullptr);
    ExecutionPtr foreign = newExecution(other.get());
    ASSERT_NE(foreign, nullptr);
    ASSERT_EQ(bindAddBuffers(foreign.get(), buffers_), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_compute(foreign.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksExecution_burstCompute(foreign.get(), burst_.get()), ANEURALNETWORKS_BAD_DATA);
}

TEST_F(BurstTest, BurstComputeBeforeArgumentsAreSetIsBadData) {
    EXPECT_EQ(ANeuralNetworksExecution_burstCompute(execution(), burst_.get()), ANEURALNETWORKS_BAD_DATA);
}

TEST_F(BurstTest, BurstComputeOfAStartedExecutionIsBadState) {
    ASSERT_EQ(bindAddBuffers(execution(), buffers_), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_compute(execution()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksExecution_burstCompute(execution(), burst_.get()), ANEURALNETWORKS_BAD_STATE);
    ExecutionPtr second = newExecution(compilation_.get());
    AddBuffers buffers;
    ASSERT_EQ(bindAddBuffers(second.get(), buffers), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_burstCompute(second.get(), burst_.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksExecution_burstCompute(second.get(), burst_.get()), ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(ANeuralNetworksExecution_compute(second.get()), ANEURALNETWORKS_BAD_STATE);
}

TEST_F(BurstTest, BurstWithTooSmallDynamicOutput) {
    ModelPtr model = makeAddModel({.outputDims = {0}});
    ASSERT_NE(model, nullptr);
    CompilationPtr compilation = compile(model.get());
    ASSERT_NE(compilation, nullptr);
    ANeuralNetworksBurst* raw = nullptr;
    ASSERT_EQ(ANeuralNetworksBurst_create(compilation.get(), &raw), ANEURALNETWORKS_NO_ERROR);
    BurstPtr burst(raw);
    ExecutionPtr execution = newExecution(compilation.get());
    float output[1] = {};
    ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 0, nullptr, buffers_.input0, kTensorBytes),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 1, nullptr, buffers_.input1, kTensorBytes),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setOutput(execution.get(), 0, nullptr, output, sizeof(output)),
              ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksExecution_burstCompute(execution.get(), burst.get()),
              ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE);
    uint32_t dims[1] = {0};
    EXPECT_EQ(ANeuralNetworksExecution_getOutputOperandDimensions(execution.get(), 0, dims),
              ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE);
    EXPECT_EQ(dims[0], 2u);
}

}  // namespace
}  // namespace nnemu::apitest
