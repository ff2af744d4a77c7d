// Differential tests against real TensorFlow Lite 2.21 for the recurrent operators: LSTM, RNN,
// SVDF and the sequence operators, whose state lives in variable tensors. One interpreter is
// invoked N times on the same input and its outputs compared with `tflite_run --xnnpack=0
// --runs=N` (TFLite's builtin kernels carry the state from one invoke to the next), in every
// interpreter mode. Where a sequence operator is delegated, every invoke starts from the initial
// state, as with TFLite's NNAPI delegate (it maps no final-state output): those modes compare with
// one run. Malformed nodes are refused cleanly.
#include "RealTfliteOps.h"
#include "ResultCheck.h"

namespace nnemu::tflite::test {
namespace {

#define REAL_TFLITE_TEST(name) TEST(RealTfliteRecurrent, name)
#define REQUIRE() NNEMU_REQUIRE_REAL_TFLITE()

using Act = fb::ActivationFunctionType;

// A recurrent model under construction: a float input, constant weights, variable states.
struct RecurrentModel {
    GraphBuilder g;
    std::vector<std::vector<uint8_t>> inputs;
    uint32_t seed = 1;

    int32_t input(std::vector<int32_t> shape) {
        const int32_t t = g.tensor(shape, fb::TensorType_FLOAT32);
        g.inputs.push_back(t);
        inputs.push_back(rampBytes<float>(elementCount(shape), -1.5, 1.5));
        return t;
    }
    // Distinct deterministic values in [-scale, scale] for every weight tensor.
    int32_t weights(std::vector<int32_t> shape, float scale = 0.5f) {
        const size_t n = elementCount(shape);
        std::vector<float> values(n);
        for (size_t i = 0; i < n; ++i) {
            values[i] = scale * std::sin(0.37f * static_cast<float>(i + 1) + 1.7f * static_cast<float>(seed));
        }
        ++seed;
        return g.tensor(std::move(shape), fb::TensorType_FLOAT32, GraphBuilder::bytes(values));
    }
    int32_t state(std::vector<int32_t> shape) { return g.variable(std::move(shape), fb::TensorType_FLOAT32); }
    int32_t output(std::vector<int32_t> shape) {
        const int32_t t = g.tensor(std::move(shape), fb::TensorType_FLOAT32);
        g.outputs.push_back(t);
        return t;
    }
};

// Runs the interpreter `runs` times on the model's inputs; the outputs of the last run.
std::vector<std::vector<uint8_t>> invokeTimes(Interpreter& interpreter, const std::vector<std::vector<uint8_t>>& inputs,
                                              int runs) {
    std::vector<std::vector<uint8_t>> outputs;
    for (int run = 0; run < runs; ++run) {
        for (size_t i = 0; i < inputs.size(); ++i) std::memcpy(interpreter.inputData(i), inputs[i].data(), inputs[i].size());
        EXPECT_TRUE(isOk(interpreter.invoke()));
    }
    for (size_t o = 0; o < interpreter.outputCount(); ++o) {
        const uint8_t* data = interpreter.outputData(o);
        outputs.emplace_back(data, data + interpreter.outputTensor(o).byteSize());
    }
    return outputs;
}

// N = 1 and 3 invokes against TFLite's builtin kernels in every mode. carriedWhenDelegated:
// whether a delegated node carries its state (LSTM, RNN, SVDF) or starts from the initial state
// at every invoke (the sequence operators).
void expectSteps(const RecurrentModel& m, bool carriedWhenDelegated, int floatUlps = 4) {
    const std::vector<uint8_t> bytes = m.g.buildBytes();
    std::unique_ptr<Model> model = expectValue(Model::fromBuffer(bytes));
    ASSERT_NE(model, nullptr);
    const RealTfliteResult once = runRealTflite(bytes, m.inputs, 1);
    ASSERT_TRUE(once.ok) << "tflite_run failed:\n" << once.log;
    for (int runs : {1, 3}) {
        SCOPED_TRACE("runs " + std::to_string(runs));
        const RealTfliteResult real = runs == 1 ? once : runRealTflite(bytes, m.inputs, runs);
        ASSERT_TRUE(real.ok) << "tflite_run failed:\n" << real.log;
        if (runs > 1) {
            EXPECT_NE(real.outputs, once.outputs) << "the state does not change the output";
        }
        for (const RunMode& mode : kernelRunModes()) {
            SCOPED_TRACE(mode.name);
            std::unique_ptr<Interpreter> interpreter = expectValue(Interpreter::create(*model, mode.options));
            ASSERT_NE(interpreter, nullptr);
            const bool fromInitialState = interpreter->delegatedNodeCount() > 0 && !carriedWhenDelegated;
            const RealTfliteResult& want = fromInitialState ? once : real;
            const std::vector<std::vector<uint8_t>> got = invokeTimes(*interpreter, m.inputs, runs);
            ASSERT_EQ(got.size(), want.outputs.size());
            for (size_t o = 0; o < got.size(); ++o) {
                ASSERT_EQ(got[o].size(), want.outputs[o].size());
                expectSameBytes(interpreter->outputTensor(o), got[o].data(), want.outputs[o], floatUlps);
            }
        }
    }
}

// ---- RNN: input [batch, input], weights [units, input], recurrent [units, units], bias, state.
RecurrentModel rnn(int32_t batch, int32_t inputSize, int32_t units, Act activation) {
    RecurrentModel m;
    const int32_t in = m.input({batch, inputSize});
    const int32_t w = m.weights({units, inputSize}), r = m.weights({units, units}), b = m.weights({units});
    const int32_t h = m.state({batch, units});
    const int32_t out = m.output({batch, units});
    m.g.op(fb::BuiltinOperator_RNN, {in, w, r, b, h}, {out}, fb::BuiltinOptions_RNNOptions,
           [activation](flatbuffers::FlatBufferBuilder& fbb) { return fb::CreateRNNOptions(fbb, activation).Union(); });
    return m;
}

REAL_TFLITE_TEST(RnnRelu) {
    REQUIRE();
    const RecurrentModel m = rnn(2, 3, 4, Act::ActivationFunctionType_RELU);
    expectSteps(m, true);
    EXPECT_EQ(delegatedNodes(m.g), 1u);
}
REAL_TFLITE_TEST(RnnNoneOneBatch) {
    REQUIRE();
    expectSteps(rnn(1, 5, 3, Act::ActivationFunctionType_NONE), true);
}
REAL_TFLITE_TEST(RnnReluN1To1) {
    REQUIRE();
    expectSteps(rnn(3, 2, 6, Act::ActivationFunctionType_RELU_N1_TO_1), true);
}

// ---- SVDF: input [batch, input], feature weights [units * rank, input], time weights
// [units * rank, memory], bias [units] (optional), state [batch, memory * units * rank].
RecurrentModel svdf(int32_t batch, int32_t inputSize, int32_t units, int32_t rank, int32_t memory, Act activation,
                    bool bias = true) {
    RecurrentModel m;
    const int32_t filters = units * rank;
    const int32_t in = m.input({batch, inputSize});
    const int32_t wf = m.weights({filters, inputSize}), wt = m.weights({filters, memory});
    const int32_t b = bias ? m.weights({units}) : -1;
    const int32_t s = m.state({batch, memory * filters});
    const int32_t out = m.output({batch, units});
    m.g.op(fb::BuiltinOperator_SVDF, {in, wf, wt, b, s}, {out}, fb::BuiltinOptions_SVDFOptions,
           [rank, activation](flatbuffers::FlatBufferBuilder& fbb) {
               return fb::CreateSVDFOptions(fbb, rank, activation).Union();
           });
    return m;
}

REAL_TFLITE_TEST(SvdfRank1) {
    REQUIRE();
    const RecurrentModel m = svdf(2, 3, 4, 1, 5, Act::ActivationFunctionType_NONE);
    expectSteps(m, true);
    EXPECT_EQ(delegatedNodes(m.g), 1u);
}
REAL_TFLITE_TEST(SvdfRank2Relu) {
    REQUIRE();
    expectSteps(svdf(2, 4, 3, 2, 4, Act::ActivationFunctionType_RELU), true);
}
REAL_TFLITE_TEST(SvdfRank2NoBias) {
    REQUIRE();
    expectSteps(svdf(1, 3, 2, 2, 3, Act::ActivationFunctionType_RELU6, false), true);
}

// ---- LSTM (the full kernel): 20 inputs, or 24 with layer normalization. nnapi-reference's LSTM
// cell rounds otherwise than TFLite's (its activations and sums): about 1e-8 apart, which is up
// to ~120 ULP on outputs near 0 after gates cancel (also through TFLite's own delegate on
// nnemu's library), so the LSTM forms compare within kLstmUlps.
constexpr int kLstmUlps = 128;
struct LstmForm {
    bool cifg = false, peephole = false, projection = false, layerNorm = false;
    float cellClip = 0, projClip = 0;
    Act activation = Act::ActivationFunctionType_TANH;
};

// One direction's weights (LSTM inputs 1-17) appended to `ins`.
void lstmWeights(RecurrentModel& m, int32_t inputSize, int32_t cells, int32_t outputs, const LstmForm& form,
                 std::vector<int32_t>& ins) {
    for (int gate = 0; gate < 4; ++gate) ins.push_back(form.cifg && gate == 0 ? -1 : m.weights({cells, inputSize}));
    for (int gate = 0; gate < 4; ++gate) ins.push_back(form.cifg && gate == 0 ? -1 : m.weights({cells, outputs}));
    for (int gate = 0; gate < 3; ++gate) {
        ins.push_back(!form.peephole || (form.cifg && gate == 0) ? -1 : m.weights({cells}));
    }
    for (int gate = 0; gate < 4; ++gate) ins.push_back(form.cifg && gate == 0 ? -1 : m.weights({cells}, 0.2f));
    ins.push_back(form.projection ? m.weights({outputs, cells}) : -1);
    ins.push_back(form.projection ? m.weights({outputs}, 0.1f) : -1);
}

RecurrentModel lstm(int32_t batch, int32_t inputSize, int32_t cells, const LstmForm& form, bool sequence = false,
                    int32_t steps = 1) {
    RecurrentModel m;
    const int32_t outputs = form.projection ? cells - 1 : cells;
    const int32_t in = sequence ? m.input({batch, steps, inputSize}) : m.input({batch, inputSize});
    std::vector<int32_t> ins = {in};
    lstmWeights(m, inputSize, cells, outputs, form, ins);
    ins.push_back(m.state({batch, outputs}));
    ins.push_back(m.state({batch, cells}));
    if (form.layerNorm) {
        for (int gate = 0; gate < 4; ++gate) ins.push_back(form.cifg && gate == 0 ? -1 : m.weights({cells}, 1.0f));
    }
    const int32_t out = sequence ? m.output({batch, steps, outputs}) : m.output({batch, outputs});
    if (sequence) {
        m.g.op(fb::BuiltinOperator_UNIDIRECTIONAL_SEQUENCE_LSTM, ins, {out},
               fb::BuiltinOptions_UnidirectionalSequenceLSTMOptions, [form](flatbuffers::FlatBufferBuilder& fbb) {
                   return fb::CreateUnidirectionalSequenceLSTMOptions(fbb, form.activation, form.cellClip, form.projClip)
                           .Union();
               });
    } else {
        m.g.op(fb::BuiltinOperator_LSTM, ins, {out}, fb::BuiltinOptions_LSTMOptions,
               [form](flatbuffers::FlatBufferBuilder& fbb) {
                   return fb::CreateLSTMOptions(fbb, form.activation, form.cellClip, form.projClip).Union();
               });
    }
    return m;
}

REAL_TFLITE_TEST(LstmPlain) {
    REQUIRE();
    const RecurrentModel m = lstm(2, 3, 4, {});
    expectSteps(m, true, kLstmUlps);
    EXPECT_EQ(delegatedNodes(m.g), 1u);
}
REAL_TFLITE_TEST(LstmPeephole) {
    REQUIRE();
    expectSteps(lstm(2, 3, 4, {.peephole = true}), true, kLstmUlps);
}
REAL_TFLITE_TEST(LstmCifgPeepholeProjection) {
    REQUIRE();
    expectSteps(lstm(1, 4, 5, {.cifg = true, .peephole = true, .projection = true}), true, kLstmUlps);
}
REAL_TFLITE_TEST(LstmProjectionClips) {
    REQUIRE();
    expectSteps(lstm(2, 3, 4, {.projection = true, .cellClip = 0.6f, .projClip = 0.4f}), true, kLstmUlps);
}
REAL_TFLITE_TEST(LstmLayerNorm) {
    REQUIRE();
    const RecurrentModel m = lstm(2, 3, 4, {.peephole = true, .layerNorm = true});
    expectSteps(m, true, kLstmUlps);
    EXPECT_EQ(delegatedNodes(m.g), 1u);
}
REAL_TFLITE_TEST(LstmCifgLayerNormRelu) {
    REQUIRE();
    expectSteps(lstm(3, 2, 4, {.cifg = true, .layerNorm = true, .activation = Act::ActivationFunctionType_RELU}), true, kLstmUlps);
}

// ---- The sequence operators: TFLite's kernels carry the final state to the next invoke.
REAL_TFLITE_TEST(UnidirectionalSequenceLstmCarriesState) {
    REQUIRE();
    const RecurrentModel m = lstm(2, 3, 4, {.peephole = true}, true, 3);
    expectSteps(m, false, kLstmUlps);
    EXPECT_EQ(delegatedNodes(m.g), 1u);
}
REAL_TFLITE_TEST(UnidirectionalSequenceRnnCarriesState) {
    REQUIRE();
    RecurrentModel m;
    const int32_t in = m.input({2, 3, 4});
    const int32_t w = m.weights({5, 4}), r = m.weights({5, 5}), b = m.weights({5});
    const int32_t h = m.state({2, 5});
    const int32_t out = m.output({2, 3, 5});
    m.g.op(fb::BuiltinOperator_UNIDIRECTIONAL_SEQUENCE_RNN, {in, w, r, b, h}, {out}, fb::BuiltinOptions_SequenceRNNOptions,
           [](flatbuffers::FlatBufferBuilder& fbb) {
               return fb::CreateSequenceRNNOptions(fbb, false, Act::ActivationFunctionType_RELU).Union();
           });
    expectSteps(m, false);
    EXPECT_EQ(delegatedNodes(m.g), 1u);
}

REAL_TFLITE_TEST(BidirectionalSequenceLstmCarriesState) {
    REQUIRE();
    RecurrentModel m;
    const LstmForm form{.peephole = true};
    const int32_t in = m.input({2, 3, 3});
    std::vector<int32_t> ins = {in};
    lstmWeights(m, 3, 4, 4, form, ins);   // forward 1-17
    lstmWeights(m, 3, 4, 4, form, ins);   // backward 18-34
    for (int state = 0; state < 4; ++state) ins.push_back(m.state({2, 4}));   // 35-38
    for (int aux = 39; aux < 48; ++aux) ins.push_back(-1);
    const int32_t fw = m.output({2, 3, 4}), bw = m.output({2, 3, 4});
    m.g.op(fb::BuiltinOperator_BIDIRECTIONAL_SEQUENCE_LSTM, ins, {fw, bw},
           fb::BuiltinOptions_BidirectionalSequenceLSTMOptions, [](flatbuffers::FlatBufferBuilder& fbb) {
               return fb::CreateBidirectionalSequenceLSTMOptions(fbb, Act::ActivationFunctionType_TANH, 0.0f, 0.0f, false,
                                                                 false)
                       .Union();
           });
    expectSteps(m, false, kLstmUlps);
}
REAL_TFLITE_TEST(BidirectionalSequenceRnnCarriesState) {
    REQUIRE();
    RecurrentModel m;
    const int32_t in = m.input({2, 3, 4});
    std::vector<int32_t> ins = {in};
    for (int direction = 0; direction < 2; ++direction) {
        for (const int32_t t : {m.weights({5, 4}), m.weights({5, 5}), m.weights({5}), m.state({2, 5})}) ins.push_back(t);
    }
    for (int aux = 0; aux < 3; ++aux) ins.push_back(-1);
    const int32_t fw = m.output({2, 3, 5}), bw = m.output({2, 3, 5});
    m.g.op(fb::BuiltinOperator_BIDIRECTIONAL_SEQUENCE_RNN, ins, {fw, bw},
           fb::BuiltinOptions_BidirectionalSequenceRNNOptions, [](flatbuffers::FlatBufferBuilder& fbb) {
               return fb::CreateBidirectionalSequenceRNNOptions(fbb, false, Act::ActivationFunctionType_RELU, false).Union();
           });
    expectSteps(m, false);
}

// ---- Refused forms and malformed nodes: clean errors in every mode.
REAL_TFLITE_TEST(MissingStateRefused) {
    GraphBuilder g;
    const int32_t in = g.tensor({2, 3}, fb::TensorType_FLOAT32);
    const int32_t w = g.tensor({4, 3}, fb::TensorType_FLOAT32, rampBytes<float>(12, -1, 1));
    const int32_t r = g.tensor({4, 4}, fb::TensorType_FLOAT32, rampBytes<float>(16, -1, 1));
    const int32_t b = g.tensor({4}, fb::TensorType_FLOAT32, rampBytes<float>(4, -1, 1));
    const int32_t out = g.tensor({2, 4}, fb::TensorType_FLOAT32);
    g.inputs = {in};
    g.outputs = {out};
    g.op(fb::BuiltinOperator_RNN, {in, w, r, b, -1}, {out}, fb::BuiltinOptions_RNNOptions,
         [](flatbuffers::FlatBufferBuilder& fbb) { return fb::CreateRNNOptions(fbb).Union(); });
    expectModelRefused(g, "input 4 is absent");
}
REAL_TFLITE_TEST(NonVariableStateRefused) {
    GraphBuilder g;
    const int32_t in = g.tensor({2, 3}, fb::TensorType_FLOAT32);
    const int32_t state = g.tensor({2, 4}, fb::TensorType_FLOAT32);
    const int32_t w = g.tensor({4, 3}, fb::TensorType_FLOAT32, rampBytes<float>(12, -1, 1));
    const int32_t r = g.tensor({4, 4}, fb::TensorType_FLOAT32, rampBytes<float>(16, -1, 1));
    const int32_t b = g.tensor({4}, fb::TensorType_FLOAT32, rampBytes<float>(4, -1, 1));
    const int32_t out = g.tensor({2, 4}, fb::TensorType_FLOAT32);
    g.inputs = {in, state};
    g.outputs = {out};
    g.op(fb::BuiltinOperator_RNN, {in, w, r, b, state}, {out}, fb::BuiltinOptions_RNNOptions,
         [](flatbuffers::FlatBufferBuilder& fbb) { return fb::CreateRNNOptions(fbb).Union(); });
    expectModelRefused(g, "state input 4 is not a variable tensor");
}
REAL_TFLITE_TEST(WrongStateShapeRefused) {
    RecurrentModel m;
    const int32_t in = m.input({2, 3});
    const int32_t w = m.weights({4, 3}), r = m.weights({4, 4}), b = m.weights({4});
    const int32_t h = m.state({2, 5});   // 5 units where the weights have 4
    const int32_t out = m.output({2, 4});
    m.g.op(fb::BuiltinOperator_RNN, {in, w, r, b, h}, {out}, fb::BuiltinOptions_RNNOptions,
           [](flatbuffers::FlatBufferBuilder& fbb) { return fb::CreateRNNOptions(fbb).Union(); });
    expectModelRefused(m.g, "operator RNN at node 0: state input 4 must have shape [2, 4]");
}
REAL_TFLITE_TEST(SvdfRankNotDividingRefused) {
    GraphBuilder g;
    const int32_t in = g.tensor({1, 3}, fb::TensorType_FLOAT32);
    const int32_t wf = g.tensor({3, 3}, fb::TensorType_FLOAT32, rampBytes<float>(9, -1, 1));
    const int32_t wt = g.tensor({3, 4}, fb::TensorType_FLOAT32, rampBytes<float>(12, -1, 1));
    const int32_t s = g.variable({1, 12}, fb::TensorType_FLOAT32);
    const int32_t out = g.tensor({1, 3}, fb::TensorType_FLOAT32);
    g.inputs = {in};
    g.outputs = {out};
    g.op(fb::BuiltinOperator_SVDF, {in, wf, wt, -1, s}, {out}, fb::BuiltinOptions_SVDFOptions,
         [](flatbuffers::FlatBufferBuilder& fbb) { return fb::CreateSVDFOptions(fbb, 2).Union(); });
    expectModelRefused(g, "rank 2 does not divide the 3 filters");
}
REAL_TFLITE_TEST(LstmWrongInputCountRefused) {
    GraphBuilder g;
    const int32_t in = g.tensor({1, 2}, fb::TensorType_FLOAT32);
    const int32_t out = g.tensor({1, 3}, fb::TensorType_FLOAT32);
    g.inputs = {in};
    g.outputs = {out};
    g.op(fb::BuiltinOperator_LSTM, {in, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}, {out},
         fb::BuiltinOptions_LSTMOptions, [](flatbuffers::FlatBufferBuilder& fbb) { return fb::CreateLSTMOptions(fbb).Union(); });
    expectModelRefused(g, "has 12 inputs, which is not a known form");
}
REAL_TFLITE_TEST(HybridRnnRefusedByName) {
    GraphBuilder g;
    const int32_t in = g.tensor({2, 3}, fb::TensorType_FLOAT32);
    const int32_t w = g.tensor({4, 3}, fb::TensorType_INT8, rampBytes<int8_t>(12, -100, 100), {0.01f}, {0});
    const int32_t r = g.tensor({4, 4}, fb::TensorType_INT8, rampBytes<int8_t>(16, -100, 100), {0.01f}, {0});
    const int32_t b = g.tensor({4}, fb::TensorType_FLOAT32, rampBytes<float>(4, -1, 1));
    const int32_t h = g.variable({2, 4}, fb::TensorType_FLOAT32);
    const int32_t out = g.tensor({2, 4}, fb::TensorType_FLOAT32);
    g.inputs = {in};
    g.outputs = {out};
    g.op(fb::BuiltinOperator_RNN, {in, w, r, b, h}, {out}, fb::BuiltinOptions_RNNOptions,
         [](flatbuffers::FlatBufferBuilder& fbb) { return fb::CreateRNNOptions(fbb).Union(); });
    expectModelRefused(g, "the hybrid form (8-bit weights, float activations) is not supported");
}

}  // namespace
}  // namespace nnemu::tflite::test
