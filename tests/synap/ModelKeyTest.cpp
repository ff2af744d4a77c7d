// The SyNAP cache key: equal for the same content however its constants are stored, different
// for any change to what the program is compiled from.
#include <gtest/gtest.h>

#include <cstring>

#include "ModelKey.h"

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

}  // namespace
}  // namespace nnemu::synap
