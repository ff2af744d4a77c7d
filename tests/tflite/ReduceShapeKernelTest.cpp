// SUM (quantized and int32: NNAPI's REDUCE_SUM is float only, so the runtime refuses the node
// and the tools' CPU kernel takes it), SHAPE and UNPACK, against direct computations.
#include <cmath>

#include "CpuKernelHarness.h"

namespace nnemu::tflite::test {
namespace {

using GB = GraphBuilder;

// Sums a [2,3,4] tensor over axis 1 (keep_dims as given).
template <typename T>
std::unique_ptr<Model> sumModel(fb::TensorType type, bool keepDims, std::vector<float> scales, std::vector<int64_t> zeros) {
    GB g;
    const auto q = [&](size_t i) { return scales.empty() ? std::vector<float>{} : std::vector<float>{scales[i]}; };
    const auto z = [&](size_t i) { return zeros.empty() ? std::vector<int64_t>{} : std::vector<int64_t>{zeros[i]}; };
    const int32_t in = g.tensor({2, 3, 4}, type, {}, q(0), z(0));
    const int32_t axes = g.tensor({1}, fb::TensorType_INT32, GB::bytes(std::vector<int32_t>{-2}));
    const int32_t out = g.tensor(keepDims ? std::vector<int32_t>{2, 1, 4} : std::vector<int32_t>{2, 4}, type, {}, q(1), z(1));
    g.op(fb::BuiltinOperator_SUM, {in, axes}, {out}, fb::BuiltinOptions_ReducerOptions,
         [keepDims](flatbuffers::FlatBufferBuilder& b) { return fb::CreateReducerOptions(b, keepDims).Union(); });
    g.inputs = {in};
    g.outputs = {out};
    return g.build();
}

TEST(SumKernel, QuantizedAndIntegerSums) {
    const std::vector<int8_t> x = randomValues<int8_t>(24, -128, 127, 31);
    std::unique_ptr<Model> model = sumModel<int8_t>(fb::TensorType_INT8, true, {0.02f, 0.05f}, {-5, 10});
    ASSERT_NE(model, nullptr);
    std::vector<int8_t> want;
    for (int i = 0; i < 2; ++i) {
        for (int k = 0; k < 4; ++k) {
            double real = 0;
            for (int j = 0; j < 3; ++j) real += (x[(i * 3 + j) * 4 + k] + 5) * 0.02;
            want.push_back(static_cast<int8_t>(std::clamp(std::lround(real / 0.05) + 10, -128L, 127L)));
        }
    }
    expectOutputs(*model, {GB::bytes(x)}, {GB::bytes(want)}, true, 1);

    const std::vector<int32_t> y = randomValues<int32_t>(24, -1000, 1000, 32);
    std::unique_ptr<Model> ints = sumModel<int32_t>(fb::TensorType_INT32, false, {}, {});
    ASSERT_NE(ints, nullptr);
    std::vector<int32_t> sums;
    for (int i = 0; i < 2; ++i) {
        for (int k = 0; k < 4; ++k) sums.push_back(y[i * 12 + k] + y[i * 12 + 4 + k] + y[i * 12 + 8 + k]);
    }
    expectOutputs(*ints, {GB::bytes(y)}, {GB::bytes(sums)});
}

// Integer sums wrap around like TFLite's integer accumulators (two's complement), int64 exactly:
// no conversion through a double that could not hold them.
TEST(SumKernel, IntegerSumsWrapAround) {
    std::vector<int32_t> y(24, 0);
    std::vector<int64_t> z(24, 0);
    for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 3; ++j) {
            y[(i * 3 + j) * 4] = INT32_MAX;      // 3 x INT32_MAX wraps to INT32_MAX - 2
            y[(i * 3 + j) * 4 + 1] = 1 << 30;    // 3 x 2^30 wraps to -2^30
            z[(i * 3 + j) * 4] = INT64_MAX;      // wraps to INT64_MAX - 2
            z[(i * 3 + j) * 4 + 1] = (int64_t{1} << 53) + 1;   // exact: a double would lose the +1s
        }
    }
    const std::vector<int32_t> want32 = {INT32_MAX - 2, -(1 << 30), 0, 0, INT32_MAX - 2, -(1 << 30), 0, 0};
    const int64_t big = 3 * ((int64_t{1} << 53) + 1);
    const std::vector<int64_t> want64 = {INT64_MAX - 2, big, 0, 0, INT64_MAX - 2, big, 0, 0};
    std::unique_ptr<Model> ints = sumModel<int32_t>(fb::TensorType_INT32, false, {}, {});
    ASSERT_NE(ints, nullptr);
    expectOutputs(*ints, {GB::bytes(y)}, {GB::bytes(want32)});
    std::unique_ptr<Model> longs = sumModel<int64_t>(fb::TensorType_INT64, false, {}, {});
    ASSERT_NE(longs, nullptr);
    expectOutputs(*longs, {GB::bytes(z)}, {GB::bytes(want64)});
}

TEST(ShapeKernel, Int32AndInt64) {
    for (fb::TensorType type : {fb::TensorType_INT32, fb::TensorType_INT64}) {
        GB g;
        const int32_t in = g.tensor({2, 5, 3}, fb::TensorType_FLOAT32);
        const int32_t out = g.tensor({3}, type);
        g.op(fb::BuiltinOperator_SHAPE, {in}, {out}, fb::BuiltinOptions_ShapeOptions,
             [type](flatbuffers::FlatBufferBuilder& b) { return fb::CreateShapeOptions(b, type).Union(); });
        g.inputs = {in};
        g.outputs = {out};
        std::unique_ptr<Model> model = g.build();
        ASSERT_NE(model, nullptr);
        const std::vector<uint8_t> want = type == fb::TensorType_INT64 ? GB::bytes(std::vector<int64_t>{2, 5, 3})
                                                                       : GB::bytes(std::vector<int32_t>{2, 5, 3});
        expectOutputs(*model, {std::vector<uint8_t>(30 * 4)}, {want});
    }
}

TEST(UnpackKernel, EveryAxis) {
    const std::vector<float> x = randomValues<float>(24, -1, 1, 41);
    const std::vector<int32_t> dims = {2, 3, 4};
    for (int axis : {0, 1, -1}) {
        SCOPED_TRACE(axis);
        const int a = axis < 0 ? axis + 3 : axis;
        std::vector<int32_t> part = dims;
        part.erase(part.begin() + a);
        GB g;
        const int32_t in = g.tensor(dims, fb::TensorType_FLOAT32);
        std::vector<int32_t> outs;
        for (int p = 0; p < dims[a]; ++p) outs.push_back(g.tensor(part, fb::TensorType_FLOAT32));
        g.op(fb::BuiltinOperator_UNPACK, {in}, outs, fb::BuiltinOptions_UnpackOptions,
             [&](flatbuffers::FlatBufferBuilder& b) { return fb::CreateUnpackOptions(b, dims[a], axis).Union(); });
        g.inputs = {in};
        g.outputs = outs;
        std::unique_ptr<Model> model = g.build();
        ASSERT_NE(model, nullptr);
        std::vector<std::vector<uint8_t>> want;
        for (int p = 0; p < dims[a]; ++p) {
            std::vector<float> values;
            for (int i = 0; i < 2; ++i) {
                for (int j = 0; j < 3; ++j) {
                    for (int k = 0; k < 4; ++k) {
                        if ((a == 0 ? i : a == 1 ? j : k) == p) values.push_back(x[(i * 3 + j) * 4 + k]);
                    }
                }
            }
            want.push_back(GB::bytes(values));
        }
        // Float UNPACK is lowered (RESHAPE + SPLIT) but along the last axis, which the kernel takes.
        expectOutputs(*model, {GB::bytes(x)}, want, /*expectCpuKernel=*/axis == -1);
    }
}

}  // namespace
}  // namespace nnemu::tflite::test
