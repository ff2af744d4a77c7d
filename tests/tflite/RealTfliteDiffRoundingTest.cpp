// One-operator models whose requantization meets many exact ties (scales that are powers of two),
// against real TensorFlow Lite 2.21: where TFLite's builtin kernel rounds them otherwise than
// NNAPI (int8 CONV_2D and FULLY_CONNECTED on ruy, src/TfliteKernelForms.h), the CPU path must give TFLite's bytes and
// each delegated mode what TFLite's own delegate gives through nnemu's library. The uint8 forms
// round their ties as NNAPI does in TFLite's x86 build too, and stay on nnapi-reference.
#include "RealTfliteNnapi.h"
#include "RealTfliteOps.h"

namespace nnemu::tflite::test {
namespace {

// Input ramp over the whole int8 range, weights over [-weightRange, weightRange]; scales powers
// of two, the output's chosen so that few outputs saturate.
std::vector<uint8_t> conv2DInt8TiesModel(bool perChannel, fb::Padding padding, int stride, int weightRange,
                                         float outputScale) {
    GraphBuilder g;
    const int32_t in = g.tensor({1, 9, 9, 8}, fb::TensorType_INT8, {}, {0.5f}, {-3});
    const std::vector<float> scales = perChannel ? std::vector<float>{0.25f, 0.125f, 0.5f, 0.0625f, 0.25f, 1.0f}
                                                 : std::vector<float>{0.25f};
    const int32_t w = g.tensor({6, 3, 3, 8}, fb::TensorType_INT8, rampBytes<int8_t>(432, -weightRange, weightRange), scales,
                               std::vector<int64_t>(scales.size(), 0), 0);
    std::vector<float> biasScales;
    for (float s : scales) biasScales.push_back(s * 0.5f);
    const int32_t bias = g.tensor({6}, fb::TensorType_INT32, rampBytes<int32_t>(6, -40, 40), biasScales,
                                  std::vector<int64_t>(scales.size(), 0), 0);
    const int32_t outSize = padding == fb::Padding_SAME ? (9 + stride - 1) / stride : (9 - 3 + stride) / stride;
    const int32_t out = g.tensor({1, outSize, outSize, 6}, fb::TensorType_INT8, {}, {outputScale}, {1});
    g.op(fb::BuiltinOperator_CONV_2D, {in, w, bias}, {out}, fb::BuiltinOptions_Conv2DOptions,
         [=](flatbuffers::FlatBufferBuilder& b) {
             return fb::CreateConv2DOptions(b, padding, stride, stride, fb::ActivationFunctionType_NONE).Union();
         });
    g.inputs = {in};
    g.outputs = {out};
    return g.buildBytes();
}

// builtinAsNnapi: TFLite's builtin kernel rounds the model's ties as NNAPI does (the uint8 forms);
// false: it rounds them otherwise (the int8 forms, on ruy).
void expectTiesPerPath(const std::vector<uint8_t>& bytes,
                       const std::vector<std::vector<uint8_t>>& inputs = {rampBytes<int8_t>(648, -128, 127)},
                       bool builtinAsNnapi = false) {
    const std::unique_ptr<Model> model = expectValue(Model::fromBuffer(bytes));
    ASSERT_NE(model, nullptr);
    expectCpuPathAsTfliteDelegatedAsItsDelegate(bytes, *model, inputs, 0);
    // Whether TFLite's builtin kernel and its delegate on nnapi-reference round the ties alike.
    const RealTfliteResult builtin = runRealTflite(bytes, inputs);
    const RealTfliteResult delegated = runRealTfliteNnapi(bytes, *model, inputs, "nnapi-reference");
    ASSERT_TRUE(builtin.ok && delegated.ok);
    EXPECT_EQ(builtin.outputs == delegated.outputs, builtinAsNnapi);
}

TEST(RealTfliteRounding, Conv2DInt8PerChannelTies) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectTiesPerPath(conv2DInt8TiesModel(true, fb::Padding_SAME, 1, 127, 8.0f));
}
TEST(RealTfliteRounding, Conv2DInt8PerTensorTiesStride2) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectTiesPerPath(conv2DInt8TiesModel(false, fb::Padding_VALID, 2, 2, 2.0f));
}

// FULLY_CONNECTED int8, per tensor (NNAPI's form: delegated) and per channel (no NNAPI form:
// the tools' kernel in every mode): TFLite's x86 build runs both on ruy too.
TEST(RealTfliteRounding, FullyConnectedInt8Ties) {
    NNEMU_REQUIRE_REAL_TFLITE();
    for (bool perChannel : {false, true}) {
        SCOPED_TRACE(perChannel ? "per channel" : "per tensor");
        GraphBuilder g;
        const int32_t in = g.tensor({4, 32}, fb::TensorType_INT8, {}, {0.5f}, {-3});
        std::vector<float> scales = {0.25f}, biasScales = {0.125f};
        if (perChannel) {
            scales.clear(), biasScales.clear();
            for (int c = 0; c < 16; ++c) scales.push_back(std::ldexp(1.0f, -(c % 4))), biasScales.push_back(scales.back() / 2);
        }
        const int32_t w = g.tensor({16, 32}, fb::TensorType_INT8, rampBytes<int8_t>(512, -2, 2), scales,
                                   std::vector<int64_t>(scales.size(), 0), 0);
        const int32_t bias = g.tensor({16}, fb::TensorType_INT32, rampBytes<int32_t>(16, -40, 40), biasScales,
                                      std::vector<int64_t>(scales.size(), 0), 0);
        const int32_t out = g.tensor({4, 16}, fb::TensorType_INT8, {}, {1.0f}, {1});
        g.op(fb::BuiltinOperator_FULLY_CONNECTED, {in, w, bias}, {out}, fb::BuiltinOptions_FullyConnectedOptions,
             [](flatbuffers::FlatBufferBuilder& b) { return fb::CreateFullyConnectedOptions(b).Union(); });
        g.inputs = {in};
        g.outputs = {out};
        const std::vector<uint8_t> bytes = g.buildBytes();
        if (perChannel) {
            expectSameAsRealTflite(bytes, {rampBytes<int8_t>(128, -128, 127)}, 0);
        } else {
            expectTiesPerPath(bytes, {rampBytes<int8_t>(128, -128, 127)});
        }
    }
}

// The uint8 forms (weights with a zero point of their own): TFLite 2.21's x86 builtin kernels round
// their ties away from zero, as NNAPI does (unlike the int8 forms, ruy's rounding does not reach
// them here), so the CPU path runs them on nnapi-reference and gives TFLite's bytes. The scales
// make the multiplier 2^-4 exactly: every odd sum is a tie of the doubling high multiply.
TEST(RealTfliteRounding, Conv2DUint8Ties) {
    NNEMU_REQUIRE_REAL_TFLITE();
    GraphBuilder g;
    const int32_t in = g.tensor({1, 9, 9, 8}, fb::TensorType_UINT8, {}, {0.5f}, {125});
    const int32_t w = g.tensor({6, 3, 3, 8}, fb::TensorType_UINT8, rampBytes<uint8_t>(432, 126, 132), {0.25f}, {129});
    const int32_t bias = g.tensor({6}, fb::TensorType_INT32, rampBytes<int32_t>(6, -40, 40), {0.125f}, {0});
    const int32_t out = g.tensor({1, 9, 9, 6}, fb::TensorType_UINT8, {}, {2.0f}, {128});
    g.op(fb::BuiltinOperator_CONV_2D, {in, w, bias}, {out}, fb::BuiltinOptions_Conv2DOptions,
         [](flatbuffers::FlatBufferBuilder& b) {
             return fb::CreateConv2DOptions(b, fb::Padding_SAME, 1, 1, fb::ActivationFunctionType_NONE).Union();
         });
    g.inputs = {in};
    g.outputs = {out};
    expectTiesPerPath(g.buildBytes(), {rampBytes<uint8_t>(648, 0, 255)}, true);
}
TEST(RealTfliteRounding, FullyConnectedUint8Ties) {
    NNEMU_REQUIRE_REAL_TFLITE();
    GraphBuilder g;
    const int32_t in = g.tensor({4, 32}, fb::TensorType_UINT8, {}, {0.5f}, {131});
    const int32_t w = g.tensor({16, 32}, fb::TensorType_UINT8, rampBytes<uint8_t>(512, 126, 130), {0.25f}, {128});
    const int32_t bias = g.tensor({16}, fb::TensorType_INT32, rampBytes<int32_t>(16, -40, 40), {0.125f}, {0});
    const int32_t out = g.tensor({4, 16}, fb::TensorType_UINT8, {}, {1.0f}, {127});
    g.op(fb::BuiltinOperator_FULLY_CONNECTED, {in, w, bias}, {out}, fb::BuiltinOptions_FullyConnectedOptions,
         [](flatbuffers::FlatBufferBuilder& b) { return fb::CreateFullyConnectedOptions(b).Union(); });
    g.inputs = {in};
    g.outputs = {out};
    expectTiesPerPath(g.buildBytes(), {rampBytes<uint8_t>(128, 0, 255)}, true);
}

}  // namespace
}  // namespace nnemu::tflite::test
