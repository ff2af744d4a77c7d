// ANeuralNetworksMemory_*: creation errors, and memory-backed inputs, outputs and constants the
// way TensorFlow Lite's NNAPI delegate uses them (memfd + createFromFd).
#include <fcntl.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>

#include "AddModel.h"

namespace nnemu::apitest {
namespace {

// A memfd of `size` bytes, mapped into the test, wrapped as an ANeuralNetworksMemory.
class SharedMemory {
public:
    explicit SharedMemory(size_t size, size_t offset = 0) : size_(size) {
        fd_ = makeSharedMemoryFd(offset + size);
        if (fd_ < 0) return;
        void* mapping = mmap(nullptr, offset + size, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
        if (mapping == MAP_FAILED) return;
        mapping_ = static_cast<uint8_t*>(mapping);
        mappingSize_ = offset + size;
        base_ = mapping_ + offset;
        ANeuralNetworksMemory* memory = nullptr;
        status_ = ANeuralNetworksMemory_createFromFd(size, PROT_READ | PROT_WRITE, fd_, offset, &memory);
        memory_.reset(memory);
    }
    ~SharedMemory() {
        memory_.reset();
        if (mapping_ != nullptr) munmap(mapping_, mappingSize_);
        if (fd_ >= 0) close(fd_);
    }
    SharedMemory(const SharedMemory&) = delete;
    SharedMemory& operator=(const SharedMemory&) = delete;

    bool ok() const { return memory_ != nullptr && status_ == ANEURALNETWORKS_NO_ERROR; }
    ANeuralNetworksMemory* get() const { return memory_.get(); }
    float* floats(size_t byteOffset) const { return reinterpret_cast<float*>(base_ + byteOffset); }
    size_t size() const { return size_; }

private:
    size_t size_;
    int fd_ = -1;
    uint8_t* mapping_ = nullptr;
    size_t mappingSize_ = 0;
    uint8_t* base_ = nullptr;
    int status_ = -1;
    MemoryPtr memory_;
};

// ---- createFromFd / free -----------------------------------------------------------------------

TEST(MemoryTest, CreateFromFdRejectsNullResult) {
    const Fd fd(makeSharedMemoryFd(64));
    ASSERT_GE(fd.get(), 0);
    EXPECT_EQ(ANeuralNetworksMemory_createFromFd(64, PROT_READ, fd.get(), 0, nullptr),
              ANEURALNETWORKS_UNEXPECTED_NULL);
}

TEST(MemoryTest, CreateFromFdRejectsZeroSize) {
    const Fd fd(makeSharedMemoryFd(64));
    ASSERT_GE(fd.get(), 0);
    ANeuralNetworksMemory* memory = nullptr;
    EXPECT_EQ(ANeuralNetworksMemory_createFromFd(0, PROT_READ, fd.get(), 0, &memory), ANEURALNETWORKS_BAD_DATA);
    ANeuralNetworksMemory_free(memory);
}

TEST(MemoryTest, CreateFromFdRejectsNegativeFd) {
    ANeuralNetworksMemory* memory = nullptr;
    EXPECT_EQ(ANeuralNetworksMemory_createFromFd(64, PROT_READ, -1, 0, &memory), ANEURALNETWORKS_BAD_DATA);
    ANeuralNetworksMemory_free(memory);
}

// An fd that is not open cannot be duplicated.
TEST(MemoryTest, CreateFromFdWithAClosedFdIsUnexpectedNull) {
    int closed = makeSharedMemoryFd(64);
    ASSERT_GE(closed, 0);
    close(closed);
    ANeuralNetworksMemory* memory = nullptr;
    EXPECT_EQ(ANeuralNetworksMemory_createFromFd(64, PROT_READ, closed, 0, &memory), ANEURALNETWORKS_UNEXPECTED_NULL);
    ANeuralNetworksMemory_free(memory);
}

TEST(MemoryTest, FreeAcceptsNull) { ANeuralNetworksMemory_free(nullptr); }

TEST(MemoryTest, AHardwareBufferRejectsNull) {
    ANeuralNetworksMemory* memory = nullptr;
    EXPECT_EQ(ANeuralNetworksMemory_createFromAHardwareBuffer(nullptr, &memory), ANEURALNETWORKS_UNEXPECTED_NULL);
}

// The result pointer is checked before the size and the descriptor.
TEST(MemoryTest, CreateFromFdChecksTheResultPointerFirst) {
    EXPECT_EQ(ANeuralNetworksMemory_createFromFd(0, PROT_READ, -1, 0, nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
}

// A refused AHardwareBuffer leaves a null memory, whatever the pointer held.
TEST(MemoryTest, RefusedAHardwareBufferNullsTheResult) {
    int notABuffer = 0;
    int sentinel = 0;
    auto* memory = reinterpret_cast<ANeuralNetworksMemory*>(&sentinel);
    EXPECT_EQ(ANeuralNetworksMemory_createFromAHardwareBuffer(reinterpret_cast<const AHardwareBuffer*>(&notABuffer),
                                                              &memory),
              ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(memory, nullptr);
}

// ---- The region, the protection and the descriptor ---------------------------------------------

// createFromFd's result code; the memory it made, if any, is freed. A refusal leaves null.
int createStatus(size_t size, int protect, int fd, size_t offset) {
    ANeuralNetworksMemory* memory = nullptr;
    const int status = ANeuralNetworksMemory_createFromFd(size, protect, fd, offset, &memory);
    EXPECT_EQ(memory == nullptr, status != ANEURALNETWORKS_NO_ERROR);
    ANeuralNetworksMemory_free(memory);
    return status;
}

// `fd`'s file opened again with other access `flags`.
int reopen(int fd, int flags) { return open(("/proc/self/fd/" + std::to_string(fd)).c_str(), flags | O_CLOEXEC); }

// A regular file must hold the whole region (a mapping past its end would fault on access).
TEST(MemoryRegionTest, RegionPastTheEndOfTheFileIsBadData) {
    const Fd fd(makeSharedMemoryFd(64));
    ASSERT_GE(fd.get(), 0);
    const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    EXPECT_EQ(createStatus(65, PROT_READ, fd.get(), 0), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(createStatus(1, PROT_READ, fd.get(), 64), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(createStatus(64, PROT_READ, fd.get(), page), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(createStatus(64, PROT_READ | PROT_WRITE, fd.get(), 32), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(createStatus(64, PROT_READ, fd.get(), 0), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(createStatus(32, PROT_READ | PROT_WRITE, fd.get(), 32), ANEURALNETWORKS_NO_ERROR);
}

// offset + size must not wrap, whatever the descriptor.
TEST(MemoryRegionTest, RegionThatOverflowsIsBadData) {
    const Fd fd(makeSharedMemoryFd(64));
    ASSERT_GE(fd.get(), 0);
    const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    EXPECT_EQ(createStatus(SIZE_MAX, PROT_READ, fd.get(), page), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(createStatus(SIZE_MAX - page + 1, PROT_READ, fd.get(), 0), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(createStatus(64, PROT_READ, fd.get(), SIZE_MAX - 63), ANEURALNETWORKS_BAD_DATA);
    int pair[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
    const Fd first(pair[0]), second(pair[1]);
    EXPECT_EQ(createStatus(SIZE_MAX, PROT_READ, first.get(), page), ANEURALNETWORKS_BAD_DATA);
}

TEST(MemoryRegionTest, ProtectionMustBeReadOrReadWrite) {
    const Fd fd(makeSharedMemoryFd(64));
    ASSERT_GE(fd.get(), 0);
    for (int protect : {PROT_NONE, PROT_WRITE, PROT_READ | PROT_EXEC, PROT_READ | PROT_WRITE | PROT_EXEC, -1}) {
        EXPECT_EQ(createStatus(64, protect, fd.get(), 0), ANEURALNETWORKS_BAD_DATA) << protect;
    }
    EXPECT_EQ(createStatus(64, PROT_READ, fd.get(), 0), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(createStatus(64, PROT_READ | PROT_WRITE, fd.get(), 0), ANEURALNETWORKS_NO_ERROR);
}

// A shared mapping needs a readable descriptor, and a read-write one for PROT_WRITE.
TEST(MemoryRegionTest, ProtectionMustSuitTheDescriptor) {
    const Fd fd(makeSharedMemoryFd(64));
    ASSERT_GE(fd.get(), 0);
    const Fd readOnly(reopen(fd.get(), O_RDONLY)), writeOnly(reopen(fd.get(), O_WRONLY));
    ASSERT_GE(readOnly.get(), 0);
    ASSERT_GE(writeOnly.get(), 0);
    EXPECT_EQ(createStatus(64, PROT_READ | PROT_WRITE, readOnly.get(), 0), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(createStatus(64, PROT_READ, writeOnly.get(), 0), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(createStatus(64, PROT_READ, readOnly.get(), 0), ANEURALNETWORKS_NO_ERROR);
}

// ---- Execution arguments in memory -------------------------------------------------------------

class MemoryExecutionTest : public ::testing::Test {
protected:
    void SetUp() override { makeAddExecution({}, &model_, &compilation_, &execution_); }
    ANeuralNetworksExecution* execution() { return execution_.get(); }

    ModelPtr model_;
    CompilationPtr compilation_;
    ExecutionPtr execution_;
};

// Inputs and output in one memory at different offsets, as the TFLite delegate lays them out.
TEST_F(MemoryExecutionTest, ComputeWithInputsAndOutputsInMemory) {
    SharedMemory shared(64);
    ASSERT_TRUE(shared.ok());
    const float a[2] = {1.5f, -2.0f}, b[2] = {0.5f, 7.0f};
    std::memcpy(shared.floats(0), a, sizeof(a));
    std::memcpy(shared.floats(16), b, sizeof(b));
    shared.floats(40)[0] = shared.floats(40)[1] = -1.0f;
    ASSERT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution(), 0, nullptr, shared.get(), 0, kTensorBytes),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution(), 1, nullptr, shared.get(), 16, kTensorBytes),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setOutputFromMemory(execution(), 0, nullptr, shared.get(), 40, kTensorBytes),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_compute(execution()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(shared.floats(40)[0], 2.0f);
    EXPECT_EQ(shared.floats(40)[1], 5.0f);
    EXPECT_EQ(shared.floats(0)[0], 1.5f);  // inputs untouched
}

// Inputs in one memory, the output in another; results through startCompute.
TEST_F(MemoryExecutionTest, StartComputeWithSeparateMemories) {
    SharedMemory inputs(16);
    SharedMemory outputs(8);
    ASSERT_TRUE(inputs.ok());
    ASSERT_TRUE(outputs.ok());
    inputs.floats(0)[0] = 1.0f;
    inputs.floats(0)[1] = 2.0f;
    inputs.floats(8)[0] = 3.0f;
    inputs.floats(8)[1] = 4.0f;
    ASSERT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution(), 0, nullptr, inputs.get(), 0, kTensorBytes),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution(), 1, nullptr, inputs.get(), 8, kTensorBytes),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setOutputFromMemory(execution(), 0, nullptr, outputs.get(), 0, kTensorBytes),
              ANEURALNETWORKS_NO_ERROR);
    ANeuralNetworksEvent* raw = nullptr;
    ASSERT_EQ(ANeuralNetworksExecution_startCompute(execution(), &raw), ANEURALNETWORKS_NO_ERROR);
    EventPtr event(raw);
    ASSERT_EQ(ANeuralNetworksEvent_wait(event.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(outputs.floats(0)[0], 4.0f);
    EXPECT_EQ(outputs.floats(0)[1], 6.0f);
}

// A page-aligned offset given to createFromFd shifts every region.
TEST_F(MemoryExecutionTest, MemoryWithAnFdOffset) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    SharedMemory shared(32, page);
    ASSERT_TRUE(shared.ok());
    shared.floats(0)[0] = 10.0f;
    shared.floats(0)[1] = 20.0f;
    shared.floats(8)[0] = 1.0f;
    shared.floats(8)[1] = 2.0f;
    ASSERT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution(), 0, nullptr, shared.get(), 0, kTensorBytes),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution(), 1, nullptr, shared.get(), 8, kTensorBytes),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setOutputFromMemory(execution(), 0, nullptr, shared.get(), 16, kTensorBytes),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_compute(execution()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(shared.floats(16)[0], 11.0f);
    EXPECT_EQ(shared.floats(16)[1], 22.0f);
}

// Mixing a pointer input with memory arguments.
TEST_F(MemoryExecutionTest, PointerAndMemoryArgumentsTogether) {
    SharedMemory shared(16);
    ASSERT_TRUE(shared.ok());
    shared.floats(0)[0] = 5.0f;
    shared.floats(0)[1] = 6.0f;
    const float b[2] = {1.0f, 1.0f};
    ASSERT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution(), 0, nullptr, shared.get(), 0, kTensorBytes),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setInput(execution(), 1, nullptr, b, sizeof(b)), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setOutputFromMemory(execution(), 0, nullptr, shared.get(), 8, kTensorBytes),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_compute(execution()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(shared.floats(8)[0], 6.0f);
    EXPECT_EQ(shared.floats(8)[1], 7.0f);
}

// The memory duplicates the descriptor: closing the application's fd does not break it.
TEST_F(MemoryExecutionTest, ApplicationMayCloseItsFd) {
    Fd fd(makeSharedMemoryFd(16));
    ASSERT_GE(fd.get(), 0);
    const float values[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    ASSERT_EQ(pwrite(fd.get(), values, sizeof(values), 0), static_cast<ssize_t>(sizeof(values)));
    MemoryPtr memory = memoryFromFd(fd.get(), 16);
    ASSERT_NE(memory, nullptr);
    fd.reset();
    float output[2] = {};
    ASSERT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution(), 0, nullptr, memory.get(), 0, kTensorBytes),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution(), 1, nullptr, memory.get(), 8, kTensorBytes),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setOutput(execution(), 0, nullptr, output, sizeof(output)),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_compute(execution()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(output[0], 4.0f);
    EXPECT_EQ(output[1], 6.0f);
}

TEST_F(MemoryExecutionTest, SetFromMemoryRejectsNull) {
    SharedMemory shared(16);
    ASSERT_TRUE(shared.ok());
    EXPECT_EQ(ANeuralNetworksExecution_setInputFromMemory(nullptr, 0, nullptr, shared.get(), 0, kTensorBytes),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution(), 0, nullptr, nullptr, 0, kTensorBytes),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksExecution_setOutputFromMemory(nullptr, 0, nullptr, shared.get(), 0, kTensorBytes),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksExecution_setOutputFromMemory(execution(), 0, nullptr, nullptr, 0, kTensorBytes),
              ANEURALNETWORKS_UNEXPECTED_NULL);
}

TEST_F(MemoryExecutionTest, SetFromMemoryRejectsRegionsOutsideTheMemory) {
    SharedMemory shared(16);
    ASSERT_TRUE(shared.ok());
    EXPECT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution(), 0, nullptr, shared.get(), 12, kTensorBytes),
              ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution(), 0, nullptr, shared.get(), 16, kTensorBytes),
              ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution(), 0, nullptr, shared.get(), SIZE_MAX - 3,
                                                          kTensorBytes),
              ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_setOutputFromMemory(execution(), 0, nullptr, shared.get(), 12, kTensorBytes),
              ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution(), 0, nullptr, shared.get(), 8, kTensorBytes),
              ANEURALNETWORKS_NO_ERROR);  // the last 8 bytes
}

TEST_F(MemoryExecutionTest, SetFromMemoryRejectsWrongLengthAndIndex) {
    SharedMemory shared(32);
    ASSERT_TRUE(shared.ok());
    EXPECT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution(), 0, nullptr, shared.get(), 0, 4),
              ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution(), 0, nullptr, shared.get(), 0, 16),
              ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_setOutputFromMemory(execution(), 0, nullptr, shared.get(), 0, 4),
              ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution(), 2, nullptr, shared.get(), 0, kTensorBytes),
              ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_setOutputFromMemory(execution(), 1, nullptr, shared.get(), 0, kTensorBytes),
              ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksExecution_setOutputFromMemory(execution(), -1, nullptr, shared.get(), 0, kTensorBytes),
              ANEURALNETWORKS_BAD_DATA);
}

// Null arguments come before the index; the state of a started execution before the region,
// the index and the type.
TEST_F(MemoryExecutionTest, SetFromMemoryChecksNullThenStateThenValues) {
    SharedMemory shared(16);
    ASSERT_TRUE(shared.ok());
    EXPECT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution(), 7, nullptr, nullptr, 0, kTensorBytes),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    AddBuffers buffers;
    ASSERT_EQ(bindAddBuffers(execution(), buffers), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_compute(execution()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksExecution_setOutputFromMemory(execution(), 0, nullptr, nullptr, 0, kTensorBytes),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution(), 0, nullptr, shared.get(), 12, kTensorBytes),
              ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(ANeuralNetworksExecution_setOutputFromMemory(execution(), 0, nullptr, shared.get(), 16, kTensorBytes),
              ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution(), 5, nullptr, shared.get(), 0, kTensorBytes),
              ANEURALNETWORKS_BAD_STATE);
}

// dimensionCount and dimensions must agree in a type given with a memory argument (BAD_DATA).
TEST_F(MemoryExecutionTest, TypeWithInconsistentDimensionsIsBadData) {
    SharedMemory shared(16);
    ASSERT_TRUE(shared.ok());
    const uint32_t two[] = {2};
    const ANeuralNetworksOperandType arrayWithoutCount{ANEURALNETWORKS_TENSOR_FLOAT32, 0, two, 0.0f, 0};
    const ANeuralNetworksOperandType countWithoutArray{ANEURALNETWORKS_TENSOR_FLOAT32, 1, nullptr, 0.0f, 0};
    for (const ANeuralNetworksOperandType* type : {&arrayWithoutCount, &countWithoutArray}) {
        EXPECT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution(), 0, type, shared.get(), 0, kTensorBytes),
                  ANEURALNETWORKS_BAD_DATA);
        EXPECT_EQ(ANeuralNetworksExecution_setOutputFromMemory(execution(), 0, type, shared.get(), 0, kTensorBytes),
                  ANEURALNETWORKS_BAD_DATA);
    }
}

// A memory created PROT_READ cannot take an output (its mapping cannot be written); inputs may
// come from it.
TEST_F(MemoryExecutionTest, ReadOnlyMemoryAsOutputIsBadData) {
    const Fd fd(makeSharedMemoryFd(16));
    ASSERT_GE(fd.get(), 0);
    const float values[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    ASSERT_EQ(pwrite(fd.get(), values, sizeof(values), 0), static_cast<ssize_t>(sizeof(values)));
    MemoryPtr memory = memoryFromFd(fd.get(), 16, PROT_READ);
    ASSERT_NE(memory, nullptr);
    EXPECT_EQ(ANeuralNetworksExecution_setOutputFromMemory(execution(), 0, nullptr, memory.get(), 0, kTensorBytes),
              ANEURALNETWORKS_BAD_DATA);
    float output[2] = {};
    ASSERT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution(), 0, nullptr, memory.get(), 0, kTensorBytes),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution(), 1, nullptr, memory.get(), 8, kTensorBytes),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setOutput(execution(), 0, nullptr, output, sizeof(output)),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_compute(execution()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(output[0], 4.0f);
    EXPECT_EQ(output[1], 6.0f);
}

// The memory of a descriptor that cannot be mapped (a socket) fails the run with OP_FAILED, with
// or without CPU fallback, for inputs and outputs alike.
class UnmappableMemoryTest : public ::testing::TestWithParam<std::tuple<bool, bool>> {};

TEST_P(UnmappableMemoryTest, FailsTheRun) {
    const auto [explicitDevice, asOutput] = GetParam();
    ModelPtr model = makeAddModel();
    ASSERT_NE(model, nullptr);
    CompilationPtr compilation = explicitDevice ? compileFor(model.get(), {referenceDevice()}) : compile(model.get());
    ASSERT_NE(compilation, nullptr);
    ExecutionPtr execution = newExecution(compilation.get());
    ASSERT_NE(execution, nullptr);
    int pair[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
    const Fd first(pair[0]), second(pair[1]);
    ANeuralNetworksMemory* raw = nullptr;
    ASSERT_EQ(ANeuralNetworksMemory_createFromFd(16, PROT_READ | PROT_WRITE, first.get(), 0, &raw),
              ANEURALNETWORKS_NO_ERROR);  // mapping is lazy
    MemoryPtr memory(raw);
    AddBuffers buffers;
    ASSERT_EQ(bindAddBuffers(execution.get(), buffers, {.input0 = asOutput, .output = !asOutput}),
              ANEURALNETWORKS_NO_ERROR);
    if (asOutput) {
        ASSERT_EQ(ANeuralNetworksExecution_setOutputFromMemory(execution.get(), 0, nullptr, memory.get(), 0,
                                                               kTensorBytes),
                  ANEURALNETWORKS_NO_ERROR);
    } else {
        ASSERT_EQ(ANeuralNetworksExecution_setInputFromMemory(execution.get(), 0, nullptr, memory.get(), 0,
                                                              kTensorBytes),
                  ANEURALNETWORKS_NO_ERROR);
    }
    EXPECT_EQ(ANeuralNetworksExecution_compute(execution.get()), ANEURALNETWORKS_OP_FAILED);
}

INSTANTIATE_TEST_SUITE_P(AllCases, UnmappableMemoryTest, ::testing::Combine(::testing::Bool(), ::testing::Bool()));

// ---- Files truncated under a memory ------------------------------------------------------------

// The compilation of `model` for one device, or for every device when `device` is empty.
CompilationPtr compileOn(ANeuralNetworksModel* model, const std::string& device) {
    return device.empty() ? compile(model) : compileFor(model, {findDevice(device)});
}

// A file truncated after createFromFd (by the application or anyone sharing it) must not fault
// the process: the execution fails with OP_FAILED; grown back, the memory works again. On every
// device choice, before and after the memory was first mapped.
class TruncatedMemoryTest : public ::testing::TestWithParam<std::string> {
protected:
    // input0 and input1 from the memory (both 1.5), the output by pointer.
    int run(ANeuralNetworksCompilation* compilation, ANeuralNetworksMemory* memory, float* output) {
        ExecutionPtr execution = newExecution(compilation);
        if (execution == nullptr) return -1;
        if (int n = ANeuralNetworksExecution_setInputFromMemory(execution.get(), 0, nullptr, memory, 0, kTensorBytes)) {
            return n;
        }
        if (int n = ANeuralNetworksExecution_setInputFromMemory(execution.get(), 1, nullptr, memory, 0, kTensorBytes)) {
            return n;
        }
        if (int n = ANeuralNetworksExecution_setOutput(execution.get(), 0, nullptr, output, kTensorBytes)) return n;
        return ANeuralNetworksExecution_compute(execution.get());
    }
    static bool fill(int fd) {
        const float values[2] = {1.5f, 1.5f};
        return ftruncate(fd, sizeof(values)) == 0 && pwrite(fd, values, sizeof(values), 0) == sizeof(values);
    }
};

TEST_P(TruncatedMemoryTest, ArgumentsInATruncatedFileFailTheExecution) {
    ModelPtr model = makeAddModel();
    ASSERT_NE(model, nullptr);
    CompilationPtr compilation = compileOn(model.get(), GetParam());
    ASSERT_NE(compilation, nullptr);
    const Fd fd(makeSharedMemoryFd(kTensorBytes));
    ASSERT_TRUE(fill(fd.get()));
    MemoryPtr memory = memoryFromFd(fd.get(), kTensorBytes);
    ASSERT_NE(memory, nullptr);
    float output[2] = {};
    ASSERT_EQ(ftruncate(fd.get(), 0), 0);  // before the memory is ever mapped
    EXPECT_EQ(run(compilation.get(), memory.get(), output), ANEURALNETWORKS_OP_FAILED);
    ASSERT_TRUE(fill(fd.get()));
    ASSERT_EQ(run(compilation.get(), memory.get(), output), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(output[0], 3.0f);
    ASSERT_EQ(ftruncate(fd.get(), 0), 0);  // under a mapping
    EXPECT_EQ(run(compilation.get(), memory.get(), output), ANEURALNETWORKS_OP_FAILED);
    ASSERT_TRUE(fill(fd.get()));
    EXPECT_EQ(run(compilation.get(), memory.get(), output), ANEURALNETWORKS_NO_ERROR);
}

// output = input0 + constant, the constant in a memory whose file is truncated after finish.
TEST_P(TruncatedMemoryTest, ConstantsInATruncatedFileFailTheExecution) {
    const Fd fd(makeSharedMemoryFd(kTensorBytes));
    ASSERT_TRUE(fill(fd.get()));
    MemoryPtr memory = memoryFromFd(fd.get(), kTensorBytes, PROT_READ);
    ASSERT_NE(memory, nullptr);
    ModelPtr model = newModel();
    const std::vector<uint32_t> dims{2};
    const ANeuralNetworksOperandType tensor = tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, dims);
    const ANeuralNetworksOperandType scalar = scalarType(ANEURALNETWORKS_INT32);
    for (const auto* type : {&tensor, &tensor, &scalar, &tensor}) {
        ASSERT_EQ(ANeuralNetworksModel_addOperand(model.get(), type), ANEURALNETWORKS_NO_ERROR);
    }
    ASSERT_EQ(ANeuralNetworksModel_setOperandValueFromMemory(model.get(), 1, memory.get(), 0, kTensorBytes),
              ANEURALNETWORKS_NO_ERROR);
    const int32_t none = ANEURALNETWORKS_FUSED_NONE;
    ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model.get(), 2, &none, sizeof(none)), ANEURALNETWORKS_NO_ERROR);
    const uint32_t in[] = {0, 1, 2}, out[] = {3};
    ASSERT_EQ(ANeuralNetworksModel_addOperation(model.get(), ANEURALNETWORKS_ADD, 3, in, 1, out),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model.get(), 1, in, 1, out), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksModel_finish(model.get()), ANEURALNETWORKS_NO_ERROR);
    CompilationPtr compilation = compileOn(model.get(), GetParam());
    ASSERT_NE(compilation, nullptr);
    auto runOnce = [&](float* output) {
        ExecutionPtr execution = newExecution(compilation.get());
        const float a[2] = {1.0f, 2.0f};
        EXPECT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 0, nullptr, a, sizeof(a)), 0);
        EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution.get(), 0, nullptr, output, kTensorBytes), 0);
        return ANeuralNetworksExecution_compute(execution.get());
    };
    float output[2] = {};
    ASSERT_EQ(ftruncate(fd.get(), 0), 0);
    EXPECT_EQ(runOnce(output), ANEURALNETWORKS_OP_FAILED);
    ASSERT_TRUE(fill(fd.get()));
    ASSERT_EQ(runOnce(output), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(output[1], 3.5f);
    ASSERT_EQ(ftruncate(fd.get(), 0), 0);
    EXPECT_EQ(runOnce(output), ANEURALNETWORKS_OP_FAILED);
}

INSTANTIATE_TEST_SUITE_P(Devices, TruncatedMemoryTest, ::testing::Values("", "nnapi-reference", "synap-npu"),
                         [](const auto& info) {
                             std::string name = info.param.empty() ? "all" : info.param;
                             std::replace(name.begin(), name.end(), '-', '_');
                             return name;
                         });

// ---- Constants in memory -----------------------------------------------------------------------

// output = input0 + constant, the constant read from a memory region.
TEST(MemoryConstantTest, ConstantFromMemory) {
    SharedMemory shared(64);
    ASSERT_TRUE(shared.ok());
    shared.floats(24)[0] = 100.0f;
    shared.floats(24)[1] = 200.0f;
    ModelPtr model = newModel();
    ASSERT_NE(model, nullptr);
    const std::vector<uint32_t> dims{2};
    const ANeuralNetworksOperandType tensor = tensorType(ANEURALNETWORKS_TENSOR_FLOAT32, dims);
    const ANeuralNetworksOperandType scalar = scalarType(ANEURALNETWORKS_INT32);
    ASSERT_EQ(ANeuralNetworksModel_addOperand(model.get(), &tensor), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksModel_addOperand(model.get(), &tensor), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksModel_addOperand(model.get(), &scalar), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksModel_addOperand(model.get(), &tensor), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksModel_setOperandValueFromMemory(model.get(), 1, shared.get(), 24, kTensorBytes),
              ANEURALNETWORKS_NO_ERROR);
    const int32_t none = ANEURALNETWORKS_FUSED_NONE;
    ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model.get(), 2, &none, sizeof(none)), ANEURALNETWORKS_NO_ERROR);
    const uint32_t in[] = {0, 1, 2}, out[] = {3};
    ASSERT_EQ(ANeuralNetworksModel_addOperation(model.get(), ANEURALNETWORKS_ADD, 3, in, 1, out),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model.get(), 1, in, 1, out), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksModel_finish(model.get()), ANEURALNETWORKS_NO_ERROR);
    CompilationPtr compilation = compile(model.get());
    ASSERT_NE(compilation, nullptr);
    ExecutionPtr execution = newExecution(compilation.get());
    const float a[2] = {1.0f, 2.0f};
    float output[2] = {};
    ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 0, nullptr, a, sizeof(a)), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setOutput(execution.get(), 0, nullptr, output, sizeof(output)),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_compute(execution.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(output[0], 101.0f);
    EXPECT_EQ(output[1], 202.0f);
}

}  // namespace
}  // namespace nnemu::apitest
