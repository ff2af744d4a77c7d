// Differential tests against real TensorFlow Lite 2.21: convolutions, fully connected, pooling,
// normalization and softmax, in float32, uint8 (per tensor) and int8 (per-channel weights where
// TFLite takes them). One test per builtin and type (RealTfliteOps.h). The float CONV_2D,
// DEPTHWISE_CONV_2D and FULLY_CONNECTED, and the float SOFTMAX, give TFLite's bits in every mode
// (0 ULP: the CPU path sums in TFLite's order, each delegated mode as TFLite's own delegate on the
// same device); RealTfliteFloatConvTest.cpp and RealTfliteFloatSoftmaxTest.cpp cover their shapes.
#include "RealTfliteOps.h"

namespace nnemu::tflite::test {
namespace {

#define REAL_TFLITE_TEST(name) TEST(RealTfliteConv, name)
#define REQUIRE() NNEMU_REQUIRE_REAL_TFLITE()

// ---- CONV_2D
GraphBuilder::Options conv(fb::Padding padding, int stride, fb::ActivationFunctionType act, int dilation = 1) {
    return [=](flatbuffers::FlatBufferBuilder& b) {
        return fb::CreateConv2DOptions(b, padding, stride, stride, act, dilation, dilation).Union();
    };
}
REAL_TFLITE_TEST(Conv2DFloatValidDilated) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_CONV_2D,
             {f32({1, 11, 10, 3}, -2, 2), constant(f32({5, 3, 3, 3}), rampBytes<float>(135, -1, 1)),
              constant(f32({5}), rampBytes<float>(5, -1, 1))},
             {f32({1, 7, 6, 5})}, fb::BuiltinOptions_Conv2DOptions, conv(fb::Padding_VALID, 1, fb::ActivationFunctionType_NONE, 2),
             0);
}
REAL_TFLITE_TEST(Conv2DUint8SameRelu6) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_CONV_2D,
             {u8({1, 9, 9, 3}, 0.02f, 128), constant(u8({4, 3, 3, 3}, 0.01f, 120), rampBytes<uint8_t>(108, 60, 200)),
              constant(i32({4}), rampBytes<int32_t>(4, -500, 500))},
             {u8({1, 5, 5, 4}, 0.03f, 0)}, fb::BuiltinOptions_Conv2DOptions,
             conv(fb::Padding_SAME, 2, fb::ActivationFunctionType_RELU6));
}
REAL_TFLITE_TEST(Conv2DInt8PerChannel) {
    REQUIRE();
    GraphBuilder g;
    const int32_t in = g.tensor({1, 8, 8, 3}, fb::TensorType_INT8, {}, {0.03f}, {-5});
    const int32_t w = g.tensor({4, 3, 3, 3}, fb::TensorType_INT8, rampBytes<int8_t>(108, -127, 127),
                               {0.01f, 0.02f, 0.005f, 0.015f}, {0, 0, 0, 0}, 0);
    const int32_t bias = g.tensor({4}, fb::TensorType_INT32, rampBytes<int32_t>(4, -300, 300),
                                  {0.0003f, 0.0006f, 0.00015f, 0.00045f}, {0, 0, 0, 0}, 0);
    const int32_t out = g.tensor({1, 8, 8, 4}, fb::TensorType_INT8, {}, {0.05f}, {3});
    g.op(fb::BuiltinOperator_CONV_2D, {in, w, bias}, {out}, fb::BuiltinOptions_Conv2DOptions,
         conv(fb::Padding_SAME, 1, fb::ActivationFunctionType_RELU));
    g.inputs = {in};
    g.outputs = {out};
    expectSameAsRealTflite(g, {rampBytes<int8_t>(192, -128, 127)});
}

// ---- DEPTHWISE_CONV_2D
GraphBuilder::Options depthwise(fb::Padding padding, int stride, int multiplier, fb::ActivationFunctionType act) {
    return [=](flatbuffers::FlatBufferBuilder& b) {
        return fb::CreateDepthwiseConv2DOptions(b, padding, stride, stride, multiplier, act).Union();
    };
}
REAL_TFLITE_TEST(DepthwiseConv2DFloatMultiplier2) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_DEPTHWISE_CONV_2D,
             {f32({1, 8, 7, 3}, -2, 2), constant(f32({1, 3, 3, 6}), rampBytes<float>(54, -1, 1)),
              constant(f32({6}), rampBytes<float>(6, -1, 1))},
             {f32({1, 8, 7, 6})}, fb::BuiltinOptions_DepthwiseConv2DOptions,
             depthwise(fb::Padding_SAME, 1, 2, fb::ActivationFunctionType_RELU6), 0);
}
REAL_TFLITE_TEST(DepthwiseConv2DUint8Stride2) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_DEPTHWISE_CONV_2D,
             {u8({1, 9, 9, 4}, 0.02f, 128), constant(u8({1, 3, 3, 4}, 0.01f, 127), rampBytes<uint8_t>(36, 30, 230)),
              constant(i32({4}), rampBytes<int32_t>(4, -400, 400))},
             {u8({1, 4, 4, 4}, 0.02f, 100)}, fb::BuiltinOptions_DepthwiseConv2DOptions,
             depthwise(fb::Padding_VALID, 2, 1, fb::ActivationFunctionType_NONE));
}
REAL_TFLITE_TEST(DepthwiseConv2DInt8PerChannel) {
    REQUIRE();
    GraphBuilder g;
    const int32_t in = g.tensor({1, 7, 7, 4}, fb::TensorType_INT8, {}, {0.03f}, {2});
    const int32_t w = g.tensor({1, 3, 3, 4}, fb::TensorType_INT8, rampBytes<int8_t>(36, -127, 127),
                               {0.01f, 0.02f, 0.005f, 0.015f}, {0, 0, 0, 0}, 3);
    const int32_t bias = g.tensor({4}, fb::TensorType_INT32, rampBytes<int32_t>(4, -300, 300),
                                  {0.0003f, 0.0006f, 0.00015f, 0.00045f}, {0, 0, 0, 0}, 0);
    const int32_t out = g.tensor({1, 7, 7, 4}, fb::TensorType_INT8, {}, {0.04f}, {-7});
    g.op(fb::BuiltinOperator_DEPTHWISE_CONV_2D, {in, w, bias}, {out}, fb::BuiltinOptions_DepthwiseConv2DOptions,
         depthwise(fb::Padding_SAME, 1, 1, fb::ActivationFunctionType_NONE));
    g.inputs = {in};
    g.outputs = {out};
    expectSameAsRealTflite(g, {rampBytes<int8_t>(196, -128, 127)});
}

// A MobileNet-sized int8 depthwise layer: 32 channels with their own scales, RELU6, strides 1 and 2.
REAL_TFLITE_TEST(DepthwiseConv2DInt8PerChannelMobileNetSized) {
    REQUIRE();
    for (const int stride : {1, 2}) {
        SCOPED_TRACE("stride " + std::to_string(stride));
        GraphBuilder g;
        constexpr int kChannels = 32;
        std::vector<float> scales, biasScales;
        for (int c = 0; c < kChannels; ++c) {
            scales.push_back(0.002f + 0.0007f * static_cast<float>(c % 11));
            biasScales.push_back(0.05f * scales.back());
        }
        const int32_t in = g.tensor({1, 14, 14, kChannels}, fb::TensorType_INT8, {}, {0.05f}, {-128});
        const int32_t w = g.tensor({1, 3, 3, kChannels}, fb::TensorType_INT8, rampBytes<int8_t>(9 * kChannels, -127, 127),
                                   scales, std::vector<int64_t>(kChannels, 0), 3);
        const int32_t bias = g.tensor({kChannels}, fb::TensorType_INT32, rampBytes<int32_t>(kChannels, -2000, 2000),
                                      biasScales, std::vector<int64_t>(kChannels, 0), 0);
        const int out = 14 / stride;
        const int32_t output = g.tensor({1, out, out, kChannels}, fb::TensorType_INT8, {}, {0.0235f}, {-128});
        g.op(fb::BuiltinOperator_DEPTHWISE_CONV_2D, {in, w, bias}, {output}, fb::BuiltinOptions_DepthwiseConv2DOptions,
             depthwise(fb::Padding_SAME, stride, 1, fb::ActivationFunctionType_RELU6));
        g.inputs = {in};
        g.outputs = {output};
        expectSameAsRealTflite(g, {rampBytes<int8_t>(14 * 14 * kChannels, -128, 127)});
    }
}

// ---- FULLY_CONNECTED
GraphBuilder::Options fullyConnected(fb::ActivationFunctionType act) {
    return [=](flatbuffers::FlatBufferBuilder& b) { return fb::CreateFullyConnectedOptions(b, act).Union(); };
}
REAL_TFLITE_TEST(FullyConnectedFloat) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_FULLY_CONNECTED,
             {f32({3, 20}, -2, 2), constant(f32({7, 20}), rampBytes<float>(140, -1, 1)),
              constant(f32({7}), rampBytes<float>(7, -1, 1))},
             {f32({3, 7})}, fb::BuiltinOptions_FullyConnectedOptions, fullyConnected(fb::ActivationFunctionType_RELU), 0);
}
REAL_TFLITE_TEST(FullyConnectedUint8) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_FULLY_CONNECTED,
             {u8({2, 16}, 0.05f, 128), constant(u8({5, 16}, 0.01f, 128), rampBytes<uint8_t>(80, 0, 255)),
              constant(i32({5}), rampBytes<int32_t>(5, -200, 200))},
             {u8({2, 5}, 0.1f, 120)}, fb::BuiltinOptions_FullyConnectedOptions, fullyConnected(fb::ActivationFunctionType_NONE));
}
REAL_TFLITE_TEST(FullyConnectedInt8) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_FULLY_CONNECTED,
             {i8({2, 16}, 0.05f, -3), constant(i8({5, 16}, 0.01f, 0), rampBytes<int8_t>(80, -127, 127)),
              // As converters write it: the bias quantized at input scale x weight scale (NNAPI
              // refuses any other at execution, so TFLite's delegate fails on one).
              constant(Spec{{5}, fb::TensorType_INT32, 0.05f * 0.01f, 0, {}, -200, 200},
                       rampBytes<int32_t>(5, -200, 200))},
             {i8({2, 5}, 0.1f, 4)}, fb::BuiltinOptions_FullyConnectedOptions, fullyConnected(fb::ActivationFunctionType_RELU));
}

// ---- TRANSPOSE_CONV (output shape, weights [out, h, w, in], input; optional bias)
REAL_TFLITE_TEST(TransposeConvFloat) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_TRANSPOSE_CONV,
             {constantOf<int32_t>({4}, fb::TensorType_INT32, {1, 8, 8, 2}), constant(f32({2, 3, 3, 3}), rampBytes<float>(54, -1, 1)),
              f32({1, 4, 4, 3}, -2, 2)},
             {f32({1, 8, 8, 2})}, fb::BuiltinOptions_TransposeConvOptions,
             [](auto& b) { return fb::CreateTransposeConvOptions(b, fb::Padding_SAME, 2, 2).Union(); });
}
REAL_TFLITE_TEST(TransposeConvUint8) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_TRANSPOSE_CONV,
             {constantOf<int32_t>({4}, fb::TensorType_INT32, {1, 9, 9, 2}),
              constant(u8({2, 3, 3, 3}, 0.01f, 128), rampBytes<uint8_t>(54, 0, 255)), u8({1, 4, 4, 3}, 0.05f, 128)},
             {u8({1, 9, 9, 2}, 0.05f, 128)}, fb::BuiltinOptions_TransposeConvOptions,
             [](auto& b) { return fb::CreateTransposeConvOptions(b, fb::Padding_VALID, 2, 2).Union(); });
}
REAL_TFLITE_TEST(TransposeConvInt8PerChannel) {
    REQUIRE();
    GraphBuilder g;
    const int32_t shape = g.tensor({4}, fb::TensorType_INT32, GraphBuilder::bytes(std::vector<int32_t>{1, 8, 8, 2}));
    const int32_t w = g.tensor({2, 3, 3, 3}, fb::TensorType_INT8, rampBytes<int8_t>(54, -127, 127), {0.01f, 0.02f}, {0, 0}, 0);
    const int32_t in = g.tensor({1, 4, 4, 3}, fb::TensorType_INT8, {}, {0.05f}, {1});
    const int32_t out = g.tensor({1, 8, 8, 2}, fb::TensorType_INT8, {}, {0.06f}, {-2});
    g.op(fb::BuiltinOperator_TRANSPOSE_CONV, {shape, w, in}, {out}, fb::BuiltinOptions_TransposeConvOptions,
         [](auto& b) { return fb::CreateTransposeConvOptions(b, fb::Padding_SAME, 2, 2).Union(); });
    g.inputs = {in};
    g.outputs = {out};
    expectSameAsRealTflite(g, {rampBytes<int8_t>(48, -128, 127)});
}

// ---- pooling (quantized pools keep the input's scale)
GraphBuilder::Options pool(fb::Padding padding, int stride, int filter, fb::ActivationFunctionType act) {
    return [=](flatbuffers::FlatBufferBuilder& b) {
        return fb::CreatePool2DOptions(b, padding, stride, stride, filter, filter, act).Union();
    };
}
void pools(fb::BuiltinOperator code, const Spec& in, const Spec& out) {
    SCOPED_TRACE("SAME stride 2 filter 3");
    expectOp(code, {in}, {out}, fb::BuiltinOptions_Pool2DOptions, pool(fb::Padding_SAME, 2, 3, fb::ActivationFunctionType_NONE));
}
REAL_TFLITE_TEST(AveragePool2DFloat) { REQUIRE(); pools(fb::BuiltinOperator_AVERAGE_POOL_2D, f32({1, 9, 8, 3}), f32({1, 5, 4, 3})); }
REAL_TFLITE_TEST(AveragePool2DUint8) {
    REQUIRE();
    pools(fb::BuiltinOperator_AVERAGE_POOL_2D, u8({1, 9, 8, 3}, 0.05f, 128), u8({1, 5, 4, 3}, 0.05f, 128));
}
REAL_TFLITE_TEST(AveragePool2DInt8) {
    REQUIRE();
    pools(fb::BuiltinOperator_AVERAGE_POOL_2D, i8({1, 9, 8, 3}, 0.05f, -4), i8({1, 5, 4, 3}, 0.05f, -4));
}
// The same AVERAGE_POOL_2D on uint8 and on int8, each with its zero point.
void quantizedAveragePools(const GraphBuilder::Options& options, std::vector<int32_t> in, std::vector<int32_t> out,
                           float scale, int64_t uint8Zero, int64_t int8Zero) {
    expectOp(fb::BuiltinOperator_AVERAGE_POOL_2D, {u8(in, scale, uint8Zero)}, {u8(out, scale, uint8Zero)},
             fb::BuiltinOptions_Pool2DOptions, options);
    expectOp(fb::BuiltinOperator_AVERAGE_POOL_2D, {i8(in, scale, int8Zero)}, {i8(out, scale, int8Zero)},
             fb::BuiltinOptions_Pool2DOptions, options);
}
// A wider window than stride, clipped at the far edges only (VALID), with RELU6 clamping.
REAL_TFLITE_TEST(AveragePool2DQuantizedValidRelu6) {
    REQUIRE();
    quantizedAveragePools(pool(fb::Padding_VALID, 1, 3, fb::ActivationFunctionType_RELU6), {2, 7, 6, 5}, {2, 5, 4, 5},
                          0.05f, 100, -20);
}
// MobileNet's global pool: a 7x7 window over the whole map, many channels.
REAL_TFLITE_TEST(AveragePool2DQuantizedGlobal) {
    REQUIRE();
    quantizedAveragePools(pool(fb::Padding_VALID, 1, 7, fb::ActivationFunctionType_NONE), {1, 7, 7, 256}, {1, 1, 1, 256},
                          0.02f, 0, -128);
}
REAL_TFLITE_TEST(MaxPool2DFloat) { REQUIRE(); pools(fb::BuiltinOperator_MAX_POOL_2D, f32({1, 9, 8, 3}), f32({1, 5, 4, 3})); }
REAL_TFLITE_TEST(MaxPool2DUint8) {
    REQUIRE();
    pools(fb::BuiltinOperator_MAX_POOL_2D, u8({1, 9, 8, 3}, 0.05f, 128), u8({1, 5, 4, 3}, 0.05f, 128));
}
REAL_TFLITE_TEST(MaxPool2DInt8) {
    REQUIRE();
    pools(fb::BuiltinOperator_MAX_POOL_2D, i8({1, 9, 8, 3}, 0.05f, -4), i8({1, 5, 4, 3}, 0.05f, -4));
}
REAL_TFLITE_TEST(L2Pool2DFloat) { REQUIRE(); pools(fb::BuiltinOperator_L2_POOL_2D, f32({1, 9, 8, 3}), f32({1, 5, 4, 3})); }

// ---- normalization, softmax (TFLite's fixed quantized output scales)
REAL_TFLITE_TEST(L2NormalizationFloat) { REQUIRE(); expectOp(fb::BuiltinOperator_L2_NORMALIZATION, {f32({2, 3, 8})}, {f32({2, 3, 8})}); }
REAL_TFLITE_TEST(L2NormalizationUint8) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_L2_NORMALIZATION, {u8({2, 3, 8}, 0.05f, 128)}, {u8({2, 3, 8}, 1.0f / 128, 128)});
}
REAL_TFLITE_TEST(L2NormalizationInt8) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_L2_NORMALIZATION, {i8({2, 3, 8}, 0.05f, 0)}, {i8({2, 3, 8}, 1.0f / 128, 0)});
}
REAL_TFLITE_TEST(LocalResponseNormalizationFloat) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_LOCAL_RESPONSE_NORMALIZATION, {f32({1, 3, 4, 9})}, {f32({1, 3, 4, 9})},
             fb::BuiltinOptions_LocalResponseNormalizationOptions,
             [](auto& b) { return fb::CreateLocalResponseNormalizationOptions(b, 2, 1.0f, 0.5f, 0.75f).Union(); });
}
GraphBuilder::Options softmaxBeta(float beta) {
    return [=](flatbuffers::FlatBufferBuilder& b) { return fb::CreateSoftmaxOptions(b, beta).Union(); };
}
REAL_TFLITE_TEST(SoftmaxFloatBeta) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_SOFTMAX, {f32({2, 3, 10}, -8, 8)}, {f32({2, 3, 10})}, fb::BuiltinOptions_SoftmaxOptions,
             softmaxBeta(0.7f), 0);
}
REAL_TFLITE_TEST(SoftmaxUint8) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_SOFTMAX, {u8({3, 10}, 0.1f, 128)}, {u8({3, 10}, 1.0f / 256, 0)},
             fb::BuiltinOptions_SoftmaxOptions, softmaxBeta(1.0f));
}
REAL_TFLITE_TEST(SoftmaxInt8) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_SOFTMAX, {i8({3, 10}, 0.1f, 0)}, {i8({3, 10}, 1.0f / 256, -128)},
             fb::BuiltinOptions_SoftmaxOptions, softmaxBeta(1.0f));
}
REAL_TFLITE_TEST(SoftmaxInt8Wide) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_SOFTMAX, {i8({1, 1001}, 0.0925f, -20)}, {i8({1, 1001}, 1.0f / 256, -128)},
             fb::BuiltinOptions_SoftmaxOptions, softmaxBeta(1.0f));
}
REAL_TFLITE_TEST(SoftmaxUint8Wide) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_SOFTMAX, {u8({1, 1001}, 0.0925f, 110)}, {u8({1, 1001}, 1.0f / 256, 0)},
             fb::BuiltinOptions_SoftmaxOptions, softmaxBeta(1.0f));
}
// Input scale times beta overflowing float: every table entry NaN or infinite, converted and
// offset as TFLite's x86 build does (the loader fuzzer's finding).
REAL_TFLITE_TEST(SoftmaxScaleTimesBetaOverflow) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_SOFTMAX, {u8({2, 10}, 1e30f, 110)}, {u8({2, 10}, 1.0f / 256, 0)},
             fb::BuiltinOptions_SoftmaxOptions, softmaxBeta(1e10f));
    expectOp(fb::BuiltinOperator_SOFTMAX, {i8({2, 10}, 1e30f, -20)}, {i8({2, 10}, 1.0f / 256, -128)},
             fb::BuiltinOptions_SoftmaxOptions, softmaxBeta(1e10f));
    expectOp(fb::BuiltinOperator_SOFTMAX, {i8({2, 10}, 1e37f, 3)}, {i8({2, 10}, 1.0f / 256, -128)},
             fb::BuiltinOptions_SoftmaxOptions, softmaxBeta(1.0f));
}
// int16 LOGISTIC and TANH on an input scale whose multiplier leaves int32 (TFLite converts it
// as cvttsd2si: INT32_MIN) and on one just inside it.
REAL_TFLITE_TEST(Int16LogisticAndTanhHugeInputScale) {
    REQUIRE();
    for (const fb::BuiltinOperator code : {fb::BuiltinOperator_LOGISTIC, fb::BuiltinOperator_TANH}) {
        for (const float scale : {1e38f, 1e30f, 1.5e5f}) {
            SCOPED_TRACE(std::string(fb::EnumNameBuiltinOperator(code)) + " scale " + std::to_string(scale));
            expectOp(code, {i16({2, 9}, scale, 0)}, {i16({2, 9}, 1.0f / 32768, 0)});
        }
    }
}
REAL_TFLITE_TEST(LogSoftmaxFloat) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_LOG_SOFTMAX, {f32({3, 10}, -8, 8)}, {f32({3, 10})});
}
REAL_TFLITE_TEST(LogSoftmaxUint8) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_LOG_SOFTMAX, {u8({3, 10}, 0.1f, 128)}, {u8({3, 10}, 16.0f / 256, 255)});
}
// An input scale whose products overflow float: NaN and infinite log probabilities, converted
// and offset as TFLite's x86 build does.
REAL_TFLITE_TEST(LogSoftmaxHugeInputScale) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_LOG_SOFTMAX, {u8({3, 10}, 1e30f, 128)}, {u8({3, 10}, 16.0f / 256, 255)});
    expectOp(fb::BuiltinOperator_LOG_SOFTMAX, {i8({3, 10}, 1e38f, 0)}, {i8({3, 10}, 16.0f / 256, 127)});
    expectOp(fb::BuiltinOperator_LOG_SOFTMAX, {i8({3, 10}, 1e36f, -5)}, {i8({3, 10}, 16.0f / 256, 127)});
}
REAL_TFLITE_TEST(LogSoftmaxInt8) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_LOG_SOFTMAX, {i8({3, 10}, 0.1f, 0)}, {i8({3, 10}, 16.0f / 256, 127)});
}

}  // namespace
}  // namespace nnemu::tflite::test
