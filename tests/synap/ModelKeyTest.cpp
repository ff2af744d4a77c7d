// The SyNAP cache key: equal for the same content however its constants are stored, different
// for any change to what the program is compiled from.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <thread>

#include "device/ModelKey.h"

namespace nnemu::synap {
namespace {

// relu(input + constant): the constant as an operand value.
hal::Model addModel(float constant) {
    hal::Model model;
    hal::Operand tensor;
    tensor.type = hal::OperandType::TENSOR_FLOAT32;
    tensor.dimensions = {1, 2};
    hal::Operand input = tensor, addend = tensor, output = tensor, fuse;
    input.lifetime = hal::OperandLifeTime::MODEL_INPUT;
    addend.lifetime = hal::OperandLifeTime::CONSTANT_COPY;
    addend.location = {0, 0, 8};
    fuse.type = hal::OperandType::INT32;
    fuse.lifetime = hal::OperandLifeTime::CONSTANT_COPY;
    fuse.location = {0, 8, 4};
    output.lifetime = hal::OperandLifeTime::MODEL_OUTPUT;
    model.operands = {input, addend, fuse, output};
    model.operations = {{hal::OperationType::ADD, {0, 1, 2}, {3}}};
    model.inputIndexes = {0};
    model.outputIndexes = {3};
    model.operandValues.resize(12);
    const float values[2] = {constant, constant};
    const int32_t relu = 1;
    std::memcpy(model.operandValues.data(), values, 8);
    std::memcpy(model.operandValues.data() + 8, &relu, 4);
    return model;
}

TEST(ModelKeyTest, Is128BitHexAndStable) {
    const std::string key = compiledNetworkKey(addModel(1.0f), {{1, 2}}, 1);
    EXPECT_EQ(key.size(), 32u);
    EXPECT_EQ(key.find_first_not_of("0123456789abcdef"), std::string::npos);
    EXPECT_EQ(key, compiledNetworkKey(addModel(1.0f), {{1, 2}}, 1));
}

TEST(ModelKeyTest, ChangesWithWeightsShapesAndCompilerVersion) {
    const std::string key = compiledNetworkKey(addModel(1.0f), {{1, 2}}, 1);
    EXPECT_NE(key, compiledNetworkKey(addModel(2.0f), {{1, 2}}, 1));
    EXPECT_NE(key, compiledNetworkKey(addModel(1.0f), {{2, 2}}, 1));
    EXPECT_NE(key, compiledNetworkKey(addModel(1.0f), {{1, 2}}, 2));
    hal::Model other = addModel(1.0f);
    other.operations[0].type = hal::OperationType::MUL;
    EXPECT_NE(key, compiledNetworkKey(other, {{1, 2}}, 1));
}

TEST(ModelKeyTest, IgnoresWhereConstantsLive) {
    const hal::Model copied = addModel(1.0f);
    hal::Model referenced = copied;
    // The addend moved into a memory pool at another offset: same content, same key.
    auto pool = std::make_shared<hal::HeapPool>(64);
    std::memcpy(pool->data() + 16, copied.operandValues.data(), 8);
    referenced.pools = {pool};
    referenced.operands[1].lifetime = hal::OperandLifeTime::CONSTANT_REFERENCE;
    referenced.operands[1].location = {0, 16, 8};
    EXPECT_EQ(compiledNetworkKey(copied, {{1, 2}}, 1), compiledNetworkKey(referenced, {{1, 2}}, 1));
}

// A read-only memory of a file, as ANeuralNetworksMemory_createFromFd gives drivers.
class FilePool final : public hal::MemoryPool {
public:
    FilePool(const std::string& path, bool writable) : writable_(writable) {
        fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
        size_ = static_cast<size_t>(lseek(fd_, 0, SEEK_END));
        bytes_.resize(size_);
        EXPECT_EQ(pread(fd_, bytes_.data(), size_, 0), static_cast<ssize_t>(size_));
    }
    ~FilePool() override { close(fd_); }
    uint8_t* data() const override { return const_cast<uint8_t*>(bytes_.data()); }
    size_t size() const override { return size_; }
    int fd() const override { return fd_; }
    bool writable() const override { return writable_; }

private:
    int fd_ = -1;
    size_t size_ = 0;
    bool writable_;
    std::vector<uint8_t> bytes_;
};

// relu(input + constant) with a 4 KiB addend in `pool`.
hal::Model largeAddModel(std::shared_ptr<hal::MemoryPool> pool) {
    hal::Model model = addModel(1.0f);
    for (uint32_t i : {0u, 1u, 3u}) model.operands[i].dimensions = {1, 1024};
    model.operands[1].lifetime = hal::OperandLifeTime::CONSTANT_REFERENCE;
    model.operands[1].location = {0, 0, 4096};
    model.pools = {std::move(pool)};
    return model;
}

std::string writeWeights(const std::string& name, float value) {
    const std::string path = ::testing::TempDir() + "/" + name;
    std::vector<float> values(1024, value);
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(values.data()), 4096);
    return path;
}

TEST(ModelKeyTest, FileIdentityStandsForWeightsInSettledReadOnlyFiles) {
    const std::string path = writeWeights("model_key_weights.bin", 1.0f);
    // Copies and a file changed in the last two seconds count by value: no stand-in.
    EXPECT_TRUE(fileIdentityDigest(addModel(1.0f), 1).empty());
    EXPECT_TRUE(fileIdentityDigest(largeAddModel(std::make_shared<FilePool>(path, false)), 1).empty());
    std::this_thread::sleep_for(std::chrono::milliseconds(2100));
    const hal::Model model = largeAddModel(std::make_shared<FilePool>(path, false));
    const std::vector<uint8_t> identity = fileIdentityDigest(model, 1);
    ASSERT_EQ(identity.size(), 16u);
    // A small reference in the file (a bias, a small filter) stands by the file too.
    hal::Model small = largeAddModel(std::make_shared<FilePool>(path, false));
    for (uint32_t i : {0u, 1u, 3u}) small.operands[i].dimensions = {1, 4};
    small.operands[1].location = {0, 64, 16};
    EXPECT_EQ(fileIdentityDigest(small, 1).size(), 16u);
    EXPECT_EQ(constantsGivenByFile(small), (std::vector<bool>{false, true, false, false}));
    EXPECT_EQ(identity, fileIdentityDigest(largeAddModel(std::make_shared<FilePool>(path, false)), 1));
    EXPECT_NE(identity, fileIdentityDigest(model, 2));
    EXPECT_NE(identity, modelDigest(model, 1));
    EXPECT_TRUE(fileIdentityDigest(largeAddModel(std::make_shared<FilePool>(path, true)), 1).empty());
    // The same bytes written again are another identity (its times changed).
    writeWeights("model_key_weights.bin", 1.0f);
    std::this_thread::sleep_for(std::chrono::milliseconds(2100));
    const hal::Model rewritten = largeAddModel(std::make_shared<FilePool>(path, false));
    EXPECT_NE(identity, fileIdentityDigest(rewritten, 1));
    EXPECT_EQ(modelDigest(model, 1), modelDigest(rewritten, 1));
    std::remove(path.c_str());
}

}  // namespace
}  // namespace nnemu::synap
