// Differential tests against real TensorFlow Lite 2.21: CONV_3D and CONV_3D_TRANSPOSE (float32) on
// the tools' CPU kernels, in every interpreter mode (RealTfliteOps.h): SAME and VALID padding,
// strides, dilations, with and without bias, fused RELU / RELU6, a transpose whose output shape is
// only known at invoke; bit for bit (ULP tolerance 0). Malformed nodes refused everywhere.
#include <array>

#include "RealTfliteOps.h"

namespace nnemu::tflite::test {
namespace {

#define REAL_TFLITE_TEST(name) TEST(RealTfliteConv3d, name)
#define REQUIRE() NNEMU_REQUIRE_REAL_TFLITE()

struct Conv3dOptions {
    fb::Padding padding = fb::Padding_SAME;
    std::array<int32_t, 3> stride{1, 1, 1}, dilation{1, 1, 1};   // depth, height, width
    fb::ActivationFunctionType activation = fb::ActivationFunctionType_NONE;
};

GraphBuilder::Options conv3d(Conv3dOptions o) {
    return [o](flatbuffers::FlatBufferBuilder& b) {
        return fb::CreateConv3DOptions(b, o.padding, o.stride[0], o.stride[2], o.stride[1], o.activation, o.dilation[0],
                                       o.dilation[2], o.dilation[1])
                .Union();
    };
}

// A constant float tensor over [-1, 1].
Spec weights(std::vector<int32_t> shape) {
    const size_t count = elementCount(shape);
    return constant(f32(std::move(shape)), rampBytes<float>(count, -1, 1));
}

void expectConv3d(std::vector<int32_t> in, std::vector<int32_t> filter, bool bias, std::vector<int32_t> out,
                  Conv3dOptions o) {
    std::vector<Spec> ins = {f32(std::move(in), -2, 2), weights(filter)};
    if (bias) ins.push_back(weights({filter[4]}));
    expectOp(fb::BuiltinOperator_CONV_3D, ins, {f32(std::move(out))}, fb::BuiltinOptions_Conv3DOptions, conv3d(o), 0);
}

Spec outputShape(const std::vector<int32_t>& shape) { return constantOf<int32_t>({5}, fb::TensorType_INT32, shape); }

void expectTranspose(std::vector<int32_t> out, std::vector<int32_t> filter, std::vector<int32_t> in, bool bias,
                     Conv3dOptions o) {
    std::vector<Spec> ins = {outputShape(out), weights(filter), f32(std::move(in), -2, 2)};
    if (bias) ins.push_back(weights({filter[3]}));
    expectOp(fb::BuiltinOperator_CONV_3D_TRANSPOSE, ins, {f32(std::move(out))}, fb::BuiltinOptions_Conv3DOptions,
             conv3d(o), 0);
}

// ---- CONV_3D
REAL_TFLITE_TEST(Conv3dSameBias) {
    REQUIRE();
    expectConv3d({1, 4, 5, 6, 3}, {3, 3, 3, 3, 4}, true, {1, 4, 5, 6, 4}, {});
}
REAL_TFLITE_TEST(Conv3dValidNoBias) {
    REQUIRE();
    expectConv3d({2, 5, 4, 6, 2}, {2, 3, 2, 2, 5}, false, {2, 4, 2, 5, 5}, {fb::Padding_VALID});
}
REAL_TFLITE_TEST(Conv3dSameStridesRelu) {
    REQUIRE();
    expectConv3d({1, 7, 6, 5, 3}, {3, 2, 3, 3, 4}, true, {1, 4, 2, 3, 4},
                 {fb::Padding_SAME, {2, 3, 2}, {1, 1, 1}, fb::ActivationFunctionType_RELU});
}
REAL_TFLITE_TEST(Conv3dValidDilatedRelu6) {
    REQUIRE();
    expectConv3d({1, 6, 7, 8, 2}, {2, 2, 3, 2, 3}, true, {1, 4, 5, 6, 3},
                 {fb::Padding_VALID, {1, 1, 1}, {2, 2, 1}, fb::ActivationFunctionType_RELU6});
}
// Real TFLite 2.21's default CONV_3D kernel aborts ("double free or corruption") after writing
// its output when SAME padding meets a dilation: no reference to compare with.
REAL_TFLITE_TEST(DISABLED_Conv3dSameDilated) {
    REQUIRE();
    expectConv3d({1, 6, 6, 7, 2}, {2, 3, 2, 2, 3}, false, {1, 6, 6, 7, 3},
                 {fb::Padding_SAME, {1, 1, 1}, {2, 2, 3}, fb::ActivationFunctionType_NONE});
}
REAL_TFLITE_TEST(Conv3dValidDilatedStrided) {
    REQUIRE();
    expectConv3d({1, 7, 6, 9, 2}, {2, 2, 2, 2, 3}, true, {1, 3, 4, 3, 3},
                 {fb::Padding_VALID, {2, 1, 2}, {2, 2, 3}, fb::ActivationFunctionType_NONE});
}
REAL_TFLITE_TEST(Conv3dPointwise) {
    REQUIRE();
    expectConv3d({1, 3, 4, 5, 6}, {1, 1, 1, 6, 7}, true, {1, 3, 4, 5, 7}, {});
}

// ---- CONV_3D_TRANSPOSE
REAL_TFLITE_TEST(TransposeSameBias) {
    REQUIRE();
    expectTranspose({1, 4, 5, 6, 4}, {3, 3, 3, 4, 3}, {1, 4, 5, 6, 3}, true, {});
}
REAL_TFLITE_TEST(TransposeValidStridesNoBias) {
    REQUIRE();
    expectTranspose({2, 7, 5, 8, 3}, {3, 3, 2, 3, 2}, {2, 3, 2, 4, 2}, false, {fb::Padding_VALID, {2, 2, 2}});
}
REAL_TFLITE_TEST(TransposeSameStridesRelu) {
    REQUIRE();
    expectTranspose({1, 6, 6, 5, 2}, {3, 2, 3, 2, 4}, {1, 3, 2, 3, 4}, true,
                    {fb::Padding_SAME, {2, 3, 2}, {1, 1, 1}, fb::ActivationFunctionType_RELU});
}
REAL_TFLITE_TEST(TransposeDilatedRelu6) {
    REQUIRE();
    expectTranspose({1, 6, 7, 8, 3}, {2, 2, 3, 3, 2}, {1, 4, 5, 6, 2}, true,
                    {fb::Padding_VALID, {1, 1, 1}, {2, 2, 1}, fb::ActivationFunctionType_RELU6});
}
REAL_TFLITE_TEST(TransposeSameDilatedStrided) {
    REQUIRE();
    expectTranspose({1, 6, 6, 7, 3}, {2, 3, 2, 3, 2}, {1, 3, 6, 4, 2}, false,
                    {fb::Padding_SAME, {2, 1, 2}, {2, 2, 3}, fb::ActivationFunctionType_NONE});
}
// The output shape a model input: TFLite sizes the output at invoke.
REAL_TFLITE_TEST(TransposeShapeAtInvoke) {
    REQUIRE();
    GraphBuilder g = oneOp(fb::BuiltinOperator_CONV_3D_TRANSPOSE,
                           {i32({5}), weights({2, 3, 2, 4, 3}), f32({2, 2, 3, 2, 3}, -2, 2), weights({4})},
                           {f32({1})}, fb::BuiltinOptions_Conv3DOptions, conv3d({fb::Padding_SAME, {1, 2, 1}}));
    expectSameAsRealTflite(g, {GraphBuilder::bytes(std::vector<int32_t>{2, 2, 5, 2, 4}),
                               inputBytes(f32({2, 2, 3, 2, 3}, -2, 2))});
}

// ---- malformed nodes
GraphBuilder conv3dModel(std::vector<Spec> ins, std::vector<int32_t> out, Conv3dOptions o = {}) {
    return oneOp(fb::BuiltinOperator_CONV_3D, ins, {f32(std::move(out))}, fb::BuiltinOptions_Conv3DOptions, conv3d(o));
}
TEST(Conv3dMalformed, InputRank4) {
    expectModelRefused(conv3dModel({f32({1, 4, 4, 2}), weights({1, 1, 1, 2, 2})}, {1, 4, 4, 2}), "rank 5");
}
TEST(Conv3dMalformed, ChannelMismatch) {
    expectModelRefused(conv3dModel({f32({1, 4, 4, 4, 2}), weights({1, 1, 1, 3, 2})}, {1, 4, 4, 4, 2}),
                       "input channels 2 differ from the filter's 3");
}
TEST(Conv3dMalformed, ZeroStride) {
    expectModelRefused(conv3dModel({f32({1, 4, 4, 4, 2}), weights({1, 1, 1, 2, 2})}, {1, 4, 4, 4, 2}, {fb::Padding_SAME, {1, 0, 1}}),
                       "strides and dilations must be positive");
}
TEST(Conv3dMalformed, ZeroDilation) {
    expectModelRefused(conv3dModel({f32({1, 4, 4, 4, 2}), weights({1, 1, 1, 2, 2})}, {1, 4, 4, 4, 2},
                                   {fb::Padding_SAME, {1, 1, 1}, {1, 1, 0}}),
                       "strides and dilations must be positive");
}
TEST(Conv3dMalformed, FilterLargerThanInput) {
    expectModelRefused(conv3dModel({f32({1, 2, 4, 4, 2}), weights({3, 1, 1, 2, 2})}, {1, 1, 4, 4, 2}, {fb::Padding_VALID}),
                       "the filter is larger than the input");
}
TEST(Conv3dMalformed, BiasCount) {
    expectModelRefused(conv3dModel({f32({1, 4, 4, 4, 2}), weights({1, 1, 1, 2, 2}), weights({3})}, {1, 4, 4, 4, 2}),
                       "one value per output channel");
}
TEST(Conv3dMalformed, Int8Input) {
    expectModelRefused(conv3dModel({i8({1, 4, 4, 4, 2}, 0.1f, 0), weights({1, 1, 1, 2, 2})}, {1, 4, 4, 4, 2}),
                       "input of type");
}
TEST(Conv3dMalformed, WrongOutputShape) {
    expectModelRefused(conv3dModel({f32({1, 4, 4, 4, 2}), weights({1, 1, 1, 2, 2})}, {1, 4, 4, 4, 3}), "computes to");
}
TEST(Conv3dMalformed, MissingOptions) {
    expectModelRefused(oneOp(fb::BuiltinOperator_CONV_3D, {f32({1, 4, 4, 4, 2}), weights({1, 1, 1, 2, 2})}, {f32({1, 4, 4, 4, 2})}),
                       "unknown padding");
}

GraphBuilder transposeModel(std::vector<int32_t> shape, std::vector<Spec> rest, std::vector<int32_t> out, Conv3dOptions o = {}) {
    rest.insert(rest.begin(), outputShape(shape));
    return oneOp(fb::BuiltinOperator_CONV_3D_TRANSPOSE, rest, {f32(std::move(out))}, fb::BuiltinOptions_Conv3DOptions, conv3d(o));
}
TEST(Conv3dMalformed, TransposeChannelMismatch) {
    expectModelRefused(transposeModel({1, 4, 4, 4, 3}, {weights({1, 1, 1, 3, 2}), f32({1, 4, 4, 4, 4})}, {1, 4, 4, 4, 3}),
                       "input channels 4 differ from the filter's 2");
}
TEST(Conv3dMalformed, TransposeShapeDoesNotConvolveToInput) {
    expectModelRefused(transposeModel({1, 9, 4, 4, 3}, {weights({1, 1, 1, 3, 2}), f32({1, 4, 4, 4, 2})}, {1, 9, 4, 4, 3}),
                       "does not convolve to the input's");
}
TEST(Conv3dMalformed, TransposeOutputChannels) {
    expectModelRefused(transposeModel({1, 4, 4, 4, 6}, {weights({1, 1, 1, 3, 2}), f32({1, 4, 4, 4, 2})}, {1, 4, 4, 4, 6}),
                       "channels differ from the filter's");
}
TEST(Conv3dMalformed, TransposeBatch) {
    expectModelRefused(transposeModel({2, 4, 4, 4, 3}, {weights({1, 1, 1, 3, 2}), f32({1, 4, 4, 4, 2})}, {2, 4, 4, 4, 3}),
                       "batch differs");
}
TEST(Conv3dMalformed, TransposeInt64Shape) {
    expectModelRefused(oneOp(fb::BuiltinOperator_CONV_3D_TRANSPOSE,
                             {constantOf<int64_t>({5}, fb::TensorType_INT64, {1, 4, 4, 4, 3}), weights({1, 1, 1, 3, 2}),
                              f32({1, 4, 4, 4, 2})},
                             {f32({1, 4, 4, 4, 3})}, fb::BuiltinOptions_Conv3DOptions, conv3d({})),
                       "output shape of type");
}
TEST(Conv3dMalformed, TransposeShapeOfFourValues) {
    expectModelRefused(oneOp(fb::BuiltinOperator_CONV_3D_TRANSPOSE,
                             {constantOf<int32_t>({4}, fb::TensorType_INT32, {1, 4, 4, 3}), weights({1, 1, 1, 3, 2}),
                              f32({1, 4, 4, 4, 2})},
                             {f32({1, 4, 4, 4, 3})}, fb::BuiltinOptions_Conv3DOptions, conv3d({})),
                       "must hold 5 values");
}
TEST(Conv3dMalformed, TransposeZeroStride) {
    expectModelRefused(transposeModel({1, 4, 4, 4, 3}, {weights({1, 1, 1, 3, 2}), f32({1, 4, 4, 4, 2})}, {1, 4, 4, 4, 3},
                                      {fb::Padding_SAME, {0, 1, 1}}),
                       "strides and dilations must be positive");
}

// An output shape given at invoke that the input does not convolve from: invoke fails cleanly.
TEST(Conv3dMalformed, TransposeShapeAtInvokeMismatch) {
    const GraphBuilder g = oneOp(fb::BuiltinOperator_CONV_3D_TRANSPOSE,
                                 {i32({5}), weights({1, 1, 1, 3, 2}), f32({1, 4, 4, 4, 2})}, {f32({1})},
                                 fb::BuiltinOptions_Conv3DOptions, conv3d({}));
    forEachKernelRunMode(g.buildBytes(), [&](Interpreter& interpreter) {
        const std::vector<int32_t> shape = {1, 5, 4, 4, 3};
        std::memcpy(interpreter.inputData(0), shape.data(), shape.size() * sizeof(int32_t));
        const std::string error = failureOf(interpreter.invoke());
        EXPECT_NE(error.find("does not convolve to the input's"), std::string::npos) << error;
    });
}

}  // namespace
}  // namespace nnemu::tflite::test
