// The builtins lowered as TensorFlow Lite's NNAPI delegate (2.21) lowers them (LowerActivation.cpp,
// LowerShapeOps.cpp, LowerDataMovement.cpp), one-operator models per builtin and type: outputs
// against real TFLite's builtin kernels in every interpreter mode (RealTflite.h), and whether the
// delegate on nnapi-reference takes the node as TFLite's delegate would. Skipped without
// ../shared/tflite.
#include "RealTflite.h"
#include "ResultCheck.h"

namespace nnemu::tflite::test {
namespace {

struct Quant {
    float scale = 0;
    int64_t zeroPoint = 0;
};

int32_t tensorOf(GraphBuilder& g, std::vector<int32_t> shape, fb::TensorType type, Quant q = {},
                 std::vector<uint8_t> data = {}) {
    if (q.scale > 0) return g.tensor(std::move(shape), type, std::move(data), {q.scale}, {q.zeroPoint});
    return g.tensor(std::move(shape), type, std::move(data));
}

// One operator with one input and one output.
GraphBuilder unary(fb::BuiltinOperator code, fb::TensorType type, const std::vector<int32_t>& shape, Quant in = {},
                   Quant out = {}, fb::BuiltinOptions optionsType = fb::BuiltinOptions_NONE,
                   GraphBuilder::Options options = nullptr) {
    GraphBuilder g;
    const int32_t a = tensorOf(g, shape, type, in);
    const int32_t b = tensorOf(g, shape, type, out);
    g.op(code, {a}, {b}, optionsType, std::move(options));
    g.inputs = {a};
    g.outputs = {b};
    return g;
}

std::vector<uint8_t> bools(size_t count) {
    std::vector<uint8_t> values(count);
    for (size_t i = 0; i < count; ++i) values[i] = ((i * 7919) % 5) == 0 ? 1 : 0;
    return values;
}

// ---- HARD_SWISH, LEAKY_RELU, ELU, SQUARED_DIFFERENCE ----

TEST(RealTfliteLowering, HardSwishFloat) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = unary(fb::BuiltinOperator_HARD_SWISH, fb::TensorType_FLOAT32, {2, 3, 4, 5});
    EXPECT_EQ(delegatedNodes(g), 1u);
    expectSameAsRealTflite(g, {rampBytes<float>(120, -7, 7)});
    // Off the delegate the tools' kernel gives TFLite's bits (TfliteKernelForms.cpp): a sweep of
    // 4096 values through the ramp of the gate, 0 ULP.
    const GraphBuilder sweep = unary(fb::BuiltinOperator_HARD_SWISH, fb::TensorType_FLOAT32, {4, 1024});
    expectSameAsRealTflite(sweep, {rampBytes<float>(4096, -4.1f, 4.3f)}, 0);
}

TEST(RealTfliteLowering, HardSwishUint8) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = unary(fb::BuiltinOperator_HARD_SWISH, fb::TensorType_UINT8, {2, 3, 4, 5}, {0.05f, 128},
                                 {0.03f, 13});
    EXPECT_EQ(delegatedNodes(g), 1u);
    expectSameAsRealTflite(g, {rampBytes<uint8_t>(120, 0, 255)});
}

TEST(RealTfliteLowering, HardSwishInt8) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = unary(fb::BuiltinOperator_HARD_SWISH, fb::TensorType_INT8, {2, 3, 4, 5}, {0.05f, 0},
                                 {0.03f, -115});
    EXPECT_EQ(delegatedNodes(g), 1u);
    expectSameAsRealTflite(g, {rampBytes<int8_t>(120, -128, 127)});
}

GraphBuilder leakyRelu(fb::TensorType type, Quant in, Quant out, float alpha) {
    return unary(fb::BuiltinOperator_LEAKY_RELU, type, {2, 3, 4, 5}, in, out, fb::BuiltinOptions_LeakyReluOptions,
                 [alpha](auto& b) { return fb::CreateLeakyReluOptions(b, alpha).Union(); });
}

TEST(RealTfliteLowering, LeakyReluFloat) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = leakyRelu(fb::TensorType_FLOAT32, {}, {}, 0.1f);
    expectSameAsRealTflite(g, {rampBytes<float>(120, -5, 5)});
    EXPECT_EQ(delegatedNodes(g), 1u);
}

TEST(RealTfliteLowering, LeakyReluUint8) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = leakyRelu(fb::TensorType_UINT8, {0.05f, 128}, {0.04f, 100}, 0.2f);
    expectSameAsRealTflite(g, {rampBytes<uint8_t>(120, 0, 255)});
    EXPECT_EQ(delegatedNodes(g), 1u);
}

TEST(RealTfliteLowering, LeakyReluInt8) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = leakyRelu(fb::TensorType_INT8, {0.05f, -3}, {0.04f, -30}, 0.2f);
    expectSameAsRealTflite(g, {rampBytes<int8_t>(120, -128, 127)});
    EXPECT_EQ(delegatedNodes(g), 1u);
}

TEST(RealTfliteLowering, EluFloat) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = unary(fb::BuiltinOperator_ELU, fb::TensorType_FLOAT32, {2, 3, 4, 5});
    expectSameAsRealTflite(g, {rampBytes<float>(120, -6, 4)});
    EXPECT_EQ(delegatedNodes(g), 1u);
}

GraphBuilder squaredDifference(fb::TensorType type, Quant q = {}, Quant out = {}) {
    GraphBuilder g;
    const int32_t a = tensorOf(g, {2, 3, 4, 5}, type, q);
    const int32_t b = tensorOf(g, {1, 3, 1, 5}, type, q);
    const int32_t o = tensorOf(g, {2, 3, 4, 5}, type, out);
    g.op(fb::BuiltinOperator_SQUARED_DIFFERENCE, {a, b}, {o});
    g.inputs = {a, b};
    g.outputs = {o};
    return g;
}

TEST(RealTfliteLowering, SquaredDifferenceFloatIsDelegated) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = squaredDifference(fb::TensorType_FLOAT32);
    expectSameAsRealTflite(g, {rampBytes<float>(120, -4, 4), rampBytes<float>(15, -2, 2)});
    EXPECT_EQ(delegatedNodes(g), 1u);
}

TEST(RealTfliteLowering, SquaredDifferenceInt32) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = squaredDifference(fb::TensorType_INT32);
    expectSameAsRealTflite(g, {rampBytes<int32_t>(120, -300, 300), rampBytes<int32_t>(15, -50, 50)});
    EXPECT_EQ(delegatedNodes(g), 1u);
}

// TFLite's delegate composes it inexactly; the tools keep it on their CPU kernel (the int8
// kernel's fixed point). TFLite 2.21's own kernel refuses uint8, so there is nothing to compare.
TEST(RealTfliteLowering, SquaredDifferenceUint8IsNotDelegated) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = squaredDifference(fb::TensorType_UINT8, {0.05f, 128}, {0.1f, 0});
    EXPECT_EQ(delegatedNodes(g), 0u);
    const RealTfliteResult real =
            runRealTflite(g.buildBytes(), {rampBytes<uint8_t>(120, 0, 255), rampBytes<uint8_t>(15, 60, 200)});
    EXPECT_FALSE(real.ok) << "TFLite now runs uint8 SQUARED_DIFFERENCE: compare the tools' kernel with it";
}

// ---- PACK, FILL ----

GraphBuilder pack(fb::TensorType type, int32_t axis, std::vector<int32_t> outShape, Quant q = {}) {
    GraphBuilder g;
    std::vector<int32_t> ins;
    for (int i = 0; i < 3; ++i) ins.push_back(tensorOf(g, {2, 3}, type, q));
    const int32_t out = tensorOf(g, std::move(outShape), type, q);
    g.op(fb::BuiltinOperator_PACK, ins, {out}, fb::BuiltinOptions_PackOptions,
         [axis](auto& b) { return fb::CreatePackOptions(b, 3, axis).Union(); });
    g.inputs = ins;
    g.outputs = {out};
    return g;
}

TEST(RealTfliteLowering, PackFloat) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = pack(fb::TensorType_FLOAT32, 1, {2, 3, 3});
    expectSameAsRealTflite(g, {rampBytes<float>(6, -1, 1), rampBytes<float>(6, 2, 3), rampBytes<float>(6, -9, -4)});
    EXPECT_EQ(delegatedNodes(g), 1u);
}

TEST(RealTfliteLowering, PackInt8NegativeAxis) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = pack(fb::TensorType_INT8, -3, {3, 2, 3}, {0.1f, 4});
    expectSameAsRealTflite(g, {rampBytes<int8_t>(6, -128, 0), rampBytes<int8_t>(6, 0, 127), rampBytes<int8_t>(6, -50, 50)});
    EXPECT_EQ(delegatedNodes(g), 1u);
}

// Real TFLite 2.21 delegates these forms too (NNAPI PACK).
TEST(RealTfliteLowering, PackFloatOnTheLastAxis) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = pack(fb::TensorType_FLOAT32, 2, {2, 3, 3});
    expectSameAsRealTflite(g, {rampBytes<float>(6, -1, 1), rampBytes<float>(6, 2, 3), rampBytes<float>(6, -9, -4)});
    EXPECT_EQ(delegatedNodes(g), 1u);
}

TEST(RealTfliteLowering, PackUint8) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = pack(fb::TensorType_UINT8, 0, {3, 2, 3}, {0.1f, 4});
    expectSameAsRealTflite(g, {rampBytes<uint8_t>(6, 0, 90), rampBytes<uint8_t>(6, 90, 255), rampBytes<uint8_t>(6, 7, 9)});
    EXPECT_EQ(delegatedNodes(g), 1u);
}

TEST(RealTfliteLowering, PackInt32) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = pack(fb::TensorType_INT32, 1, {2, 3, 3});
    expectSameAsRealTflite(g, {rampBytes<int32_t>(6, -5, 5), rampBytes<int32_t>(6, 100, 200), rampBytes<int32_t>(6, 0, 1)});
    EXPECT_EQ(delegatedNodes(g), 1u);
}

// FILL of a constant into an input-shaped tensor, added to the input so the model has one.
GraphBuilder fillAdd(fb::TensorType type, std::vector<uint8_t> value) {
    GraphBuilder g;
    const int32_t dims = g.tensor({3}, fb::TensorType_INT32, GraphBuilder::bytes(std::vector<int32_t>{2, 3, 4}));
    const int32_t v = g.tensor({}, type, std::move(value));
    const int32_t filled = g.tensor({2, 3, 4}, type);
    const int32_t in = g.tensor({2, 3, 4}, type);
    const int32_t out = g.tensor({2, 3, 4}, type);
    g.op(fb::BuiltinOperator_FILL, {dims, v}, {filled});
    g.op(fb::BuiltinOperator_ADD, {in, filled}, {out});
    g.inputs = {in};
    g.outputs = {out};
    return g;
}

TEST(RealTfliteLowering, FillFloat) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = fillAdd(fb::TensorType_FLOAT32, GraphBuilder::bytes(std::vector<float>{1.25f}));
    expectSameAsRealTflite(g, {rampBytes<float>(24, -3, 3)});
    EXPECT_EQ(delegatedNodes(g), 2u);
}

TEST(RealTfliteLowering, FillInt32) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = fillAdd(fb::TensorType_INT32, GraphBuilder::bytes(std::vector<int32_t>{-7}));
    expectSameAsRealTflite(g, {rampBytes<int32_t>(24, -30, 30)});
    EXPECT_EQ(delegatedNodes(g), 2u);
}

// ---- SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND, REDUCE_ANY ----

GraphBuilder batchSpace(fb::BuiltinOperator code, fb::TensorType type, std::vector<int32_t> in,
                        std::vector<int32_t> pads, std::vector<int32_t> out, Quant q = {}) {
    GraphBuilder g;
    const int32_t input = tensorOf(g, std::move(in), type, q);
    const int32_t block = g.tensor({2}, fb::TensorType_INT32, GraphBuilder::bytes(std::vector<int32_t>{2, 3}));
    const int32_t p = g.tensor({2, 2}, fb::TensorType_INT32, GraphBuilder::bytes(pads));
    const int32_t output = tensorOf(g, std::move(out), type, q);
    g.op(code, {input, block, p}, {output});
    g.inputs = {input};
    g.outputs = {output};
    return g;
}

TEST(RealTfliteLowering, SpaceToBatchFloatPadded) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = batchSpace(fb::BuiltinOperator_SPACE_TO_BATCH_ND, fb::TensorType_FLOAT32, {1, 4, 6, 2},
                                      {1, 1, 0, 3}, {6, 3, 3, 2});
    expectSameAsRealTflite(g, {rampBytes<float>(48, -2, 2)});
    EXPECT_EQ(delegatedNodes(g), 1u);
}

TEST(RealTfliteLowering, SpaceToBatchUint8) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = batchSpace(fb::BuiltinOperator_SPACE_TO_BATCH_ND, fb::TensorType_UINT8, {2, 4, 6, 2},
                                      {0, 0, 0, 0}, {12, 2, 2, 2}, {0.1f, 0});
    expectSameAsRealTflite(g, {rampBytes<uint8_t>(96, 0, 255)});
    EXPECT_EQ(delegatedNodes(g), 1u);
}

TEST(RealTfliteLowering, BatchToSpaceFloat) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = batchSpace(fb::BuiltinOperator_BATCH_TO_SPACE_ND, fb::TensorType_FLOAT32, {6, 2, 3, 2},
                                      {0, 0, 0, 0}, {1, 4, 9, 2});
    expectSameAsRealTflite(g, {rampBytes<float>(72, -2, 2)});
    EXPECT_EQ(delegatedNodes(g), 1u);
}

TEST(RealTfliteLowering, BatchToSpaceInt8) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = batchSpace(fb::BuiltinOperator_BATCH_TO_SPACE_ND, fb::TensorType_INT8, {6, 2, 3, 2},
                                      {0, 0, 0, 0}, {1, 4, 9, 2}, {0.1f, -7});
    expectSameAsRealTflite(g, {rampBytes<int8_t>(72, -128, 127)});
    EXPECT_EQ(delegatedNodes(g), 1u);
}

// Crops: refused by TFLite's delegate, BATCH_TO_SPACE_ND then SLICE off the delegate.
TEST(RealTfliteLowering, BatchToSpaceCroppedStaysOffTheDelegate) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = batchSpace(fb::BuiltinOperator_BATCH_TO_SPACE_ND, fb::TensorType_FLOAT32, {6, 2, 3, 2},
                                      {1, 0, 2, 1}, {1, 3, 6, 2});
    expectSameAsRealTflite(g, {rampBytes<float>(72, -2, 2)});
    EXPECT_EQ(delegatedNodes(g), 0u);
}

GraphBuilder reduceAny(std::vector<int32_t> axes, bool keepDims, std::vector<int32_t> out) {
    GraphBuilder g;
    const int32_t in = g.tensor({2, 3, 4}, fb::TensorType_BOOL);
    const int32_t a = g.tensor({static_cast<int32_t>(axes.size())}, fb::TensorType_INT32, GraphBuilder::bytes(axes));
    const int32_t o = g.tensor(std::move(out), fb::TensorType_BOOL);
    g.op(fb::BuiltinOperator_REDUCE_ANY, {in, a}, {o}, fb::BuiltinOptions_ReducerOptions,
         [keepDims](auto& b) { return fb::CreateReducerOptions(b, keepDims).Union(); });
    g.inputs = {in};
    g.outputs = {o};
    return g;
}

TEST(RealTfliteLowering, ReduceAny) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = reduceAny({1}, false, {2, 4});
    expectSameAsRealTflite(g, {bools(24)});
    EXPECT_EQ(delegatedNodes(g), 1u);
}

TEST(RealTfliteLowering, ReduceAnyKeepDims) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = reduceAny({0, -1}, true, {1, 3, 1});
    expectSameAsRealTflite(g, {bools(24)});
    EXPECT_EQ(delegatedNodes(g), 1u);
}

// ---- MIRROR_PAD, REVERSE_V2, BATCH_MATMUL: delegated by real TFLite 2.21 ----

GraphBuilder mirrorPad(fb::TensorType type, std::vector<int32_t> pads, fb::MirrorPadMode mode,
                       std::vector<int32_t> out, Quant q = {}) {
    GraphBuilder g;
    const int32_t in = tensorOf(g, {2, 3, 4}, type, q);
    const int32_t p = g.tensor({3, 2}, fb::TensorType_INT32, GraphBuilder::bytes(pads));
    const int32_t o = tensorOf(g, std::move(out), type, q);
    g.op(fb::BuiltinOperator_MIRROR_PAD, {in, p}, {o}, fb::BuiltinOptions_MirrorPadOptions,
         [mode](auto& b) { return fb::CreateMirrorPadOptions(b, mode).Union(); });
    g.inputs = {in};
    g.outputs = {o};
    return g;
}

TEST(RealTfliteLowering, MirrorPadFloatReflect) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = mirrorPad(fb::TensorType_FLOAT32, {1, 1, 2, 0, 0, 3}, fb::MirrorPadMode_REFLECT, {4, 5, 7});
    expectSameAsRealTflite(g, {rampBytes<float>(24, -2, 2)});
    EXPECT_EQ(delegatedNodes(g), 1u);
}

TEST(RealTfliteLowering, MirrorPadUint8Symmetric) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = mirrorPad(fb::TensorType_UINT8, {2, 1, 3, 3, 0, 4}, fb::MirrorPadMode_SYMMETRIC, {5, 9, 8},
                                     {0.1f, 3});
    expectSameAsRealTflite(g, {rampBytes<uint8_t>(24, 0, 255)});
    EXPECT_EQ(delegatedNodes(g), 1u);
}

GraphBuilder reverse(fb::TensorType type, std::vector<int32_t> axes) {
    GraphBuilder g;
    const int32_t in = g.tensor({2, 3, 4}, type);
    const int32_t a = g.tensor({static_cast<int32_t>(axes.size())}, fb::TensorType_INT32, GraphBuilder::bytes(axes));
    const int32_t o = g.tensor({2, 3, 4}, type);
    g.op(fb::BuiltinOperator_REVERSE_V2, {in, a}, {o});
    g.inputs = {in};
    g.outputs = {o};
    return g;
}

TEST(RealTfliteLowering, ReverseV2FloatTwoAxes) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = reverse(fb::TensorType_FLOAT32, {1, 2});
    expectSameAsRealTflite(g, {rampBytes<float>(24, -2, 2)});
    EXPECT_EQ(delegatedNodes(g), 1u);
}

TEST(RealTfliteLowering, ReverseV2Int32) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = reverse(fb::TensorType_INT32, {1});
    expectSameAsRealTflite(g, {rampBytes<int32_t>(24, -100, 100)});
    EXPECT_EQ(delegatedNodes(g), 1u);
}

TEST(RealTfliteLowering, BatchMatmulFloatAdjointY) {
    NNEMU_REQUIRE_REAL_TFLITE();
    GraphBuilder g;
    const int32_t x = g.tensor({2, 3, 4}, fb::TensorType_FLOAT32);
    const int32_t y = g.tensor({2, 5, 4}, fb::TensorType_FLOAT32);
    const int32_t o = g.tensor({2, 3, 5}, fb::TensorType_FLOAT32);
    g.op(fb::BuiltinOperator_BATCH_MATMUL, {x, y}, {o}, fb::BuiltinOptions_BatchMatMulOptions,
         [](auto& b) { return fb::CreateBatchMatMulOptions(b, false, true).Union(); });
    g.inputs = {x, y};
    g.outputs = {o};
    expectSameAsRealTflite(g, {rampBytes<float>(24, -2, 2), rampBytes<float>(40, -1, 3)});
    EXPECT_EQ(delegatedNodes(g), 1u);
}

// ---- SPLIT_V: SLICEs on the delegate (constant int32 sizes and axis), else the CPU kernel ----

struct SplitV {
    fb::TensorType type = fb::TensorType_FLOAT32;
    Quant q;
    std::vector<int32_t> sizes = {1, -1, 2};      // of dimension `axis` of a [2, 6, 3] input
    int32_t axis = 1;
    bool constantSizes = true;
    fb::TensorType sizesType = fb::TensorType_INT32;
    std::vector<std::vector<int32_t>> outShapes = {{2, 1, 3}, {2, 3, 3}, {2, 2, 3}};
};

GraphBuilder splitV(const SplitV& s) {
    GraphBuilder g;
    const int32_t in = tensorOf(g, {2, 6, 3}, s.type, s.q);
    std::vector<uint8_t> sizeBytes;
    if (s.constantSizes) {
        sizeBytes = s.sizesType == fb::TensorType_INT64
                            ? GraphBuilder::bytes(std::vector<int64_t>(s.sizes.begin(), s.sizes.end()))
                            : GraphBuilder::bytes(s.sizes);
    }
    const int32_t sizes = g.tensor({static_cast<int32_t>(s.sizes.size())}, s.sizesType, sizeBytes);
    const int32_t axis = g.tensor({}, fb::TensorType_INT32, GraphBuilder::bytes(std::vector<int32_t>{s.axis}));
    std::vector<int32_t> outs;
    for (const std::vector<int32_t>& shape : s.outShapes) outs.push_back(tensorOf(g, shape, s.type, s.q));
    const auto count = static_cast<int32_t>(outs.size());
    g.op(fb::BuiltinOperator_SPLIT_V, {in, sizes, axis}, outs, fb::BuiltinOptions_SplitVOptions,
         [count](auto& b) { return fb::CreateSplitVOptions(b, count).Union(); });
    g.inputs = {in};
    if (!s.constantSizes) g.inputs.push_back(sizes);
    g.outputs = outs;
    return g;
}

// The usual split of a [2, 6, 3] input into 1, the rest and 2 along axis 1, in `type`.
SplitV splitVOf(fb::TensorType type, Quant q = {}) {
    SplitV s;
    s.type = type;
    s.q = q;
    return s;
}

// `sizes` along `axis` of a [2, 6, 3] input, into outputs of `outShapes`.
SplitV splitVAlong(SplitV s, std::vector<int32_t> sizes, int32_t axis, std::vector<std::vector<int32_t>> outShapes) {
    s.sizes = std::move(sizes);
    s.axis = axis;
    s.outShapes = std::move(outShapes);
    return s;
}

TEST(RealTfliteLowering, SplitVFloat) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = splitV(SplitV{});
    expectSameAsRealTflite(g, {rampBytes<float>(36, -3, 3)}, 0);
    EXPECT_EQ(delegatedNodes(g), 1u);
}

TEST(RealTfliteLowering, SplitVUint8) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = splitV(splitVOf(fb::TensorType_UINT8, {0.05f, 128}));
    expectSameAsRealTflite(g, {rampBytes<uint8_t>(36, 0, 255)});
    EXPECT_EQ(delegatedNodes(g), 1u);
}

TEST(RealTfliteLowering, SplitVInt8LastAxisNegative) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g =
            splitV(splitVAlong(splitVOf(fb::TensorType_INT8, {0.1f, -7}), {2, 1}, -1, {{2, 6, 2}, {2, 6, 1}}));
    expectSameAsRealTflite(g, {rampBytes<int8_t>(36, -128, 127)});
    EXPECT_EQ(delegatedNodes(g), 1u);
}

TEST(RealTfliteLowering, SplitVInt32) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = splitV(splitVAlong(splitVOf(fb::TensorType_INT32), {1, 1}, 0, {{1, 6, 3}, {1, 6, 3}}));
    expectSameAsRealTflite(g, {rampBytes<int32_t>(36, -1000, 1000)});
    EXPECT_EQ(delegatedNodes(g), 1u);
}

// Forms the delegate refuses run on the tools' CPU kernel: types NNAPI lacks, int64 sizes, an
// empty part, sizes only known at invoke (the outputs then sized as TFLite sizes them).
TEST(RealTfliteLowering, SplitVInt16AndInt64OnTheCpuKernel) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g16 = splitV(splitVOf(fb::TensorType_INT16));
    expectSameAsRealTflite(g16, {rampBytes<int16_t>(36, -30000, 30000)});
    EXPECT_EQ(delegatedNodes(g16), 0u);
    const GraphBuilder g64 = splitV(splitVOf(fb::TensorType_INT64));
    expectSameAsRealTflite(g64, {rampBytes<int64_t>(36, -1e12, 1e12)});
    EXPECT_EQ(delegatedNodes(g64), 0u);
}

TEST(RealTfliteLowering, SplitVInt64SizesOnTheCpuKernel) {
    NNEMU_REQUIRE_REAL_TFLITE();
    SplitV s;
    s.sizesType = fb::TensorType_INT64;
    const GraphBuilder g = splitV(s);
    expectSameAsRealTflite(g, {rampBytes<float>(36, -3, 3)}, 0);
    EXPECT_EQ(delegatedNodes(g), 0u);
}

TEST(RealTfliteLowering, SplitVEmptyPartOnTheCpuKernel) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = splitV(splitVAlong(SplitV{}, {0, 6}, 1, {{2, 0, 3}, {2, 6, 3}}));
    expectSameAsRealTflite(g, {rampBytes<float>(36, -3, 3)}, 0);
    EXPECT_EQ(delegatedNodes(g), 0u);
}

TEST(RealTfliteLowering, SplitVSizesAtInvokeOnTheCpuKernel) {
    NNEMU_REQUIRE_REAL_TFLITE();
    // Declared as an even split; the sizes given at invoke are 4, 1 and the rest (1).
    SplitV s = splitVAlong(SplitV{}, {2, 2, 2}, 1, {{2, 2, 3}, {2, 2, 3}, {2, 2, 3}});
    s.constantSizes = false;
    const GraphBuilder g = splitV(s);
    expectSameAsRealTflite(g, {rampBytes<float>(36, -3, 3), GraphBuilder::bytes(std::vector<int32_t>{4, 1, -1})}, 0);
    EXPECT_EQ(delegatedNodes(g), 0u);
}

TEST(RealTfliteLowering, SplitVMalformedIsRefusedCleanly) {
    const std::vector<std::vector<int32_t>> threeParts = {{2, 1, 3}, {2, 3, 3}, {2, 2, 3}};
    const std::vector<SplitV> malformed = {
            splitVAlong(SplitV{}, {1, -1, -1}, 1, threeParts),              // two unknown sizes
            splitVAlong(SplitV{}, {4, 4, 4}, 1, threeParts),                // more than the dimension
            splitVAlong(SplitV{}, {1, -2, 7}, 1, threeParts),               // a negative size
            splitVAlong(SplitV{}, {1, -1, 2}, 3, threeParts),               // axis out of range
            splitVAlong(SplitV{}, {1, -1, 2}, 1, {{2, 1, 3}, {2, 3, 3}, {2, 9, 3}}),   // a wrong output shape
    };
    for (const SplitV& s : malformed) {
        std::unique_ptr<Model> model = expectValue(Model::fromBuffer(splitV(s).buildBytes()));
        ASSERT_NE(model, nullptr);
        for (const RunMode& mode : kernelRunModes()) {
            const std::string error = failureOf(Interpreter::create(*model, mode.options));
            EXPECT_NE(error.find("SPLIT_V"), std::string::npos) << error;
        }
    }
}

// ---- UNPACK: RESHAPE + SPLIT on the delegate (float32, uint8, int8) but along the last axis ----

GraphBuilder unpack(fb::TensorType type, Quant q, int32_t axis) {
    const std::vector<int32_t> dims = {2, 3, 4};
    const size_t a = static_cast<size_t>(axis < 0 ? axis + 3 : axis);
    std::vector<int32_t> part = dims;
    part.erase(part.begin() + static_cast<std::ptrdiff_t>(a));
    GraphBuilder g;
    const int32_t in = tensorOf(g, dims, type, q);
    std::vector<int32_t> outs;
    for (int32_t p = 0; p < dims[a]; ++p) outs.push_back(tensorOf(g, part, type, q));
    const int32_t num = dims[a];
    g.op(fb::BuiltinOperator_UNPACK, {in}, outs, fb::BuiltinOptions_UnpackOptions,
         [num, axis](auto& b) { return fb::CreateUnpackOptions(b, num, axis).Union(); });
    g.inputs = {in};
    g.outputs = outs;
    return g;
}

TEST(RealTfliteLowering, UnpackFloatEveryAxis) {
    NNEMU_REQUIRE_REAL_TFLITE();
    for (int32_t axis : {0, 1, -1}) {
        SCOPED_TRACE(axis);
        const GraphBuilder g = unpack(fb::TensorType_FLOAT32, {}, axis);
        expectSameAsRealTflite(g, {rampBytes<float>(24, -3, 3)}, 0);
        EXPECT_EQ(delegatedNodes(g), axis == -1 ? 0u : 1u);
    }
}

TEST(RealTfliteLowering, UnpackQuantizedAndInt32) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder u8 = unpack(fb::TensorType_UINT8, {0.05f, 128}, 1);
    expectSameAsRealTflite(u8, {rampBytes<uint8_t>(24, 0, 255)});
    EXPECT_EQ(delegatedNodes(u8), 1u);
    const GraphBuilder s8 = unpack(fb::TensorType_INT8, {0.1f, -7}, 0);
    expectSameAsRealTflite(s8, {rampBytes<int8_t>(24, -128, 127)});
    EXPECT_EQ(delegatedNodes(s8), 1u);
    // int32: real TFLite 2.21's delegate leaves it to TFLite; the tools' CPU kernel here.
    const GraphBuilder i32 = unpack(fb::TensorType_INT32, {}, 1);
    expectSameAsRealTflite(i32, {rampBytes<int32_t>(24, -500, 500)});
    EXPECT_EQ(delegatedNodes(i32), 0u);
}

// COS: no NNAPI operation; the tools' CPU kernel (real TFLite 2.21 delegates it, nnemu does not).
TEST(RealTfliteLowering, CosFloatOnTheCpuKernel) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const GraphBuilder g = unary(fb::BuiltinOperator_COS, fb::TensorType_FLOAT32, {3, 4, 5});
    expectSameAsRealTflite(g, {rampBytes<float>(60, -20, 20)}, 0);
    EXPECT_EQ(delegatedNodes(g), 0u);
}

}  // namespace
}  // namespace nnemu::tflite::test
