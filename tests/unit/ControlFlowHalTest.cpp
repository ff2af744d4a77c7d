// Control flow below the C API: the runtime (feature level 30) takes ANEURALNETWORKS_MODEL
// operands but refuses IF and WHILE whose operands are not models; the HAL validation refuses malformed references to subgraphs (a
// subgraph referring to itself or to a later one could make a driver recurse forever).
#include <android/NeuralNetworks.h>
#include <gtest/gtest.h>

#include "nnemu/hal/ControlFlow.h"
#include "nnemu/hal/OperandTypes.h"
#include "nnemu/hal/Validation.h"

namespace nnemu {
namespace {

using hal::OperandLifeTime;
using hal::OperandType;

TEST(ControlFlowHal, RuntimeTakesModelOperandsAndChecksControlFlowOperands) {
    EXPECT_EQ(hal::operandTypeFeatureLevel(OperandType::SUBGRAPH), 30);
    EXPECT_EQ(hal::elementSize(OperandType::SUBGRAPH), 0u);
    ANeuralNetworksModel* model = nullptr;
    ASSERT_EQ(ANeuralNetworksModel_create(&model), ANEURALNETWORKS_NO_ERROR);
    const ANeuralNetworksOperandType subgraph{ANEURALNETWORKS_MODEL, 0, nullptr, 0.0f, 0};
    EXPECT_EQ(ANeuralNetworksModel_addOperand(model, &subgraph), ANEURALNETWORKS_NO_ERROR);
    const uint32_t dims[1] = {1};
    const ANeuralNetworksOperandType tensor{ANEURALNETWORKS_TENSOR_FLOAT32, 1, dims, 0.0f, 0};
    for (int i = 0; i < 4; ++i) ASSERT_EQ(ANeuralNetworksModel_addOperand(model, &tensor), ANEURALNETWORKS_NO_ERROR);
    const uint32_t inputs[3] = {1, 2, 3};  // tensors where IF and WHILE need models
    const uint32_t outputs[1] = {4};
    EXPECT_EQ(ANeuralNetworksModel_addOperation(model, ANEURALNETWORKS_IF, 3, inputs, 1, outputs),
              ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksModel_addOperation(model, ANEURALNETWORKS_WHILE, 3, inputs, 1, outputs),
              ANEURALNETWORKS_BAD_DATA);
    ANeuralNetworksModel_free(model);
}

hal::Operand tensor(OperandLifeTime lifetime) {
    hal::Operand operand;
    operand.type = OperandType::TENSOR_FLOAT32;
    operand.dimensions = {1};
    operand.lifetime = lifetime;
    return operand;
}

hal::Operand modelOperand(uint32_t subgraph) {
    hal::Operand operand;
    operand.type = OperandType::SUBGRAPH;
    operand.lifetime = OperandLifeTime::SUBGRAPH;
    operand.location.offset = subgraph;
    return operand;
}

// Main: y = IF(cond, then, else, x), both branches referenced subgraph `branch`.
hal::Model ifModel(uint32_t branch) {
    hal::Model model;
    hal::Operand cond;
    cond.type = OperandType::TENSOR_BOOL8;
    cond.dimensions = {1};
    cond.lifetime = OperandLifeTime::MODEL_INPUT;
    model.operands = {cond, modelOperand(branch), modelOperand(branch), tensor(OperandLifeTime::MODEL_INPUT),
                      tensor(OperandLifeTime::MODEL_OUTPUT)};
    model.operations = {{hal::OperationType::IF, {0, 1, 2, 3}, {4}}};
    model.inputIndexes = {0, 3};
    model.outputIndexes = {4};
    return model;
}

// A subgraph (x) -> IF(...) that itself refers to subgraph `inner`: only valid for an earlier one.
hal::Subgraph nestedIf(uint32_t inner) {
    hal::Model shape = ifModel(inner);
    return {shape.operands, shape.operations, shape.inputIndexes, shape.outputIndexes};
}

// (x) -> RELU(x)
hal::Subgraph reluSubgraph() {
    hal::Subgraph graph;
    graph.operands = {tensor(OperandLifeTime::MODEL_INPUT), tensor(OperandLifeTime::MODEL_OUTPUT)};
    graph.operations = {{hal::OperationType::RELU, {0}, {1}}};
    graph.inputIndexes = {0};
    graph.outputIndexes = {1};
    return graph;
}

TEST(ControlFlowHal, ValidModelPasses) {
    hal::Model model = ifModel(0);
    model.referenced = {reluSubgraph()};
    EXPECT_TRUE(hal::validateModel(model).isOk()) << hal::validateModel(model);
}

TEST(ControlFlowHal, ReferenceOutOfRangeIsRefused) {
    hal::Model model = ifModel(1);
    model.referenced = {reluSubgraph()};
    EXPECT_FALSE(hal::validateModel(model).isOk());
}

TEST(ControlFlowHal, CyclicReferencesAreRefused) {
    // Subgraph 0 is an IF whose branches are subgraph 0 itself.
    hal::Model model = ifModel(0);
    model.referenced = {nestedIf(0)};
    EXPECT_FALSE(hal::validateModel(model).isOk());
    // Subgraph 0 refers to subgraph 1, which comes later: refused too, so no cycle can hide.
    model.referenced = {nestedIf(1), reluSubgraph()};
    EXPECT_FALSE(hal::validateModel(model).isOk());
    // The same nesting in dependency order is fine (the outer IF passes its condition on too).
    model = ifModel(1);
    model.operations[0].inputs = {0, 1, 2, 0, 3};
    model.referenced = {reluSubgraph(), nestedIf(0)};
    EXPECT_TRUE(hal::validateModel(model).isOk()) << hal::validateModel(model);
}

TEST(ControlFlowHal, ModelTypeAndSubgraphLifetimeGoTogether) {
    hal::Model model = ifModel(0);
    model.referenced = {reluSubgraph()};
    model.operands[1].lifetime = OperandLifeTime::CONSTANT_COPY;
    EXPECT_FALSE(hal::validateModel(model).isOk());
}

}  // namespace
}  // namespace nnemu
