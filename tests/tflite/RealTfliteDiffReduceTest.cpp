// Differential tests against real TensorFlow Lite 2.21: reductions (MEAN, SUM, REDUCE_PROD,
// REDUCE_MAX, REDUCE_MIN), ARG_MAX/ARG_MIN and TOPK_V2. One test per builtin and type
// (RealTfliteOps.h).
#include "RealTfliteOps.h"

namespace nnemu::tflite::test {
namespace {

#define REAL_TFLITE_TEST(name) TEST(RealTfliteReduce, name)
#define REQUIRE() NNEMU_REQUIRE_REAL_TFLITE()

GraphBuilder::Options keepDims(bool keep) {
    return [=](flatbuffers::FlatBufferBuilder& b) { return fb::CreateReducerOptions(b, keep).Union(); };
}
Spec axes(std::vector<int32_t> values) {
    const int32_t n = static_cast<int32_t>(values.size());
    return constantOf<int32_t>({n}, fb::TensorType_INT32, values);
}

// Over axes {1, -1} of [2, 3, 4, 5], without and with keep_dims.
void reduce(fb::BuiltinOperator code, const Spec& in, Spec out) {
    out.shape = {2, 4};
    expectOp(code, {in, axes({1, -1})}, {out}, fb::BuiltinOptions_ReducerOptions, keepDims(false));
    out.shape = {2, 1, 4, 1};
    expectOp(code, {in, axes({1, -1})}, {out}, fb::BuiltinOptions_ReducerOptions, keepDims(true));
}
const std::vector<int32_t> kIn = {2, 3, 4, 5};

REAL_TFLITE_TEST(MeanFloat) { REQUIRE(); reduce(fb::BuiltinOperator_MEAN, f32(kIn), f32({})); }
// Quantized MEAN over axes {1, -1}: TFLite's reference QuantizedMeanOrSum (the CPU kernel,
// src/cpu/QuantizedMean.cpp); delegated, a rescaling MEAN is lowered as TFLite's delegate lowers
// it (MEAN, then ADD of a zero to requantize) and compared with what that delegate gives on
// nnemu's library. Random shapes, axes and scales: RealTfliteMeanRandomTest.cpp.
REAL_TFLITE_TEST(MeanUint8Rescaled) { REQUIRE(); reduce(fb::BuiltinOperator_MEAN, u8(kIn, 0.05f, 128), u8({}, 0.03f, 100)); }
REAL_TFLITE_TEST(MeanInt8) { REQUIRE(); reduce(fb::BuiltinOperator_MEAN, i8(kIn, 0.05f, -3), i8({}, 0.05f, -3)); }
REAL_TFLITE_TEST(MeanInt8Rescaled) { REQUIRE(); reduce(fb::BuiltinOperator_MEAN, i8(kIn, 0.05f, -3), i8({}, 0.02f, 9)); }
REAL_TFLITE_TEST(SumFloat) { REQUIRE(); reduce(fb::BuiltinOperator_SUM, f32(kIn), f32({})); }
REAL_TFLITE_TEST(SumUint8) { REQUIRE(); reduce(fb::BuiltinOperator_SUM, u8(kIn, 0.05f, 128), u8({}, 0.3f, 100)); }
REAL_TFLITE_TEST(SumInt8) { REQUIRE(); reduce(fb::BuiltinOperator_SUM, i8(kIn, 0.05f, -3), i8({}, 0.3f, 2)); }
// Scales whose ratio overflows float (and one where it is merely huge): the rescaled sums leave
// int32, converted and offset as TFLite's int32 arithmetic on x86; a MEAN the same.
REAL_TFLITE_TEST(SumAndMeanScaleRatioOverflow) {
    REQUIRE();
    reduce(fb::BuiltinOperator_SUM, u8(kIn, 1e30f, 128), u8({}, 1e-20f, 100));
    reduce(fb::BuiltinOperator_SUM, i8(kIn, 1e20f, -3), i8({}, 1e-3f, 2));
    reduce(fb::BuiltinOperator_MEAN, u8(kIn, 1e30f, 128), u8({}, 1e-20f, 100));
    reduce(fb::BuiltinOperator_MEAN, i8(kIn, 1e30f, -3), i8({}, 1e-20f, 9));
}
REAL_TFLITE_TEST(SumInt32) { REQUIRE(); reduce(fb::BuiltinOperator_SUM, i32(kIn), i32({})); }
REAL_TFLITE_TEST(ReduceProdFloat) { REQUIRE(); reduce(fb::BuiltinOperator_REDUCE_PROD, f32(kIn, 0.5, 1.5), f32({})); }
REAL_TFLITE_TEST(ReduceProdInt32) { REQUIRE(); reduce(fb::BuiltinOperator_REDUCE_PROD, i32(kIn, -2, 2), i32({})); }
REAL_TFLITE_TEST(ReduceMaxFloat) { REQUIRE(); reduce(fb::BuiltinOperator_REDUCE_MAX, f32(kIn), f32({})); }
REAL_TFLITE_TEST(ReduceMaxUint8) { REQUIRE(); reduce(fb::BuiltinOperator_REDUCE_MAX, u8(kIn, 0.05f, 128), u8({}, 0.05f, 128)); }
REAL_TFLITE_TEST(ReduceMaxInt8) { REQUIRE(); reduce(fb::BuiltinOperator_REDUCE_MAX, i8(kIn, 0.05f, -3), i8({}, 0.05f, -3)); }
REAL_TFLITE_TEST(ReduceMaxInt32) { REQUIRE(); reduce(fb::BuiltinOperator_REDUCE_MAX, i32(kIn), i32({})); }
REAL_TFLITE_TEST(ReduceMinFloat) { REQUIRE(); reduce(fb::BuiltinOperator_REDUCE_MIN, f32(kIn), f32({})); }
REAL_TFLITE_TEST(ReduceMinUint8) { REQUIRE(); reduce(fb::BuiltinOperator_REDUCE_MIN, u8(kIn, 0.05f, 128), u8({}, 0.05f, 128)); }
REAL_TFLITE_TEST(ReduceMinInt8) { REQUIRE(); reduce(fb::BuiltinOperator_REDUCE_MIN, i8(kIn, 0.05f, -3), i8({}, 0.05f, -3)); }
REAL_TFLITE_TEST(ReduceMinInt32) { REQUIRE(); reduce(fb::BuiltinOperator_REDUCE_MIN, i32(kIn), i32({})); }

// ARG_MAX / ARG_MIN over axis 2 of [2, 3, 4, 5], int32 and int64 indexes (ties: the first).
void argReduce(fb::BuiltinOperator code, const Spec& in) {
    const bool isMax = code == fb::BuiltinOperator_ARG_MAX;
    for (const fb::TensorType outType : {fb::TensorType_INT32, fb::TensorType_INT64}) {
        SCOPED_TRACE(fb::EnumNameTensorType(outType));
        expectOp(code, {in, axes({2})}, {{{2, 3, 5}, outType}},
                 isMax ? fb::BuiltinOptions_ArgMaxOptions : fb::BuiltinOptions_ArgMinOptions,
                 [=](flatbuffers::FlatBufferBuilder& b) {
                     return isMax ? fb::CreateArgMaxOptions(b, outType).Union() : fb::CreateArgMinOptions(b, outType).Union();
                 });
    }
}
REAL_TFLITE_TEST(ArgMaxFloat) { REQUIRE(); argReduce(fb::BuiltinOperator_ARG_MAX, f32(kIn)); }
REAL_TFLITE_TEST(ArgMaxUint8) { REQUIRE(); argReduce(fb::BuiltinOperator_ARG_MAX, u8(kIn, 0.05f, 128)); }
REAL_TFLITE_TEST(ArgMaxInt8) { REQUIRE(); argReduce(fb::BuiltinOperator_ARG_MAX, i8(kIn, 0.05f, -3)); }
REAL_TFLITE_TEST(ArgMaxInt32) { REQUIRE(); argReduce(fb::BuiltinOperator_ARG_MAX, i32(kIn, -5, 5)); }
REAL_TFLITE_TEST(ArgMinFloat) { REQUIRE(); argReduce(fb::BuiltinOperator_ARG_MIN, f32(kIn)); }
REAL_TFLITE_TEST(ArgMinUint8) { REQUIRE(); argReduce(fb::BuiltinOperator_ARG_MIN, u8(kIn, 0.05f, 128)); }
REAL_TFLITE_TEST(ArgMinInt8) { REQUIRE(); argReduce(fb::BuiltinOperator_ARG_MIN, i8(kIn, 0.05f, -3)); }
REAL_TFLITE_TEST(ArgMinInt32) { REQUIRE(); argReduce(fb::BuiltinOperator_ARG_MIN, i32(kIn, -5, 5)); }

// TOPK_V2: k = 3 over the last axis; values and int32 indexes.
void topK(const Spec& in, Spec values) {
    values.shape = {4, 3};
    expectOp(fb::BuiltinOperator_TOPK_V2, {in, constantOf<int32_t>({}, fb::TensorType_INT32, {3})}, {values, i32({4, 3})});
}
REAL_TFLITE_TEST(TopKV2Float) { REQUIRE(); topK(f32({4, 9}), f32({})); }
REAL_TFLITE_TEST(TopKV2Uint8) { REQUIRE(); topK(u8({4, 9}, 0.05f, 128), u8({}, 0.05f, 128)); }
REAL_TFLITE_TEST(TopKV2Int8) { REQUIRE(); topK(i8({4, 9}, 0.05f, -3), i8({}, 0.05f, -3)); }
REAL_TFLITE_TEST(TopKV2Int32) { REQUIRE(); topK(i32({4, 9}, -100, 100), i32({})); }

}  // namespace
}  // namespace nnemu::tflite::test
