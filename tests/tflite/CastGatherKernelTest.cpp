// CAST between TFLite's types and GATHER_ND on the tools' CPU kernels, against direct C++.
#include "CpuKernelHarness.h"

namespace nnemu::tflite::test {
namespace {

using GB = GraphBuilder;

template <typename From, typename To>
void checkCast(fb::TensorType from, fb::TensorType to, const std::vector<From>& x, const std::vector<To>& want) {
    GB g;
    const int32_t in = g.tensor({static_cast<int32_t>(x.size())}, from);
    const int32_t out = g.tensor({static_cast<int32_t>(x.size())}, to);
    g.op(fb::BuiltinOperator_CAST, {in}, {out});
    g.inputs = {in};
    g.outputs = {out};
    std::unique_ptr<Model> model = g.build();
    ASSERT_NE(model, nullptr);
    expectOutputs(*model, {GB::bytes(x)}, {GB::bytes(want)}, false);
}

TEST(CastKernel, BetweenTypes) {
    const std::vector<int64_t> big = {-3, 0, 7, 1LL << 40, -(1LL << 33)};
    std::vector<int32_t> narrowed;
    for (int64_t v : big) narrowed.push_back(static_cast<int32_t>(static_cast<uint64_t>(v)));
    checkCast<int64_t, int32_t>(fb::TensorType_INT64, fb::TensorType_INT32, big, narrowed);
    checkCast<int32_t, int64_t>(fb::TensorType_INT32, fb::TensorType_INT64, {-5, 0, 9}, {-5, 0, 9});
    checkCast<float, int64_t>(fb::TensorType_FLOAT32, fb::TensorType_INT64, {-2.75f, 0.5f, 3.9f}, {-2, 0, 3});
    checkCast<int64_t, float>(fb::TensorType_INT64, fb::TensorType_FLOAT32, {-2, 0, 1 << 20}, {-2.0f, 0.0f, 1048576.0f});
    checkCast<int8_t, float>(fb::TensorType_INT8, fb::TensorType_FLOAT32, {-128, -1, 0, 127}, {-128.0f, -1.0f, 0.0f, 127.0f});
    checkCast<float, uint8_t>(fb::TensorType_FLOAT32, fb::TensorType_BOOL, {0.0f, -0.5f, 2.0f}, {0, 1, 1});
    checkCast<uint8_t, int32_t>(fb::TensorType_BOOL, fb::TensorType_INT32, {0, 1, 1}, {0, 1, 1});
    checkCast<int16_t, int32_t>(fb::TensorType_INT16, fb::TensorType_INT32, {-300, 0, 32767}, {-300, 0, 32767});
    checkCast<int32_t, int8_t>(fb::TensorType_INT32, fb::TensorType_INT8, {-1, 5, 127}, {-1, 5, 127});
}

// Floats no int64 can hold (and NaN) become INT64_MIN, as x86's truncating conversion gives
// TFLite's static_cast there; within range, truncation toward zero.
TEST(CastKernel, FloatsOutOfTheIntegerRange) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const int64_t indefinite = std::numeric_limits<int64_t>::min();
    checkCast<float, int64_t>(fb::TensorType_FLOAT32, fb::TensorType_INT64, {3e19f, -3e19f, nan, 1e10f, -7.5f},
                              {indefinite, indefinite, indefinite, 10000000000, -7});
}

// params [3,4,2] float, indices [..., depth].
TEST(GatherNdKernel, SlicesAndElements) {
    const std::vector<float> params = randomValues<float>(24, -9, 9, 11);
    const auto at = [&](int i, int j, int k) { return params[(i * 4 + j) * 2 + k]; };
    for (fb::TensorType indexType : {fb::TensorType_INT32, fb::TensorType_INT64}) {
        // depth 2: output [2,2] (two rows of 2)
        GB g;
        const int32_t p = g.tensor({3, 4, 2}, fb::TensorType_FLOAT32);
        const int32_t idx = g.tensor({2, 2}, indexType);
        const int32_t out = g.tensor({2, 2}, fb::TensorType_FLOAT32);
        g.op(fb::BuiltinOperator_GATHER_ND, {p, idx}, {out});
        g.inputs = {p, idx};
        g.outputs = {out};
        std::unique_ptr<Model> model = g.build();
        ASSERT_NE(model, nullptr);
        const std::vector<int64_t> pairs = {2, 3, 0, 1};
        const std::vector<uint8_t> indexBytes =
                indexType == fb::TensorType_INT64 ? GB::bytes(pairs) : GB::bytes(std::vector<int32_t>(pairs.begin(), pairs.end()));
        const std::vector<float> want = {at(2, 3, 0), at(2, 3, 1), at(0, 1, 0), at(0, 1, 1)};
        expectOutputs(*model, {GB::bytes(params), indexBytes}, {GB::bytes(want)});
    }
    // depth 3 on uint8: single elements, output [3]
    GB g;
    const int32_t p = g.tensor({3, 4, 2}, fb::TensorType_UINT8, {}, {0.5f});
    const int32_t idx = g.tensor({3, 3}, fb::TensorType_INT32, GB::bytes(std::vector<int32_t>{0, 0, 1, 2, 3, 0, 1, 1, 1}));
    const int32_t out = g.tensor({3}, fb::TensorType_UINT8, {}, {0.5f});
    g.op(fb::BuiltinOperator_GATHER_ND, {p, idx}, {out});
    g.inputs = {p};
    g.outputs = {out};
    std::unique_ptr<Model> model = g.build();
    ASSERT_NE(model, nullptr);
    std::vector<uint8_t> bytes(24);
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 7);
    expectOutputs(*model, {bytes}, {{bytes[1], bytes[(2 * 4 + 3) * 2], bytes[(1 * 4 + 1) * 2 + 1]}});
}

TEST(GatherNdKernel, IndexOutOfRangeFailsTheNode) {
    GB g;
    const int32_t p = g.tensor({3, 2}, fb::TensorType_FLOAT32);
    const int32_t idx = g.tensor({1, 1}, fb::TensorType_INT32);
    const int32_t out = g.tensor({1, 2}, fb::TensorType_FLOAT32);
    g.op(fb::BuiltinOperator_GATHER_ND, {p, idx}, {out});
    g.inputs = {p, idx};
    g.outputs = {out};
    std::unique_ptr<Model> model = g.build();
    ASSERT_NE(model, nullptr);
    std::unique_ptr<Interpreter> interpreter = makeInterpreter(*model, DelegateOptions{});
    ASSERT_NE(interpreter, nullptr);
    const int32_t bad = 3;
    std::memcpy(interpreter->inputData(1), &bad, 4);
    const std::string error = failureOf(interpreter->invoke());
    EXPECT_NE(error.find("operator GATHER_ND at node 0: index 3 out of range"), std::string::npos) << error;
}

}  // namespace
}  // namespace nnemu::tflite::test
