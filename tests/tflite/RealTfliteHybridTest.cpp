// Hybrid FULLY_CONNECTED, CONV_2D and DEPTHWISE_CONV_2D (TFLite's dynamic-range quantization: float activations,
// int8 weights with a scale per tensor or per output channel, float bias) against real TFLite
// 2.21's builtin kernels: inputs quantized on the fly, integer dot products scaled back to float.
#include "RealTfliteOps.h"

namespace nnemu::tflite::test {
namespace {

#define REAL_TFLITE_TEST(name) TEST(RealTfliteHybrid, name)
#define REQUIRE() NNEMU_REQUIRE_REAL_TFLITE()

GraphBuilder::Options fullyConnected(fb::ActivationFunctionType act, bool keepNumDims = false,
                                     bool asymmetricInputs = false) {
    return [=](flatbuffers::FlatBufferBuilder& b) {
        return fb::CreateFullyConnectedOptions(b, act, fb::FullyConnectedOptionsWeightsFormat_DEFAULT, keepNumDims,
                                               asymmetricInputs)
                .Union();
    };
}

// input [rows, depth] float, weights [units, depth] int8 (per-tensor scale, or one per unit),
// bias [units] float (or none), output float.
GraphBuilder hybridFc(int32_t rows, int32_t depth, int32_t units, bool perChannel, bool bias,
                      fb::ActivationFunctionType act, bool asymmetricInputs) {
    GraphBuilder g;
    const int32_t in = g.tensor({rows, depth}, fb::TensorType_FLOAT32);
    std::vector<float> scales{0.02f};
    if (perChannel) {
        scales.clear();
        for (int32_t u = 0; u < units; ++u) scales.push_back(0.005f + 0.003f * static_cast<float>(u));
    }
    const int32_t w = g.tensor({units, depth}, fb::TensorType_INT8, rampBytes<int8_t>(size_t(units) * depth, -127, 127),
                               scales, std::vector<int64_t>(scales.size(), 0));
    const int32_t b = bias ? g.tensor({units}, fb::TensorType_FLOAT32, rampBytes<float>(size_t(units), -1, 1)) : -1;
    const int32_t out = g.tensor({rows, units}, fb::TensorType_FLOAT32);
    g.op(fb::BuiltinOperator_FULLY_CONNECTED, {in, w, b}, {out}, fb::BuiltinOptions_FullyConnectedOptions,
         fullyConnected(act, false, asymmetricInputs));
    g.inputs = {in};
    g.outputs = {out};
    return g;
}

std::vector<uint8_t> rows(int32_t count, int32_t depth) {
    std::vector<float> values(size_t(count) * depth);
    for (size_t i = 0; i < values.size(); ++i) values[i] = std::sin(0.37 * static_cast<double>(i)) * (1 + i % 5);
    if (count > 1) std::fill(values.begin() + depth, values.begin() + 2 * depth, 0.0f);  // an all-zero row
    return GraphBuilder::bytes(values);
}

REAL_TFLITE_TEST(FullyConnectedPerTensor) {
    REQUIRE();
    expectSameAsRealTflite(hybridFc(3, 20, 7, false, true, fb::ActivationFunctionType_NONE, false), {rows(3, 20)});
}
REAL_TFLITE_TEST(FullyConnectedPerChannelRelu) {
    REQUIRE();
    expectSameAsRealTflite(hybridFc(4, 33, 9, true, true, fb::ActivationFunctionType_RELU, false), {rows(4, 33)});
}
REAL_TFLITE_TEST(FullyConnectedAsymmetricInputs) {
    REQUIRE();
    expectSameAsRealTflite(hybridFc(3, 40, 6, false, true, fb::ActivationFunctionType_NONE, true), {rows(3, 40)});
    expectSameAsRealTflite(hybridFc(2, 16, 5, true, false, fb::ActivationFunctionType_RELU6, true), {rows(2, 16)});
}

// Rows holding an infinity or a NaN (the fuzzer's byte patterns make them): their range is not
// finite, and TFLite's cast of the scaled values to int32 is x86's (INT32_MIN, clamped).
std::vector<uint8_t> rowsWithNonFinite(int32_t count, int32_t depth) {
    std::vector<float> values(size_t(count) * depth);
    for (size_t i = 0; i < values.size(); ++i) values[i] = std::cos(0.29 * static_cast<double>(i)) * (1 + i % 3);
    values[3] = std::numeric_limits<float>::infinity();
    values[size_t(depth) + 5] = -std::numeric_limits<float>::infinity();
    values[2 * size_t(depth) + 1] = std::numeric_limits<float>::quiet_NaN();
    return GraphBuilder::bytes(values);
}

REAL_TFLITE_TEST(FullyConnectedNonFiniteInputs) {
    REQUIRE();
    expectSameAsRealTflite(hybridFc(4, 24, 5, false, true, fb::ActivationFunctionType_NONE, false), {rowsWithNonFinite(4, 24)});
    expectSameAsRealTflite(hybridFc(4, 24, 5, true, true, fb::ActivationFunctionType_NONE, true), {rowsWithNonFinite(4, 24)});
    expectSameAsRealTflite(hybridFc(4, 24, 5, false, true, fb::ActivationFunctionType_RELU, true), {rowsWithNonFinite(4, 24)});
}

// CONV_2D: input [batch, h, w, c] float, filter [out, kh, kw, c] int8 per tensor (symmetric
// input quantization per image) or per output channel (asymmetric, the zero point standing for
// the padding), float bias.
GraphBuilder hybridConv(std::vector<int32_t> input, std::vector<int32_t> filter, bool perChannel, fb::Padding padding,
                        int32_t stride, fb::ActivationFunctionType act, std::vector<int32_t> output) {
    GraphBuilder g;
    const int32_t in = g.tensor(input, fb::TensorType_FLOAT32);
    std::vector<float> scales{0.03f};
    if (perChannel) {
        scales.clear();
        for (int32_t c = 0; c < filter[0]; ++c) scales.push_back(0.01f + 0.004f * static_cast<float>(c));
    }
    const size_t weights = size_t(filter[0]) * filter[1] * filter[2] * filter[3];
    const int32_t w = g.tensor(filter, fb::TensorType_INT8, rampBytes<int8_t>(weights, -127, 127), scales,
                               std::vector<int64_t>(scales.size(), 0));
    const int32_t b = g.tensor({filter[0]}, fb::TensorType_FLOAT32, rampBytes<float>(size_t(filter[0]), -0.5, 0.5));
    const int32_t out = g.tensor(output, fb::TensorType_FLOAT32);
    g.op(fb::BuiltinOperator_CONV_2D, {in, w, b}, {out}, fb::BuiltinOptions_Conv2DOptions,
         [=](flatbuffers::FlatBufferBuilder& fbb) {
             return fb::CreateConv2DOptions(fbb, padding, stride, stride, act).Union();
         });
    g.inputs = {in};
    g.outputs = {out};
    return g;
}

std::vector<uint8_t> image(const std::vector<int32_t>& shape) {
    size_t count = 1;
    for (int32_t d : shape) count *= size_t(d);
    std::vector<float> values(count);
    for (size_t i = 0; i < count; ++i) values[i] = std::sin(0.23 * static_cast<double>(i)) * 2 + 0.3;
    return GraphBuilder::bytes(values);
}

REAL_TFLITE_TEST(Conv2DPerTensorSame) {
    REQUIRE();
    expectSameAsRealTflite(hybridConv({2, 7, 7, 3}, {5, 3, 3, 3}, false, fb::Padding_SAME, 1,
                                      fb::ActivationFunctionType_NONE, {2, 7, 7, 5}),
                           {image({2, 7, 7, 3})});
}
REAL_TFLITE_TEST(Conv2DPerChannelStride2Relu6) {
    REQUIRE();
    expectSameAsRealTflite(hybridConv({1, 9, 8, 4}, {6, 3, 3, 4}, true, fb::Padding_SAME, 2,
                                      fb::ActivationFunctionType_RELU6, {1, 5, 4, 6}),
                           {image({1, 9, 8, 4})});
}
REAL_TFLITE_TEST(Conv2DPerChannelValid) {
    REQUIRE();
    expectSameAsRealTflite(hybridConv({2, 6, 6, 8}, {4, 1, 1, 8}, true, fb::Padding_VALID, 1,
                                      fb::ActivationFunctionType_RELU, {2, 6, 6, 4}),
                           {image({2, 6, 6, 8})});
}

// DEPTHWISE_CONV_2D: filter [1, kh, kw, channels x multiplier] int8 with one scale per output
// channel, float bias.
GraphBuilder hybridDepthwise(std::vector<int32_t> input, int32_t kernel, int32_t multiplier, fb::Padding padding,
                             int32_t stride, int32_t dilation, fb::ActivationFunctionType act,
                             std::vector<int32_t> output) {
    GraphBuilder g;
    const int32_t in = g.tensor(input, fb::TensorType_FLOAT32);
    const int32_t channels = input[3] * multiplier;
    std::vector<float> scales;
    for (int32_t c = 0; c < channels; ++c) scales.push_back(0.01f + 0.005f * static_cast<float>(c));
    const int32_t w = g.tensor({1, kernel, kernel, channels}, fb::TensorType_INT8,
                               rampBytes<int8_t>(size_t(kernel) * kernel * channels, -127, 127), scales,
                               std::vector<int64_t>(scales.size(), 0), 3);
    const int32_t b = g.tensor({channels}, fb::TensorType_FLOAT32, rampBytes<float>(size_t(channels), -0.5, 0.5));
    const int32_t out = g.tensor(output, fb::TensorType_FLOAT32);
    g.op(fb::BuiltinOperator_DEPTHWISE_CONV_2D, {in, w, b}, {out}, fb::BuiltinOptions_DepthwiseConv2DOptions,
         [=](flatbuffers::FlatBufferBuilder& fbb) {
             return fb::CreateDepthwiseConv2DOptions(fbb, padding, stride, stride, multiplier, act, dilation, dilation)
                     .Union();
         });
    g.inputs = {in};
    g.outputs = {out};
    return g;
}

REAL_TFLITE_TEST(DepthwiseSame) {
    REQUIRE();
    expectSameAsRealTflite(hybridDepthwise({2, 7, 7, 5}, 3, 1, fb::Padding_SAME, 1, 1,
                                           fb::ActivationFunctionType_NONE, {2, 7, 7, 5}),
                           {image({2, 7, 7, 5})});
}
REAL_TFLITE_TEST(DepthwiseStride2MultiplierRelu6) {
    REQUIRE();
    expectSameAsRealTflite(hybridDepthwise({1, 9, 8, 3}, 3, 2, fb::Padding_SAME, 2, 1,
                                           fb::ActivationFunctionType_RELU6, {1, 5, 4, 6}),
                           {image({1, 9, 8, 3})});
}
REAL_TFLITE_TEST(DepthwiseValidDilated) {
    REQUIRE();
    expectSameAsRealTflite(hybridDepthwise({1, 10, 10, 4}, 3, 1, fb::Padding_VALID, 1, 2,
                                           fb::ActivationFunctionType_RELU, {1, 6, 6, 4}),
                           {image({1, 10, 10, 4})});
}

// Images with an infinity in the first, a NaN in the second (per image: the quantization's range).
std::vector<uint8_t> imageWithNonFinite(const std::vector<int32_t>& shape) {
    std::vector<uint8_t> bytes = image(shape);
    std::vector<float> values(bytes.size() / sizeof(float));
    std::memcpy(values.data(), bytes.data(), bytes.size());
    const size_t perImage = values.size() / size_t(shape[0]);
    values[7] = std::numeric_limits<float>::infinity();
    if (shape[0] > 1) values[perImage + 11] = std::numeric_limits<float>::quiet_NaN();
    return GraphBuilder::bytes(values);
}

REAL_TFLITE_TEST(ConvolutionsNonFiniteInputs) {
    REQUIRE();
    expectSameAsRealTflite(hybridConv({2, 7, 7, 3}, {5, 3, 3, 3}, false, fb::Padding_SAME, 1,
                                      fb::ActivationFunctionType_NONE, {2, 7, 7, 5}),
                           {imageWithNonFinite({2, 7, 7, 3})});
    expectSameAsRealTflite(hybridConv({2, 6, 6, 8}, {4, 1, 1, 8}, true, fb::Padding_VALID, 1,
                                      fb::ActivationFunctionType_NONE, {2, 6, 6, 4}),
                           {imageWithNonFinite({2, 6, 6, 8})});
    expectSameAsRealTflite(hybridDepthwise({2, 7, 7, 5}, 3, 1, fb::Padding_SAME, 1, 1,
                                           fb::ActivationFunctionType_NONE, {2, 7, 7, 5}),
                           {imageWithNonFinite({2, 7, 7, 5})});
    expectSameAsRealTflite(hybridConv({2, 7, 7, 3}, {5, 3, 3, 3}, true, fb::Padding_SAME, 1,
                                      fb::ActivationFunctionType_RELU, {2, 7, 7, 5}),
                           {imageWithNonFinite({2, 7, 7, 3})});
    expectSameAsRealTflite(hybridDepthwise({2, 7, 7, 5}, 3, 1, fb::Padding_SAME, 1, 1,
                                           fb::ActivationFunctionType_RELU6, {2, 7, 7, 5}),
                           {imageWithNonFinite({2, 7, 7, 5})});
}

// How many delegate kernels real TFLite's delegate made (its log): 1 for the whole graph.
int realDelegateKernels(const std::string& log) {
    if (log.find("completely executed by the delegate") != std::string::npos) return 1;
    const std::string partial = "partially executed by the delegate w/ ";
    const size_t at = log.find(partial);
    return at == std::string::npos ? 0 : std::atoi(log.c_str() + at + partial.size());
}

// TFLite's delegate lowers hybrid FULLY_CONNECTED and CONV_2D (DEQUANTIZE of the weights, then
// the float operation): nnemu's tools delegate as many kernels as real TFLite's delegate on
// nnemu's library on each device, and a delegated mode gives what TFLite's delegate gives
// (expectSameAsRealTflite).
REAL_TFLITE_TEST(DelegatedAsTflitesDelegate) {
    REQUIRE();
    const std::pair<GraphBuilder, std::vector<uint8_t>> cases[] = {
            {hybridFc(3, 20, 7, false, true, fb::ActivationFunctionType_NONE, false), rows(3, 20)},
            {hybridFc(4, 33, 9, true, true, fb::ActivationFunctionType_RELU, false), rows(4, 33)},
            {hybridConv({1, 9, 8, 4}, {6, 3, 3, 4}, true, fb::Padding_SAME, 2, fb::ActivationFunctionType_RELU6,
                        {1, 5, 4, 6}),
             image({1, 9, 8, 4})}};
    for (const auto& [graph, input] : cases) {
        const std::vector<uint8_t> bytes = graph.buildBytes();
        const std::unique_ptr<Model> model = expectValue(Model::fromBuffer(bytes));
        ASSERT_NE(model, nullptr);
        for (const char* device : {"nnapi-reference", "synap-npu"}) {
            SCOPED_TRACE(device);
            const RealTfliteResult real = runRealTfliteNnapi(bytes, *model, {input}, device);
            ASSERT_TRUE(real.ok) << real.log;
            DelegateOptions options;
            options.useNnapi = true;
            options.acceleratorName = device;
            options.disableNnapiCpu = false;
            const std::unique_ptr<Interpreter> interpreter = expectValue(Interpreter::create(*model, options));
            ASSERT_NE(interpreter, nullptr);
            int delegated = 0;
            for (const Partition& partition : interpreter->partitions()) delegated += partition.delegated ? 1 : 0;
            // nnapi-reference takes the node (synap-npu claims no DEQUANTIZE of int8 weights).
            if (std::string(device) == "nnapi-reference") {
                EXPECT_EQ(delegated, 1);
            }
            EXPECT_EQ(delegated, realDelegateKernels(real.log)) << real.log;
        }
        expectSameAsRealTflite(graph, {input});
    }
}

// Weights with a zero point, or a tanh fused in: refused by name, cleanly.
TEST(HybridMalformed, RefusedByName) {
    GraphBuilder zeroPoint;
    const int32_t in = zeroPoint.tensor({1, 4}, fb::TensorType_FLOAT32);
    const int32_t w = zeroPoint.tensor({2, 4}, fb::TensorType_INT8, rampBytes<int8_t>(8, -100, 100), {0.1f}, {3});
    const int32_t out = zeroPoint.tensor({1, 2}, fb::TensorType_FLOAT32);
    zeroPoint.op(fb::BuiltinOperator_FULLY_CONNECTED, {in, w, -1}, {out}, fb::BuiltinOptions_FullyConnectedOptions,
                 fullyConnected(fb::ActivationFunctionType_NONE));
    zeroPoint.inputs = {in};
    zeroPoint.outputs = {out};
    expectModelRefused(zeroPoint, "hybrid weights must have zero point 0");

    GraphBuilder tanh;
    const int32_t x = tanh.tensor({1, 4}, fb::TensorType_FLOAT32);
    const int32_t v = tanh.tensor({2, 4}, fb::TensorType_INT8, rampBytes<int8_t>(8, -100, 100), {0.1f}, {0});
    const int32_t y = tanh.tensor({1, 2}, fb::TensorType_FLOAT32);
    tanh.op(fb::BuiltinOperator_FULLY_CONNECTED, {x, v, -1}, {y}, fb::BuiltinOptions_FullyConnectedOptions,
            fullyConnected(fb::ActivationFunctionType_TANH));
    tanh.inputs = {x};
    tanh.outputs = {y};
    expectModelRefused(tanh, "the fused activation is not supported");
}

}  // namespace
}  // namespace nnemu::tflite::test
