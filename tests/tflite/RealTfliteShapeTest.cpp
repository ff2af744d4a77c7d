// Shape and indexing builtins on the tools' CPU kernels against real TensorFlow Lite 2.21
// (RealTflite.h): BROADCAST_TO, BROADCAST_ARGS, CUMSUM, ONE_HOT, RANGE, WHERE, UNIQUE, one test per
// builtin and type. Outputs TFLite sizes at invoke (dynamic tensors) must also have TFLite's
// shape, in every interpreter mode, including when another CPU kernel reads them. Skipped without
// ../shared/tflite; the malformed-node tests at the end run everywhere.
#include <regex>

#include "RealTflite.h"

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
    std::string error;
    std::unique_ptr<Model> model = Model::fromBuffer(bytes, &error);
    ASSERT_NE(model, nullptr) << error;
    for (const RunMode& mode : kernelRunModes()) {
        SCOPED_TRACE(mode.name);
        std::unique_ptr<Interpreter> interpreter = Interpreter::create(*model, mode.options, &error);
        ASSERT_NE(interpreter, nullptr) << error;
        for (size_t i = 0; i < inputs.size(); ++i) {
            if (!inputs[i].empty()) std::memcpy(interpreter->inputData(i), inputs[i].data(), inputs[i].size());
        }
        // Twice: the second invoke starts from the shapes the first one gave.
        for (int run = 0; run < 2; ++run) {
            ASSERT_TRUE(interpreter->invoke(&error)) << error;
            for (size_t o = 0; o < shapes.size(); ++o) {
                EXPECT_EQ(interpreter->outputTensor(o).shape, shapes[o]) << "output " << o;
                ASSERT_EQ(interpreter->outputTensor(o).byteSize(), real.outputs[o].size());
                expectSameBytes(interpreter->outputTensor(o), interpreter->outputData(o), real.outputs[o], 0);
            }
        }
    }
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
    g.inputs = constantShape ? std::vector<int32_t>{in} : std::vector<int32_t>{in, shape};
    g.outputs = {out};
    return g;
}

// TFLite 2.21 registers BROADCAST_TO from version 2 and GraphBuilder writes version 1 (tflite_run:
// "Didn't find op for builtin opcode 'BROADCAST_TO' version '1'"): checked here against the values
// TFLite's semantics give, shapes included, in every interpreter mode.
void expectBroadcast(const GraphBuilder& g, const std::vector<std::vector<uint8_t>>& inputs, std::vector<int32_t> shape,
                     const std::vector<uint8_t>& want) {
    std::string error;
    std::unique_ptr<Model> model = Model::fromBuffer(g.buildBytes(), &error);
    ASSERT_NE(model, nullptr) << error;
    for (const RunMode& mode : kernelRunModes()) {
        SCOPED_TRACE(mode.name);
        std::unique_ptr<Interpreter> interpreter = Interpreter::create(*model, mode.options, &error);
        ASSERT_NE(interpreter, nullptr) << error;
        for (size_t i = 0; i < inputs.size(); ++i) std::memcpy(interpreter->inputData(i), inputs[i].data(), inputs[i].size());
        ASSERT_TRUE(interpreter->invoke(&error)) << error;
        EXPECT_EQ(interpreter->outputTensor(0).shape, shape);
        ASSERT_EQ(interpreter->outputTensor(0).byteSize(), want.size());
        EXPECT_EQ(std::vector<uint8_t>(interpreter->outputData(0), interpreter->outputData(0) + want.size()), want);
    }
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
    std::string error;
    std::unique_ptr<Model> model = Model::fromBuffer(g.buildBytes(), &error);
    if (model == nullptr) return error;
    std::unique_ptr<Interpreter> interpreter = Interpreter::create(*model, DelegateOptions{}, &error);
    return interpreter == nullptr ? error : "";
}

std::string invokeError(const GraphBuilder& g, const std::vector<std::vector<uint8_t>>& inputs) {
    std::string error;
    std::unique_ptr<Model> model = Model::fromBuffer(g.buildBytes(), &error);
    if (model == nullptr) return "load: " + error;
    std::unique_ptr<Interpreter> interpreter = Interpreter::create(*model, DelegateOptions{}, &error);
    if (interpreter == nullptr) return "create: " + error;
    for (size_t i = 0; i < inputs.size(); ++i) std::memcpy(interpreter->inputData(i), inputs[i].data(), inputs[i].size());
    return interpreter->invoke(&error) ? "" : error;
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

}  // namespace
}  // namespace nnemu::tflite::test
