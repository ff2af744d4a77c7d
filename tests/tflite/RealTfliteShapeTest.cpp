// Shape and indexing builtins on the tools' CPU kernels against real TensorFlow Lite 2.21
// (RealTflite.h): BROADCAST_TO, BROADCAST_ARGS, CUMSUM, ONE_HOT, RANGE, WHERE, UNIQUE,
// REVERSE_SEQUENCE, SCATTER_ND, SEGMENT_SUM, UNSORTED_SEGMENT_*, MATRIX_DIAG, MATRIX_SET_DIAG,
// SPARSE_TO_DENSE, DYNAMIC_UPDATE_SLICE, NON_MAX_SUPPRESSION_V4/V5, one test per
// builtin and type. Outputs TFLite sizes at invoke (dynamic tensors) must also have TFLite's
// shape, in every interpreter mode, including when another CPU kernel reads them. Skipped without
// ../shared/tflite; the malformed-node tests at the end run everywhere.
#include <regex>

#include "RealTflite.h"
#include "ResultCheck.h"

namespace nnemu::tflite::test {
namespace {

template <typename T>
std::vector<uint8_t> values(std::vector<T> v) {
    return GraphBuilder::bytes(v);
}

// The output shapes tflite_run prints ("output N: ... shape=[a,b] ...").
std::vector<std::vector<int32_t>> realShapes(const std::string& log) {
    std::vector<std::vector<int32_t>> shapes;
    static const std::regex line(R"(^output \d+: .* shape=\[([-0-9,]*)\] bytes=)");
    std::istringstream lines(log);
    for (std::string text; std::getline(lines, text);) {
        std::smatch match;
        if (!std::regex_search(text, match, line)) continue;
        std::vector<int32_t> shape;
        std::istringstream dims(match[1].str());
        for (std::string dim; std::getline(dims, dim, ',');) shape.push_back(std::stoi(dim));
        shapes.push_back(shape);
    }
    return shapes;
}

// Bytes as expectSameAsRealTflite compares them, and each output's shape after invoke.
void expectSameAsTflite(const GraphBuilder& g, const std::vector<std::vector<uint8_t>>& inputs) {
    expectSameAsRealTflite(g, inputs);
    const std::vector<uint8_t> bytes = g.buildBytes();
    const RealTfliteResult real = runRealTflite(bytes, inputs);
    ASSERT_TRUE(real.ok) << real.log;
    const std::vector<std::vector<int32_t>> shapes = realShapes(real.log);
    ASSERT_EQ(shapes.size(), real.outputs.size()) << real.log;
    forEachKernelRunMode(bytes, [&](Interpreter& interpreter) {
        for (size_t i = 0; i < inputs.size(); ++i) {
            if (!inputs[i].empty()) std::memcpy(interpreter.inputData(i), inputs[i].data(), inputs[i].size());
        }
        // Twice: the second invoke starts from the shapes the first one gave.
        for (int run = 0; run < 2; ++run) {
            ASSERT_TRUE(isOk(interpreter.invoke()));
            for (size_t o = 0; o < shapes.size(); ++o) {
                EXPECT_EQ(interpreter.outputTensor(o).shape, shapes[o]) << "output " << o;
                ASSERT_EQ(interpreter.outputTensor(o).byteSize(), real.outputs[o].size());
                expectSameBytes(interpreter.outputTensor(o), interpreter.outputData(o), real.outputs[o], 0);
            }
        }
    });
}

// ---- BROADCAST_TO ----

GraphBuilder broadcastTo(std::vector<int32_t> inShape, fb::TensorType type, std::vector<int32_t> outShape,
                         bool constantShape, bool int64Shape = false) {
    GraphBuilder g;
    const int32_t in = g.tensor(inShape, type);
    const auto rank = static_cast<int32_t>(outShape.size());
    std::vector<uint8_t> data;
    if (constantShape) {
        data = int64Shape ? values(std::vector<int64_t>(outShape.begin(), outShape.end())) : values(outShape);
    }
    const int32_t shape = g.tensor({rank}, int64Shape ? fb::TensorType_INT64 : fb::TensorType_INT32, data);
    const int32_t out = g.tensor(constantShape ? outShape : std::vector<int32_t>{1}, type);
    g.op(fb::BuiltinOperator_BROADCAST_TO, {in, shape}, {out});
    g.setVersion(2);   // TFLite 2.21 registers BROADCAST_TO from version 2
    g.inputs = constantShape ? std::vector<int32_t>{in} : std::vector<int32_t>{in, shape};
    g.outputs = {out};
    return g;
}

// Against the values TFLite's semantics give, shapes included, in every interpreter mode, and
// against real TFLite (the opcode at version 2, which TFLite 2.21 registers) when it is present.
void expectBroadcast(const GraphBuilder& g, const std::vector<std::vector<uint8_t>>& inputs, std::vector<int32_t> shape,
                     const std::vector<uint8_t>& want) {
    if (access(realTfliteRun().c_str(), X_OK) == 0) expectSameAsTflite(g, inputs);
    forEachKernelRunMode(g.buildBytes(), [&](Interpreter& interpreter) {
        for (size_t i = 0; i < inputs.size(); ++i) std::memcpy(interpreter.inputData(i), inputs[i].data(), inputs[i].size());
        ASSERT_TRUE(isOk(interpreter.invoke()));
        EXPECT_EQ(interpreter.outputTensor(0).shape, shape);
        ASSERT_EQ(interpreter.outputTensor(0).byteSize(), want.size());
        EXPECT_EQ(std::vector<uint8_t>(interpreter.outputData(0), interpreter.outputData(0) + want.size()), want);
    });
}

TEST(ShapeKernels, BroadcastToFloat) {
    std::vector<float> want;
    for (int n = 0; n < 2; ++n) {
        for (float v : {-2.f, 0.5f, 3.f}) want.insert(want.end(), 4, v);
    }
    expectBroadcast(broadcastTo({3, 1}, fb::TensorType_FLOAT32, {2, 3, 4}, true), {values(std::vector<float>{-2.f, 0.5f, 3.f})},
                    {2, 3, 4}, values(want));
}

TEST(ShapeKernels, BroadcastToInt8Int64Shape) {
    const std::vector<int8_t> row = {-128, 1, 0, 127};
    std::vector<int8_t> want;
    for (int n = 0; n < 3; ++n) want.insert(want.end(), row.begin(), row.end());
    expectBroadcast(broadcastTo({1, 4}, fb::TensorType_INT8, {3, 4}, true, true), {values(row)}, {3, 4}, values(want));
}

TEST(ShapeKernels, BroadcastToUint8Scalar) {
    expectBroadcast(broadcastTo({}, fb::TensorType_UINT8, {2, 3}, true), {values(std::vector<uint8_t>{200})}, {2, 3},
                    std::vector<uint8_t>(6, 200));
}

TEST(ShapeKernels, BroadcastToInt32ShapeAtInvoke) {
    const std::vector<int32_t> in = {1, 2, 3, -4, -5, -6};   // [2, 1, 3]
    std::vector<int32_t> want;
    for (int a = 0; a < 2; ++a) {
        for (int b = 0; b < 2; ++b) {
            for (int c = 0; c < 4; ++c) want.insert(want.end(), in.begin() + b * 3, in.begin() + b * 3 + 3);
        }
    }
    expectBroadcast(broadcastTo({2, 1, 3}, fb::TensorType_INT32, {2, 2, 4, 3}, false),
                    {values(in), values(std::vector<int32_t>{2, 2, 4, 3})}, {2, 2, 4, 3}, values(want));
}

TEST(ShapeKernels, BroadcastToBoolInt64ShapeAtInvoke) {
    const std::vector<uint8_t> row = {1, 0, 0, 1};
    std::vector<uint8_t> want;
    for (int n = 0; n < 3; ++n) want.insert(want.end(), row.begin(), row.end());
    expectBroadcast(broadcastTo({4}, fb::TensorType_BOOL, {3, 4}, false, true), {row, values(std::vector<int64_t>{3, 4})},
                    {3, 4}, want);
}

// ---- BROADCAST_ARGS ----

GraphBuilder broadcastArgs(fb::TensorType type, int32_t a, int32_t b) {
    GraphBuilder g;
    const int32_t s0 = g.tensor({a}, type), s1 = g.tensor({b}, type);
    const int32_t out = g.tensor({std::max(a, b)}, type);
    g.op(fb::BuiltinOperator_BROADCAST_ARGS, {s0, s1}, {out});
    g.inputs = {s0, s1};
    g.outputs = {out};
    return g;
}

TEST(RealTfliteShape, BroadcastArgsInt32) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(broadcastArgs(fb::TensorType_INT32, 4, 2),
                       {values(std::vector<int32_t>{2, 1, 1, 5}), values(std::vector<int32_t>{3, 1})});
}

TEST(RealTfliteShape, BroadcastArgsInt64) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(broadcastArgs(fb::TensorType_INT64, 2, 3),
                       {values(std::vector<int64_t>{1, 7}), values(std::vector<int64_t>{0, 6, 1})});
}

// ---- CUMSUM ----

GraphBuilder cumsum(fb::TensorType type, int32_t axis, bool exclusive, bool reverse) {
    GraphBuilder g;
    const int32_t in = g.tensor({2, 3, 4}, type);
    const int32_t axisTensor = g.tensor({}, fb::TensorType_INT32, values(std::vector<int32_t>{axis}));
    const int32_t out = g.tensor({2, 3, 4}, type);
    g.op(fb::BuiltinOperator_CUMSUM, {in, axisTensor}, {out}, fb::BuiltinOptions_CumsumOptions,
         [=](auto& b) { return fb::CreateCumsumOptions(b, exclusive, reverse).Union(); });
    g.inputs = {in};
    g.outputs = {out};
    return g;
}

TEST(RealTfliteShape, CumsumFloat) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(cumsum(fb::TensorType_FLOAT32, 1, false, false), {rampBytes<float>(24, -3.3, 7.1)});
}

TEST(RealTfliteShape, CumsumFloatExclusiveReverseLastAxis) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(cumsum(fb::TensorType_FLOAT32, -1, true, true), {rampBytes<float>(24, -1e3, 1e-3)});
}

TEST(RealTfliteShape, CumsumInt32ExclusiveWraps) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(cumsum(fb::TensorType_INT32, 0, true, false), {rampBytes<int32_t>(24, -2e9, 2e9)});
}

TEST(RealTfliteShape, CumsumInt64Reverse) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(cumsum(fb::TensorType_INT64, 2, false, true), {rampBytes<int64_t>(24, -5e12, 5e12)});
}

// ---- ONE_HOT ----

template <typename T>
GraphBuilder oneHot(fb::TensorType indexType, std::vector<int32_t> indicesShape, fb::TensorType type, T on, T off,
                    int32_t depth, int32_t axis, bool constantDepth) {
    GraphBuilder g;
    const int32_t indices = g.tensor(indicesShape, indexType);
    const int32_t depthTensor =
            g.tensor({}, fb::TensorType_INT32, constantDepth ? values(std::vector<int32_t>{depth}) : std::vector<uint8_t>{});
    const int32_t onTensor = g.tensor({}, type, values(std::vector<T>{on}));
    const int32_t offTensor = g.tensor({}, type, values(std::vector<T>{off}));
    std::vector<int32_t> outShape = indicesShape;
    const size_t at = axis == -1 ? outShape.size() : std::min(static_cast<size_t>(axis), outShape.size());
    outShape.insert(outShape.begin() + static_cast<std::ptrdiff_t>(at), constantDepth ? depth : 1);
    const int32_t out = g.tensor(outShape, type);
    g.op(fb::BuiltinOperator_ONE_HOT, {indices, depthTensor, onTensor, offTensor}, {out},
         fb::BuiltinOptions_OneHotOptions, [=](auto& b) { return fb::CreateOneHotOptions(b, axis).Union(); });
    g.inputs = constantDepth ? std::vector<int32_t>{indices} : std::vector<int32_t>{indices, depthTensor};
    g.outputs = {out};
    return g;
}

TEST(RealTfliteShape, OneHotFloatLastAxis) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(oneHot<float>(fb::TensorType_INT32, {2, 3}, fb::TensorType_FLOAT32, 1.5f, -0.25f, 5, -1, true),
                       {values(std::vector<int32_t>{0, 4, 2, -1, 5, 3})});
}

TEST(RealTfliteShape, OneHotInt32AxisZeroInt64Indices) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(oneHot<int32_t>(fb::TensorType_INT64, {4}, fb::TensorType_INT32, 7, -3, 3, 0, true),
                       {values(std::vector<int64_t>{2, 0, (int64_t{1} << 32) + 1, -2})});
}

TEST(RealTfliteShape, OneHotInt64MiddleAxis) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(oneHot<int64_t>(fb::TensorType_INT32, {2, 2}, fb::TensorType_INT64, -1, 1 << 20, 4, 1, true),
                       {values(std::vector<int32_t>{3, 1, 0, 9})});
}

TEST(RealTfliteShape, OneHotBool) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(oneHot<uint8_t>(fb::TensorType_INT32, {3}, fb::TensorType_BOOL, 1, 0, 3, -1, true),
                       {values(std::vector<int32_t>{2, 1, 2})});
}

TEST(RealTfliteShape, OneHotInt8DepthAtInvoke) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(oneHot<int8_t>(fb::TensorType_INT32, {2, 2}, fb::TensorType_INT8, 100, -100, 6, 0, false),
                       {values(std::vector<int32_t>{5, 0, 1, 3}), values(std::vector<int32_t>{6})});
}

TEST(RealTfliteShape, OneHotUint8DepthAtInvoke) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(oneHot<uint8_t>(fb::TensorType_INT64, {3}, fb::TensorType_UINT8, 255, 1, 2, -1, false),
                       {values(std::vector<int64_t>{1, 0, 1}), values(std::vector<int32_t>{2})});
}

// ---- RANGE ----

template <typename T>
GraphBuilder range(fb::TensorType type, T start, T limit, T delta, bool constant, int32_t declared) {
    GraphBuilder g;
    const auto scalar = [&](T value) {
        return g.tensor({}, type, constant ? values(std::vector<T>{value}) : std::vector<uint8_t>{});
    };
    const int32_t s = scalar(start), l = scalar(limit), d = scalar(delta);
    const int32_t out = g.tensor({declared}, type);
    g.op(fb::BuiltinOperator_RANGE, {s, l, d}, {out});
    g.inputs = constant ? std::vector<int32_t>{} : std::vector<int32_t>{s, l, d};
    g.outputs = {out};
    return g;
}

TEST(RealTfliteShape, RangeInt32Constant) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(range<int32_t>(fb::TensorType_INT32, 3, 20, 4, true, 5), {});
}

TEST(RealTfliteShape, RangeInt32AtInvoke) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(range<int32_t>(fb::TensorType_INT32, 0, 0, 0, false, 1),
                       {values(std::vector<int32_t>{7}), values(std::vector<int32_t>{-30}), values(std::vector<int32_t>{-6})});
}

TEST(RealTfliteShape, RangeInt32EmptyAtInvoke) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(range<int32_t>(fb::TensorType_INT32, 0, 0, 0, false, 1),
                       {values(std::vector<int32_t>{4}), values(std::vector<int32_t>{4}), values(std::vector<int32_t>{1})});
}

TEST(RealTfliteShape, RangeFloatAtInvoke) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(range<float>(fb::TensorType_FLOAT32, 0, 0, 0, false, 1),
                       {values(std::vector<float>{-1.5f}), values(std::vector<float>{2.3f}),
                        values(std::vector<float>{0.1f})});
}

TEST(RealTfliteShape, RangeInt64AtInvoke) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(range<int64_t>(fb::TensorType_INT64, 0, 0, 0, false, 1),
                       {values(std::vector<int64_t>{int64_t{1} << 40}), values(std::vector<int64_t>{(int64_t{1} << 40) + 50}),
                        values(std::vector<int64_t>{7})});
}

// ---- WHERE ----

GraphBuilder where(std::vector<int32_t> shape, fb::TensorType type) {
    GraphBuilder g;
    const int32_t condition = g.tensor(shape, type);
    const int32_t out = g.tensor({1, static_cast<int32_t>(shape.size())}, fb::TensorType_INT64);
    g.op(fb::BuiltinOperator_WHERE, {condition}, {out});
    g.inputs = {condition};
    g.outputs = {out};
    return g;
}

TEST(RealTfliteShape, WhereBool) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(where({3, 4}, fb::TensorType_BOOL), {values(std::vector<uint8_t>{1, 0, 0, 1, 1, 1, 0, 0, 0, 0, 1, 0})});
}

TEST(RealTfliteShape, WhereFloat) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(where({2, 3, 2}, fb::TensorType_FLOAT32),
                       {values(std::vector<float>{0.f, -0.f, 1e-30f, 0.f, -2.f, 0.f, 0.f, 3.f, 0.f, 0.f, 0.f, 0.5f})});
}

TEST(RealTfliteShape, WhereInt32NoneSet) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(where({5}, fb::TensorType_INT32), {values(std::vector<int32_t>{0, 0, 0, 0, 0})});
}

TEST(RealTfliteShape, WhereInt64) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(where({2, 2}, fb::TensorType_INT64), {values(std::vector<int64_t>{int64_t{1} << 40, 0, -1, 0})});
}

TEST(RealTfliteShape, WhereInt8) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(where({2, 3}, fb::TensorType_INT8), {values(std::vector<int8_t>{0, -128, 0, 1, 0, 127})});
}

TEST(RealTfliteShape, WhereUint8) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(where({4}, fb::TensorType_UINT8), {values(std::vector<uint8_t>{0, 255, 128, 0})});
}

// ---- UNIQUE ----

GraphBuilder unique(fb::TensorType type, int32_t count, fb::TensorType indexType) {
    GraphBuilder g;
    const int32_t in = g.tensor({count}, type);
    const int32_t out = g.tensor({1}, type);
    const int32_t index = g.tensor({count}, indexType);
    g.op(fb::BuiltinOperator_UNIQUE, {in}, {out, index}, fb::BuiltinOptions_UniqueOptions,
         [=](auto& b) { return fb::CreateUniqueOptions(b, indexType).Union(); });
    g.inputs = {in};
    g.outputs = {out, index};
    return g;
}

TEST(RealTfliteShape, UniqueInt32) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(unique(fb::TensorType_INT32, 9, fb::TensorType_INT32),
                       {values(std::vector<int32_t>{4, -1, 4, 7, 7, 7, -1, 0, 4})});
}

TEST(RealTfliteShape, UniqueFloatInt64Index) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(unique(fb::TensorType_FLOAT32, 7, fb::TensorType_INT64),
                       {values(std::vector<float>{0.5f, -0.f, 0.f, 2.25f, 0.5f, -7.f, 2.25f})});
}

TEST(RealTfliteShape, UniqueInt8) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(unique(fb::TensorType_INT8, 6, fb::TensorType_INT32), {values(std::vector<int8_t>{-128, 3, 3, 127, -128, 0})});
}

TEST(RealTfliteShape, UniqueInt16) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(unique(fb::TensorType_INT16, 5, fb::TensorType_INT64), {values(std::vector<int16_t>{300, 300, -300, 1, 300})});
}

TEST(RealTfliteShape, UniqueInt64) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(unique(fb::TensorType_INT64, 4, fb::TensorType_INT32),
                       {values(std::vector<int64_t>{int64_t{1} << 40, 1, int64_t{1} << 40, 1})});
}

TEST(RealTfliteShape, UniqueUint8AllSame) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(unique(fb::TensorType_UINT8, 4, fb::TensorType_INT32), {values(std::vector<uint8_t>{9, 9, 9, 9})});
}

// ---- REVERSE_SEQUENCE ----

template <typename L>
GraphBuilder reverseSequence(std::vector<int32_t> shape, fb::TensorType type, fb::TensorType lengthType,
                             std::vector<L> lengths, int32_t seqDim, int32_t batchDim) {
    GraphBuilder g;
    const int32_t in = g.tensor(shape, type);
    const int32_t lengthTensor = g.tensor({static_cast<int32_t>(lengths.size())}, lengthType, values(lengths));
    const int32_t out = g.tensor(shape, type);
    g.op(fb::BuiltinOperator_REVERSE_SEQUENCE, {in, lengthTensor}, {out}, fb::BuiltinOptions_ReverseSequenceOptions,
         [=](auto& b) { return fb::CreateReverseSequenceOptions(b, seqDim, batchDim).Union(); });
    g.inputs = {in};
    g.outputs = {out};
    return g;
}

TEST(RealTfliteShape, ReverseSequenceFloat) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(reverseSequence<int32_t>({3, 4, 2}, fb::TensorType_FLOAT32, fb::TensorType_INT32, {2, 4, 0}, 1, 0),
                       {rampBytes<float>(24, -5, 5)});
}

TEST(RealTfliteShape, ReverseSequenceInt64BatchAfterSeq) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(reverseSequence<int64_t>({4, 2, 3}, fb::TensorType_INT64, fb::TensorType_INT64, {3, 1, 4}, 0, 2),
                       {rampBytes<int64_t>(24, -1e12, 1e12)});
}

TEST(RealTfliteShape, ReverseSequenceInt32) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(reverseSequence<int32_t>({2, 5}, fb::TensorType_INT32, fb::TensorType_INT32, {5, 3}, 1, 0),
                       {rampBytes<int32_t>(10, -100, 100)});
}

TEST(RealTfliteShape, ReverseSequenceUint8) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(reverseSequence<int32_t>({3, 2}, fb::TensorType_UINT8, fb::TensorType_INT32, {3, 2}, 0, 1),
                       {rampBytes<uint8_t>(6, 0, 255)});
}

TEST(RealTfliteShape, ReverseSequenceInt16) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(reverseSequence<int64_t>({2, 3, 2}, fb::TensorType_INT16, fb::TensorType_INT64, {2, 3}, 1, 0),
                       {rampBytes<int16_t>(12, -3000, 3000)});
}

// ---- SCATTER_ND ----

GraphBuilder scatterNd(fb::TensorType type, std::vector<int32_t> indicesShape, std::vector<int32_t> indices,
                       std::vector<int32_t> updatesShape, std::vector<int32_t> shape, bool constantShape) {
    GraphBuilder g;
    const int32_t indexTensor = g.tensor(indicesShape, fb::TensorType_INT32, values(indices));
    const int32_t updates = g.tensor(updatesShape, type);
    const int32_t shapeTensor = g.tensor({static_cast<int32_t>(shape.size())}, fb::TensorType_INT32,
                                         constantShape ? values(shape) : std::vector<uint8_t>{});
    const int32_t out = g.tensor(constantShape ? shape : std::vector<int32_t>{1}, type);
    g.op(fb::BuiltinOperator_SCATTER_ND, {indexTensor, updates, shapeTensor}, {out});
    g.inputs = constantShape ? std::vector<int32_t>{updates} : std::vector<int32_t>{updates, shapeTensor};
    g.outputs = {out};
    return g;
}

TEST(RealTfliteShape, ScatterNdFloatDuplicatesAdd) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(scatterNd(fb::TensorType_FLOAT32, {4, 1}, {4, 0, 4, 2}, {4, 3}, {5, 3}, true),
                       {rampBytes<float>(12, -2.5, 3.7)});
}

TEST(RealTfliteShape, ScatterNdInt32ShapeAtInvoke) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(scatterNd(fb::TensorType_INT32, {3, 2}, {0, 1, 2, 3, 0, 1}, {3}, {3, 4}, false),
                       {values(std::vector<int32_t>{INT32_MAX, 5, 1}), values(std::vector<int32_t>{3, 4})});
}

TEST(RealTfliteShape, ScatterNdInt8Wraps) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(scatterNd(fb::TensorType_INT8, {2, 1}, {1, 1}, {2, 2}, {3, 2}, true),
                       {values(std::vector<int8_t>{100, -100, 100, -100})});
}

TEST(RealTfliteShape, ScatterNdUint8) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(scatterNd(fb::TensorType_UINT8, {2, 1}, {0, 3}, {2}, {4}, true), {values(std::vector<uint8_t>{7, 250})});
}

TEST(RealTfliteShape, ScatterNdInt64) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(scatterNd(fb::TensorType_INT64, {1, 2}, {1, 0}, {1, 3}, {2, 2, 3}, true),
                       {values(std::vector<int64_t>{int64_t{1} << 50, -3, 9})});
}

TEST(RealTfliteShape, ScatterNdBool) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(scatterNd(fb::TensorType_BOOL, {3, 1}, {2, 0, 2}, {3}, {4}, true), {values(std::vector<uint8_t>{1, 0, 0})});
}

// ---- SEGMENT_SUM, UNSORTED_SEGMENT_* ----

GraphBuilder segmentSum(fb::TensorType type, std::vector<int32_t> ids, bool constantIds, int32_t declared) {
    GraphBuilder g;
    const auto n = static_cast<int32_t>(ids.size());
    const int32_t data = g.tensor({n, 2}, type);
    const int32_t idTensor = g.tensor({n}, fb::TensorType_INT32, constantIds ? values(ids) : std::vector<uint8_t>{});
    const int32_t out = g.tensor({declared, 2}, type);
    g.op(fb::BuiltinOperator_SEGMENT_SUM, {data, idTensor}, {out});
    g.inputs = constantIds ? std::vector<int32_t>{data} : std::vector<int32_t>{data, idTensor};
    g.outputs = {out};
    return g;
}

TEST(RealTfliteShape, SegmentSumFloat) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(segmentSum(fb::TensorType_FLOAT32, {0, 0, 1, 1, 1, 2}, true, 3), {rampBytes<float>(12, -1.1, 9.3)});
}

TEST(RealTfliteShape, SegmentSumInt32IdsAtInvoke) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(segmentSum(fb::TensorType_INT32, {0, 0, 0, 0, 0}, false, 1),
                       {rampBytes<int32_t>(10, -1000, 1000), values(std::vector<int32_t>{0, 1, 1, 2, 3})});
}

GraphBuilder unsortedSegment(fb::BuiltinOperator code, fb::TensorType type, std::vector<int32_t> ids, int32_t segments,
                             bool constant) {
    GraphBuilder g;
    const auto n = static_cast<int32_t>(ids.size());
    const int32_t data = g.tensor({n, 3}, type);
    const int32_t idTensor = g.tensor({n}, fb::TensorType_INT32, constant ? values(ids) : std::vector<uint8_t>{});
    const int32_t count = g.tensor({}, fb::TensorType_INT32, values(std::vector<int32_t>{segments}));
    const int32_t out = g.tensor({constant ? segments : 1, 3}, type);
    g.op(code, {data, idTensor, count}, {out});
    g.inputs = constant ? std::vector<int32_t>{data} : std::vector<int32_t>{data, idTensor};
    g.outputs = {out};
    return g;
}

TEST(RealTfliteShape, UnsortedSegmentSumFloat) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(unsortedSegment(fb::BuiltinOperator_UNSORTED_SEGMENT_SUM, fb::TensorType_FLOAT32, {2, 0, -1, 2, 0, 3}, 5, true),
                       {rampBytes<float>(18, -4.4, 6.6)});
}

TEST(RealTfliteShape, UnsortedSegmentSumInt32IdsAtInvoke) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(unsortedSegment(fb::BuiltinOperator_UNSORTED_SEGMENT_SUM, fb::TensorType_INT32, {0, 0, 0, 0}, 3, false),
                       {rampBytes<int32_t>(12, -50, 50), values(std::vector<int32_t>{2, 2, 0, -1})});
}

TEST(RealTfliteShape, UnsortedSegmentProdFloat) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(unsortedSegment(fb::BuiltinOperator_UNSORTED_SEGMENT_PROD, fb::TensorType_FLOAT32, {1, 1, 0, 1}, 3, true),
                       {rampBytes<float>(12, -2.2, 3.1)});
}

TEST(RealTfliteShape, UnsortedSegmentProdInt32) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(unsortedSegment(fb::BuiltinOperator_UNSORTED_SEGMENT_PROD, fb::TensorType_INT32, {0, 0, 0, 1}, 2, true),
                       {rampBytes<int32_t>(12, -2000, 2000)});
}

TEST(RealTfliteShape, UnsortedSegmentMaxFloat) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(unsortedSegment(fb::BuiltinOperator_UNSORTED_SEGMENT_MAX, fb::TensorType_FLOAT32, {3, 0, 3, 0, 1}, 4, true),
                       {rampBytes<float>(15, -7, 7)});
}

TEST(RealTfliteShape, UnsortedSegmentMaxInt32) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(unsortedSegment(fb::BuiltinOperator_UNSORTED_SEGMENT_MAX, fb::TensorType_INT32, {1, 1, 1}, 3, true),
                       {rampBytes<int32_t>(9, -9, 9)});
}

TEST(RealTfliteShape, UnsortedSegmentMinFloat) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(unsortedSegment(fb::BuiltinOperator_UNSORTED_SEGMENT_MIN, fb::TensorType_FLOAT32, {0, 2, 2, -5}, 3, true),
                       {rampBytes<float>(12, -3, 8)});
}

TEST(RealTfliteShape, UnsortedSegmentMinInt32) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(unsortedSegment(fb::BuiltinOperator_UNSORTED_SEGMENT_MIN, fb::TensorType_INT32, {0, 1, 0, 1}, 2, true),
                       {rampBytes<int32_t>(12, -99, 99)});
}

// ---- MATRIX_DIAG, MATRIX_SET_DIAG ----

GraphBuilder matrixDiag(std::vector<int32_t> shape, fb::TensorType type) {
    GraphBuilder g;
    const int32_t in = g.tensor(shape, type);
    std::vector<int32_t> outShape = shape;
    outShape.push_back(shape.back());
    const int32_t out = g.tensor(outShape, type);
    g.op(fb::BuiltinOperator_MATRIX_DIAG, {in}, {out});
    g.inputs = {in};
    g.outputs = {out};
    return g;
}

TEST(RealTfliteShape, MatrixDiagFloat) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(matrixDiag({2, 3}, fb::TensorType_FLOAT32), {rampBytes<float>(6, -1, 1)});
}

TEST(RealTfliteShape, MatrixDiagInt8) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(matrixDiag({4}, fb::TensorType_INT8), {rampBytes<int8_t>(4, -128, 127)});
}

TEST(RealTfliteShape, MatrixDiagUint8) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(matrixDiag({1, 3}, fb::TensorType_UINT8), {rampBytes<uint8_t>(3, 1, 255)});
}

TEST(RealTfliteShape, MatrixDiagInt16) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(matrixDiag({2, 2}, fb::TensorType_INT16), {rampBytes<int16_t>(4, -300, 300)});
}

TEST(RealTfliteShape, MatrixDiagInt32) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(matrixDiag({3, 2}, fb::TensorType_INT32), {rampBytes<int32_t>(6, -7, 7)});
}

TEST(RealTfliteShape, MatrixDiagInt64) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(matrixDiag({2, 2, 2}, fb::TensorType_INT64), {rampBytes<int64_t>(8, -1e15, 1e15)});
}

GraphBuilder matrixSetDiag(std::vector<int32_t> shape, fb::TensorType type) {
    GraphBuilder g;
    const int32_t in = g.tensor(shape, type);
    std::vector<int32_t> diagShape(shape.begin(), shape.end() - 2);
    diagShape.push_back(std::min(shape[shape.size() - 2], shape.back()));
    const int32_t diag = g.tensor(diagShape, type);
    const int32_t out = g.tensor(shape, type);
    g.op(fb::BuiltinOperator_MATRIX_SET_DIAG, {in, diag}, {out});
    g.inputs = {in, diag};
    g.outputs = {out};
    return g;
}

TEST(RealTfliteShape, MatrixSetDiagFloatWide) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(matrixSetDiag({2, 3, 4}, fb::TensorType_FLOAT32), {rampBytes<float>(24, -3, 3), rampBytes<float>(6, 10, 20)});
}

TEST(RealTfliteShape, MatrixSetDiagInt32Tall) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(matrixSetDiag({4, 2}, fb::TensorType_INT32), {rampBytes<int32_t>(8, -8, 8), rampBytes<int32_t>(2, 100, 200)});
}

TEST(RealTfliteShape, MatrixSetDiagInt8) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(matrixSetDiag({3, 3}, fb::TensorType_INT8), {rampBytes<int8_t>(9, -100, 100), rampBytes<int8_t>(3, 120, 127)});
}

TEST(RealTfliteShape, MatrixSetDiagUint8) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(matrixSetDiag({2, 2, 2}, fb::TensorType_UINT8), {rampBytes<uint8_t>(8, 0, 200), rampBytes<uint8_t>(4, 250, 255)});
}

TEST(RealTfliteShape, MatrixSetDiagInt64) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(matrixSetDiag({2, 3}, fb::TensorType_INT64), {rampBytes<int64_t>(6, -6, 6), rampBytes<int64_t>(2, 1e14, 2e14)});
}

TEST(RealTfliteShape, MatrixSetDiagInt16) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(matrixSetDiag({2, 2}, fb::TensorType_INT16), {rampBytes<int16_t>(4, -6, 6), rampBytes<int16_t>(2, 999, 1000)});
}

// ---- SPARSE_TO_DENSE ----

template <typename T, typename I>
GraphBuilder sparseToDense(fb::TensorType type, fb::TensorType indexType, std::vector<int32_t> indicesShape,
                           std::vector<I> indices, std::vector<I> shape, std::vector<T> valueData, T fallback,
                           bool constantShape) {
    GraphBuilder g;
    const int32_t indexTensor = g.tensor(indicesShape, indexType, values(indices));
    const int32_t shapeTensor = g.tensor({static_cast<int32_t>(shape.size())}, indexType,
                                         constantShape ? values(shape) : std::vector<uint8_t>{});
    const int32_t valueTensor =
            g.tensor(valueData.size() == 1 ? std::vector<int32_t>{} : std::vector<int32_t>{static_cast<int32_t>(valueData.size())},
                     type, values(valueData));
    const int32_t fallbackTensor = g.tensor({}, type, values(std::vector<T>{fallback}));
    const int32_t out = g.tensor(constantShape ? std::vector<int32_t>(shape.begin(), shape.end()) : std::vector<int32_t>{1}, type);
    g.op(fb::BuiltinOperator_SPARSE_TO_DENSE, {indexTensor, shapeTensor, valueTensor, fallbackTensor}, {out});
    g.inputs = constantShape ? std::vector<int32_t>{} : std::vector<int32_t>{shapeTensor};
    g.outputs = {out};
    return g;
}

TEST(RealTfliteShape, SparseToDenseFloat2D) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(sparseToDense<float, int32_t>(fb::TensorType_FLOAT32, fb::TensorType_INT32, {3, 2}, {0, 1, 2, 3, 1, 0},
                                                     {3, 4}, {1.5f, -2.f, 7.25f}, 0.5f, true),
                       {});
}

TEST(RealTfliteShape, SparseToDenseInt32ScalarValue) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(sparseToDense<int32_t, int32_t>(fb::TensorType_INT32, fb::TensorType_INT32, {1}, {4}, {6}, {9}, -1, true),
                       {});
}

TEST(RealTfliteShape, SparseToDenseInt64ShapeAtInvoke) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(sparseToDense<int64_t, int64_t>(fb::TensorType_INT64, fb::TensorType_INT64, {2, 3}, {0, 1, 2, 1, 0, 0},
                                                       {2, 2, 3}, {int64_t{1} << 40, -5}, 3, false),
                       {values(std::vector<int64_t>{2, 2, 3})});
}

TEST(RealTfliteShape, SparseToDenseInt8) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(sparseToDense<int8_t, int32_t>(fb::TensorType_INT8, fb::TensorType_INT32, {2}, {1, 3}, {4}, {-7, 100}, 1, true),
                       {});
}

TEST(RealTfliteShape, SparseToDenseUint8) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(sparseToDense<uint8_t, int64_t>(fb::TensorType_UINT8, fb::TensorType_INT64, {2, 1}, {2, 0}, {3}, {200, 9}, 4, true),
                       {});
}

// ---- DYNAMIC_UPDATE_SLICE ----

template <typename I>
GraphBuilder dynamicUpdateSlice(fb::TensorType type, std::vector<int32_t> shape, std::vector<int32_t> updateShape,
                                fb::TensorType indexType) {
    GraphBuilder g;
    const int32_t operand = g.tensor(shape, type);
    const int32_t update = g.tensor(updateShape, type);
    const int32_t start = g.tensor({static_cast<int32_t>(shape.size())}, indexType);
    const int32_t out = g.tensor(shape, type);
    g.op(fb::BuiltinOperator_DYNAMIC_UPDATE_SLICE, {operand, update, start}, {out});
    g.inputs = {operand, update, start};
    g.outputs = {out};
    return g;
}

TEST(RealTfliteShape, DynamicUpdateSliceFloatClamped) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(dynamicUpdateSlice<int32_t>(fb::TensorType_FLOAT32, {4, 5}, {2, 3}, fb::TensorType_INT32),
                       {rampBytes<float>(20, -1, 1), rampBytes<float>(6, 10, 20), values(std::vector<int32_t>{3, -1})});
}

TEST(RealTfliteShape, DynamicUpdateSliceInt8Int64Start) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(dynamicUpdateSlice<int64_t>(fb::TensorType_INT8, {2, 3, 4}, {1, 2, 2}, fb::TensorType_INT64),
                       {rampBytes<int8_t>(24, -100, 100), rampBytes<int8_t>(4, 120, 127), values(std::vector<int64_t>{1, 1, 1})});
}

TEST(RealTfliteShape, DynamicUpdateSliceInt32Whole) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(dynamicUpdateSlice<int32_t>(fb::TensorType_INT32, {3}, {3}, fb::TensorType_INT32),
                       {rampBytes<int32_t>(3, -5, 5), rampBytes<int32_t>(3, 50, 60), values(std::vector<int32_t>{2})});
}

TEST(RealTfliteShape, DynamicUpdateSliceBool) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(dynamicUpdateSlice<int32_t>(fb::TensorType_BOOL, {2, 3}, {1, 2}, fb::TensorType_INT32),
                       {values(std::vector<uint8_t>{0, 0, 0, 0, 0, 0}), values(std::vector<uint8_t>{1, 1}),
                        values(std::vector<int32_t>{1, 5})});
}

TEST(RealTfliteShape, DynamicUpdateSliceInt64) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(dynamicUpdateSlice<int32_t>(fb::TensorType_INT64, {3, 2}, {2, 1}, fb::TensorType_INT32),
                       {rampBytes<int64_t>(6, -1e13, 1e13), rampBytes<int64_t>(2, 7, 8), values(std::vector<int32_t>{0, 1})});
}

// ---- NON_MAX_SUPPRESSION_V4, V5 ----

GraphBuilder nonMaxSuppression(bool soft, int32_t boxCount, int32_t limit, bool constantLimit, float iou, float scoreThreshold,
                               float sigma) {
    GraphBuilder g;
    const int32_t boxes = g.tensor({boxCount, 4}, fb::TensorType_FLOAT32);
    const int32_t scores = g.tensor({boxCount}, fb::TensorType_FLOAT32);
    const int32_t size = g.tensor({}, fb::TensorType_INT32, constantLimit ? values(std::vector<int32_t>{limit}) : std::vector<uint8_t>{});
    const int32_t iouTensor = g.tensor({}, fb::TensorType_FLOAT32, values(std::vector<float>{iou}));
    const int32_t threshold = g.tensor({}, fb::TensorType_FLOAT32, values(std::vector<float>{scoreThreshold}));
    const int32_t declared = constantLimit ? std::max(limit, 0) : 1;
    const int32_t indices = g.tensor({declared}, fb::TensorType_INT32);
    const int32_t count = g.tensor({}, fb::TensorType_INT32);
    std::vector<int32_t> inputs = {boxes, scores, size, iouTensor, threshold};
    std::vector<int32_t> outputs = {indices, count};
    if (soft) {
        inputs.push_back(g.tensor({}, fb::TensorType_FLOAT32, values(std::vector<float>{sigma})));
        outputs.insert(outputs.begin() + 1, g.tensor({declared}, fb::TensorType_FLOAT32));
    }
    g.op(soft ? fb::BuiltinOperator_NON_MAX_SUPPRESSION_V5 : fb::BuiltinOperator_NON_MAX_SUPPRESSION_V4, inputs, outputs);
    g.inputs = constantLimit ? std::vector<int32_t>{boxes, scores} : std::vector<int32_t>{boxes, scores, size};
    g.outputs = outputs;
    return g;
}

// Eight boxes in two clusters, some overlapping, some degenerate, two tied scores.
std::vector<std::vector<uint8_t>> nmsInputs() {
    return {values(std::vector<float>{0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, -0.1f, 1, 0.9f, 0, 10, 1, 11, 1, 10.1f, 0, 11.1f,
                                      0, 10.5f, 1, 11.5f, 2, 2, 2, 3, 5, 5, 4, 4}),
            values(std::vector<float>{0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f, 0.75f, 0.4f})};
}

TEST(RealTfliteShape, NonMaxSuppressionV4) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(nonMaxSuppression(false, 8, 6, true, 0.5f, 0.35f, 0), nmsInputs());
}

TEST(RealTfliteShape, NonMaxSuppressionV4SizeAtInvoke) {
    NNEMU_REQUIRE_REAL_TFLITE();
    std::vector<std::vector<uint8_t>> inputs = nmsInputs();
    inputs.push_back(values(std::vector<int32_t>{3}));
    expectSameAsTflite(nonMaxSuppression(false, 8, 0, false, 0.4f, 0.0f, 0), inputs);
}

TEST(RealTfliteShape, NonMaxSuppressionV5Soft) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(nonMaxSuppression(true, 8, 8, true, 0.8f, 0.2f, 0.5f), nmsInputs());
}

TEST(RealTfliteShape, NonMaxSuppressionV5Hard) {
    NNEMU_REQUIRE_REAL_TFLITE();
    expectSameAsTflite(nonMaxSuppression(true, 8, 5, true, 0.3f, 0.1f, 0.0f), nmsInputs());
}

// ---- outputs sized at invoke, read by another CPU kernel ----

TEST(RealTfliteShape, WhereThenGatherNd) {
    NNEMU_REQUIRE_REAL_TFLITE();
    GraphBuilder g;
    const int32_t condition = g.tensor({3, 4}, fb::TensorType_BOOL);
    const int32_t coordinates = g.tensor({1, 2}, fb::TensorType_INT64);
    const int32_t params = g.tensor({3, 4}, fb::TensorType_FLOAT32, rampBytes<float>(12, -6, 6));
    const int32_t out = g.tensor({1}, fb::TensorType_FLOAT32);
    g.op(fb::BuiltinOperator_WHERE, {condition}, {coordinates});
    g.op(fb::BuiltinOperator_GATHER_ND, {params, coordinates}, {out});
    g.inputs = {condition};
    g.outputs = {out};
    expectSameAsTflite(g, {values(std::vector<uint8_t>{0, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0, 0})});
}

TEST(RealTfliteShape, RangeThenCumsum) {
    NNEMU_REQUIRE_REAL_TFLITE();
    GraphBuilder g;
    const int32_t start = g.tensor({}, fb::TensorType_INT32), limit = g.tensor({}, fb::TensorType_INT32);
    const int32_t delta = g.tensor({}, fb::TensorType_INT32, values(std::vector<int32_t>{3}));
    const int32_t sequence = g.tensor({1}, fb::TensorType_INT32);
    const int32_t axis = g.tensor({}, fb::TensorType_INT32, values(std::vector<int32_t>{0}));
    const int32_t out = g.tensor({1}, fb::TensorType_INT32);
    g.op(fb::BuiltinOperator_RANGE, {start, limit, delta}, {sequence});
    g.op(fb::BuiltinOperator_CUMSUM, {sequence, axis}, {out}, fb::BuiltinOptions_CumsumOptions,
         [](auto& b) { return fb::CreateCumsumOptions(b, false, false).Union(); });
    g.inputs = {start, limit};
    g.outputs = {sequence, out};
    expectSameAsTflite(g, {values(std::vector<int32_t>{-4}), values(std::vector<int32_t>{25})});
}

// ---- malformed nodes: a clear error, never a crash (no TFLite needed) ----

std::string createError(const GraphBuilder& g) {
    const Result<std::unique_ptr<Model>> model = Model::fromBuffer(g.buildBytes());
    if (!model) return model.message();
    return Interpreter::create(**model, DelegateOptions{}).message();
}

std::string invokeError(const GraphBuilder& g, const std::vector<std::vector<uint8_t>>& inputs) {
    const Result<std::unique_ptr<Model>> model = Model::fromBuffer(g.buildBytes());
    if (!model) return "load: " + model.message();
    Result<std::unique_ptr<Interpreter>> interpreter = Interpreter::create(**model, DelegateOptions{});
    if (!interpreter) return "create: " + interpreter.message();
    for (size_t i = 0; i < inputs.size(); ++i) std::memcpy((*interpreter)->inputData(i), inputs[i].data(), inputs[i].size());
    return (*interpreter)->invoke().message();
}

TEST(ShapeKernelErrors, OneHotAxisOutOfRange) {
    EXPECT_NE(createError(oneHot<float>(fb::TensorType_INT32, {2}, fb::TensorType_FLOAT32, 1, 0, 3, 2, true)).find("axis 2"),
              std::string::npos);
}

TEST(ShapeKernelErrors, BroadcastToIncompatible) {
    EXPECT_NE(createError(broadcastTo({3}, fb::TensorType_FLOAT32, {2, 4}, true)).find("broadcastable"), std::string::npos);
    EXPECT_NE(invokeError(broadcastTo({3}, fb::TensorType_FLOAT32, {2, 4}, false),
                          {rampBytes<float>(3, 0, 1), values(std::vector<int32_t>{2, 4})})
                      .find("broadcastable"),
              std::string::npos);
}

TEST(ShapeKernelErrors, RangeZeroOrWrongWayDelta) {
    const GraphBuilder g = range<int32_t>(fb::TensorType_INT32, 0, 0, 0, false, 1);
    const auto in = [](int32_t v) { return values(std::vector<int32_t>{v}); };
    EXPECT_NE(invokeError(g, {in(0), in(5), in(0)}).find("delta is 0"), std::string::npos);
    EXPECT_NE(invokeError(g, {in(0), in(5), in(-1)}).find("does not lead"), std::string::npos);
    EXPECT_NE(invokeError(g, {in(INT32_MIN), in(INT32_MAX), in(1)}), "");   // 2^32 elements: refused
}

TEST(ShapeKernelErrors, UniqueNeedsOneDimension) {
    GraphBuilder g;
    const int32_t in = g.tensor({2, 2}, fb::TensorType_INT32);
    const int32_t out = g.tensor({1}, fb::TensorType_INT32), index = g.tensor({2, 2}, fb::TensorType_INT32);
    g.op(fb::BuiltinOperator_UNIQUE, {in}, {out, index}, fb::BuiltinOptions_UniqueOptions,
         [](auto& b) { return fb::CreateUniqueOptions(b, fb::TensorType_INT32).Union(); });
    g.inputs = {in};
    g.outputs = {out, index};
    EXPECT_NE(createError(g).find("1-D"), std::string::npos);
}

TEST(ShapeKernelErrors, CumsumAxisAndTypes) {
    EXPECT_NE(createError(cumsum(fb::TensorType_FLOAT32, 3, false, false)).find("axis 3"), std::string::npos);
    EXPECT_NE(createError(cumsum(fb::TensorType_UINT8, 0, false, false)).find("not supported"), std::string::npos);
}

TEST(ShapeKernelErrors, WhereNeedsInt64Output) {
    GraphBuilder g;
    const int32_t condition = g.tensor({3}, fb::TensorType_BOOL);
    const int32_t out = g.tensor({1, 1}, fb::TensorType_INT32);
    g.op(fb::BuiltinOperator_WHERE, {condition}, {out});
    g.inputs = {condition};
    g.outputs = {out};
    EXPECT_NE(createError(g).find("output of type"), std::string::npos);
}

TEST(ShapeKernelErrors, SegmentIdsOutOfOrder) {
    const GraphBuilder g = segmentSum(fb::TensorType_FLOAT32, {0, 0, 0}, false, 1);
    EXPECT_NE(invokeError(g, {rampBytes<float>(6, 0, 1), values(std::vector<int32_t>{0, 2, 2})}).find("grow by 0 or 1"),
              std::string::npos);
    EXPECT_NE(createError(unsortedSegment(fb::BuiltinOperator_UNSORTED_SEGMENT_MAX, fb::TensorType_FLOAT32, {0, 3}, 3, true))
                      .find("not below num_segments"),
              std::string::npos);
}

TEST(ShapeKernelErrors, ScatterAndSparseIndicesOutOfRange) {
    EXPECT_NE(invokeError(scatterNd(fb::TensorType_FLOAT32, {1, 1}, {5}, {1, 3}, {5, 3}, true), {rampBytes<float>(3, 0, 1)})
                      .find("out of bounds"),
              std::string::npos);
    EXPECT_NE(invokeError(sparseToDense<float, int32_t>(fb::TensorType_FLOAT32, fb::TensorType_INT32, {1, 2}, {3, 0}, {3, 4},
                                                        {1.f}, 0.f, true),
                          {})
                      .find("out of range"),
              std::string::npos);
}

TEST(ShapeKernelErrors, NmsNegativeSizeAndSameDimensions) {
    EXPECT_NE(createError(nonMaxSuppression(false, 8, -1, true, 0.5f, 0.f, 0)).find("negative"), std::string::npos);
    EXPECT_NE(createError(reverseSequence<int32_t>({2, 3}, fb::TensorType_FLOAT32, fb::TensorType_INT32, {1, 1}, 0, 0))
                      .find("different dimensions"),
              std::string::npos);
}

}  // namespace
}  // namespace nnemu::tflite::test
