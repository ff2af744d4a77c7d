// Differential tests against real TensorFlow Lite 2.21: BUCKETIZE and BITCAST on the tools' CPU
// kernels, every input type TFLite takes, in every interpreter mode (RealTfliteOps.h); malformed
// nodes refused everywhere.
#include "RealTfliteOps.h"

namespace nnemu::tflite::test {
namespace {

#define REAL_TFLITE_TEST(name) TEST(RealTfliteBucketizeBitcast, name)
#define REQUIRE() NNEMU_REQUIRE_REAL_TFLITE()

GraphBuilder::Options boundaries(std::vector<float> values) {
    return [values](auto& b) { return fb::CreateBucketizeOptions(b, b.CreateVector(values)).Union(); };
}

// ---- BUCKETIZE: values on, between and outside the boundaries.
REAL_TFLITE_TEST(BucketizeFloat) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_BUCKETIZE, {f32({3, 7}, -6, 6)}, {i32({3, 7})}, fb::BuiltinOptions_BucketizeOptions,
             boundaries({-4.5f, -1, 0, 0, 2.25f, 5}));
}
REAL_TFLITE_TEST(BucketizeInt32) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_BUCKETIZE, {i32({20}, -30, 30)}, {i32({20})}, fb::BuiltinOptions_BucketizeOptions,
             boundaries({-10, -2.5f, 0, 7, 7.5f}));
}
REAL_TFLITE_TEST(BucketizeInt64) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_BUCKETIZE, {i64({2, 9}, -100, 100)}, {i32({2, 9})}, fb::BuiltinOptions_BucketizeOptions,
             boundaries({-50, 0.5f, 16777217.0f}));
}
REAL_TFLITE_TEST(BucketizeNoBoundaries) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_BUCKETIZE, {f32({6})}, {i32({6})}, fb::BuiltinOptions_BucketizeOptions, boundaries({}));
}

// ---- BITCAST: equal, wider and narrower element types.
REAL_TFLITE_TEST(BitcastFloatToInt32) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_BITCAST, {f32({2, 5}, -3, 3)}, {i32({2, 5})});
}
REAL_TFLITE_TEST(BitcastInt32ToUint8) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_BITCAST, {i32({3, 2}, -100000, 100000)}, {{{3, 2, 4}, fb::TensorType_UINT8}});
}
REAL_TFLITE_TEST(BitcastInt8ToInt32) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_BITCAST, {{{5, 4}, fb::TensorType_INT8}}, {i32({5})});
}
REAL_TFLITE_TEST(BitcastInt64ToInt16) {
    REQUIRE();
    expectOp(fb::BuiltinOperator_BITCAST, {i64({3}, -1000, 1000)}, {{{3, 4}, fb::TensorType_INT16}});
}

// ---- malformed nodes
TEST(BucketizeBitcastMalformed, UnsortedBoundaries) {
    expectModelRefused(oneOp(fb::BuiltinOperator_BUCKETIZE, {f32({6})}, {i32({6})}, fb::BuiltinOptions_BucketizeOptions,
                             boundaries({1, 0})),
                       "Expected sorted boundaries");
}
TEST(BucketizeBitcastMalformed, OptionsWithoutBoundaries) {
    expectModelRefused(oneOp(fb::BuiltinOperator_BUCKETIZE, {f32({6})}, {i32({6})}, fb::BuiltinOptions_BucketizeOptions,
                             [](auto& b) { return fb::CreateBucketizeOptions(b).Union(); }),
                       "boundaries array not provided");
}
TEST(BucketizeBitcastMalformed, BucketizeUint8Input) {
    expectModelRefused(oneOp(fb::BuiltinOperator_BUCKETIZE, {{{6}, fb::TensorType_UINT8}}, {i32({6})},
                             fb::BuiltinOptions_BucketizeOptions, boundaries({1})),
                       "input");
}
TEST(BucketizeBitcastMalformed, BitcastNarrowLastDimension) {
    expectModelRefused(oneOp(fb::BuiltinOperator_BITCAST, {{{5, 3}, fb::TensorType_INT8}}, {i32({5})}),
                       "last dimension must be 4");
}
TEST(BucketizeBitcastMalformed, BitcastScalarToWiderType) {
    expectModelRefused(oneOp(fb::BuiltinOperator_BITCAST, {{{}, fb::TensorType_INT8}}, {i32({})}),
                       "last dimension must be 4");
}

}  // namespace
}  // namespace nnemu::tflite::test
