// Float nodes on nnemu's CPU path as TFLite's default delegate (DelegateOptions::xnnpack) against
// tflite_run --xnnpack=1, bit for bit where XNNPACK's order is reproduced (XnnpackForms.cpp,
// docs/tflite.md "The CPU path's two semantics"). Random shapes and values from a fixed seed.
#include "RealTfliteOps.h"

namespace nnemu::tflite::test {
namespace {

#define REAL_TFLITE_TEST(name) TEST(RealTfliteFloatXnnpack, name)
#define REQUIRE() NNEMU_REQUIRE_REAL_TFLITE()

struct Random {
    uint32_t state;
    uint32_t next() {
        state = state * 1664525u + 1013904223u;
        return state >> 8;
    }
    int32_t in(int32_t low, int32_t high) { return low + static_cast<int32_t>(next() % static_cast<uint32_t>(high - low + 1)); }
    // Values with full mantissas, so that any other order shows.
    std::vector<uint8_t> floats(size_t count, double low, double high) {
        std::vector<float> values(count);
        for (float& v : values) v = static_cast<float>(low + (high - low) * (next() / 16777216.0));
        return GraphBuilder::bytes(values);
    }
};

void expectAsXnnpack(const GraphBuilder& g, const std::vector<std::vector<uint8_t>>& inputs) {
    expectCpuPathAsRealTflite(g.buildBytes(), inputs, xnnpackFloatUlps(), {}, true);
}

fb::ActivationFunctionType activationOf(int32_t pick) {
    const fb::ActivationFunctionType all[] = {fb::ActivationFunctionType_NONE, fb::ActivationFunctionType_RELU,
                                              fb::ActivationFunctionType_RELU6, fb::ActivationFunctionType_RELU_N1_TO_1};
    return all[pick % 4];
}

int32_t outSize(int32_t in, int32_t kernel, int32_t stride, int32_t dilation, fb::Padding padding) {
    const int32_t effective = (kernel - 1) * dilation + 1;
    return padding == fb::Padding_SAME ? (in + stride - 1) / stride : (in - effective + stride) / stride;
}

REAL_TFLITE_TEST(Conv2D) {
    REQUIRE();
    Random r{101};
    for (int i = 0; i < 24; ++i) {
        const int32_t k = i % 3 == 0 ? 1 : r.in(1, 5), stride = r.in(1, 2), dilation = k > 1 && i % 5 == 0 ? 2 : 1;
        const int32_t h = r.in(k * dilation, 12), w = r.in(k * dilation, 12), c = r.in(1, 40), n = r.in(1, 40);
        const fb::Padding padding = r.in(0, 1) ? fb::Padding_SAME : fb::Padding_VALID;
        const fb::ActivationFunctionType act = activationOf(r.in(0, 3));
        SCOPED_TRACE("case " + std::to_string(i) + ": " + std::to_string(h) + "x" + std::to_string(w) + "x" +
                     std::to_string(c) + " -> " + std::to_string(n) + ", kernel " + std::to_string(k) + ", stride " +
                     std::to_string(stride) + ", dilation " + std::to_string(dilation));
        GraphBuilder g;
        const int32_t in = g.tensor({1, h, w, c}, fb::TensorType_FLOAT32);
        const int32_t wt = g.tensor({n, k, k, c}, fb::TensorType_FLOAT32, r.floats(static_cast<size_t>(n) * k * k * c, -1, 1));
        const int32_t b = g.tensor({n}, fb::TensorType_FLOAT32, r.floats(n, -1, 1));
        const int32_t out = g.tensor({1, outSize(h, k, stride, dilation, padding), outSize(w, k, stride, dilation, padding), n},
                                     fb::TensorType_FLOAT32);
        g.op(fb::BuiltinOperator_CONV_2D, {in, wt, b}, {out}, fb::BuiltinOptions_Conv2DOptions,
             [=](flatbuffers::FlatBufferBuilder& fbb) {
                 return fb::CreateConv2DOptions(fbb, padding, stride, stride, act, dilation, dilation).Union();
             });
        g.inputs = {in};
        g.outputs = {out};
        expectAsXnnpack(g, {r.floats(static_cast<size_t>(h) * w * c, -3, 3)});
    }
}

REAL_TFLITE_TEST(DepthwiseConv2D) {
    REQUIRE();
    Random r{202};
    for (int i = 0; i < 24; ++i) {
        const int32_t k = r.in(1, 5), stride = r.in(1, 2), dilation = k > 1 && i % 5 == 0 ? 2 : 1, m = i % 4 == 3 ? 2 : 1;
        const int32_t h = r.in(k * dilation, 12), w = r.in(k * dilation, 12), c = r.in(1, 40);
        const fb::Padding padding = r.in(0, 1) ? fb::Padding_SAME : fb::Padding_VALID;
        const fb::ActivationFunctionType act = activationOf(r.in(0, 3));
        SCOPED_TRACE("case " + std::to_string(i) + ": " + std::to_string(h) + "x" + std::to_string(w) + "x" +
                     std::to_string(c) + ", kernel " + std::to_string(k) + ", stride " + std::to_string(stride) +
                     ", multiplier " + std::to_string(m));
        GraphBuilder g;
        const int32_t in = g.tensor({1, h, w, c}, fb::TensorType_FLOAT32);
        const int32_t wt = g.tensor({1, k, k, c * m}, fb::TensorType_FLOAT32, r.floats(static_cast<size_t>(k) * k * c * m, -1, 1));
        const int32_t b = g.tensor({c * m}, fb::TensorType_FLOAT32, r.floats(c * m, -1, 1));
        const int32_t out = g.tensor(
                {1, outSize(h, k, stride, dilation, padding), outSize(w, k, stride, dilation, padding), c * m},
                fb::TensorType_FLOAT32);
        g.op(fb::BuiltinOperator_DEPTHWISE_CONV_2D, {in, wt, b}, {out}, fb::BuiltinOptions_DepthwiseConv2DOptions,
             [=](flatbuffers::FlatBufferBuilder& fbb) {
                 return fb::CreateDepthwiseConv2DOptions(fbb, padding, stride, stride, m, act, dilation, dilation).Union();
             });
        g.inputs = {in};
        g.outputs = {out};
        expectAsXnnpack(g, {r.floats(static_cast<size_t>(h) * w * c, -3, 3)});
    }
}

REAL_TFLITE_TEST(FullyConnected) {
    REQUIRE();
    Random r{303};
    for (int i = 0; i < 24; ++i) {
        const int32_t batch = r.in(1, 9), depth = r.in(1, 300), n = r.in(1, 70);
        const bool bias = i % 6 != 5;
        SCOPED_TRACE("case " + std::to_string(i) + ": " + std::to_string(batch) + "x" + std::to_string(depth) + " -> " +
                     std::to_string(n));
        GraphBuilder g;
        const int32_t in = g.tensor({batch, depth}, fb::TensorType_FLOAT32);
        const int32_t wt = g.tensor({n, depth}, fb::TensorType_FLOAT32, r.floats(static_cast<size_t>(n) * depth, -1, 1));
        const int32_t b = bias ? g.tensor({n}, fb::TensorType_FLOAT32, r.floats(n, -1, 1)) : -1;
        const int32_t out = g.tensor({batch, n}, fb::TensorType_FLOAT32);
        const fb::ActivationFunctionType act = activationOf(r.in(0, 3));
        g.op(fb::BuiltinOperator_FULLY_CONNECTED, {in, wt, b}, {out}, fb::BuiltinOptions_FullyConnectedOptions,
             [=](flatbuffers::FlatBufferBuilder& fbb) { return fb::CreateFullyConnectedOptions(fbb, act).Union(); });
        g.inputs = {in};
        g.outputs = {out};
        expectAsXnnpack(g, {r.floats(static_cast<size_t>(batch) * depth, -3, 3)});
    }
}

REAL_TFLITE_TEST(AveragePool2D) {
    REQUIRE();
    Random r{404};
    for (int i = 0; i < 16; ++i) {
        const int32_t k = i % 4 == 0 ? 7 : r.in(1, 4), stride = i % 4 == 0 ? 1 : r.in(1, 2);
        const int32_t h = i % 4 == 0 ? 7 : r.in(k, 12), w = i % 4 == 0 ? 7 : r.in(k, 12), c = r.in(1, 40);
        const fb::Padding padding = i % 4 == 0 || r.in(0, 1) ? fb::Padding_VALID : fb::Padding_SAME;
        SCOPED_TRACE("case " + std::to_string(i) + ": " + std::to_string(h) + "x" + std::to_string(w) + "x" +
                     std::to_string(c) + ", window " + std::to_string(k) + ", stride " + std::to_string(stride));
        GraphBuilder g;
        const int32_t in = g.tensor({1, h, w, c}, fb::TensorType_FLOAT32);
        const int32_t out = g.tensor({1, outSize(h, k, stride, 1, padding), outSize(w, k, stride, 1, padding), c},
                                     fb::TensorType_FLOAT32);
        g.op(fb::BuiltinOperator_AVERAGE_POOL_2D, {in}, {out}, fb::BuiltinOptions_Pool2DOptions,
             [=](flatbuffers::FlatBufferBuilder& fbb) { return fb::CreatePool2DOptions(fbb, padding, stride, stride, k, k).Union(); });
        g.inputs = {in};
        g.outputs = {out};
        expectAsXnnpack(g, {r.floats(static_cast<size_t>(h) * w * c, -3, 3)});
    }
}

REAL_TFLITE_TEST(MeanOverHeightAndWidth) {
    REQUIRE();
    Random r{505};
    for (int i = 0; i < 12; ++i) {
        const int32_t h = i == 0 ? 7 : r.in(1, 12), w = i == 0 ? 7 : r.in(1, 12), c = i == 0 ? 1280 : r.in(1, 70);
        SCOPED_TRACE("case " + std::to_string(i) + ": " + std::to_string(h) + "x" + std::to_string(w) + "x" + std::to_string(c));
        GraphBuilder g;
        const int32_t in = g.tensor({1, h, w, c}, fb::TensorType_FLOAT32);
        const int32_t axes = g.tensor({2}, fb::TensorType_INT32, GraphBuilder::bytes(std::vector<int32_t>{1, 2}));
        const int32_t out = g.tensor({1, 1, 1, c}, fb::TensorType_FLOAT32);
        g.op(fb::BuiltinOperator_MEAN, {in, axes}, {out}, fb::BuiltinOptions_ReducerOptions,
             [](flatbuffers::FlatBufferBuilder& fbb) { return fb::CreateReducerOptions(fbb, true).Union(); });
        g.inputs = {in};
        g.outputs = {out};
        expectAsXnnpack(g, {r.floats(static_cast<size_t>(h) * w * c, -3, 3)});
    }
}

// Other reductions of one run of dimensions that leaves the innermost one: [2, r, c] over axis 1,
// [n, h, w, c] over axis 2 or axes {0, 1} (size-1 dimensions between), without keep_dims.
REAL_TFLITE_TEST(MeanOverOneRun) {
    REQUIRE();
    Random r{515};
    struct Case {
        std::vector<int32_t> shape, axes, out;
    };
    const std::vector<Case> cases = {{{2, 13, 21}, {1}, {2, 21}},
                                     {{3, 5, 7, 9}, {2}, {3, 5, 9}},
                                     {{4, 1, 6, 10}, {0, 1, 2}, {10}},
                                     {{2, 6, 1, 33}, {-3, -2}, {2, 33}}};
    for (size_t i = 0; i < cases.size(); ++i) {
        const Case& c = cases[i];
        SCOPED_TRACE("case " + std::to_string(i));
        GraphBuilder g;
        const int32_t in = g.tensor(c.shape, fb::TensorType_FLOAT32);
        const int32_t axes = g.tensor({static_cast<int32_t>(c.axes.size())}, fb::TensorType_INT32, GraphBuilder::bytes(c.axes));
        const int32_t out = g.tensor(c.out, fb::TensorType_FLOAT32);
        g.op(fb::BuiltinOperator_MEAN, {in, axes}, {out}, fb::BuiltinOptions_ReducerOptions,
             [](flatbuffers::FlatBufferBuilder& fbb) { return fb::CreateReducerOptions(fbb, false).Union(); });
        g.inputs = {in};
        g.outputs = {out};
        expectAsXnnpack(g, {r.floats(elementCount(c.shape), -3, 3)});
    }
}

REAL_TFLITE_TEST(Softmax) {
    REQUIRE();
    Random r{606};
    for (int i = 0; i < 12; ++i) {
        const int32_t rows = r.in(1, 4), n = i == 0 ? 1001 : r.in(1, 300);
        SCOPED_TRACE("case " + std::to_string(i) + ": " + std::to_string(rows) + "x" + std::to_string(n));
        GraphBuilder g;
        const int32_t in = g.tensor({rows, n}, fb::TensorType_FLOAT32);
        const int32_t out = g.tensor({rows, n}, fb::TensorType_FLOAT32);
        g.op(fb::BuiltinOperator_SOFTMAX, {in}, {out}, fb::BuiltinOptions_SoftmaxOptions,
             [i](flatbuffers::FlatBufferBuilder& fbb) {
                 // case 2: beta 0.5, which XNNPACK leaves: both run TFLite's builtin kernel
                 return fb::CreateSoftmaxOptions(fbb, i == 2 ? 0.5f : 1.0f).Union();
             });
        g.inputs = {in};
        g.outputs = {out};
        const double range = i == 1 ? 120 : 8;   // case 1 reaches exp's cutoff (x below -87.3 gives 0)
        expectAsXnnpack(g, {r.floats(static_cast<size_t>(rows) * n, -range, range)});
    }
}

REAL_TFLITE_TEST(AddAndReshape) {
    REQUIRE();
    Random r{707};
    GraphBuilder g;
    const int32_t a = g.tensor({1, 5, 6, 24}, fb::TensorType_FLOAT32), b = g.tensor({1, 5, 6, 24}, fb::TensorType_FLOAT32);
    const int32_t sum = g.tensor({1, 5, 6, 24}, fb::TensorType_FLOAT32);
    const int32_t shape = g.tensor({2}, fb::TensorType_INT32, GraphBuilder::bytes(std::vector<int32_t>{30, 24}));
    const int32_t out = g.tensor({30, 24}, fb::TensorType_FLOAT32);
    g.op(fb::BuiltinOperator_ADD, {a, b}, {sum}, fb::BuiltinOptions_AddOptions,
         [](flatbuffers::FlatBufferBuilder& fbb) { return fb::CreateAddOptions(fbb, fb::ActivationFunctionType_RELU6).Union(); });
    g.op(fb::BuiltinOperator_RESHAPE, {sum, shape}, {out}, fb::BuiltinOptions_NONE, nullptr);
    g.inputs = {a, b};
    g.outputs = {out};
    expectAsXnnpack(g, {r.floats(720, -5, 5), r.floats(720, -5, 5)});
}

}  // namespace
}  // namespace nnemu::tflite::test
