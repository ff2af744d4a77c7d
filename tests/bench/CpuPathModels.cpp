// nnemu_bench_cpu_path_models OUTDIR: writes one-operator .tflite models at the shapes today's
// published models give these operators (MobileNet, DeepLab, YOLO-style detectors, transformer
// blocks), for cpu_path_vs_tflite.sh, which times each on nnemu's CPU path and on TensorFlow
// Lite's builtin kernels. The models come from the differential suite's builder
// (tests/tflite/RealTfliteOps.h), so every operator here is also checked against real TFLite there.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "RealTfliteOps.h"

namespace nnemu::tflite::test {
namespace {

using Options = GraphBuilder::Options;
constexpr fb::ActivationFunctionType kNone = fb::ActivationFunctionType_NONE;
constexpr fb::ActivationFunctionType kRelu6 = fb::ActivationFunctionType_RELU6;

struct BenchModel {
    const char* name;
    std::function<GraphBuilder()> build;
};

Options convOptions(fb::Padding padding, int stride, fb::ActivationFunctionType act) {
    return [=](flatbuffers::FlatBufferBuilder& b) {
        return fb::CreateConv2DOptions(b, padding, stride, stride, act, 1, 1).Union();
    };
}
Options depthwiseOptions(int stride) {
    return [=](flatbuffers::FlatBufferBuilder& b) {
        return fb::CreateDepthwiseConv2DOptions(b, fb::Padding_SAME, stride, stride, 1, kRelu6, 1, 1).Union();
    };
}
Options poolOptions(int size) {
    return [=](flatbuffers::FlatBufferBuilder& b) {
        return fb::CreatePool2DOptions(b, fb::Padding_VALID, size, size, size, size, kNone).Union();
    };
}

// A weight tensor of `type` over its whole range, scale `scale` (quantized types only).
Spec weights(std::vector<int32_t> shape, fb::TensorType type, float scale) {
    const size_t n = elementCount(shape);
    switch (type) {
        case fb::TensorType_UINT8: return constant(u8(std::move(shape), scale, 128), rampBytes<uint8_t>(n, 0, 255));
        case fb::TensorType_INT8: return constant(i8(std::move(shape), scale, 0), rampBytes<int8_t>(n, -127, 127));
        default: return constant(f32(std::move(shape)), rampBytes<float>(n, -0.1, 0.1));
    }
}
Spec bias(int32_t count, fb::TensorType type, float scale) {
    if (type == fb::TensorType_FLOAT32) return constant(f32({count}), rampBytes<float>(count, -0.1, 0.1));
    Spec s = constant(i32({count}), rampBytes<int32_t>(count, -500, 500));
    s.scale = scale;
    return s;
}
// An activation tensor of `type` (quantized: scale 0.05, zero point 128 / 0).
Spec act(std::vector<int32_t> shape, fb::TensorType type, float scale = 0.05f) {
    if (type == fb::TensorType_UINT8) return u8(std::move(shape), scale, 128);
    if (type == fb::TensorType_INT8) return i8(std::move(shape), scale, 0);
    return f32(std::move(shape));
}

GraphBuilder conv(fb::TensorType type, std::vector<int32_t> in, int32_t outC, int k, int stride) {
    const std::vector<int32_t> out = {1, in[1] / stride, in[2] / stride, outC};
    return oneOp(fb::BuiltinOperator_CONV_2D,
                 {act(in, type), weights({outC, k, k, in[3]}, type, 0.01f), bias(outC, type, 0.0005f)},
                 {act(out, type)}, fb::BuiltinOptions_Conv2DOptions, convOptions(fb::Padding_SAME, stride, kRelu6));
}
GraphBuilder depthwise(fb::TensorType type, std::vector<int32_t> in, int stride) {
    const std::vector<int32_t> out = {1, in[1] / stride, in[2] / stride, in[3]};
    return oneOp(fb::BuiltinOperator_DEPTHWISE_CONV_2D,
                 {act(in, type), weights({1, 3, 3, in[3]}, type, 0.01f), bias(in[3], type, 0.0005f)},
                 {act(out, type)}, fb::BuiltinOptions_DepthwiseConv2DOptions, depthwiseOptions(stride));
}
GraphBuilder fullyConnected(fb::TensorType type, int32_t in, int32_t out) {
    return oneOp(fb::BuiltinOperator_FULLY_CONNECTED,
                 {act({1, in}, type), weights({out, in}, type, 0.01f), bias(out, type, 0.0005f)}, {act({1, out}, type)},
                 fb::BuiltinOptions_FullyConnectedOptions,
                 [](flatbuffers::FlatBufferBuilder& b) { return fb::CreateFullyConnectedOptions(b).Union(); });
}
GraphBuilder binary(fb::BuiltinOperator code, fb::TensorType type, std::vector<int32_t> a, std::vector<int32_t> b) {
    const fb::BuiltinOptions optionsType =
        code == fb::BuiltinOperator_ADD ? fb::BuiltinOptions_AddOptions : fb::BuiltinOptions_MulOptions;
    Options options = [code](flatbuffers::FlatBufferBuilder& fbb) {
        return code == fb::BuiltinOperator_ADD ? fb::CreateAddOptions(fbb).Union() : fb::CreateMulOptions(fbb).Union();
    };
    return oneOp(code, {act(a, type), act(b, type, 0.02f)}, {act(a, type, 0.1f)}, optionsType, std::move(options));
}
GraphBuilder unary(fb::BuiltinOperator code, fb::TensorType type, std::vector<int32_t> shape,
                   fb::BuiltinOptions optionsType = fb::BuiltinOptions_NONE, Options options = nullptr) {
    return oneOp(code, {act(shape, type)}, {act(shape, type, 0.03f)}, optionsType, std::move(options));
}
GraphBuilder mean(fb::TensorType type, std::vector<int32_t> in) {
    return oneOp(fb::BuiltinOperator_MEAN, {act(in, type), constantOf<int32_t>({2}, fb::TensorType_INT32, {1, 2})},
                 {act({1, 1, 1, in[3]}, type, 0.02f)}, fb::BuiltinOptions_ReducerOptions,
                 [](flatbuffers::FlatBufferBuilder& b) { return fb::CreateReducerOptions(b, true).Union(); });
}
GraphBuilder resizeBilinear(fb::TensorType type) {
    return oneOp(fb::BuiltinOperator_RESIZE_BILINEAR,
                 {act({1, 33, 33, 21}, type), constantOf<int32_t>({2}, fb::TensorType_INT32, {257, 257})},
                 {act({1, 257, 257, 21}, type)}, fb::BuiltinOptions_ResizeBilinearOptions,
                 [](flatbuffers::FlatBufferBuilder& b) { return fb::CreateResizeBilinearOptions(b, true, false).Union(); });
}
GraphBuilder resizeNearest(fb::TensorType type) {
    return oneOp(fb::BuiltinOperator_RESIZE_NEAREST_NEIGHBOR,
                 {act({1, 20, 20, 128}, type), constantOf<int32_t>({2}, fb::TensorType_INT32, {40, 40})},
                 {act({1, 40, 40, 128}, type)}, fb::BuiltinOptions_ResizeNearestNeighborOptions,
                 [](flatbuffers::FlatBufferBuilder& b) { return fb::CreateResizeNearestNeighborOptions(b).Union(); });
}
GraphBuilder argMax(fb::TensorType type) {
    return oneOp(fb::BuiltinOperator_ARG_MAX,
                 {act({1, 257, 257, 21}, type), constantOf<int32_t>({1}, fb::TensorType_INT32, {3})},
                 {{{1, 257, 257}, fb::TensorType_INT32}}, fb::BuiltinOptions_ArgMaxOptions,
                 [](flatbuffers::FlatBufferBuilder& b) { return fb::CreateArgMaxOptions(b, fb::TensorType_INT32).Union(); });
}
GraphBuilder softmax(fb::TensorType type, std::vector<int32_t> shape) {
    Spec out = act(shape, type, 1.0f / 256);
    if (type == fb::TensorType_INT8) out.zeroPoint = -128;
    if (type == fb::TensorType_UINT8) out.zeroPoint = 0;
    return oneOp(fb::BuiltinOperator_SOFTMAX, {act(shape, type)}, {out}, fb::BuiltinOptions_SoftmaxOptions,
                 [](flatbuffers::FlatBufferBuilder& b) { return fb::CreateSoftmaxOptions(b, 1.0f).Union(); });
}
GraphBuilder concatenation(fb::TensorType type) {
    return oneOp(fb::BuiltinOperator_CONCATENATION, {act({1, 40, 40, 128}, type), act({1, 40, 40, 128}, type)},
                 {act({1, 40, 40, 256}, type)}, fb::BuiltinOptions_ConcatenationOptions,
                 [](flatbuffers::FlatBufferBuilder& b) { return fb::CreateConcatenationOptions(b, 3, kNone).Union(); });
}
GraphBuilder transpose(fb::TensorType type) {
    return oneOp(fb::BuiltinOperator_TRANSPOSE,
                 {act({1, 128, 12, 64}, type), constantOf<int32_t>({4}, fb::TensorType_INT32, {0, 2, 1, 3})},
                 {act({1, 12, 128, 64}, type)}, fb::BuiltinOptions_TransposeOptions,
                 [](flatbuffers::FlatBufferBuilder& b) { return fb::CreateTransposeOptions(b).Union(); });
}
GraphBuilder batchMatMul() {
    return oneOp(fb::BuiltinOperator_BATCH_MATMUL, {f32({12, 128, 64}), f32({12, 64, 128})}, {f32({12, 128, 128})},
                 fb::BuiltinOptions_BatchMatMulOptions,
                 [](flatbuffers::FlatBufferBuilder& b) { return fb::CreateBatchMatMulOptions(b).Union(); });
}

GraphBuilder l2Normalization(fb::TensorType type, std::vector<int32_t> shape) {
    Spec out = act(shape, type, 1.0f / 128);
    out.zeroPoint = type == fb::TensorType_UINT8 ? 128 : 0;
    return oneOp(fb::BuiltinOperator_L2_NORMALIZATION, {act(shape, type)}, {out}, fb::BuiltinOptions_L2NormOptions,
                 [](flatbuffers::FlatBufferBuilder& b) { return fb::CreateL2NormOptions(b).Union(); });
}
// The inputs and the output quantized otherwise (the forms TFLite compares stored values in).
GraphBuilder extremum(fb::BuiltinOperator code, fb::TensorType type, std::vector<int32_t> a, std::vector<int32_t> b) {
    return oneOp(code, {act(a, type), act(b, type, 0.02f)}, {act(a, type, 0.1f)});
}
GraphBuilder squaredDifference(fb::TensorType type, std::vector<int32_t> a, std::vector<int32_t> b) {
    return oneOp(fb::BuiltinOperator_SQUARED_DIFFERENCE, {act(a, type), act(b, type, 0.02f)}, {act(a, type, 0.5f)});
}

GraphBuilder less(fb::TensorType type, std::vector<int32_t> a, std::vector<int32_t> b) {
    return oneOp(fb::BuiltinOperator_LESS, {act(a, type), act(b, type, 0.02f)}, {{a, fb::TensorType_BOOL}});
}
GraphBuilder quantize(fb::TensorType from, fb::TensorType to, std::vector<int32_t> shape) {
    return oneOp(fb::BuiltinOperator_QUANTIZE, {act(shape, from)}, {act(shape, to, 0.03f)});
}

const std::vector<BenchModel>& benchModels() {
    constexpr fb::TensorType F = fb::TensorType_FLOAT32, U = fb::TensorType_UINT8, I = fb::TensorType_INT8;
    static const std::vector<BenchModel> models = {
        {"conv_3x3_f32", [] { return conv(F, {1, 56, 56, 64}, 64, 3, 1); }},
        {"conv_3x3_u8", [] { return conv(U, {1, 56, 56, 64}, 64, 3, 1); }},
        {"conv_1x1_f32", [] { return conv(F, {1, 28, 28, 128}, 256, 1, 1); }},
        {"conv_1x1_i8", [] { return conv(I, {1, 28, 28, 128}, 256, 1, 1); }},
        {"depthwise_f32", [] { return depthwise(F, {1, 112, 112, 32}, 1); }},
        {"depthwise_u8", [] { return depthwise(U, {1, 112, 112, 32}, 1); }},
        {"depthwise_i8", [] { return depthwise(I, {1, 112, 112, 32}, 1); }},
        {"fully_connected_f32", [] { return fullyConnected(F, 1024, 1000); }},
        {"fully_connected_i8", [] { return fullyConnected(I, 1024, 1000); }},
        {"add_f32", [] { return binary(fb::BuiltinOperator_ADD, F, {1, 56, 56, 128}, {1, 56, 56, 128}); }},
        {"add_i8", [] { return binary(fb::BuiltinOperator_ADD, I, {1, 56, 56, 128}, {1, 56, 56, 128}); }},
        {"mul_broadcast_f32", [] { return binary(fb::BuiltinOperator_MUL, F, {1, 28, 28, 256}, {1, 1, 1, 256}); }},
        {"mul_broadcast_u8", [] { return binary(fb::BuiltinOperator_MUL, U, {1, 28, 28, 256}, {1, 1, 1, 256}); }},
        {"average_pool_f32", [] { return oneOp(fb::BuiltinOperator_AVERAGE_POOL_2D, {f32({1, 7, 7, 1024})},
                                               {f32({1, 1, 1, 1024})}, fb::BuiltinOptions_Pool2DOptions, poolOptions(7)); }},
        {"mean_f32", [] { return mean(F, {1, 14, 14, 576}); }},
        {"mean_i8", [] { return mean(I, {1, 14, 14, 576}); }},
        {"softmax_f32", [] { return softmax(F, {12, 128, 128}); }},
        {"softmax_i8", [] { return softmax(I, {12, 128, 128}); }},
        {"logistic_f32", [] { return unary(fb::BuiltinOperator_LOGISTIC, F, {1, 56, 56, 128}); }},
        {"tanh_f32", [] { return unary(fb::BuiltinOperator_TANH, F, {1, 56, 56, 128}); }},
        {"hard_swish_f32", [] { return unary(fb::BuiltinOperator_HARD_SWISH, F, {1, 56, 56, 128}); }},
        {"leaky_relu_f32", [] { return unary(fb::BuiltinOperator_LEAKY_RELU, F, {1, 80, 80, 64},
                                             fb::BuiltinOptions_LeakyReluOptions,
                                             [](flatbuffers::FlatBufferBuilder& b) {
                                                 return fb::CreateLeakyReluOptions(b, 0.1f).Union();
                                             }); }},
        {"gelu_f32", [] { return unary(fb::BuiltinOperator_GELU, F, {1, 128, 768}); }},
        {"elu_i8", [] { return unary(fb::BuiltinOperator_ELU, I, {1, 80, 80, 64}); }},
        {"l2_normalization_u8", [] { return l2Normalization(U, {1, 56, 56, 128}); }},
        {"l2_normalization_i8", [] { return l2Normalization(I, {1, 56, 56, 128}); }},
        {"maximum_requantized_u8", [] { return extremum(fb::BuiltinOperator_MAXIMUM, U, {1, 56, 56, 128}, {1, 1, 1, 128}); }},
        {"less_u8", [] { return less(U, {1, 56, 56, 128}, {1, 1, 1, 128}); }},
        {"dequantize_i16", [] {
             const std::vector<int32_t> shape = {1, 56, 56, 128};
             return oneOp(fb::BuiltinOperator_DEQUANTIZE, {{shape, fb::TensorType_INT16, 0.001f, 0}}, {f32(shape)});
         }},
        {"relu_i16", [] {
             const std::vector<int32_t> shape = {1, 56, 56, 128};
             return oneOp(fb::BuiltinOperator_RELU, {{shape, fb::TensorType_INT16, 0.001f, 0}},
                          {{shape, fb::TensorType_INT16, 0.0007f, 0}});
         }},
        {"sub_i16", [] {
             const std::vector<int32_t> shape = {1, 56, 56, 128};
             return oneOp(fb::BuiltinOperator_SUB,
                          {{shape, fb::TensorType_INT16, 0.001f, 0}, {shape, fb::TensorType_INT16, 0.0007f, 0}},
                          {{shape, fb::TensorType_INT16, 0.002f, 0}}, fb::BuiltinOptions_SubOptions,
                          [](flatbuffers::FlatBufferBuilder& b) { return fb::CreateSubOptions(b, kNone, false).Union(); });
         }},
        {"average_pool_i16", [] {
             return oneOp(fb::BuiltinOperator_AVERAGE_POOL_2D, {{{1, 56, 56, 64}, fb::TensorType_INT16, 0.001f, 0}},
                          {{{1, 28, 28, 64}, fb::TensorType_INT16, 0.001f, 0}}, fb::BuiltinOptions_Pool2DOptions, poolOptions(2));
         }},
        {"max_pool_i16", [] {
             return oneOp(fb::BuiltinOperator_MAX_POOL_2D, {{{1, 56, 56, 64}, fb::TensorType_INT16, 0.001f, 0}},
                          {{{1, 28, 28, 64}, fb::TensorType_INT16, 0.001f, 0}}, fb::BuiltinOptions_Pool2DOptions, poolOptions(2));
         }},
        {"leaky_relu_i16", [] {
             const std::vector<int32_t> shape = {1, 80, 80, 64};
             return oneOp(fb::BuiltinOperator_LEAKY_RELU, {{shape, fb::TensorType_INT16, 0.001f, 0}},
                          {{shape, fb::TensorType_INT16, 0.0008f, 0}}, fb::BuiltinOptions_LeakyReluOptions,
                          [](flatbuffers::FlatBufferBuilder& b) { return fb::CreateLeakyReluOptions(b, 0.1f).Union(); });
         }},
        {"reduce_prod_i8", [] {
             return oneOp(fb::BuiltinOperator_REDUCE_PROD,
                          {act({1, 56, 56, 4}, fb::TensorType_INT8, 0.02f),
                           constantOf<int32_t>({1}, fb::TensorType_INT32, {3})},
                          {act({1, 56, 56}, fb::TensorType_INT8, 0.0005f)}, fb::BuiltinOptions_ReducerOptions,
                          [](flatbuffers::FlatBufferBuilder& b) { return fb::CreateReducerOptions(b, false).Union(); });
         }},
        // An attention head's scores against one shared key matrix (batch broadcast: NNAPI's
        // BATCH_MATMUL takes none; float against a rank-2 matrix, 12 GEMMs in TFLite), and the
        // int16 form.
        {"batch_matmul_broadcast_i8", [] {
             return oneOp(fb::BuiltinOperator_BATCH_MATMUL, {act({12, 128, 64}, I, 0.05f), act({1, 64, 128}, I, 0.04f)},
                          {act({12, 128, 128}, I, 0.5f)}, fb::BuiltinOptions_BatchMatMulOptions,
                          [](flatbuffers::FlatBufferBuilder& b) { return fb::CreateBatchMatMulOptions(b).Union(); });
         }},
        {"batch_matmul_broadcast_f32", [] {
             return oneOp(fb::BuiltinOperator_BATCH_MATMUL, {f32({12, 128, 64}), f32({64, 128})}, {f32({12, 128, 128})},
                          fb::BuiltinOptions_BatchMatMulOptions,
                          [](flatbuffers::FlatBufferBuilder& b) { return fb::CreateBatchMatMulOptions(b).Union(); });
         }},
        {"batch_matmul_adj_x_folded_f32", [] {   // adj_x against [1, K, N]: TFLite folds, writing one batch
             return oneOp(fb::BuiltinOperator_BATCH_MATMUL, {f32({12, 64, 128}), f32({1, 64, 128})}, {f32({12, 128, 128})},
                          fb::BuiltinOptions_BatchMatMulOptions,
                          [](flatbuffers::FlatBufferBuilder& b) { return fb::CreateBatchMatMulOptions(b, true, false).Union(); });
         }},
        {"batch_matmul_i16", [] {
             return oneOp(fb::BuiltinOperator_BATCH_MATMUL,
                          {{{4, 128, 64}, fb::TensorType_INT16, 0.0005f, 0}, {{4, 64, 128}, fb::TensorType_INT16, 0.0004f, 0}},
                          {{{4, 128, 128}, fb::TensorType_INT16, 0.002f, 0}}, fb::BuiltinOptions_BatchMatMulOptions,
                          [](flatbuffers::FlatBufferBuilder& b) { return fb::CreateBatchMatMulOptions(b).Union(); });
         }},
        {"div_u8", [] {   // per-channel divisors, a constant never at its zero point
             return oneOp(fb::BuiltinOperator_DIV, {u8({1, 56, 56, 128}, 0.05f, 0),
                                                     constant(u8({1, 1, 1, 128}, 0.02f, 0), rampBytes<uint8_t>(128, 1, 255))},
                          {u8({1, 56, 56, 128}, 0.1f, 0)}, fb::BuiltinOptions_DivOptions,
                          [](flatbuffers::FlatBufferBuilder& b) { return fb::CreateDivOptions(b).Union(); });
         }},
        {"mean_i16", [] {   // global pooling without keep_dims (the int16 form the tools run)
             return oneOp(fb::BuiltinOperator_MEAN,
                          {{{1, 14, 14, 576}, fb::TensorType_INT16, 0.001f, 0}, constantOf<int32_t>({2}, fb::TensorType_INT32, {1, 2})},
                          {{{1, 576}, fb::TensorType_INT16, 0.0008f, 0}}, fb::BuiltinOptions_ReducerOptions,
                          [](flatbuffers::FlatBufferBuilder& b) { return fb::CreateReducerOptions(b, false).Union(); });
         }},
        {"mean_keep_dims_i16", [] {   // squeeze-excite's pooling, keep_dims (TFLite's height-width test)
             return oneOp(fb::BuiltinOperator_MEAN,
                          {{{1, 14, 14, 576}, fb::TensorType_INT16, 0.001f, 0}, constantOf<int32_t>({2}, fb::TensorType_INT32, {1, 2})},
                          {{{1, 1, 1, 576}, fb::TensorType_INT16, 0.0008f, 0}}, fb::BuiltinOptions_ReducerOptions,
                          [](flatbuffers::FlatBufferBuilder& b) { return fb::CreateReducerOptions(b, true).Union(); });
         }},
        {"softmax_i16", [] {   // the transformer block's 12-head scores, int16
             const std::vector<int32_t> shape = {12, 128, 128};
             return oneOp(fb::BuiltinOperator_SOFTMAX, {{shape, fb::TensorType_INT16, 0.0005f, 0}},
                          {{shape, fb::TensorType_INT16, 1.0f / 32768, 0}}, fb::BuiltinOptions_SoftmaxOptions,
                          [](flatbuffers::FlatBufferBuilder& b) { return fb::CreateSoftmaxOptions(b, 1.0f).Union(); });
         }},
        {"transpose_conv_i16", [] {   // a decoder's 2x upsampling, 16x8 (int8 filters, int64 bias)
             Spec filter = constant(i8({32, 3, 3, 64}, 0.01f, 0), rampBytes<int8_t>(32 * 3 * 3 * 64, -127, 127));
             Spec bias = constant({{32}, fb::TensorType_INT64}, rampBytes<int64_t>(32, -500, 500));
             bias.scale = 0.00001f;
             return oneOp(fb::BuiltinOperator_TRANSPOSE_CONV,
                          {constantOf<int32_t>({4}, fb::TensorType_INT32, {1, 64, 64, 32}), filter,
                           {{1, 32, 32, 64}, fb::TensorType_INT16, 0.001f, 0}, bias},
                          {{{1, 64, 64, 32}, fb::TensorType_INT16, 0.01f, 0}}, fb::BuiltinOptions_TransposeConvOptions,
                          [](flatbuffers::FlatBufferBuilder& b) {
                              return fb::CreateTransposeConvOptions(b, fb::Padding_SAME, 2, 2).Union();
                          });
         }},
        {"logistic_i16", [] {   // an LSTM-sized gate tensor, a scale off the power-of-two path
             const std::vector<int32_t> shape = {1, 56, 56, 128};
             return oneOp(fb::BuiltinOperator_LOGISTIC, {{shape, fb::TensorType_INT16, 0.0003f, 0}},
                          {{shape, fb::TensorType_INT16, 1.0f / 32768, 0}});
         }},
        {"tanh_i16", [] {
             const std::vector<int32_t> shape = {1, 56, 56, 128};
             return oneOp(fb::BuiltinOperator_TANH, {{shape, fb::TensorType_INT16, 0.0003f, 0}},
                          {{shape, fb::TensorType_INT16, 1.0f / 32768, 0}});
         }},
        {"quantize_f32_i8", [] { return quantize(F, I, {1, 224, 224, 3}); }},
        {"quantize_u8_i8", [] { return quantize(U, I, {1, 224, 224, 3}); }},
        {"squared_difference_i8", [] { return squaredDifference(I, {1, 128, 768}, {1, 128, 1}); }},
        {"batch_matmul_f32", [] { return batchMatMul(); }},
        {"transpose_f32", [] { return transpose(F); }},
        {"concatenation_f32", [] { return concatenation(F); }},
        {"resize_nearest_f32", [] { return resizeNearest(F); }},
        {"resize_bilinear_f32", [] { return resizeBilinear(F); }},
        {"resize_bilinear_u8", [] { return resizeBilinear(U); }},
        {"arg_max_f32", [] { return argMax(F); }},
    };
    return models;
}

}  // namespace
}  // namespace nnemu::tflite::test

int main(int argc, char** argv) {
    using namespace nnemu::tflite::test;
    if (argc != 2) {
        std::fprintf(stderr, "usage: nnemu_bench_cpu_path_models OUTDIR   write the one-operator benchmark models\n");
        return 2;
    }
    std::error_code error;
    std::filesystem::create_directories(argv[1], error);
    for (const BenchModel& model : benchModels()) {
        const std::vector<uint8_t> bytes = model.build().buildBytes();
        const std::string path = std::string(argv[1]) + "/" + model.name + ".tflite";
        std::ofstream out(path, std::ios::binary);
        out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        if (!out) {
            std::fprintf(stderr, "nnemu_bench_cpu_path_models: cannot write %s\n", path.c_str());
            return 1;
        }
        std::printf("%s\n", path.c_str());
    }
    return 0;
}
