// Differential tests against real TensorFlow Lite 2.21 (RealTflite.h): one-operator models, each
// run by TFLite's builtin kernels and by nnemu's interpreter in every mode. Integers must be
// identical, floats within a few ULP. Skipped without ../shared/tflite.
#include "RealTflite.h"

namespace nnemu::tflite::test {
namespace {

// Elementwise binary over [2, 3, 4, 5] (the second input broadcast from [1, 3, 1, 5]).
GraphBuilder binary(fb::BuiltinOperator code, fb::TensorType type, float scale = 0, int64_t zeroPoint = 0,
                    fb::BuiltinOptions optionsType = fb::BuiltinOptions_NONE, GraphBuilder::Options options = nullptr) {
    GraphBuilder g;
    const std::vector<float> scales = scale > 0 ? std::vector<float>{scale} : std::vector<float>{};
    const std::vector<int64_t> zeros = scale > 0 ? std::vector<int64_t>{zeroPoint} : std::vector<int64_t>{};
    const int32_t a = g.tensor({2, 3, 4, 5}, type, {}, scales, zeros);
    const int32_t b = g.tensor({1, 3, 1, 5}, type, {}, scales, zeros);
    const std::vector<float> outScales = scale > 0 ? std::vector<float>{scale * 2} : std::vector<float>{};
    const int32_t out = g.tensor({2, 3, 4, 5}, type, {}, outScales, zeros);
    g.op(code, {a, b}, {out}, optionsType, std::move(options));
    g.inputs = {a, b};
    g.outputs = {out};
    return g;
}

TEST(RealTflite, AddFloatWithRelu6) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = binary(fb::BuiltinOperator_ADD, fb::TensorType_FLOAT32, 0, 0, fb::BuiltinOptions_AddOptions,
                                  [](auto& b) { return fb::CreateAddOptions(b, fb::ActivationFunctionType_RELU6).Union(); });
    expectSameAsRealTflite(g, {rampBytes<float>(120, -5, 9), rampBytes<float>(15, -3, 3)});
}

TEST(RealTflite, AddUint8Quantized) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = binary(fb::BuiltinOperator_ADD, fb::TensorType_UINT8, 0.05f, 128);
    expectSameAsRealTflite(g, {rampBytes<uint8_t>(120, 0, 255), rampBytes<uint8_t>(15, 0, 255)});
}

TEST(RealTflite, MulInt8Quantized) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = binary(fb::BuiltinOperator_MUL, fb::TensorType_INT8, 0.07f, -3);
    expectSameAsRealTflite(g, {rampBytes<int8_t>(120, -128, 127), rampBytes<int8_t>(15, -128, 127)});
}

// A squeeze-excite style product: per-channel factors broadcast over the image, RELU fused.
TEST(RealTflite, MulUint8BroadcastWithRelu) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = binary(fb::BuiltinOperator_MUL, fb::TensorType_UINT8, 0.11f, 120, fb::BuiltinOptions_MulOptions,
                                  [](auto& b) { return fb::CreateMulOptions(b, fb::ActivationFunctionType_RELU).Union(); });
    expectSameAsRealTflite(g, {rampBytes<uint8_t>(120, 0, 255), rampBytes<uint8_t>(15, 0, 255)});
}

TEST(RealTflite, SquaredDifferenceFloat) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = binary(fb::BuiltinOperator_SQUARED_DIFFERENCE, fb::TensorType_FLOAT32);
    expectSameAsRealTflite(g, {rampBytes<float>(120, -4, 4), rampBytes<float>(15, -2, 2)});
}

TEST(RealTflite, FloorDivInt32) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = binary(fb::BuiltinOperator_FLOOR_DIV, fb::TensorType_INT32);
    std::vector<uint8_t> divisors = rampBytes<int32_t>(15, -7, 7);
    for (size_t i = 0; i < divisors.size(); i += 4) {
        if (divisors[i] == 0 && divisors[i + 1] == 0 && divisors[i + 2] == 0 && divisors[i + 3] == 0) divisors[i] = 3;
    }
    expectSameAsRealTflite(g, {rampBytes<int32_t>(120, -50, 50), divisors});
}

TEST(RealTflite, Conv2DFloatSameStride2) {
    NNEMU_REQUIRE_REAL_TFLITE();
    GraphBuilder g;
    const int32_t in = g.tensor({1, 9, 9, 3}, fb::TensorType_FLOAT32);
    const int32_t w = g.tensor({4, 3, 3, 3}, fb::TensorType_FLOAT32, rampBytes<float>(108, -1, 1));
    const int32_t bias = g.tensor({4}, fb::TensorType_FLOAT32, rampBytes<float>(4, -0.5, 0.5));
    const int32_t out = g.tensor({1, 5, 5, 4}, fb::TensorType_FLOAT32);
    g.op(fb::BuiltinOperator_CONV_2D, {in, w, bias}, {out}, fb::BuiltinOptions_Conv2DOptions, [](auto& b) {
        return fb::CreateConv2DOptions(b, fb::Padding_SAME, 2, 2, fb::ActivationFunctionType_RELU).Union();
    });
    g.inputs = {in};
    g.outputs = {out};
    expectSameAsRealTflite(g, {rampBytes<float>(243, -2, 2)});
}

TEST(RealTflite, MeanUint8KeepDims) {
    NNEMU_REQUIRE_REAL_TFLITE();
    GraphBuilder g;
    const int32_t in = g.tensor({1, 6, 7, 8}, fb::TensorType_UINT8, {}, {0.1f}, {120});
    const int32_t axes = g.tensor({2}, fb::TensorType_INT32, GraphBuilder::bytes(std::vector<int32_t>{1, 2}));
    const int32_t out = g.tensor({1, 1, 1, 8}, fb::TensorType_UINT8, {}, {0.1f}, {120});
    g.op(fb::BuiltinOperator_MEAN, {in, axes}, {out}, fb::BuiltinOptions_ReducerOptions,
         [](auto& b) { return fb::CreateReducerOptions(b, true).Union(); });
    g.inputs = {in};
    g.outputs = {out};
    expectSameAsRealTflite(g, {rampBytes<uint8_t>(336, 0, 255)});
}

// Float RESIZE_BILINEAR with half-pixel centres or aligned corners (NNAPI has neither at feature
// level 29, so the CPU path runs the tools' kernel): TFLite's optimized kernel, bit for bit.
void resizeBilinearFloat(bool alignCorners, bool halfPixel, std::vector<int32_t> inShape, std::vector<int32_t> outShape) {
    GraphBuilder g;
    const int32_t in = g.tensor(inShape, fb::TensorType_FLOAT32);
    const int32_t size =
        g.tensor({2}, fb::TensorType_INT32, GraphBuilder::bytes(std::vector<int32_t>{outShape[1], outShape[2]}));
    const int32_t out = g.tensor(outShape, fb::TensorType_FLOAT32);
    g.op(fb::BuiltinOperator_RESIZE_BILINEAR, {in, size}, {out}, fb::BuiltinOptions_ResizeBilinearOptions,
         [=](auto& b) { return fb::CreateResizeBilinearOptions(b, alignCorners, halfPixel).Union(); });
    g.inputs = {in};
    g.outputs = {out};
    const size_t count = static_cast<size_t>(inShape[0]) * inShape[1] * inShape[2] * inShape[3];
    expectSameAsRealTflite(g, {rampBytes<float>(count, -3, 3)}, 0);
}
TEST(RealTflite, ResizeBilinearFloatHalfPixel) {
    NNEMU_REQUIRE_REAL_TFLITE();
    resizeBilinearFloat(false, true, {1, 5, 7, 2}, {1, 9, 4, 2});
}
TEST(RealTflite, ResizeBilinearFloatAlignCornersDeepLabStyle) {
    NNEMU_REQUIRE_REAL_TFLITE();
    resizeBilinearFloat(true, false, {1, 9, 9, 5}, {1, 65, 65, 5});
}

TEST(RealTflite, SoftmaxFloat) {
    NNEMU_REQUIRE_REAL_TFLITE();
    GraphBuilder g;
    const int32_t in = g.tensor({3, 10}, fb::TensorType_FLOAT32);
    const int32_t out = g.tensor({3, 10}, fb::TensorType_FLOAT32);
    g.op(fb::BuiltinOperator_SOFTMAX, {in}, {out}, fb::BuiltinOptions_SoftmaxOptions,
         [](auto& b) { return fb::CreateSoftmaxOptions(b, 1.0f).Union(); });
    g.inputs = {in};
    g.outputs = {out};
    expectSameAsRealTflite(g, {rampBytes<float>(30, -6, 6)});
}

}  // namespace
}  // namespace nnemu::tflite::test
