// Control flow (feature level 30): ANeuralNetworksModel_setOperandValueFromModel, IF and WHILE
// models run through the C API (default partitioning and nnapi-reference alone), the loop
// timeout functions, and an endless WHILE that must fail instead of hanging.
#include <android/NeuralNetworks.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "AddModel.h"

namespace nnemu::apitest {
namespace {

constexpr int32_t kTensorFloat32 = ANEURALNETWORKS_TENSOR_FLOAT32;

// Adds operands and operations to a model, counting operand indexes.
class Builder {
public:
    Builder() : model_(newModel()) {}

    uint32_t operand(const ANeuralNetworksOperandType& type) {
        EXPECT_EQ(ANeuralNetworksModel_addOperand(model_.get(), &type), ANEURALNETWORKS_NO_ERROR);
        return count_++;
    }
    uint32_t floatTensor() { return operand(tensorType(kTensorFloat32, {1})); }
    uint32_t boolTensor() { return operand(tensorType(ANEURALNETWORKS_TENSOR_BOOL8, {1})); }
    uint32_t floatConstant(float value) {
        const uint32_t index = floatTensor();
        EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model_.get(), index, &value, sizeof value),
                  ANEURALNETWORKS_NO_ERROR);
        return index;
    }
    uint32_t noActivation() {
        const uint32_t index = operand(scalarType(ANEURALNETWORKS_INT32));
        const int32_t none = ANEURALNETWORKS_FUSED_NONE;
        EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model_.get(), index, &none, sizeof none),
                  ANEURALNETWORKS_NO_ERROR);
        return index;
    }
    uint32_t modelValue(ANeuralNetworksModel* value) {
        const uint32_t index = operand(scalarType(ANEURALNETWORKS_MODEL));
        EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromModel(model_.get(), index, value),
                  ANEURALNETWORKS_NO_ERROR);
        return index;
    }
    void operation(ANeuralNetworksOperationType type, const std::vector<uint32_t>& inputs,
                   const std::vector<uint32_t>& outputs) {
        EXPECT_EQ(ANeuralNetworksModel_addOperation(model_.get(), type, static_cast<uint32_t>(inputs.size()),
                                                    listOf(inputs), static_cast<uint32_t>(outputs.size()),
                                                    listOf(outputs)),
                  ANEURALNETWORKS_NO_ERROR);
    }
    // x + c into a new temporary (or output) operand.
    uint32_t plus(uint32_t x, float c) {
        const uint32_t sum = floatTensor();
        operation(ANEURALNETWORKS_ADD, {x, floatConstant(c), noActivation()}, {sum});
        return sum;
    }
    ModelPtr finish(const std::vector<uint32_t>& inputs, const std::vector<uint32_t>& outputs) {
        EXPECT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(
                          model_.get(), static_cast<uint32_t>(inputs.size()), listOf(inputs),
                          static_cast<uint32_t>(outputs.size()), listOf(outputs)),
                  ANEURALNETWORKS_NO_ERROR);
        EXPECT_EQ(ANeuralNetworksModel_finish(model_.get()), ANEURALNETWORKS_NO_ERROR);
        return std::move(model_);
    }
    ANeuralNetworksModel* get() { return model_.get(); }

private:
    ModelPtr model_;
    uint32_t count_ = 0;
};

// (x) -> x + c
ModelPtr plusModel(float c) {
    Builder b;
    const uint32_t x = b.floatTensor();
    return b.finish({x}, {b.plus(x, c)});
}

// (x, limit) -> x < limit
ModelPtr lessModel() {
    Builder b;
    const uint32_t x = b.floatTensor();
    const uint32_t limit = b.floatTensor();
    const uint32_t less = b.boolTensor();
    b.operation(ANEURALNETWORKS_LESS, {x, limit}, {less});
    return b.finish({x, limit}, {less});
}

// (x, limit) -> x + step: a WHILE body with one input-output and one input-only value.
ModelPtr stepModel(float step) {
    Builder b;
    const uint32_t x = b.floatTensor();
    const uint32_t limit = b.floatTensor();
    return b.finish({x, limit}, {b.plus(x, step)});
}

// (x, limit) -> WHILE (x < limit) x = body(x, limit)
ModelPtr whileModel(ANeuralNetworksModel* condition, ANeuralNetworksModel* body) {
    Builder b;
    const uint32_t cond = b.modelValue(condition);
    const uint32_t loop = b.modelValue(body);
    const uint32_t x = b.floatTensor();
    const uint32_t limit = b.floatTensor();
    const uint32_t result = b.floatTensor();
    b.operation(ANEURALNETWORKS_WHILE, {cond, loop, x, limit}, {result});
    return b.finish({x, limit}, {result});
}

// Runs a model with float inputs and one float output; returns the compute result code.
int runFloat(ANeuralNetworksCompilation* compilation, const std::vector<float>& inputs, float* output,
             uint64_t loopTimeout = 0) {
    ExecutionPtr execution = newExecution(compilation);
    for (size_t i = 0; i < inputs.size(); ++i) {
        EXPECT_EQ(ANeuralNetworksExecution_setInput(execution.get(), static_cast<int32_t>(i), nullptr, &inputs[i],
                                                    sizeof(float)),
                  ANEURALNETWORKS_NO_ERROR);
    }
    EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution.get(), 0, nullptr, output, sizeof(float)),
              ANEURALNETWORKS_NO_ERROR);
    if (loopTimeout != 0) {
        EXPECT_EQ(ANeuralNetworksExecution_setLoopTimeout(execution.get(), loopTimeout), ANEURALNETWORKS_NO_ERROR);
    }
    return ANeuralNetworksExecution_compute(execution.get());
}

TEST(ControlFlowTest, SetOperandValueFromModelResultCodes) {
    ModelPtr finished = plusModel(1.0f);
    ASSERT_NE(finished, nullptr);
    Builder b;
    const uint32_t subgraph = b.operand(scalarType(ANEURALNETWORKS_MODEL));
    const uint32_t tensor = b.floatTensor();
    EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromModel(nullptr, subgraph, finished.get()),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromModel(b.get(), subgraph, nullptr),
              ANEURALNETWORKS_UNEXPECTED_NULL);
    ModelPtr unfinished = newModel();
    EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromModel(b.get(), subgraph, unfinished.get()),
              ANEURALNETWORKS_BAD_STATE);
    EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromModel(b.get(), 99, finished.get()), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromModel(b.get(), -1, finished.get()), ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromModel(b.get(), tensor, finished.get()),
              ANEURALNETWORKS_BAD_DATA);
    EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromModel(b.get(), subgraph, finished.get()),
              ANEURALNETWORKS_NO_ERROR);
    // A SUBGRAPH operand takes no plain value.
    const float value = 1.0f;
    EXPECT_EQ(ANeuralNetworksModel_setOperandValue(b.get(), subgraph, &value, sizeof value), ANEURALNETWORKS_BAD_DATA);
    // A finished model can no longer change.
    ModelPtr other = plusModel(2.0f);
    EXPECT_EQ(ANeuralNetworksModel_setOperandValueFromModel(finished.get(), 0, other.get()),
              ANEURALNETWORKS_BAD_STATE);
}

// IF(cond, then, else, x) -> y added to `b`, cond and x its inputs and y its output: finish
// must refuse the model.
void expectIfRefusedAtFinish(Builder& b, uint32_t cond, uint32_t thenBranch, uint32_t elseBranch) {
    const uint32_t x = b.floatTensor();
    const uint32_t y = b.floatTensor();
    b.operation(ANEURALNETWORKS_IF, {cond, thenBranch, elseBranch, x}, {y});
    const std::vector<uint32_t> inputs = {cond, x}, outputs = {y};
    ASSERT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(b.get(), 2, inputs.data(), 1, outputs.data()),
              ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(ANeuralNetworksModel_finish(b.get()), ANEURALNETWORKS_BAD_DATA);
}

TEST(ControlFlowTest, ModelOperandWithoutValueIsRefusedAtFinish) {
    ModelPtr thenModel = plusModel(1.0f);
    Builder b;
    const uint32_t cond = b.boolTensor();
    const uint32_t thenBranch = b.modelValue(thenModel.get());
    const uint32_t elseBranch = b.operand(scalarType(ANEURALNETWORKS_MODEL));  // never given a model
    expectIfRefusedAtFinish(b, cond, thenBranch, elseBranch);
}

TEST(ControlFlowTest, IfBranchModelMustMatchTheOperation) {
    ModelPtr twoInputs = lessModel();  // (x, limit) -> bool: neither the count nor the type fits
    ModelPtr thenModel = plusModel(1.0f);
    Builder b;
    const uint32_t cond = b.boolTensor();
    const uint32_t thenBranch = b.modelValue(thenModel.get());
    const uint32_t elseBranch = b.modelValue(twoInputs.get());
    expectIfRefusedAtFinish(b, cond, thenBranch, elseBranch);
}

TEST(ControlFlowTest, IfRunsTheChosenBranch) {
    ModelPtr thenModel = plusModel(1.0f);
    ModelPtr elseModel = plusModel(-1.0f);
    Builder b;
    const uint32_t cond = b.boolTensor();
    const uint32_t thenBranch = b.modelValue(thenModel.get());
    const uint32_t elseBranch = b.modelValue(elseModel.get());
    const uint32_t x = b.floatTensor();
    const uint32_t y = b.floatTensor();
    b.operation(ANEURALNETWORKS_IF, {cond, thenBranch, elseBranch, x}, {y});
    ModelPtr model = b.finish({cond, x}, {y});
    ASSERT_NE(model, nullptr);
    // The branch models may go once the referring model is finished: it holds copies.
    thenModel.reset();
    elseModel.reset();
    for (bool reference : {false, true}) {
        CompilationPtr compilation = reference ? compileFor(model.get(), {referenceDevice()}) : compile(model.get());
        ASSERT_NE(compilation, nullptr);
        for (uint8_t condition : {0, 1}) {
            ExecutionPtr execution = newExecution(compilation.get());
            const float input = 10.0f;
            float output = 0.0f;
            ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 0, nullptr, &condition, 1),
                      ANEURALNETWORKS_NO_ERROR);
            ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 1, nullptr, &input, sizeof input),
                      ANEURALNETWORKS_NO_ERROR);
            ASSERT_EQ(ANeuralNetworksExecution_setOutput(execution.get(), 0, nullptr, &output, sizeof output),
                      ANEURALNETWORKS_NO_ERROR);
            ASSERT_EQ(ANeuralNetworksExecution_compute(execution.get()), ANEURALNETWORKS_NO_ERROR);
            EXPECT_EQ(output, condition ? 11.0f : 9.0f);
        }
    }
}

TEST(ControlFlowTest, WhileCountsUpToTheLimit) {
    ModelPtr condition = lessModel();
    ModelPtr body = stepModel(1.0f);
    ModelPtr model = whileModel(condition.get(), body.get());
    ASSERT_NE(model, nullptr);
    for (bool reference : {false, true}) {
        CompilationPtr compilation = reference ? compileFor(model.get(), {referenceDevice()}) : compile(model.get());
        ASSERT_NE(compilation, nullptr);
        float output = 0.0f;
        ASSERT_EQ(runFloat(compilation.get(), {0.0f, 5.0f}, &output), ANEURALNETWORKS_NO_ERROR);
        EXPECT_EQ(output, 5.0f);
        // A condition false from the start: the body never runs.
        ASSERT_EQ(runFloat(compilation.get(), {7.0f, 5.0f}, &output), ANEURALNETWORKS_NO_ERROR);
        EXPECT_EQ(output, 7.0f);
    }
}

TEST(ControlFlowTest, NestedWhile) {
    // Outer: while (x < limit) { target = x + 3; inner: while (x < target) x = x + 1; }
    ModelPtr less = lessModel();
    ModelPtr innerBody = stepModel(1.0f);
    Builder outerBody;
    {
        const uint32_t x = outerBody.floatTensor();
        const uint32_t limit = outerBody.floatTensor();
        const uint32_t target = outerBody.plus(x, 3.0f);
        const uint32_t cond = outerBody.modelValue(less.get());
        const uint32_t loop = outerBody.modelValue(innerBody.get());
        const uint32_t result = outerBody.floatTensor();
        outerBody.operation(ANEURALNETWORKS_WHILE, {cond, loop, x, target}, {result});
        (void)limit;
        ModelPtr finished = outerBody.finish({x, limit}, {result});
        ASSERT_NE(finished, nullptr);
        ModelPtr model = whileModel(less.get(), finished.get());
        ASSERT_NE(model, nullptr);
        CompilationPtr compilation = compile(model.get());
        ASSERT_NE(compilation, nullptr);
        float output = 0.0f;
        ASSERT_EQ(runFloat(compilation.get(), {0.0f, 10.0f}, &output), ANEURALNETWORKS_NO_ERROR);
        EXPECT_EQ(output, 12.0f);  // 0 -> 3 -> 6 -> 9 -> 12
    }
}

TEST(ControlFlowTest, LoopTimeoutConstants) {
    EXPECT_EQ(ANeuralNetworks_getDefaultLoopTimeout(), 2'000'000'000u);
    EXPECT_EQ(ANeuralNetworks_getMaximumLoopTimeout(), 15'000'000'000u);
}

TEST(ControlFlowTest, SetLoopTimeoutResultCodes) {
    ModelPtr condition = lessModel();
    ModelPtr body = stepModel(1.0f);
    ModelPtr model = whileModel(condition.get(), body.get());
    CompilationPtr compilation = compile(model.get());
    ASSERT_NE(compilation, nullptr);
    EXPECT_EQ(ANeuralNetworksExecution_setLoopTimeout(nullptr, 1000), ANEURALNETWORKS_UNEXPECTED_NULL);
    ExecutionPtr execution = newExecution(compilation.get());
    // Above the maximum: clamped, not refused.
    EXPECT_EQ(ANeuralNetworksExecution_setLoopTimeout(execution.get(), std::numeric_limits<uint64_t>::max()),
              ANEURALNETWORKS_NO_ERROR);
    const float inputs[2] = {0.0f, 3.0f};
    float output = 0.0f;
    ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 0, nullptr, &inputs[0], sizeof(float)),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 1, nullptr, &inputs[1], sizeof(float)),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_setOutput(execution.get(), 0, nullptr, &output, sizeof output),
              ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksExecution_compute(execution.get()), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(output, 3.0f);
    // Only while the execution is being prepared.
    EXPECT_EQ(ANeuralNetworksExecution_setLoopTimeout(execution.get(), 1000), ANEURALNETWORKS_BAD_STATE);
}

TEST(ControlFlowTest, EndlessLoopFailsAfterTheTimeout) {
    ModelPtr condition = lessModel();
    ModelPtr body = stepModel(0.0f);  // x never grows: x < limit stays true
    ModelPtr model = whileModel(condition.get(), body.get());
    ASSERT_NE(model, nullptr);
    for (bool reference : {false, true}) {
        CompilationPtr compilation = reference ? compileFor(model.get(), {referenceDevice()}) : compile(model.get());
        ASSERT_NE(compilation, nullptr);
        float output = 0.0f;
        // 1 ms: the loop must stop with an error, whatever the machine's load.
        EXPECT_EQ(runFloat(compilation.get(), {0.0f, 1.0f}, &output, 1'000'000),
                  ANEURALNETWORKS_MISSED_DEADLINE_TRANSIENT);
    }
}

}  // namespace
}  // namespace nnemu::apitest
