// Float CONV_2D, FULLY_CONNECTED and DEPTHWISE_CONV_2D on the CPU path give real TensorFlow Lite
// 2.21's bits exactly (src/cpu/FloatGemmEigen.h, FloatConv.cpp): over shapes that reach every
// summation order of TFLite's Eigen GEMM (channels in groups of 8, a group of 4, the last 1-3;
// pixels in groups of 4 and the last ones; depths around the depth block this machine's L1 cache
// gives, and across two and three blocks; one pixel, one channel, both, and the tiny products),
// with im2col (strides, padding, dilation), activations, and FULLY_CONNECTED without a bias (TFLite
// 2.21's float CONV_2D refuses a missing bias at prepare, its DEPTHWISE_CONV_2D crashes without one). Each model is compared
// byte for byte with tflite_run --xnnpack=0 on the CPU path (the delegated modes compute NNAPI's
// semantics: RealTfliteDiffConvTest.cpp checks them).
#include "RealTfliteOps.h"
#include "cpu/FloatGemmEigen.h"

namespace nnemu::tflite::test {
namespace {

#define REAL_TFLITE_TEST(name) TEST(RealTfliteFloatConv, name)
#define REQUIRE() NNEMU_REQUIRE_REAL_TFLITE()

// Eigen's largest depth block on this machine (from the L1 data cache size, as TFLite reads it).
int32_t maxDepthBlock() {
    const size_t huge = 1 << 20;
    return static_cast<int32_t>(kernels::floatgemm::depthBlock(huge, 64, 64, kernels::floatgemm::eigenL1CacheBytes()));
}

struct Gemm {
    int32_t pixels, channels, depth;
};

// Shapes over every order: the special ones, then a deterministic spread.
std::vector<Gemm> gemmShapes() {
    const int32_t kc = maxDepthBlock();
    std::vector<Gemm> shapes = {{1, 1, 37},  {1, 1, 3},   {1, 1, 19},   {1, 37, 1030}, {1, 13, 5},  {7, 1, 37},
                                {2, 3, 5},   {3, 2, 13},  {2, 2, 14},   {6, 13, kc},   {6, 13, kc + 1},
                                {9, 21, kc + 9}, {5, 12, 2 * kc + 3}, {4, 8, 3 * kc - 5}, {1, 9, 2 * kc + 1}};
    const int32_t pixels[] = {2, 3, 4, 5, 7, 8, 9, 16, 30};
    const int32_t channels[] = {2, 3, 4, 5, 8, 11, 12, 13, 15, 16, 17, 20, 24, 31, 33};
    const int32_t depths[] = {1, 3, 4, 7, 8, 9, 15, 16, 17, 27, 33, 64, 100};
    uint32_t state = 2024;
    for (int i = 0; i < 36; ++i) {
        state = state * 1664525u + 1013904223u;
        const uint32_t r = state >> 8;
        shapes.push_back({pixels[r % 9], channels[(r / 9) % 15], depths[(r / 135) % 13]});
    }
    return shapes;
}

std::string named(const Gemm& s) {
    return "pixels " + std::to_string(s.pixels) + ", channels " + std::to_string(s.channels) + ", depth " +
           std::to_string(s.depth);
}

// Values with full mantissas, so that any other order shows.
std::vector<uint8_t> fullMantissas(size_t count, double low, double high, uint32_t seed) {
    std::vector<float> values(count);
    for (float& v : values) {
        seed = seed * 1664525u + 1013904223u;
        v = static_cast<float>(low + (high - low) * ((seed >> 8) / 16777216.0));
    }
    return GraphBuilder::bytes(values);
}

void expectCpuPathExact(const GraphBuilder& g, const std::vector<std::vector<uint8_t>>& inputs) {
    expectCpuPathAsRealTflite(g.buildBytes(), inputs, 0);
}

GraphBuilder::Options conv(fb::Padding padding, int stride, fb::ActivationFunctionType act, int dilation = 1) {
    return [=](flatbuffers::FlatBufferBuilder& b) {
        return fb::CreateConv2DOptions(b, padding, stride, stride, act, dilation, dilation).Union();
    };
}

REAL_TFLITE_TEST(Conv2D1x1EveryGemmOrder) {
    REQUIRE();
    for (const Gemm& s : gemmShapes()) {
        SCOPED_TRACE(named(s));
        GraphBuilder g;
        const int32_t in = g.tensor({1, 1, s.pixels, s.depth}, fb::TensorType_FLOAT32);
        const int32_t w = g.tensor({s.channels, 1, 1, s.depth}, fb::TensorType_FLOAT32,
                                   fullMantissas(static_cast<size_t>(s.channels) * s.depth, -1, 1, 7));
        const int32_t b = g.tensor({s.channels}, fb::TensorType_FLOAT32, fullMantissas(s.channels, -1, 1, 11));
        const int32_t out = g.tensor({1, 1, s.pixels, s.channels}, fb::TensorType_FLOAT32);
        g.op(fb::BuiltinOperator_CONV_2D, {in, w, b}, {out}, fb::BuiltinOptions_Conv2DOptions,
             conv(fb::Padding_VALID, 1, fb::ActivationFunctionType_NONE));
        g.inputs = {in};
        g.outputs = {out};
        expectCpuPathExact(g, {fullMantissas(static_cast<size_t>(s.pixels) * s.depth, -3, 3, 5)});
    }
}

REAL_TFLITE_TEST(FullyConnectedEveryGemmOrder) {
    REQUIRE();
    for (const Gemm& s : gemmShapes()) {
        SCOPED_TRACE(named(s));
        GraphBuilder g;
        const int32_t in = g.tensor({s.pixels, s.depth}, fb::TensorType_FLOAT32);
        const int32_t w = g.tensor({s.channels, s.depth}, fb::TensorType_FLOAT32,
                                   fullMantissas(static_cast<size_t>(s.channels) * s.depth, -1, 1, 3));
        const int32_t b = g.tensor({s.channels}, fb::TensorType_FLOAT32, fullMantissas(s.channels, -1, 1, 13));
        const int32_t out = g.tensor({s.pixels, s.channels}, fb::TensorType_FLOAT32);
        g.op(fb::BuiltinOperator_FULLY_CONNECTED, {in, w, b}, {out}, fb::BuiltinOptions_FullyConnectedOptions,
             [](flatbuffers::FlatBufferBuilder& fbb) { return fb::CreateFullyConnectedOptions(fbb).Union(); });
        g.inputs = {in};
        g.outputs = {out};
        expectCpuPathExact(g, {fullMantissas(static_cast<size_t>(s.pixels) * s.depth, -3, 3, 17)});
    }
}

// FULLY_CONNECTED with a keep_num_dims batch, a RELU, and no bias.
REAL_TFLITE_TEST(FullyConnectedReluWithoutBias) {
    REQUIRE();
    GraphBuilder g;
    const int32_t in = g.tensor({2, 3, 40}, fb::TensorType_FLOAT32);
    const int32_t w = g.tensor({21, 40}, fb::TensorType_FLOAT32, fullMantissas(21 * 40, -1, 1, 23));
    const int32_t out = g.tensor({2, 3, 21}, fb::TensorType_FLOAT32);
    g.op(fb::BuiltinOperator_FULLY_CONNECTED, {in, w, -1}, {out}, fb::BuiltinOptions_FullyConnectedOptions,
         [](flatbuffers::FlatBufferBuilder& fbb) {
             return fb::CreateFullyConnectedOptions(fbb, fb::ActivationFunctionType_RELU,
                                                    fb::FullyConnectedOptionsWeightsFormat_DEFAULT, true)
                     .Union();
         });
    g.inputs = {in};
    g.outputs = {out};
    expectCpuPathExact(g, {fullMantissas(2 * 3 * 40, -3, 3, 29)});
}

// Weights that are a model input: packed again at every invoke (the second invoke, with other
// weights, gives TFLite's bits for those).
REAL_TFLITE_TEST(FullyConnectedWeightsFromAnInput) {
    REQUIRE();
    GraphBuilder g;
    const int32_t in = g.tensor({5, 40}, fb::TensorType_FLOAT32);
    const int32_t w = g.tensor({13, 40}, fb::TensorType_FLOAT32);
    const int32_t b = g.tensor({13}, fb::TensorType_FLOAT32, fullMantissas(13, -1, 1, 59));
    const int32_t out = g.tensor({5, 13}, fb::TensorType_FLOAT32);
    g.op(fb::BuiltinOperator_FULLY_CONNECTED, {in, w, b}, {out}, fb::BuiltinOptions_FullyConnectedOptions,
         [](flatbuffers::FlatBufferBuilder& fbb) { return fb::CreateFullyConnectedOptions(fbb).Union(); });
    g.inputs = {in, w};
    g.outputs = {out};
    const std::vector<uint8_t> bytes = g.buildBytes();
    const std::vector<uint8_t> x = fullMantissas(5 * 40, -3, 3, 61);
    const std::vector<uint8_t> first = fullMantissas(13 * 40, -1, 1, 67), second = fullMantissas(13 * 40, -1, 1, 71);
    const RealTfliteResult real = runRealTflite(bytes, {x, second});
    ASSERT_TRUE(real.ok) << real.log;
    const std::unique_ptr<Model> model = expectValue(Model::fromBuffer(bytes));
    ASSERT_NE(model, nullptr);
    const std::unique_ptr<Interpreter> interpreter = expectValue(Interpreter::create(*model, DelegateOptions{}));
    ASSERT_NE(interpreter, nullptr);
    for (const std::vector<uint8_t>* weights : {&first, &second}) {
        std::memcpy(interpreter->inputData(0), x.data(), x.size());
        std::memcpy(interpreter->inputData(1), weights->data(), weights->size());
        ASSERT_TRUE(isOk(interpreter->invoke()));
    }
    expectSameBytes(interpreter->outputTensor(0), interpreter->outputData(0), real.outputs[0], 0);
}

struct Window {
    std::vector<int32_t> input;   // NHWC
    int32_t channels, kernel, stride, dilation;
    fb::Padding padding;
    fb::ActivationFunctionType activation;
};

std::vector<int32_t> outputOf(const Window& c) {
    const int32_t effective = (c.kernel - 1) * c.dilation + 1;
    const auto size = [&](int32_t in) {
        return c.padding == fb::Padding_SAME ? (in + c.stride - 1) / c.stride : (in - effective + c.stride) / c.stride;
    };
    return {c.input[0], size(c.input[1]), size(c.input[2]), c.channels};
}

REAL_TFLITE_TEST(Conv2DIm2colEveryGemmOrder) {
    REQUIRE();
    const int32_t kc = maxDepthBlock();
    const std::vector<Window> cases = {
            {{1, 9, 9, 3}, 16, 3, 2, 1, fb::Padding_SAME, fb::ActivationFunctionType_RELU6},
            {{1, 11, 10, 5}, 13, 3, 1, 2, fb::Padding_VALID, fb::ActivationFunctionType_NONE},
            {{2, 7, 6, 4}, 7, 2, 2, 1, fb::Padding_VALID, fb::ActivationFunctionType_RELU},
            {{1, 6, 7, 8}, 20, 5, 1, 1, fb::Padding_SAME, fb::ActivationFunctionType_RELU_N1_TO_1},
            {{1, 5, 5, kc / 9 + 3}, 12, 3, 1, 1, fb::Padding_SAME, fb::ActivationFunctionType_NONE},
            {{1, 3, 4, 2 * kc / 9 + 1}, 9, 3, 1, 1, fb::Padding_SAME, fb::ActivationFunctionType_NONE},
            {{1, 32, 32, 3}, 32, 3, 2, 1, fb::Padding_SAME, fb::ActivationFunctionType_RELU6},
    };
    for (const Window& c : cases) {
        SCOPED_TRACE("input " + std::to_string(c.input[1]) + "x" + std::to_string(c.input[2]) + "x" +
                     std::to_string(c.input[3]) + ", kernel " + std::to_string(c.kernel));
        const std::vector<int32_t> y = outputOf(c);
        GraphBuilder g;
        const int32_t in = g.tensor(c.input, fb::TensorType_FLOAT32);
        const size_t weights = static_cast<size_t>(c.channels) * c.kernel * c.kernel * c.input[3];
        const int32_t w = g.tensor({c.channels, c.kernel, c.kernel, c.input[3]}, fb::TensorType_FLOAT32,
                                   fullMantissas(weights, -1, 1, 31));
        const int32_t b = g.tensor({c.channels}, fb::TensorType_FLOAT32, fullMantissas(c.channels, -1, 1, 37));
        const int32_t out = g.tensor(y, fb::TensorType_FLOAT32);
        g.op(fb::BuiltinOperator_CONV_2D, {in, w, b}, {out}, fb::BuiltinOptions_Conv2DOptions,
             conv(c.padding, c.stride, c.activation, c.dilation));
        g.inputs = {in};
        g.outputs = {out};
        expectCpuPathExact(g, {fullMantissas(elementCount(c.input), -3, 3, 41)});
    }
}

REAL_TFLITE_TEST(DepthwiseConv2DBiasFirst) {
    REQUIRE();
    const std::vector<std::pair<Window, int32_t>> cases = {
            {{{1, 9, 9, 8}, 8, 3, 1, 1, fb::Padding_SAME, fb::ActivationFunctionType_NONE}, 1},
            {{{1, 10, 9, 3}, 6, 3, 2, 1, fb::Padding_SAME, fb::ActivationFunctionType_RELU6}, 2},
            {{{2, 11, 10, 5}, 5, 3, 1, 2, fb::Padding_VALID, fb::ActivationFunctionType_RELU}, 1},
            {{{1, 8, 8, 17}, 17, 5, 2, 1, fb::Padding_SAME, fb::ActivationFunctionType_NONE}, 1},
    };
    for (const auto& [c, multiplier] : cases) {
        SCOPED_TRACE("input " + std::to_string(c.input[1]) + "x" + std::to_string(c.input[2]) + "x" +
                     std::to_string(c.input[3]) + ", kernel " + std::to_string(c.kernel));
        const std::vector<int32_t> y = outputOf(c);
        GraphBuilder g;
        const int32_t in = g.tensor(c.input, fb::TensorType_FLOAT32);
        const int32_t w = g.tensor({1, c.kernel, c.kernel, c.channels}, fb::TensorType_FLOAT32,
                                   fullMantissas(static_cast<size_t>(c.kernel) * c.kernel * c.channels, -1, 1, 43));
        const int32_t b = g.tensor({c.channels}, fb::TensorType_FLOAT32, fullMantissas(c.channels, -1, 1, 47));
        const int32_t out = g.tensor(y, fb::TensorType_FLOAT32);
        const int32_t m = multiplier;
        g.op(fb::BuiltinOperator_DEPTHWISE_CONV_2D, {in, w, b}, {out}, fb::BuiltinOptions_DepthwiseConv2DOptions,
             [c = c, m](flatbuffers::FlatBufferBuilder& fbb) {
                 return fb::CreateDepthwiseConv2DOptions(fbb, c.padding, c.stride, c.stride, m, c.activation,
                                                         c.dilation, c.dilation)
                         .Union();
             });
        g.inputs = {in};
        g.outputs = {out};
        expectCpuPathExact(g, {fullMantissas(elementCount(c.input), -3, 3, 53)});
    }
}

}  // namespace
}  // namespace nnemu::tflite::test
