// Input/output padding and the preferred alignment/padding queries (feature level 5).
#include <sys/mman.h>

#include "Fl30ApiHelpers.h"

namespace nnemu::apitest {
namespace {

TEST(PaddingTest, EnableOnlyBeforeAnyBinding) {
    EXPECT_EQ(ANeuralNetworksExecution_enableInputAndOutputPadding(nullptr, true), ANEURALNETWORKS_UNEXPECTED_NULL);
    ModelPtr model = makeAddModel();
    CompilationPtr compilation = compile(model.get());
    ExecutionPtr execution = newExecution(compilation.get());
    EXPECT_EQ(ANeuralNetworksExecution_enableInputAndOutputPadding(execution.get(), true), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksExecution_enableInputAndOutputPadding(execution.get(), false), ANEURALNETWORKS_NO_ERROR);
    AddBuffers buffers;
    ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 0, nullptr, buffers.input0, kTensorBytes), 0);
    EXPECT_EQ(ANeuralNetworksExecution_enableInputAndOutputPadding(execution.get(), true), ANEURALNETWORKS_BAD_STATE);

    ExecutionPtr outputFirst = newExecution(compilation.get());
    ASSERT_EQ(ANeuralNetworksExecution_setOutput(outputFirst.get(), 0, nullptr, buffers.output, kTensorBytes), 0);
    EXPECT_EQ(ANeuralNetworksExecution_enableInputAndOutputPadding(outputFirst.get(), true), ANEURALNETWORKS_BAD_STATE);

    // A binding refused for its length still counts as a set* call.
    ExecutionPtr refused = newExecution(compilation.get());
    EXPECT_EQ(ANeuralNetworksExecution_setInput(refused.get(), 0, nullptr, buffers.input0, kTensorBytes + 4),
              ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_enableInputAndOutputPadding(refused.get(), true), ANEURALNETWORKS_BAD_STATE);
}

TEST(PaddingTest, PaddedLengthsNeedPaddingEnabled) {
    ModelPtr model = makeAddModel();
    CompilationPtr compilation = compile(model.get());
    float input0[16] = {1.0f, 2.0f};
    float input1[16] = {10.0f, -20.0f};
    float output[16] = {-1.0f, -1.0f, -1.0f};
    constexpr size_t kPadded = sizeof(input0);

    ExecutionPtr unpadded = newExecution(compilation.get());
    EXPECT_EQ(ANeuralNetworksExecution_setInput(unpadded.get(), 0, nullptr, input0, kPadded), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_setOutput(unpadded.get(), 0, nullptr, output, kPadded), ANEURALNETWORKS_BAD_DATA);

    ExecutionPtr padded = newExecution(compilation.get());
    ASSERT_EQ(ANeuralNetworksExecution_enableInputAndOutputPadding(padded.get(), true), ANEURALNETWORKS_NO_ERROR);
    // Padding never allows less than the raw size.
    EXPECT_EQ(ANeuralNetworksExecution_setInput(padded.get(), 0, nullptr, input0, kTensorBytes - 1),
              ANEURALNETWORKS_BAD_DATA);
    ASSERT_EQ(ANeuralNetworksExecution_setInput(padded.get(), 0, nullptr, input0, kPadded), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setInput(padded.get(), 1, nullptr, input1, kTensorBytes + 4), 0);
    ASSERT_EQ(ANeuralNetworksExecution_setOutput(padded.get(), 0, nullptr, output, kPadded), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_compute(padded.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(output[0], 11.0f);
    EXPECT_EQ(output[1], -18.0f);
    EXPECT_EQ(output[2], -1.0f);  // the padding holds nothing of the result
    uint32_t dims[1] = {0};
    ASSERT_EQ(ANeuralNetworksExecution_getOutputOperandDimensions(padded.get(), 0, dims), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(dims[0], 2u);
}

TEST(PaddingTest, PaddedMemoryRegionMustLieInsideTheMemory) {
    ModelPtr model = makeAddModel();
    CompilationPtr compilation = compile(model.get());
    constexpr size_t kSize = 64;
    Fd fd(makeSharedMemoryFd(kSize));
    ANeuralNetworksMemory* memory = nullptr;
    ASSERT_EQ(ANeuralNetworksMemory_createFromFd(kSize, PROT_READ | PROT_WRITE, fd.get(), 0, &memory), 0);
    MemoryPtr owner(memory);
    ExecutionPtr execution = newExecution(compilation.get());
    ASSERT_EQ(ANeuralNetworksExecution_enableInputAndOutputPadding(execution.get(), true), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution.get(), 0, nullptr, memory, 32, 64),
              ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution.get(), 0, nullptr, memory, 0, 64),
              ANEURALNETWORKS_NO_ERROR);
}

TEST(PaddingTest, PreferredAlignmentAndPaddingQueries) {
    using Query = int (*)(const ANeuralNetworksCompilation*, uint32_t, uint32_t*);
    const Query queries[] = {ANeuralNetworksCompilation_getPreferredMemoryAlignmentForInput,
                             ANeuralNetworksCompilation_getPreferredMemoryPaddingForInput,
                             ANeuralNetworksCompilation_getPreferredMemoryAlignmentForOutput,
                             ANeuralNetworksCompilation_getPreferredMemoryPaddingForOutput};
    ModelPtr model = makeAddModel();
    CompilationPtr unfinished = unfinishedCompilation(model.get());
    CompilationPtr finished = compile(model.get());
    CompilationPtr single = compileFor(model.get(), {referenceDevice()});
    for (size_t q = 0; q < 4; ++q) {
        const bool input = q < 2;
        uint32_t value = 0;
        EXPECT_EQ(queries[q](nullptr, 0, &value), ANEURALNETWORKS_UNEXPECTED_NULL);
        EXPECT_EQ(queries[q](finished.get(), 0, nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
        EXPECT_EQ(queries[q](unfinished.get(), 0, &value), ANEURALNETWORKS_BAD_STATE);
        EXPECT_EQ(queries[q](finished.get(), input ? 2 : 1, &value), ANEURALNETWORKS_BAD_DATA);
        for (const auto* compilation : {finished.get(), single.get()}) {
            for (uint32_t index = 0; index < (input ? 2u : 1u); ++index) {
                value = 0;
                ASSERT_EQ(queries[q](compilation, index, &value), ANEURALNETWORKS_NO_ERROR);
                EXPECT_EQ(value, 64u);
            }
        }
    }
}

}  // namespace
}  // namespace nnemu::apitest
