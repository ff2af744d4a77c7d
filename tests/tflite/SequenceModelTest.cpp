// The generated sequence models against a step-by-step computation in the test from their
// weights: the TFLite -> NNAPI operand order of the sequence operators (input, weights,
// recurrent weights, biases, zero initial state) on both the CPU path and the delegate.
#include <cmath>

#include "DenseReference.h"
#include "GeneratedModels.h"
#include "TestSupport.h"
#include "nnemu/modelgen/ModelCatalog.h"
#include "ResultCheck.h"

namespace nnemu::tflite::test {
namespace {

constexpr size_t kSteps = 6, kInputs = 4, kUnits = 8;

std::vector<float> sequenceInput() {
    std::vector<float> x(kSteps * kInputs);
    for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.7f * static_cast<float>(i) + 0.3f);
    return x;
}

// weights [units, columns] times v, plus into out.
void multiplyAdd(const std::vector<float>& weights, const float* v, size_t columns, float* out) {
    for (size_t u = 0; u < kUnits; ++u) {
        for (size_t k = 0; k < columns; ++k) out[u] += weights[u * columns + k] * v[k];
    }
}

std::vector<float> runModel(const Model& model, const DelegateOptions& options, const std::vector<float>& input) {
    std::unique_ptr<Interpreter> interpreter = makeInterpreter(model, options);
    if (interpreter == nullptr) return {};
    std::memcpy(interpreter->inputData(0), input.data(), input.size() * 4);
    EXPECT_TRUE(isOk(interpreter->invoke()));
    return realValues(interpreter->outputTensor(0), interpreter->outputData(0));
}

void expectOutputs(const Model& model, const std::vector<float>& expected) {
    for (const RunMode& mode : runModes()) {
        // Twice: the state starts from zeros at every invocation.
        for (int invocation = 0; invocation < 2; ++invocation) {
            const std::vector<float> got = runModel(model, mode.options, sequenceInput());
            ASSERT_EQ(got.size(), expected.size()) << mode.name;
            for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], 1e-5f) << mode.name << " " << i;
        }
    }
}

TEST(SequenceModel, RnnMatchesStepByStep) {
    std::unique_ptr<Model> model = generatedModel("sequence_rnn_float");
    ASSERT_NE(model, nullptr);
    const std::vector<float> w = constantValues(*model, "rnn/input_weights");
    const std::vector<float> r = constantValues(*model, "rnn/recurrent_weights");
    const std::vector<float> b = constantValues(*model, "rnn/bias");
    ASSERT_TRUE(w.size() == kUnits * kInputs && r.size() == kUnits * kUnits && b.size() == kUnits);
    const std::vector<float> x = sequenceInput();
    std::vector<float> h(kUnits, 0.0f), expected;
    for (size_t t = 0; t < kSteps; ++t) {
        std::vector<float> next = b;
        multiplyAdd(w, &x[t * kInputs], kInputs, next.data());
        multiplyAdd(r, h.data(), kUnits, next.data());
        for (float& v : next) v = std::clamp(v, 0.0f, 6.0f);   // RELU6
        h = next;
        expected.insert(expected.end(), h.begin(), h.end());
    }
    float spread = 0;
    for (float v : expected) spread = std::max(spread, v);
    ASSERT_GT(spread, 0.1f) << "the reference is all zeros";
    expectOutputs(*model, expected);
}

TEST(SequenceModel, LstmMatchesStepByStep) {
    std::unique_ptr<Model> model = generatedModel("sequence_lstm_float");
    ASSERT_NE(model, nullptr);
    const char* gates[] = {"input", "forget", "cell", "output"};
    std::vector<float> w[4], r[4], b[4];
    for (int g = 0; g < 4; ++g) {
        w[g] = constantValues(*model, std::string("lstm/") + gates[g] + "_weights");
        r[g] = constantValues(*model, std::string("lstm/") + gates[g] + "_recurrent_weights");
        b[g] = constantValues(*model, std::string("lstm/") + gates[g] + "_bias");
        ASSERT_TRUE(w[g].size() == kUnits * kInputs && r[g].size() == kUnits * kUnits && b[g].size() == kUnits) << gates[g];
    }
    const auto sigmoid = [](float v) { return 1.0f / (1.0f + std::exp(-v)); };
    const std::vector<float> x = sequenceInput();
    std::vector<float> h(kUnits, 0.0f), c(kUnits, 0.0f), expected;
    for (size_t t = 0; t < kSteps; ++t) {
        std::vector<float> gate[4];
        for (int g = 0; g < 4; ++g) {
            gate[g] = b[g];
            multiplyAdd(w[g], &x[t * kInputs], kInputs, gate[g].data());
            multiplyAdd(r[g], h.data(), kUnits, gate[g].data());
        }
        for (size_t u = 0; u < kUnits; ++u) {
            c[u] = sigmoid(gate[1][u]) * c[u] + sigmoid(gate[0][u]) * std::tanh(gate[2][u]);
            h[u] = sigmoid(gate[3][u]) * std::tanh(c[u]);
        }
        expected.insert(expected.end(), h.begin(), h.end());
    }
    expectOutputs(*model, expected);
}

}  // namespace
}  // namespace nnemu::tflite::test
