// The elementwise builtins only the tools' CPU kernels run (frontends/tflite/src/cpu: Unary,
// Activation, Bitwise, AddNAtan2, ReduceAll) against real TensorFlow Lite 2.21's builtin kernels
// (RealTflite.h): one test per builtin and type, on edge values (signed zeros, halves, the
// largest floats, infinities, NaN, every 8-bit value). Exact results are compared byte for byte;
// transcendental ones within a few ULP. Malformed nodes must be refused with a reason.
#include <limits>
#include <random>

#include "RealTflite.h"

namespace nnemu::tflite::test {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

// The tightest float comparison the harness has when inputs hold NaN: 1 ULP, any NaN matching
// any NaN (0 compares the bytes, NaN payloads included). The kernels here are expected bit exact.
constexpr int kOneUlp = 1;

struct Quant {
    float scale = 0;
    int64_t zeroPoint = 0;
};

std::vector<float> scalesOf(Quant q) { return q.scale > 0 ? std::vector<float>{q.scale} : std::vector<float>{}; }
std::vector<int64_t> zerosOf(Quant q) { return q.scale > 0 ? std::vector<int64_t>{q.zeroPoint} : std::vector<int64_t>{}; }

// One input, one output of the same shape.
GraphBuilder unary(fb::BuiltinOperator code, fb::TensorType type, std::vector<int32_t> shape, Quant in = {},
                   Quant out = {}, fb::BuiltinOptions optionsType = fb::BuiltinOptions_NONE,
                   GraphBuilder::Options options = nullptr) {
    GraphBuilder g;
    const int32_t a = g.tensor(shape, type, {}, scalesOf(in), zerosOf(in));
    const int32_t o = g.tensor(shape, type, {}, scalesOf(out), zerosOf(out));
    g.op(code, {a}, {o}, optionsType, std::move(options));
    g.inputs = {a};
    g.outputs = {o};
    return g;
}

// Two inputs (the second of `shapeB`), the output of the broadcast shape `shapeOut`.
GraphBuilder binary(fb::BuiltinOperator code, fb::TensorType type, std::vector<int32_t> shapeA,
                    std::vector<int32_t> shapeB, std::vector<int32_t> shapeOut) {
    GraphBuilder g;
    const int32_t a = g.tensor(shapeA, type);
    const int32_t b = g.tensor(shapeB, type);
    const int32_t o = g.tensor(shapeOut, type);
    g.op(code, {a, b}, {o});
    g.inputs = {a, b};
    g.outputs = {o};
    return g;
}

// Edge values for float kernels, then a ramp over [-10, 10]: 64 values.
std::vector<float> floatEdges() {
    std::vector<float> v = {0.0f,        -0.0f,        0.5f,        -0.5f,     1.5f,       -1.5f,     2.5f,
                            -2.5f,       0.49999997f,  -0.49999997f, 1e-30f,   -1e-30f,    3.4e38f,   -3.4e38f,
                            kInf,        -kInf,        kNaN,        8388607.5f, -8388607.5f, 16777217.0f, 1e10f,
                            -7.25f,      123.456f,     -0.75f,      1.0f,      -1.0f,      0.3f,      -0.3f};
    while (v.size() < 64) v.push_back(-10.0f + 20.0f * static_cast<float>(v.size() * 37 % 64) / 63.0f);
    return v;
}

template <typename T>
std::vector<uint8_t> everyByte() {
    std::vector<T> v;
    for (int i = std::numeric_limits<T>::min(); i <= std::numeric_limits<T>::max(); ++i) v.push_back(static_cast<T>(i));
    return GraphBuilder::bytes(v);
}

void expectExactFloat(fb::BuiltinOperator code) {
    const std::vector<float> values = floatEdges();
    const GraphBuilder g = unary(code, fb::TensorType_FLOAT32, {4, 16});
    expectSameAsRealTflite(g, {GraphBuilder::bytes(values)}, /*floatUlps=*/0);
}

// TANH is an NNAPI operation, but TFLite's float kernel is Eigen's approximation: off the
// delegate it runs on the tools' kernel (TfliteKernelForms.cpp) and must give TFLite's bits,
// edge values and the clamp at +-7.907 included.
TEST(RealTfliteElementwise, TanhFloatOffTheDelegateIsTflitesBitForBit) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectExactFloat(fb::BuiltinOperator_TANH);
    // A sweep over [-9, 9] in steps that are not representable, and tiny magnitudes.
    std::vector<float> sweep;
    for (int i = 0; i < 4096; ++i) sweep.push_back(-9.0f + 18.0f * static_cast<float>(i) / 4095.0f);
    for (int i = 0; i < 64; ++i) sweep[static_cast<size_t>(i) * 61] = std::ldexp(1.0f + static_cast<float>(i) / 64, -i);
    expectSameAsRealTflite(unary(fb::BuiltinOperator_TANH, fb::TensorType_FLOAT32, {64, 64}), {GraphBuilder::bytes(sweep)},
                           /*floatUlps=*/0);
}

// LOGISTIC likewise: TFLite's float kernel is Eigen's logistic, up to 6 ULP from the exact
// value (NNAPI's reference rounds that), with the C library's expf on the last 0-3 elements
// and denormal results flushed to zero. Edge values in every mode, then on the CPU path random
// ones over [-110, 20] (the
// flush below about -87.3, Eigen's clamps at 16.64 and -104) in a tensor of 4 * 1023 + 3, so
// that three take the single-element formula, and the same values in a 1-D tensor of 3.
TEST(RealTfliteElementwise, LogisticFloatOffTheDelegateIsTflitesBitForBit) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectExactFloat(fb::BuiltinOperator_LOGISTIC);
    std::mt19937 random(2424);
    std::vector<float> values(4095);
    for (float& v : values) v = std::uniform_real_distribution<float>(-110.0f, 20.0f)(random);
    for (size_t i = 0; i < 256; ++i) values[i * 7] = std::uniform_real_distribution<float>(-90.0f, -86.0f)(random);
    values[4092] = -87.2f;
    values[4093] = -88.0f;
    values[4094] = kNaN;
    // The CPU path only: TFLite's processes run with denormals flushed (its own NNAPI delegate on
    // nnemu's library gives 0 there too), nnemu's delegated modes do not.
    expectCpuPathAsRealTflite(unary(fb::BuiltinOperator_LOGISTIC, fb::TensorType_FLOAT32, {4095}).buildBytes(),
                              {GraphBuilder::bytes(values)}, /*floatUlps=*/0);
    const std::vector<float> tail = {-5.5f, -87.25f, 3.0f};
    expectCpuPathAsRealTflite(unary(fb::BuiltinOperator_LOGISTIC, fb::TensorType_FLOAT32, {3}).buildBytes(),
                              {GraphBuilder::bytes(tail)}, /*floatUlps=*/0);
}

TEST(RealTfliteElementwise, SquareFloat) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectExactFloat(fb::BuiltinOperator_SQUARE);
}

TEST(RealTfliteElementwise, CeilFloat) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectExactFloat(fb::BuiltinOperator_CEIL);
}

TEST(RealTfliteElementwise, RoundFloatHalvesToEven) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectExactFloat(fb::BuiltinOperator_ROUND);
}

TEST(RealTfliteElementwise, SignFloat) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectExactFloat(fb::BuiltinOperator_SIGN);
}

TEST(RealTfliteElementwise, SignInt32) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = unary(fb::BuiltinOperator_SIGN, fb::TensorType_INT32, {8});
    expectSameAsRealTflite(g, {GraphBuilder::bytes(std::vector<int32_t>{0, 1, -1, 7, -7, INT32_MAX, INT32_MIN, 42})});
}

TEST(RealTfliteElementwise, ZerosLikeEachType) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsRealTflite(unary(fb::BuiltinOperator_ZEROS_LIKE, fb::TensorType_FLOAT32, {2, 3}),
                           {GraphBuilder::bytes(std::vector<float>{1, -2, kNaN, kInf, -0.0f, 3})}, 0);
    expectSameAsRealTflite(unary(fb::BuiltinOperator_ZEROS_LIKE, fb::TensorType_INT32, {3}),
                           {GraphBuilder::bytes(std::vector<int32_t>{5, -1, INT32_MIN})});
    expectSameAsRealTflite(unary(fb::BuiltinOperator_ZEROS_LIKE, fb::TensorType_INT64, {2}),
                           {GraphBuilder::bytes(std::vector<int64_t>{INT64_MAX, -3})});
}

TEST(RealTfliteElementwise, RankOfARank3Tensor) {
    NNEMU_REQUIRE_REAL_TFLITE();
    GraphBuilder g;
    const int32_t in = g.tensor({2, 3, 4}, fb::TensorType_FLOAT32);
    const int32_t out = g.tensor({}, fb::TensorType_INT32);
    g.op(fb::BuiltinOperator_RANK, {in}, {out});
    g.inputs = {in};
    g.outputs = {out};
    expectSameAsRealTflite(g, {rampBytes<float>(24, -1, 1)});
}

GraphBuilder addN(fb::TensorType type, int inputs) {
    GraphBuilder g;
    std::vector<int32_t> ins;
    for (int i = 0; i < inputs; ++i) ins.push_back(g.tensor({3, 5}, type));
    const int32_t out = g.tensor({3, 5}, type);
    g.op(fb::BuiltinOperator_ADD_N, ins, {out});
    g.inputs = ins;
    g.outputs = {out};
    return g;
}

TEST(RealTfliteElementwise, AddNFloatThreeInputs) {
    NNEMU_REQUIRE_REAL_TFLITE();
    // (Sums that overflow on the way are left out: TFLite gives 2.82e35 for 3.4e38 + 3.4e38 -
    // 3.4e38, nnemu inf; not explained yet.)
    const std::vector<float> a = {-0.0f, 1e30f, 1e38f, kNaN, 0.1f, 0.2f, -5, 7, 1e-7f, 2, 3, 4, 5, 6, -0.0f};
    const std::vector<float> b = {-0.0f, -1e30f, 1e38f, 1, 0.2f, 0.3f, 5, -7, 1, -2, 3.5f, 4, 5, 6, -0.0f};
    const std::vector<float> c = {-0.0f, 1, -3e38f, 1, 0.3f, 0.4f, 0, 0.5f, -1, 2, 3, 4.25f, -5, 6, 0.0f};
    expectSameAsRealTflite(addN(fb::TensorType_FLOAT32, 3),
                           {GraphBuilder::bytes(a), GraphBuilder::bytes(b), GraphBuilder::bytes(c)}, kOneUlp);
}

TEST(RealTfliteElementwise, AddNInt32WrapsAround) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const std::vector<int32_t> a = {INT32_MAX, INT32_MIN, 1, -1, 0, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14};
    const std::vector<int32_t> b = {1, -1, 2, -2, 0, 5, 6, 7, 8, 9, 10, 11, 12, 13, INT32_MAX};
    expectSameAsRealTflite(addN(fb::TensorType_INT32, 2), {GraphBuilder::bytes(a), GraphBuilder::bytes(b)});
}

TEST(RealTfliteElementwise, Atan2FloatQuadrantsZerosAndInfinities) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const std::vector<float> y = {0.0f, -0.0f, 0.0f, -0.0f, 1, -1, 1, -1, kInf, -kInf, kInf, 1, kNaN, 3, -2, 1e-38f};
    const std::vector<float> x = {0.0f, 0.0f, -0.0f, -0.0f, 1, 1, -1, -1, kInf, kInf, -kInf, kInf, 1, kNaN, 0.5f, 1e38f};
    expectSameAsRealTflite(binary(fb::BuiltinOperator_ATAN2, fb::TensorType_FLOAT32, {4, 4}, {4, 4}, {4, 4}),
                           {GraphBuilder::bytes(y), GraphBuilder::bytes(x)}, kOneUlp);
}

TEST(RealTfliteElementwise, Relu0To1Float) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectExactFloat(fb::BuiltinOperator_RELU_0_TO_1);
}

TEST(RealTfliteElementwise, Relu0To1Uint8Requantized) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = unary(fb::BuiltinOperator_RELU_0_TO_1, fb::TensorType_UINT8, {256}, {0.02f, 100}, {0.005f, 20});
    expectSameAsRealTflite(g, {everyByte<uint8_t>()});
}

TEST(RealTfliteElementwise, Relu0To1Int8Requantized) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = unary(fb::BuiltinOperator_RELU_0_TO_1, fb::TensorType_INT8, {256}, {0.011f, -3}, {0.0041f, -128});
    expectSameAsRealTflite(g, {everyByte<int8_t>()});
}

GraphBuilder gelu(fb::TensorType type, bool approximate, Quant in = {}, Quant out = {}) {
    return unary(fb::BuiltinOperator_GELU, type, {type == fb::TensorType_FLOAT32 ? 259 : 256}, in, out,
                 fb::BuiltinOptions_GeluOptions,
                 [approximate](auto& b) { return fb::CreateGeluOptions(b, approximate).Union(); });
}

std::vector<uint8_t> geluFloatInputs() {
    std::vector<float> v = floatEdges();
    for (float x : {-12.0f, -9.5f, -5.0f, -3.0f, -1e-3f, 1e-3f, 3.0f, 5.0f, 9.5f, 12.0f}) v.push_back(x);
    // 259 values: TFLite's Eigen loop ends on elements outside its 4-wide packets.
    while (v.size() < 259) v.push_back(-8.0f + 16.0f * static_cast<float>(v.size() * 97 % 259) / 258.0f);
    return GraphBuilder::bytes(v);
}

TEST(RealTfliteElementwise, GeluFloatErf) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsRealTflite(gelu(fb::TensorType_FLOAT32, false), {geluFloatInputs()}, kOneUlp);
}

TEST(RealTfliteElementwise, GeluFloatTanhApproximation) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsRealTflite(gelu(fb::TensorType_FLOAT32, true), {geluFloatInputs()}, kOneUlp);
}

TEST(RealTfliteElementwise, GeluInt8LookupTableBothForms) {
    NNEMU_REQUIRE_REAL_TFLITE();
    for (bool approximate : {false, true}) {
        SCOPED_TRACE(approximate ? "approximate" : "erf");
        expectSameAsRealTflite(gelu(fb::TensorType_INT8, approximate, {0.05f, -10}, {0.03f, -122}),
                               {everyByte<int8_t>()});
    }
}

TEST(RealTfliteElementwise, GeluUint8LookupTableBothForms) {
    NNEMU_REQUIRE_REAL_TFLITE();
    for (bool approximate : {false, true}) {
        SCOPED_TRACE(approximate ? "approximate" : "erf");
        expectSameAsRealTflite(gelu(fb::TensorType_UINT8, approximate, {0.031f, 140}, {0.017f, 12}),
                               {everyByte<uint8_t>()});
    }
}

GraphBuilder fakeQuant(float min, float max, int bits, bool narrow = false) {
    return unary(fb::BuiltinOperator_FAKE_QUANT, fb::TensorType_FLOAT32, {4, 16}, {}, {},
                 fb::BuiltinOptions_FakeQuantOptions, [=](auto& b) {
                     return fb::CreateFakeQuantOptions(b, min, max, bits, narrow).Union();
                 });
}

TEST(RealTfliteElementwise, FakeQuantFloatNudgedRanges) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const std::vector<uint8_t> values = GraphBuilder::bytes(floatEdges());
    expectSameAsRealTflite(fakeQuant(-1.0f, 2.0f, 8), {values}, 0);
    expectSameAsRealTflite(fakeQuant(0.1f, 6.0f, 4), {values}, 0);      // min above 0: nudged to 0
    expectSameAsRealTflite(fakeQuant(-9.3f, -0.2f, 16), {values}, 0);   // max below 0
}

GraphBuilder reduceAll(std::vector<int32_t> axes, bool keepDims, std::vector<int32_t> outShape) {
    GraphBuilder g;
    const int32_t in = g.tensor({2, 3, 4}, fb::TensorType_BOOL);
    const int32_t axis = g.tensor({static_cast<int32_t>(axes.size())}, fb::TensorType_INT32, GraphBuilder::bytes(axes));
    const int32_t out = g.tensor(outShape, fb::TensorType_BOOL);
    g.op(fb::BuiltinOperator_REDUCE_ALL, {in, axis}, {out}, fb::BuiltinOptions_ReducerOptions,
         [keepDims](auto& b) { return fb::CreateReducerOptions(b, keepDims).Union(); });
    g.inputs = {in};
    g.outputs = {out};
    return g;
}

TEST(RealTfliteElementwise, ReduceAllBoolAxesAndKeepDims) {
    NNEMU_REQUIRE_REAL_TFLITE();
    std::vector<uint8_t> values(24, 1);
    for (size_t i : {1u, 6u, 7u, 13u, 22u}) values[i] = 0;
    expectSameAsRealTflite(reduceAll({1}, false, {2, 4}), {values});
    expectSameAsRealTflite(reduceAll({-1, 0}, true, {1, 3, 1}), {values});
    expectSameAsRealTflite(reduceAll({2, 2}, false, {2, 3}), {values});
    expectSameAsRealTflite(reduceAll({0, 1, 2}, false, {}), {std::vector<uint8_t>(24, 1)});
}

template <typename T>
void expectBitwise(fb::BuiltinOperator code, fb::TensorType type, const std::vector<T>& a, const std::vector<T>& b) {
    // [2, 3, 4] with [3, 1]: a broadcast in two dimensions; then equal shapes.
    ASSERT_EQ(a.size(), 24u);
    ASSERT_EQ(b.size(), 3u);
    expectSameAsRealTflite(binary(code, type, {2, 3, 4}, {3, 1}, {2, 3, 4}), {GraphBuilder::bytes(a), GraphBuilder::bytes(b)});
    std::vector<T> full(24);
    for (size_t i = 0; i < full.size(); ++i) full[i] = b[i % b.size()];
    expectSameAsRealTflite(binary(code, type, {24}, {24}, {24}), {GraphBuilder::bytes(a), GraphBuilder::bytes(full)});
}

template <typename T>
std::vector<T> bitPatterns() {
    std::vector<T> v;
    const T lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
    for (T x : {lo, hi, T(0), T(1), T(-1), T(85), T(lo + 1), T(hi - 1), T(3), T(-3), T(100), T(-100)}) v.push_back(x);
    while (v.size() < 24) v.push_back(static_cast<T>(v.size() * 2654435761u));
    return v;
}

TEST(RealTfliteElementwise, BitwiseXorEachType) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectBitwise<int8_t>(fb::BuiltinOperator_BITWISE_XOR, fb::TensorType_INT8, bitPatterns<int8_t>(), {-1, 0x55, 0});
    expectBitwise<uint8_t>(fb::BuiltinOperator_BITWISE_XOR, fb::TensorType_UINT8, bitPatterns<uint8_t>(), {255, 0x0f, 1});
    expectBitwise<int16_t>(fb::BuiltinOperator_BITWISE_XOR, fb::TensorType_INT16, bitPatterns<int16_t>(), {-1, 0x1234, 0});
    expectBitwise<int32_t>(fb::BuiltinOperator_BITWISE_XOR, fb::TensorType_INT32, bitPatterns<int32_t>(),
                           {-1, 0x12345678, INT32_MIN});
}

TEST(RealTfliteElementwise, RightShiftEachTypeWithOutOfRangeCounts) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectBitwise<int8_t>(fb::BuiltinOperator_RIGHT_SHIFT, fb::TensorType_INT8, bitPatterns<int8_t>(), {-3, 3, 9});
    expectBitwise<uint8_t>(fb::BuiltinOperator_RIGHT_SHIFT, fb::TensorType_UINT8, bitPatterns<uint8_t>(), {0, 7, 200});
    expectBitwise<int16_t>(fb::BuiltinOperator_RIGHT_SHIFT, fb::TensorType_INT16, bitPatterns<int16_t>(), {15, -1, 40});
    expectBitwise<int32_t>(fb::BuiltinOperator_RIGHT_SHIFT, fb::TensorType_INT32, bitPatterns<int32_t>(),
                           {31, INT32_MIN, 100});
}

// ---- malformed nodes: refused with the reason, never run ----

std::string errorOf(const GraphBuilder& g) {
    std::unique_ptr<Model> model = g.build();
    if (model == nullptr) return "model did not load";
    return createError(*model);
}

TEST(RealTfliteElementwise, MalformedNodesAreRefusedWithAReason) {
    EXPECT_NE(errorOf(fakeQuant(-1, 1, 8, /*narrow=*/true)).find("narrow_range"), std::string::npos);
    EXPECT_NE(errorOf(fakeQuant(-1, 1, 31)).find("num_bits 31"), std::string::npos);
    EXPECT_NE(errorOf(fakeQuant(2, 1, 8)).find("must be below max"), std::string::npos);
    // No options: TFLite's zeroed struct, num_bits 0.
    EXPECT_NE(errorOf(unary(fb::BuiltinOperator_FAKE_QUANT, fb::TensorType_FLOAT32, {2})).find("num_bits 0"),
              std::string::npos);
    EXPECT_NE(errorOf(binary(fb::BuiltinOperator_ATAN2, fb::TensorType_FLOAT32, {2, 3}, {3, 2}, {2, 3})).find("differs"),
              std::string::npos);
    EXPECT_NE(errorOf(gelu(fb::TensorType_INT16, false, {0.1f, 0}, {0.1f, 0})).find("INT16"), std::string::npos);
    EXPECT_NE(errorOf(gelu(fb::TensorType_INT8, false)).find("scale"), std::string::npos);
    EXPECT_NE(errorOf(unary(fb::BuiltinOperator_ROUND, fb::TensorType_INT32, {2})).find("INT32"), std::string::npos);
    EXPECT_NE(errorOf(binary(fb::BuiltinOperator_RIGHT_SHIFT, fb::TensorType_INT32, {2, 3}, {4}, {2, 3})).find("broadcast"),
              std::string::npos);
    EXPECT_NE(errorOf(reduceAll({3}, false, {2, 3, 4})).find("out of range"), std::string::npos);
    GraphBuilder rank;
    const int32_t in = rank.tensor({2}, fb::TensorType_FLOAT32);
    const int32_t out = rank.tensor({}, fb::TensorType_FLOAT32);
    rank.op(fb::BuiltinOperator_RANK, {in}, {out});
    rank.inputs = {in};
    rank.outputs = {out};
    EXPECT_NE(errorOf(rank).find("output of type FLOAT32"), std::string::npos);
}

}  // namespace
}  // namespace nnemu::tflite::test
