// A small model built through the Support Library table, and the shared memory TensorFlow Lite's
// delegate binds inputs and outputs with.
#pragma once

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <string>
#include <vector>

#include "SlLoader.h"

namespace nnemu::sltest {

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

class ConvModelTest : public SupportLibraryTest {
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

}  // namespace nnemu::sltest
