// TensorFlow Lite's route B (tflite-nnapi-delegate-on-linux.md): the library loaded by path as a
// Support Library, a model built, compiled for synap-npu and run twice as one reusable
// execution on shared memory, every call through the table.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <string>

#include "SlLoader.h"

namespace nnemu::sltest {
namespace {

// A POSIX shared memory object as the delegate makes one: shm_open, unlinked at once, mapped.
class SharedMemory {
public:
    explicit SharedMemory(size_t size) : size_(size) {
        const std::string name = "/nnemu-sl-test-" + std::to_string(getpid()) + "-" + std::to_string(counter()++);
        fd_ = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
        if (fd_ < 0) return;
        shm_unlink(name.c_str());
        if (ftruncate(fd_, static_cast<off_t>(size)) != 0) return;
        void* data = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
        if (data != MAP_FAILED) data_ = static_cast<float*>(data);
    }
    ~SharedMemory() {
        if (data_ != nullptr) munmap(data_, size_);
        if (fd_ >= 0) close(fd_);
    }
    SharedMemory(const SharedMemory&) = delete;
    SharedMemory& operator=(const SharedMemory&) = delete;

    int fd() const { return fd_; }
    float* data() const { return data_; }
    size_t size() const { return size_; }

private:
    static int& counter() {
        static int value = 0;
        return value;
    }
    size_t size_;
    int fd_ = -1;
    float* data_ = nullptr;
};

class RouteBTest : public SupportLibraryTest {
protected:
    void TearDown() override {
        if (execution_ != nullptr) sl().ANeuralNetworksExecution_free(execution_);
        for (auto* memory : memories_) sl().ANeuralNetworksMemory_free(memory);
        if (compilation_ != nullptr) sl().ANeuralNetworksCompilation_free(compilation_);
        if (model_ != nullptr) sl().ANeuralNetworksModel_free(model_);
    }

    uint32_t addOperand(int32_t type, std::initializer_list<uint32_t> dims) {
        const std::vector<uint32_t> shape(dims);
        const ANeuralNetworksOperandType operand{type, static_cast<uint32_t>(shape.size()),
                                                 shape.empty() ? nullptr : shape.data(), 0.0f, 0};
        EXPECT_EQ(sl().ANeuralNetworksModel_addOperand(model_, &operand), ANEURALNETWORKS_NO_ERROR);
        return operandCount_++;
    }

    void setInt32(uint32_t index, int32_t value) {
        EXPECT_EQ(sl().ANeuralNetworksModel_setOperandValue(model_, static_cast<int32_t>(index), &value,
                                                            sizeof(value)),
                  ANEURALNETWORKS_NO_ERROR);
    }

    // output[1,2,2,1] = CONV_2D(input[1,3,3,1], filter [[1,0],[0,1]], bias 0.5), VALID, stride 1.
    void buildConvModel() {
        ASSERT_EQ(sl().ANeuralNetworksModel_create(&model_), ANEURALNETWORKS_NO_ERROR);
        const uint32_t input = addOperand(ANEURALNETWORKS_TENSOR_FLOAT32, {1, 3, 3, 1});
        const uint32_t filter = addOperand(ANEURALNETWORKS_TENSOR_FLOAT32, {1, 2, 2, 1});
        const uint32_t bias = addOperand(ANEURALNETWORKS_TENSOR_FLOAT32, {1});
        const uint32_t padding = addOperand(ANEURALNETWORKS_INT32, {});
        const uint32_t strideW = addOperand(ANEURALNETWORKS_INT32, {});
        const uint32_t strideH = addOperand(ANEURALNETWORKS_INT32, {});
        const uint32_t activation = addOperand(ANEURALNETWORKS_INT32, {});
        const uint32_t output = addOperand(ANEURALNETWORKS_TENSOR_FLOAT32, {1, 2, 2, 1});
        static const std::array<float, 4> kFilter{1.0f, 0.0f, 0.0f, 1.0f};
        static const float kBias = 0.5f;
        ASSERT_EQ(sl().ANeuralNetworksModel_setOperandValue(model_, filter, kFilter.data(), sizeof(kFilter)),
                  ANEURALNETWORKS_NO_ERROR);
        ASSERT_EQ(sl().ANeuralNetworksModel_setOperandValue(model_, bias, &kBias, sizeof(kBias)),
                  ANEURALNETWORKS_NO_ERROR);
        setInt32(padding, 2);  // ANEURALNETWORKS_PADDING_VALID
        setInt32(strideW, 1);
        setInt32(strideH, 1);
        setInt32(activation, ANEURALNETWORKS_FUSED_NONE);
        const uint32_t inputs[] = {input, filter, bias, padding, strideW, strideH, activation};
        ASSERT_EQ(sl().ANeuralNetworksModel_addOperation(model_, ANEURALNETWORKS_CONV_2D, 7, inputs, 1, &output),
                  ANEURALNETWORKS_NO_ERROR);
        ASSERT_EQ(sl().ANeuralNetworksModel_identifyInputsAndOutputs(model_, 1, &input, 1, &output),
                  ANEURALNETWORKS_NO_ERROR);
        ASSERT_EQ(sl().ANeuralNetworksModel_relaxComputationFloat32toFloat16(model_, false),
                  ANEURALNETWORKS_NO_ERROR);
        ASSERT_EQ(sl().ANeuralNetworksModel_finish(model_), ANEURALNETWORKS_NO_ERROR);
    }

    ANeuralNetworksMemory* wrap(const SharedMemory& shared) {
        ANeuralNetworksMemory* memory = nullptr;
        EXPECT_EQ(sl().ANeuralNetworksMemory_createFromFd(shared.size(), PROT_READ | PROT_WRITE, shared.fd(), 0,
                                                          &memory),
                  ANEURALNETWORKS_NO_ERROR);
        memories_.push_back(memory);
        return memory;
    }

    ANeuralNetworksModel* model_ = nullptr;
    ANeuralNetworksCompilation* compilation_ = nullptr;
    ANeuralNetworksExecution* execution_ = nullptr;
    std::vector<ANeuralNetworksMemory*> memories_;
    uint32_t operandCount_ = 0;
};

TEST_F(RouteBTest, ReusableExecutionOnSynapNpuThroughTheTableOnly) {
    const ANeuralNetworksDevice* npu = findDevice("synap-npu");
    ASSERT_NE(npu, nullptr);
    int64_t deviceLevel = 0;
    ASSERT_EQ(sl().ANeuralNetworksDevice_getFeatureLevel(npu, &deviceLevel), ANEURALNETWORKS_NO_ERROR);
    EXPECT_GE(deviceLevel, 29);
    ASSERT_NO_FATAL_FAILURE(buildConvModel());

    bool supported = false;
    ASSERT_EQ(sl().ANeuralNetworksModel_getSupportedOperationsForDevices(model_, &npu, 1, &supported),
              ANEURALNETWORKS_NO_ERROR);
    EXPECT_TRUE(supported);
    ASSERT_EQ(sl().ANeuralNetworksCompilation_createForDevices(model_, &npu, 1, &compilation_),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(sl().ANeuralNetworksCompilation_setPriority(compilation_, ANEURALNETWORKS_PRIORITY_DEFAULT),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(sl().ANeuralNetworksCompilation_finish(compilation_), ANEURALNETWORKS_NO_ERROR);

    SharedMemory in(9 * sizeof(float));
    SharedMemory out(4 * sizeof(float));
    ASSERT_NE(in.data(), nullptr);
    ASSERT_NE(out.data(), nullptr);
    ANeuralNetworksMemory* inMemory = wrap(in);
    ANeuralNetworksMemory* outMemory = wrap(out);
    ASSERT_EQ(sl().ANeuralNetworksExecution_create(compilation_, &execution_), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(sl().ANeuralNetworksExecution_setReusable(execution_, true), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(sl().ANeuralNetworksExecution_enableInputAndOutputPadding(execution_, true), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(sl().ANeuralNetworksExecution_setInputFromMemory(execution_, 0, nullptr, inMemory, 0, in.size()),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(sl().ANeuralNetworksExecution_setOutputFromMemory(execution_, 0, nullptr, outMemory, 0, out.size()),
              ANEURALNETWORKS_NO_ERROR);

    // Each output is input[y][x] + input[y+1][x+1] + 0.5.
    for (int run = 1; run <= 2; ++run) {
        for (int i = 0; i < 9; ++i) in.data()[i] = static_cast<float>(run * (i + 1));  // rewritten in place
        std::memset(out.data(), 0, out.size());
        ASSERT_EQ(sl().ANeuralNetworksExecution_compute(execution_), ANEURALNETWORKS_NO_ERROR) << "run " << run;
        const float expected[4] = {run * 6.0f + 0.5f, run * 8.0f + 0.5f, run * 12.0f + 0.5f, run * 14.0f + 0.5f};
        for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(out.data()[i], expected[i]) << "run " << run << " output " << i;
    }
}

TEST_F(RouteBTest, DevicesAreEnumeratedWithTheirLevels) {
    uint32_t count = 0;
    ASSERT_EQ(sl().ANeuralNetworks_getDeviceCount(&count), ANEURALNETWORKS_NO_ERROR);
    ASSERT_GE(count, 2u);
    EXPECT_NE(findDevice("synap-npu"), nullptr);
    EXPECT_NE(findDevice("nnapi-reference"), nullptr);
    const int64_t runtimeLevel = sl().ANeuralNetworks_getRuntimeFeatureLevel();
    for (uint32_t i = 0; i < count; ++i) {
        ANeuralNetworksDevice* device = nullptr;
        ASSERT_EQ(sl().ANeuralNetworks_getDevice(i, &device), ANEURALNETWORKS_NO_ERROR);
        int64_t level = 0;
        ASSERT_EQ(sl().ANeuralNetworksDevice_getFeatureLevel(device, &level), ANEURALNETWORKS_NO_ERROR);
        EXPECT_LE(level, runtimeLevel);
    }
}

}  // namespace
}  // namespace nnemu::sltest
