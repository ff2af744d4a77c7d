// Differential tests against real TensorFlow Lite 2.21: RANDOM_UNIFORM, RANDOM_STANDARD_NORMAL
// and MULTINOMIAL with fixed seeds give TFLite's numbers in every interpreter mode, in the first
// invoke and in the third (the generator's state carried across invokes); shapes from constants
// and from model inputs; malformed nodes refused.
#include "RealTfliteOps.h"

namespace nnemu::tflite::test {
namespace {

#define REAL_TFLITE_TEST(name) TEST(RealTfliteRandom, name)
#define REQUIRE() NNEMU_REQUIRE_REAL_TFLITE()

GraphBuilder::Options seeds(int64_t seed, int64_t seed2) {
    return [=](auto& b) { return fb::CreateRandomOptions(b, seed, seed2).Union(); };
}

Spec shapeOf(std::vector<int32_t> dims) {
    const auto rank = static_cast<int32_t>(dims.size());
    return constantOf<int32_t>({rank}, fb::TensorType_INT32, dims);
}

// A random op on a constant shape, compared after 1 and after 3 invokes.
void expectRandom(fb::BuiltinOperator code, std::vector<int32_t> dims, int64_t seed, int64_t seed2) {
    const GraphBuilder g = oneOp(code, {shapeOf(dims)}, {f32(dims)}, fb::BuiltinOptions_RandomOptions, seeds(seed, seed2));
    for (int runs : {1, 3}) {
        SCOPED_TRACE("runs " + std::to_string(runs));
        expectSameAsRealTflite(g, {}, 2, runs);
    }
}

REAL_TFLITE_TEST(UniformSmallSeeds) {
    REQUIRE();
    expectRandom(fb::BuiltinOperator_RANDOM_UNIFORM, {3, 5}, 1, 2);
}
REAL_TFLITE_TEST(UniformLargeAndNegativeSeeds) {
    REQUIRE();
    expectRandom(fb::BuiltinOperator_RANDOM_UNIFORM, {2, 3, 4}, -7, 123456789012345);
}
REAL_TFLITE_TEST(UniformOnlySecondSeed) {
    REQUIRE();
    expectRandom(fb::BuiltinOperator_RANDOM_UNIFORM, {1, 130}, 0, 99);
}
REAL_TFLITE_TEST(NormalEvenCount) {
    REQUIRE();
    expectRandom(fb::BuiltinOperator_RANDOM_STANDARD_NORMAL, {4, 16}, 42, 7);
}
REAL_TFLITE_TEST(NormalOddCount) {
    REQUIRE();
    expectRandom(fb::BuiltinOperator_RANDOM_STANDARD_NORMAL, {7}, 5, 0);
}
REAL_TFLITE_TEST(NormalManyValues) {
    REQUIRE();
    expectRandom(fb::BuiltinOperator_RANDOM_STANDARD_NORMAL, {3, 33, 21}, 987654321, -3);
}
// The shape as a model input: the output is sized at invoke, as TFLite's dynamic tensor.
REAL_TFLITE_TEST(UniformShapeAtInvoke) {
    REQUIRE();
    const GraphBuilder g = oneOp(fb::BuiltinOperator_RANDOM_UNIFORM, {i32({2})}, {f32({3, 4})},
                                 fb::BuiltinOptions_RandomOptions, seeds(11, 12));
    expectSameAsRealTflite(g, {GraphBuilder::bytes(std::vector<int32_t>{3, 4})}, 0, 3);
}

// ---- MULTINOMIAL
Spec logitsOf(std::vector<int32_t> shape, const std::vector<float>& values) {
    return constantOf<float>(std::move(shape), fb::TensorType_FLOAT32, values);
}
Spec samplesOf(int32_t count) { return constantOf<int32_t>({}, fb::TensorType_INT32, {count}); }

REAL_TFLITE_TEST(MultinomialInt64) {
    REQUIRE();
    const GraphBuilder g = oneOp(fb::BuiltinOperator_MULTINOMIAL,
                                 {logitsOf({2, 5}, {0, 1, 2, 3, 4, -1, -1, 0.5f, 2, -3}), samplesOf(10)},
                                 {i64({2, 10})}, fb::BuiltinOptions_RandomOptions, seeds(3, 4));
    for (int runs : {1, 3}) expectSameAsRealTflite(g, {}, 0, runs);
}
REAL_TFLITE_TEST(MultinomialInt32InfiniteLogits) {
    REQUIRE();
    const float inf = std::numeric_limits<float>::infinity();
    const GraphBuilder g = oneOp(fb::BuiltinOperator_MULTINOMIAL,
                                 {logitsOf({3, 4}, {-inf, 0, 0, 1, 2, inf, -inf, 2, -inf, -inf, -inf, -inf}),
                                  samplesOf(7)},
                                 {i32({3, 7})}, fb::BuiltinOptions_RandomOptions, seeds(-1, 77));
    for (int runs : {1, 3}) expectSameAsRealTflite(g, {}, 0, runs);
}
REAL_TFLITE_TEST(MultinomialLogitsInput) {
    REQUIRE();
    const GraphBuilder g = oneOp(fb::BuiltinOperator_MULTINOMIAL, {f32({4, 9}, -3, 3), samplesOf(13)}, {i64({4, 13})},
                                 fb::BuiltinOptions_RandomOptions, seeds(2024, 11));
    for (int runs : {1, 3}) expectSameAsRealTflite(g, {inputBytes(f32({4, 9}, -3, 3))}, 0, runs);
}

// Seeds both 0: random seeds (as TFLite's), so only the range is fixed.
TEST(RandomKernel, ZeroSeedsDrawUniformValuesInRange) {
    const GraphBuilder g = oneOp(fb::BuiltinOperator_RANDOM_UNIFORM, {shapeOf({64})}, {f32({64})});
    std::unique_ptr<Model> model = g.build();
    std::unique_ptr<Interpreter> interpreter = expectValue(Interpreter::create(*model, {}));
    ASSERT_NE(interpreter, nullptr);
    ASSERT_TRUE(isOk(interpreter->invoke()));
    const std::vector<float> values = valuesOf<float>(interpreter->outputData(0), 64);
    for (float v : values) {
        EXPECT_GE(v, 0.0f);
        EXPECT_LT(v, 1.0f);
    }
}

// ---- malformed nodes
TEST(RandomMalformed, ShapeNotOneDimensional) {
    expectModelRefused(oneOp(fb::BuiltinOperator_RANDOM_UNIFORM, {constantOf<int32_t>({1, 2}, fb::TensorType_INT32, {2, 2})},
                             {f32({2, 2})}),
                       "shape must be 1-D");
}
TEST(RandomMalformed, IntegerOutput) {
    expectModelRefused(oneOp(fb::BuiltinOperator_RANDOM_STANDARD_NORMAL, {shapeOf({4})}, {i32({4})}), "output");
}
TEST(RandomMalformed, NegativeDimension) {
    expectModelRefused(oneOp(fb::BuiltinOperator_RANDOM_UNIFORM, {shapeOf({-2, 3})}, {f32({2, 3})}), "negative");
}
TEST(RandomMalformed, NegativeSampleCount) {
    expectModelRefused(oneOp(fb::BuiltinOperator_MULTINOMIAL, {logitsOf({1, 2}, {0, 1}), samplesOf(-1)}, {i64({1, 1})}),
                       "negative");
}
TEST(RandomMalformed, LogitsNotMatrix) {
    expectModelRefused(oneOp(fb::BuiltinOperator_MULTINOMIAL, {logitsOf({2}, {0, 1}), samplesOf(3)}, {i64({1, 3})}),
                       "logits must be 2-D");
}

}  // namespace
}  // namespace nnemu::tflite::test
