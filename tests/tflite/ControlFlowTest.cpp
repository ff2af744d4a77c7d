// WHILE and IF models (nnemu_modelgen's while_conv_* and if_conv_*): every subgraph loads, the
// loader maps them to NNAPI WHILE/IF with referenced models, TFLite's CPU path, the delegate on
// nnapi-reference and on synap-npu give identical outputs, and those match the loop and the
// branches computed here in plain C++. Malformed control flow is refused with the op named.
#include <cmath>
#include <cstring>

#include "ControlFlowReference.h"
#include "GeneratedModels.h"
#include "TestSupport.h"
#include "nnemu/modelgen/GraphSpec.h"
#include "nnemu/modelgen/ModelCatalog.h"
#include "ResultCheck.h"

namespace nnemu::tflite::test {
namespace {

using modelgen::GraphSpec;

Result<std::unique_ptr<Model>> fromGraphs(const std::vector<GraphSpec>& graphs) {
    return Model::fromBuffer(modelgen::writeGraphs(graphs, "test"));
}

class ControlFlowModel : public testing::TestWithParam<std::string> {};

TEST_P(ControlFlowModel, MatchesThePlainComputationOnEveryPath) {
    const std::string name = GetParam();
    const bool isWhile = name.rfind("while", 0) == 0;
    std::vector<uint8_t> bytes;
    ASSERT_EQ(modelgen::generateModel(name, &bytes), nnemu::StatusCode::OK);
    std::unique_ptr<Model> model = expectValue(Model::fromBuffer(bytes));
    ASSERT_NE(model, nullptr);
    ASSERT_EQ(model->subgraphs().size(), 3u);
    const Tensor& input = model->tensors()[model->inputs()[0]];
    const Tensor& output = model->tensors()[model->outputs()[0]];
    const int size = input.shape[1], c = input.shape[3];
    // Quantized: the loop requantizes every iteration; a few output steps of rounding.
    const float tolerance = input.type == ElementType::INT8 ? 4.0f * output.scale : 1e-4f;
    std::vector<bool> branches;
    for (float sign : {1.0f, -1.0f}) {
        const std::vector<uint8_t> image = imageBytes(input, sign);
        bool tookThen = false;
        const std::vector<float> real = realOf(input, image.data());
        const std::vector<float> expected =
                isWhile ? expectedWhile(*model, real, size, c) : expectedIf(*model, real, size, c, &tookThen);
        branches.push_back(tookThen);
        std::vector<uint8_t> first;
        for (const RunMode& mode : runModesWithNpu(*model)) {
            std::unique_ptr<Interpreter> interpreter = makeInterpreter(*model, mode.options);
            ASSERT_NE(interpreter, nullptr) << mode.name;
            std::memcpy(interpreter->inputData(0), image.data(), image.size());
            ASSERT_TRUE(isOk(interpreter->invoke())) << mode.name;
            if (std::string(mode.name) == "synap_npu") {
                // synap-npu claims no control flow: the WHILE/IF node runs on nnapi-reference
                // (interpreting its subgraphs), the pooling after it in a delegate kernel.
                for (const Partition& partition : interpreter->partitions()) {
                    for (uint32_t node : partition.nodes) {
                        const std::string& op = model->nodes()[node].opName;
                        if (op == "WHILE" || op == "IF") {
                            EXPECT_FALSE(partition.delegated) << op;
                        }
                        if (op == "MAX_POOL_2D") {
                            EXPECT_TRUE(partition.delegated) << op;
                        }
                    }
                }
            }
            const std::vector<uint8_t> got(interpreter->outputData(0), interpreter->outputData(0) + output.byteSize());
            if (first.empty()) first = got;
            EXPECT_EQ(got, first) << mode.name << " differs from the CPU path";
            const std::vector<float> values = realOf(output, got.data());
            ASSERT_EQ(values.size(), expected.size());
            for (size_t i = 0; i < values.size(); ++i) {
                EXPECT_NEAR(values[i], expected[i], tolerance) << mode.name << " score " << i << " sign " << sign;
            }
        }
    }
    if (!isWhile) {
        EXPECT_NE(branches[0], branches[1]) << "both inputs took the same branch";
    }
}

INSTANTIATE_TEST_SUITE_P(Catalog, ControlFlowModel,
                         testing::Values("while_conv_float", "while_conv_int8", "if_conv_float", "if_conv_int8"));

TEST(ControlFlowLoader, ReadsEverySubgraph) {
    std::unique_ptr<Model> model = expectValue(fromGraphs(modelgen::controlFlowGraphs("while_conv_float")));
    ASSERT_NE(model, nullptr);
    ASSERT_EQ(model->subgraphs().size(), 3u);
    EXPECT_EQ(model->subgraphs()[1].name, "cond");
    EXPECT_EQ(model->subgraphs()[2].nodes.size(), 3u);
    EXPECT_EQ(model->nodes().size(), 3u);   // WHILE, MAX_POOL_2D, RESHAPE
    EXPECT_EQ(model->nodes()[0].opName, "WHILE");
}

// Interpreter::create on an altered model: refused, and the message names the operator.
std::string refusal(const std::vector<GraphSpec>& graphs) {
    const Result<std::unique_ptr<Model>> model = fromGraphs(graphs);
    if (!model) return "load: " + model.message();
    std::string error;
    for (const RunMode& mode : runModes()) {
        const Result<std::unique_ptr<Interpreter>> interpreter = Interpreter::create(**model, mode.options);
        EXPECT_FALSE(interpreter.isOk()) << mode.name;
        if (interpreter) return "";
        error = interpreter.message();
    }
    return error;
}

TEST(ControlFlowLoader, RefusesASubgraphIndexOutOfRange) {
    std::vector<GraphSpec> graphs = modelgen::controlFlowGraphs("while_conv_float");
    graphs[0].ops[0].subgraphB = 7;
    const std::string error = refusal(graphs);
    EXPECT_NE(error.find("operator WHILE at node 0"), std::string::npos) << error;
    EXPECT_NE(error.find("out of range"), std::string::npos) << error;
    graphs = modelgen::controlFlowGraphs("if_conv_float");
    graphs[0].ops[2].subgraphA = -1;
    const std::string ifError = refusal(graphs);
    EXPECT_NE(ifError.find("operator IF at node 2"), std::string::npos) << ifError;
    EXPECT_NE(ifError.find("out of range"), std::string::npos) << ifError;
}

TEST(ControlFlowLoader, RefusesARecursionCycle) {
    // The body runs a WHILE whose body is the body again.
    std::vector<GraphSpec> graphs = modelgen::controlFlowGraphs("while_conv_float");
    GraphSpec& body = graphs[2];
    const std::vector<int32_t> values = body.inputs;
    std::vector<int32_t> results;
    for (int32_t t : values) results.push_back(body.add(body.tensors[static_cast<size_t>(t)]));
    body.ops.insert(body.ops.begin(), modelgen::controlFlowSpec(tflite::fb::BuiltinOperator_WHILE, values, results, 1, 2));
    const std::string error = refusal(graphs);
    EXPECT_NE(error.find("recursion cycle"), std::string::npos) << error;
    EXPECT_NE(error.find("operator WHILE at node 0: body: subgraph 2 (body): operator WHILE at node 0"),
              std::string::npos)
            << error;
}

TEST(ControlFlowLoader, RefusesMismatchedInputCounts) {
    std::vector<GraphSpec> graphs = modelgen::controlFlowGraphs("while_conv_float");
    graphs[1].inputs.pop_back();   // the condition takes 2 of the 3 loop values
    std::string error = refusal(graphs);
    EXPECT_NE(error.find("cond subgraph takes 2 inputs, the operator passes 3"), std::string::npos) << error;
    graphs = modelgen::controlFlowGraphs("while_conv_float");
    graphs[0].ops[0].outputs.push_back(graphs[0].add(modelgen::tensorSpec("extra", {1})));   // 3 in, 4 out
    error = refusal(graphs);
    EXPECT_NE(error.find("operator WHILE at node 0: has 4 outputs, expected 3"), std::string::npos) << error;
    graphs = modelgen::controlFlowGraphs("if_conv_float");
    graphs[2].outputs.push_back(graphs[2].inputs[0]);   // else gives 2 outputs, IF has 1
    error = refusal(graphs);
    EXPECT_NE(error.find("else subgraph has 2 outputs, the operator 1"), std::string::npos) << error;
}

TEST(ControlFlowLoader, RefusesALoopValueThatChangesShape) {
    std::vector<GraphSpec> graphs = modelgen::controlFlowGraphs("while_conv_float");
    graphs[2].tensors[static_cast<size_t>(graphs[2].outputs[2])].shape = {1, 8, 8, 3};
    const std::string error = refusal(graphs);
    EXPECT_NE(error.find("loop variable 2 changes shape from [1,16,16,3] to [1,8,8,3]"), std::string::npos) << error;
}

TEST(ControlFlowLoader, RefusesALoopValueThatChangesQuantization) {
    std::vector<GraphSpec> graphs = modelgen::controlFlowGraphs("while_conv_int8");
    graphs[2].tensors[static_cast<size_t>(graphs[2].outputs[2])].scales[0] *= 2.0f;
    const std::string error = refusal(graphs);
    EXPECT_NE(error.find("operator WHILE at node 0: loop variable 2 changes quantization"), std::string::npos)
            << error;
}

TEST(ControlFlowLoader, RefusesANonBoolCondition) {
    std::vector<GraphSpec> graphs = modelgen::controlFlowGraphs("if_conv_float");
    graphs[0].ops[2].inputs[0] = graphs[0].ops[0].outputs[0];   // the float mean instead of the bool
    const std::string error = refusal(graphs);
    EXPECT_NE(error.find("operator IF at node 2: the condition must be a bool"), std::string::npos) << error;
}

// Subgraph k runs IF(true, x) with both branches subgraph k + 1, `levels` deep; the last adds x to itself.
std::vector<GraphSpec> nestedIfs(int32_t levels) {
    std::vector<GraphSpec> graphs(static_cast<size_t>(levels) + 1);
    for (int32_t k = 0; k <= levels; ++k) {
        GraphSpec& g = graphs[static_cast<size_t>(k)];
        g.name = "level" + std::to_string(k);
        const int32_t x = g.add(modelgen::tensorSpec("x", {1}));
        const int32_t y = g.add(modelgen::tensorSpec("y", {1}));
        g.inputs = {x};
        g.outputs = {y};
        if (k == levels) {
            g.ops.push_back(modelgen::opSpec(tflite::fb::BuiltinOperator_ADD, {x, x}, {y}));
            continue;
        }
        modelgen::TensorSpec condition = modelgen::tensorSpec("yes", {1}, tflite::fb::TensorType_BOOL);
        condition.data = {1};
        const int32_t c = g.add(condition);
        g.ops.push_back(modelgen::controlFlowSpec(tflite::fb::BuiltinOperator_IF, {c, x}, {y}, k + 1, k + 1));
    }
    return graphs;
}

TEST(ControlFlowLoader, RunsNestedSubgraphsAndRefusesExcessiveNesting) {
    std::unique_ptr<Model> model = expectValue(fromGraphs(nestedIfs(4)));
    ASSERT_NE(model, nullptr);
    for (const RunMode& mode : runModes()) {
        std::unique_ptr<Interpreter> interpreter = makeInterpreter(*model, mode.options);
        ASSERT_NE(interpreter, nullptr) << mode.name;
        const float x = 1.25f;
        std::memcpy(interpreter->inputData(0), &x, 4);
        ASSERT_TRUE(isOk(interpreter->invoke())) << mode.name;
        float y = 0;
        std::memcpy(&y, interpreter->outputData(0), 4);
        EXPECT_EQ(y, 2.5f) << mode.name;
    }
    const std::string error = refusal(nestedIfs(40));
    EXPECT_NE(error.find("control flow nested more than 32 subgraphs deep"), std::string::npos) << error;
}

TEST(ControlFlowLoader, NamesTheSubgraphOfAMalformedTensorIndex) {
    std::vector<GraphSpec> graphs = modelgen::controlFlowGraphs("while_conv_float");
    graphs[2].ops[0].inputs[0] = 99;
    const std::string error = refusal(graphs);
    EXPECT_NE(error.find("load: "), std::string::npos) << error;
    EXPECT_NE(error.find("subgraph 2: node 0 (ADD): input tensor index 99 out of range"), std::string::npos) << error;
}

}  // namespace
}  // namespace nnemu::tflite::test
