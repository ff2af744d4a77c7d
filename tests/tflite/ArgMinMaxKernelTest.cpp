// ARG_MAX / ARG_MIN on the tools' CPU kernel (int64 outputs have no NNAPI type), checked against
// a direct computation along the axis.
#include "CpuKernelHarness.h"

namespace nnemu::tflite::test {
namespace {

using GB = GraphBuilder;

// Index of the extreme value along `axis` of a [d0,d1,d2] tensor, first on ties.
template <typename T>
std::vector<int64_t> expectedArg(const std::vector<T>& x, const std::vector<int32_t>& dims, int axis, bool max) {
    std::vector<int64_t> out;
    const int a = dims[0], b = dims[1], c = dims[2];
    const auto at = [&](int i, int j, int k) { return x[(i * b + j) * c + k]; };
    const int n = dims[axis];
    for (int i = 0; i < (axis == 0 ? 1 : a); ++i) {
        for (int j = 0; j < (axis == 1 ? 1 : b); ++j) {
            for (int k = 0; k < (axis == 2 ? 1 : c); ++k) {
                int best = 0;
                for (int m = 1; m < n; ++m) {
                    const T v = at(axis == 0 ? m : i, axis == 1 ? m : j, axis == 2 ? m : k);
                    const T w = at(axis == 0 ? best : i, axis == 1 ? best : j, axis == 2 ? best : k);
                    if (max ? v > w : v < w) best = m;
                }
                out.push_back(best);
            }
        }
    }
    return out;
}

template <typename T>
void checkArg(fb::BuiltinOperator code, fb::TensorType type, fb::TensorType outType, int axisValue,
              std::vector<T> x, std::vector<float> scales = {}) {
    const std::vector<int32_t> dims = {2, 3, 4};
    const int axis = axisValue < 0 ? axisValue + 3 : axisValue;
    std::vector<int32_t> outDims = dims;
    outDims.erase(outDims.begin() + axis);
    GB g;
    const int32_t in = g.tensor(dims, type, {}, scales, scales.empty() ? std::vector<int64_t>{} : std::vector<int64_t>{3});
    const int32_t axisTensor = g.tensor({1}, fb::TensorType_INT32, GB::bytes(std::vector<int32_t>{axisValue}));
    const int32_t out = g.tensor(outDims, outType);
    const bool isMax = code == fb::BuiltinOperator_ARG_MAX;
    if (isMax) {
        g.op(code, {in, axisTensor}, {out}, fb::BuiltinOptions_ArgMaxOptions,
             [outType](flatbuffers::FlatBufferBuilder& b) { return fb::CreateArgMaxOptions(b, outType).Union(); });
    } else {
        g.op(code, {in, axisTensor}, {out}, fb::BuiltinOptions_ArgMinOptions,
             [outType](flatbuffers::FlatBufferBuilder& b) { return fb::CreateArgMinOptions(b, outType).Union(); });
    }
    g.inputs = {in};
    g.outputs = {out};
    std::unique_ptr<Model> model = g.build();
    ASSERT_NE(model, nullptr);
    const std::vector<int64_t> want = expectedArg(x, dims, axis, isMax);
    std::vector<uint8_t> expected;
    if (outType == fb::TensorType_INT64) {
        expected = GB::bytes(want);
    } else {
        expected = GB::bytes(std::vector<int32_t>(want.begin(), want.end()));
    }
    expectOutputs(*model, {GB::bytes(x)}, {expected}, outType == fb::TensorType_INT64);
}

TEST(ArgMinMaxKernel, FloatToInt64EveryAxis) {
    std::vector<float> x = randomValues<float>(24, -5, 5, 1);
    x[5] = x[6];   // a tie: the first wins
    for (int axis : {0, 1, 2, -1}) {
        SCOPED_TRACE(axis);
        checkArg(fb::BuiltinOperator_ARG_MAX, fb::TensorType_FLOAT32, fb::TensorType_INT64, axis, x);
        checkArg(fb::BuiltinOperator_ARG_MIN, fb::TensorType_FLOAT32, fb::TensorType_INT64, axis, x);
    }
}

TEST(ArgMinMaxKernel, QuantizedAndIntegerInputs) {
    const std::vector<uint8_t> u = randomValues<uint8_t>(24, 0, 255, 2);
    const std::vector<int8_t> s = randomValues<int8_t>(24, -128, 127, 3);
    const std::vector<int32_t> i = randomValues<int32_t>(24, -1000, 1000, 4);
    checkArg(fb::BuiltinOperator_ARG_MAX, fb::TensorType_UINT8, fb::TensorType_INT64, 2, u, {0.5f});
    checkArg(fb::BuiltinOperator_ARG_MIN, fb::TensorType_INT8, fb::TensorType_INT64, 1, s, {0.25f});
    checkArg(fb::BuiltinOperator_ARG_MAX, fb::TensorType_INT8, fb::TensorType_INT32, 0, s, {0.25f});
    checkArg(fb::BuiltinOperator_ARG_MAX, fb::TensorType_INT32, fb::TensorType_INT64, 1, i);
}

TEST(ArgMinMaxKernel, MalformedNodesAreRefusedWithTheNodeNamed) {
    GB g;
    const int32_t in = g.tensor({2, 3}, fb::TensorType_FLOAT32);
    const int32_t axis = g.tensor({1}, fb::TensorType_INT32, GB::bytes(std::vector<int32_t>{2}));
    const int32_t out = g.tensor({2}, fb::TensorType_INT64);
    g.op(fb::BuiltinOperator_ARG_MAX, {in, axis}, {out});
    g.inputs = {in};
    g.outputs = {out};
    std::unique_ptr<Model> model = g.build();
    ASSERT_NE(model, nullptr);
    const std::string error = createError(*model);
    EXPECT_NE(error.find("operator ARG_MAX at node 0"), std::string::npos) << error;
    EXPECT_NE(error.find("axis 2 out of range for rank 2"), std::string::npos) << error;
}

}  // namespace
}  // namespace nnemu::tflite::test
