// ADD and MUL with quantization scales NNAPI refuses (a scale of 1e-13, far below its 1e-12
// floor) on the tools' CPU kernel, checked against a float computation quantized to the output.
#include <cmath>

#include "CpuKernelHarness.h"

namespace nnemu::tflite::test {
namespace {

using GB = GraphBuilder;

struct Quant {
    float scale;
    int64_t zeroPoint;
};

template <typename T>
std::vector<uint8_t> expectedBytes(const std::vector<double>& real, Quant out, double low) {
    std::vector<T> q;
    for (double v : real) {
        const double clamped = std::max(v, low);
        const double value = std::round(clamped / out.scale) + static_cast<double>(out.zeroPoint);
        q.push_back(static_cast<T>(std::clamp(value, double{std::numeric_limits<T>::min()}, double{std::numeric_limits<T>::max()})));
    }
    return GB::bytes(q);
}

// a [2,3,4] op b [4] (b broadcast along the last axis); both are graph inputs.
template <typename T>
void check(fb::BuiltinOperator code, fb::TensorType type, Quant qa, Quant qb, Quant qo, bool relu, uint32_t seed) {
    const double low = std::numeric_limits<T>::min(), high = std::numeric_limits<T>::max();
    const std::vector<T> a = randomValues<T>(24, low, high, seed), b = randomValues<T>(4, low, high, seed + 1);
    GB g;
    const int32_t ta = g.tensor({2, 3, 4}, type, {}, {qa.scale}, {qa.zeroPoint});
    const int32_t tb = g.tensor({4}, type, {}, {qb.scale}, {qb.zeroPoint});
    const int32_t out = g.tensor({2, 3, 4}, type, {}, {qo.scale}, {qo.zeroPoint});
    const auto activation = relu ? fb::ActivationFunctionType_RELU : fb::ActivationFunctionType_NONE;
    if (code == fb::BuiltinOperator_ADD) {
        g.op(code, {ta, tb}, {out}, fb::BuiltinOptions_AddOptions,
             [activation](flatbuffers::FlatBufferBuilder& f) { return fb::CreateAddOptions(f, activation).Union(); });
    } else {
        g.op(code, {ta, tb}, {out}, fb::BuiltinOptions_MulOptions,
             [activation](flatbuffers::FlatBufferBuilder& f) { return fb::CreateMulOptions(f, activation).Union(); });
    }
    g.inputs = {ta, tb};
    g.outputs = {out};
    std::unique_ptr<Model> model = g.build();
    ASSERT_NE(model, nullptr);
    std::vector<double> real;
    for (size_t i = 0; i < a.size(); ++i) {
        const double x = qa.scale * (static_cast<double>(a[i]) - static_cast<double>(qa.zeroPoint));
        const double y = qb.scale * (static_cast<double>(b[i % 4]) - static_cast<double>(qb.zeroPoint));
        real.push_back(code == fb::BuiltinOperator_ADD ? x + y : x * y);
    }
    const double floor = relu ? 0.0 : -1e300;
    // Fixed-point and float rounding may part at halves: one step of tolerance.
    expectOutputs(*model, {GB::bytes(a), GB::bytes(b)}, {expectedBytes<T>(real, qo, floor)}, true, 1e-6f);
}

TEST(QuantizedArithmeticKernel, MulByATinyScaleBroadcast) {
    check<uint8_t>(fb::BuiltinOperator_MUL, fb::TensorType_UINT8, {0.02f, 128}, {1e-13f, 0}, {5e-13f, 100}, false, 11);
    check<int8_t>(fb::BuiltinOperator_MUL, fb::TensorType_INT8, {0.02f, 3}, {1e-13f, -5}, {5e-13f, 0}, true, 12);
}

TEST(QuantizedArithmeticKernel, AddOfATinyScaleTermKeepsTheOtherInput) {
    check<uint8_t>(fb::BuiltinOperator_ADD, fb::TensorType_UINT8, {0.02f, 128}, {1e-13f, 10}, {0.02f, 128}, false, 13);
    check<int8_t>(fb::BuiltinOperator_ADD, fb::TensorType_INT8, {0.05f, -10}, {1e-13f, 0}, {0.04f, 5}, true, 14);
}

// Zero points the 8-bit type cannot hold (a malformed model; NNAPI refuses them too) and int16
// zero points other than 0 are refused at prepare: the fixed-point steps would leave int32.
TEST(QuantizedArithmeticKernel, ZeroPointsOutsideTheTypeAreRefused) {
    struct Case {
        fb::TensorType type;
        int64_t zeroPoint;
        const char* message;
    };
    for (const Case& c : {Case{fb::TensorType_UINT8, 131325, "zero point outside the type's range"},
                          Case{fb::TensorType_INT8, -129, "zero point outside the type's range"},
                          Case{fb::TensorType_INT16, 3, "int16 zero points must be 0"}}) {
        for (fb::BuiltinOperator code : {fb::BuiltinOperator_ADD, fb::BuiltinOperator_MUL}) {
            GB g;
            const int32_t a = g.tensor({4}, c.type, {}, {0.5f}, {c.zeroPoint});
            const int32_t b = g.tensor({4}, c.type, {}, {0.5f}, {0});
            const int32_t out = g.tensor({4}, c.type, {}, {1.0f}, {0});
            g.op(code, {a, b}, {out});
            g.inputs = {a, b};
            g.outputs = {out};
            std::unique_ptr<Model> model = g.build();
            ASSERT_NE(model, nullptr);
            const std::string error = createError(*model);
            EXPECT_NE(error.find(c.message), std::string::npos) << error;
        }
    }
}

}  // namespace
}  // namespace nnemu::tflite::test
