// nnemu_modelgen's multiplier_above_one classifiers: CONV_2D and FULLY_CONNECTED layers whose
// requantization multiplier (input x weights / output scale) is about 2, which NNAPI allows since
// feature level 29. The loader must take them, synap-npu must run them whole, and every path
// must agree with an independent double-precision evaluation of the quantized graph.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

#include "GeneratedModels.h"
#include "TestSupport.h"
#include "nnemu/modelgen/ModelCatalog.h"
#include "ResultCheck.h"

namespace nnemu::tflite::test {
namespace {

int32_t quantValue(const Tensor& tensor, size_t i) {
    return tensor.type == ElementType::INT8 ? static_cast<int8_t>(tensor.data[i]) : tensor.data[i];
}

float weightScale(const Tensor& weights, size_t channel) {
    return weights.isPerChannel() ? weights.channelScales[channel] : weights.scale;
}

// The requantization multipliers of one layer, in double from the float scales.
std::vector<double> multipliers(const Model& model, const Node& node) {
    const Tensor& in = model.tensors()[node.inputs[0]];
    const Tensor& weights = model.tensors()[node.inputs[1]];
    const Tensor& out = model.tensors()[node.outputs[0]];
    std::vector<double> result;
    for (int32_t c = 0; c < weights.shape[0]; ++c) {
        result.push_back(double{in.scale} * weightScale(weights, static_cast<size_t>(c)) / out.scale);
    }
    return result;
}

// Every layer of these models reads its whole input per output channel (an 8x8 VALID
// convolution on an 8x8 image, then 1x1 ones on a 1x1 image): out[c] = sum_i w[c][i] * in[i] + bias[c],
// evaluated on the real values the integers stand for, rounded once and clamped to ReLU6.
std::vector<int32_t> denseLayer(const Model& model, const Node& node, const std::vector<int32_t>& input) {
    const Tensor& in = model.tensors()[node.inputs[0]];
    const Tensor& weights = model.tensors()[node.inputs[1]];
    const Tensor& bias = model.tensors()[node.inputs[2]];
    const Tensor& out = model.tensors()[node.outputs[0]];
    const size_t channels = static_cast<size_t>(weights.shape[0]);
    const size_t fanIn = weights.dataSize / channels;
    EXPECT_EQ(fanIn, input.size()) << node.opName;
    const int32_t qmin = out.type == ElementType::INT8 ? -128 : 0;
    const int32_t low = std::max(qmin, out.zeroPoint);
    const int32_t high = std::min(qmin + 255, out.zeroPoint + static_cast<int32_t>(std::lround(6.0 / out.scale)));
    std::vector<int32_t> result(channels);
    for (size_t c = 0; c < channels; ++c) {
        const double wScale = weightScale(weights, c);
        const int32_t wZero = weights.isPerChannel() ? 0 : weights.zeroPoint;
        int32_t biasValue;
        std::memcpy(&biasValue, bias.data + 4 * c, 4);
        double real = biasValue * double{in.scale} * wScale;
        for (size_t i = 0; i < fanIn; ++i) {
            real += (double{in.scale} * (input[i] - in.zeroPoint)) * (wScale * (quantValue(weights, c * fanIn + i) - wZero));
        }
        const long q = std::lround(real / out.scale) + out.zeroPoint;
        result[c] = static_cast<int32_t>(std::clamp<long>(q, low, high));
    }
    return result;
}

std::vector<int32_t> independentScores(const Model& model, const std::vector<int32_t>& input) {
    std::vector<int32_t> values = input;
    for (const Node& node : model.nodes()) values = denseLayer(model, node, values);
    return values;
}

// A deterministic image in the input's quantized type; `pattern` picks one of several.
std::vector<int32_t> inputPattern(const Tensor& tensor, int pattern) {
    const size_t count = tensor.byteSize() / elementSize(tensor.type);
    const int32_t qmin = tensor.type == ElementType::INT8 ? -128 : 0;
    std::vector<int32_t> values(count);
    for (size_t k = 0; k < count; ++k) {
        const double unit = std::sin(static_cast<double>(k) * (0.21 + 0.17 * pattern) + 0.9 * pattern);
        values[k] = qmin + static_cast<int32_t>(std::lround(127.5 + 127.5 * unit));
    }
    return values;
}

std::vector<int32_t> run(const Model& model, const DelegateOptions& options, const std::vector<int32_t>& input,
                         size_t expectDelegated) {
    std::unique_ptr<Interpreter> interpreter = makeInterpreter(model, options);
    if (interpreter == nullptr) return {};
    EXPECT_EQ(interpreter->delegatedNodeCount(), expectDelegated) << options.acceleratorName;
    for (size_t k = 0; k < input.size(); ++k) interpreter->inputData(0)[k] = static_cast<uint8_t>(input[k]);
    EXPECT_TRUE(isOk(interpreter->invoke()));
    const Tensor& out = interpreter->outputTensor(0);
    std::vector<int32_t> scores(out.byteSize());
    for (size_t k = 0; k < scores.size(); ++k) {
        const uint8_t byte = interpreter->outputData(0)[k];
        scores[k] = out.type == ElementType::INT8 ? static_cast<int8_t>(byte) : byte;
    }
    return scores;
}

size_t topClass(const std::vector<int32_t>& scores) {
    return static_cast<size_t>(std::max_element(scores.begin(), scores.end()) - scores.begin());
}

class MultiplierAboveOne : public testing::TestWithParam<std::string> {};

TEST_P(MultiplierAboveOne, LayersRequantizeByMoreThanOne) {
    std::unique_ptr<Model> model = generatedModel(GetParam());
    ASSERT_NE(model, nullptr);
    ASSERT_EQ(model->nodes().size(), 4u);
    // stem and project scale down as usual; expand (CONV_2D) and scores (FULLY_CONNECTED) up.
    for (size_t n : {0, 2}) {
        for (double m : multipliers(*model, model->nodes()[n])) EXPECT_LT(m, 1.0) << n;
    }
    for (size_t n : {1, 3}) {
        for (double m : multipliers(*model, model->nodes()[n])) {
            EXPECT_GT(m, 1.9) << model->nodes()[n].opName;
            EXPECT_LT(m, 2.1) << model->nodes()[n].opName;
        }
    }
    EXPECT_EQ(model->nodes()[1].opName, "CONV_2D");
    EXPECT_EQ(model->nodes()[3].opName, "FULLY_CONNECTED");
}

TEST_P(MultiplierAboveOne, EveryPathGivesTheIndependentTopClass) {
    std::unique_ptr<Model> model = generatedModel(GetParam());
    ASSERT_NE(model, nullptr);
    const std::vector<RunMode> modes = runModes();   // the CPU path and the delegate on nnapi-reference
    DelegateOptions npu;
    npu.useNnapi = true;
    npu.acceleratorName = "synap-npu";
    std::set<size_t> classes;
    for (int pattern = 0; pattern < 6; ++pattern) {
        const std::vector<int32_t> input = inputPattern(model->tensors()[model->inputs()[0]], pattern);
        const std::vector<int32_t> expected = independentScores(*model, input);
        ASSERT_EQ(expected.size(), 10u);
        std::vector<int32_t> sorted = expected;
        std::sort(sorted.rbegin(), sorted.rend());
        ASSERT_GT(sorted[0], sorted[1] + 2) << "pattern " << pattern << ": no clear top class";
        classes.insert(topClass(expected));
        const std::vector<int32_t> cpu = run(*model, modes[0].options, input, 0);
        const std::vector<int32_t> reference = run(*model, modes[1].options, input, 4);
        const std::vector<int32_t> synap = run(*model, npu, input, 4);   // synap-npu claims every layer
        ASSERT_EQ(cpu.size(), expected.size());
        EXPECT_EQ(reference, cpu) << "pattern " << pattern;
        for (size_t k = 0; k < expected.size(); ++k) {
            EXPECT_NEAR(cpu[k], expected[k], 1) << "pattern " << pattern << " class " << k;
            EXPECT_NEAR(synap[k], expected[k], 1) << "pattern " << pattern << " class " << k;
        }
        EXPECT_EQ(topClass(cpu), topClass(expected)) << "pattern " << pattern;
        EXPECT_EQ(topClass(synap), topClass(expected)) << "pattern " << pattern;
    }
    EXPECT_GT(classes.size(), 1u) << "every input lands in the same class";
}

INSTANTIATE_TEST_SUITE_P(Flavors, MultiplierAboveOne,
                         testing::Values("multiplier_above_one_quant", "multiplier_above_one_int8"));

}  // namespace
}  // namespace nnemu::tflite::test
