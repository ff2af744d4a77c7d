// FLOOR_DIV, FLOOR_MOD and SQUARED_DIFFERENCE on the tools' CPU kernels, with broadcasting,
// against direct computations (floor semantics written with integer arithmetic on doubles).
#include <cmath>

#include "CpuKernelHarness.h"

namespace nnemu::tflite::test {
namespace {

using GB = GraphBuilder;

std::unique_ptr<Model> binaryModel(fb::BuiltinOperator code, fb::TensorType type, std::vector<int32_t> a,
                                   std::vector<int32_t> b, std::vector<int32_t> out, std::vector<float> scales = {},
                                   std::vector<int64_t> zeros = {}) {
    GB g;
    const auto q = [&](size_t i) { return scales.empty() ? std::vector<float>{} : std::vector<float>{scales[i]}; };
    const auto z = [&](size_t i) { return zeros.empty() ? std::vector<int64_t>{} : std::vector<int64_t>{zeros[i]}; };
    const int32_t x = g.tensor(a, type, {}, q(0), z(0));
    const int32_t y = g.tensor(b, type, {}, q(1), z(1));
    const int32_t o = g.tensor(out, type, {}, q(2), z(2));
    g.op(code, {x, y}, {o});
    g.inputs = {x, y};
    g.outputs = {o};
    return g.build();
}

// a [2,3] op b [3] (b broadcast over rows).
template <typename T, typename F>
void checkBroadcast(fb::BuiltinOperator code, fb::TensorType type, const std::vector<T>& a, const std::vector<T>& b, F f,
                    bool expectCpuKernel = true) {
    std::unique_ptr<Model> model = binaryModel(code, type, {2, 3}, {3}, {2, 3});
    ASSERT_NE(model, nullptr);
    std::vector<T> want;
    for (size_t i = 0; i < a.size(); ++i) want.push_back(f(a[i], b[i % 3]));
    expectOutputs(*model, {GB::bytes(a), GB::bytes(b)}, {GB::bytes(want)}, expectCpuKernel);
}

TEST(BinaryKernel, FloorDivRoundsDown) {
    const auto intFloor = [](int32_t a, int32_t b) { return static_cast<int32_t>(std::floor(double(a) / double(b))); };
    checkBroadcast<int32_t>(fb::BuiltinOperator_FLOOR_DIV, fb::TensorType_INT32, {7, -7, 6, -6, 0, 5}, {2, 2, -4}, intFloor);
    checkBroadcast<int32_t>(fb::BuiltinOperator_FLOOR_DIV, fb::TensorType_INT32, {-1, 1, -9, 9, -8, 8}, {-3, 3, 4}, intFloor);
    checkBroadcast<float>(fb::BuiltinOperator_FLOOR_DIV, fb::TensorType_FLOAT32, {7.5f, -7.5f, 1.f, -0.5f, 3.f, 9.f},
                          {2.f, 2.f, -4.f}, [](float a, float b) { return std::floor(a / b); });
}

TEST(BinaryKernel, FloorModTakesTheDivisorsSign) {
    const auto intMod = [](int32_t a, int32_t b) {
        return static_cast<int32_t>(double(a) - double(b) * std::floor(double(a) / double(b)));
    };
    checkBroadcast<int32_t>(fb::BuiltinOperator_FLOOR_MOD, fb::TensorType_INT32, {7, -7, 6, -6, 0, -5}, {3, 3, -4}, intMod);
    checkBroadcast<int32_t>(fb::BuiltinOperator_FLOOR_MOD, fb::TensorType_INT32, {-1, 1, -9, 9, -8, 8}, {-3, -3, 4}, intMod);
    checkBroadcast<float>(fb::BuiltinOperator_FLOOR_MOD, fb::TensorType_FLOAT32, {7.5f, -7.5f, 1.f, -0.5f, 3.f, 9.f},
                          {2.f, 2.f, -4.f}, [](float a, float b) { return a - b * std::floor(a / b); });
}

TEST(BinaryKernel, IntegerDivisionByZeroFailsTheNode) {
    std::unique_ptr<Model> model = binaryModel(fb::BuiltinOperator_FLOOR_DIV, fb::TensorType_INT32, {2}, {2}, {2});
    ASSERT_NE(model, nullptr);
    std::unique_ptr<Interpreter> interpreter = makeInterpreter(*model, DelegateOptions{});
    ASSERT_NE(interpreter, nullptr);
    const std::string error = failureOf(interpreter->invoke());   // inputs are zeros
    EXPECT_NE(error.find("operator FLOOR_DIV at node 0: integer division by zero"), std::string::npos) << error;
}

TEST(BinaryKernel, SquaredDifferenceFloatAndInt8) {
    const std::vector<float> a = randomValues<float>(6, -4, 4, 21), b = randomValues<float>(3, -4, 4, 22);
    // float32 is lowered (SUB then MUL) as TFLite's delegate lowers it: no CPU kernel node.
    checkBroadcast<float>(fb::BuiltinOperator_SQUARED_DIFFERENCE, fb::TensorType_FLOAT32, a, b,
                          [](float x, float y) { return (x - y) * (x - y); }, false);
    // int8: a scale 0.05 zp 3, b scale 0.04 zp -2, out scale 0.1 zp -128
    std::unique_ptr<Model> model = binaryModel(fb::BuiltinOperator_SQUARED_DIFFERENCE, fb::TensorType_INT8, {2, 3}, {3},
                                               {2, 3}, {0.05f, 0.04f, 0.1f}, {3, -2, -128});
    ASSERT_NE(model, nullptr);
    const std::vector<int8_t> qa = randomValues<int8_t>(6, -100, 100, 23), qb = randomValues<int8_t>(3, -100, 100, 24);
    std::vector<int8_t> want;
    for (size_t i = 0; i < qa.size(); ++i) {
        const double d = (qa[i] - 3) * 0.05 - (qb[i % 3] + 2) * 0.04;
        want.push_back(static_cast<int8_t>(std::clamp(std::lround(d * d / 0.1) - 128, -128L, 127L)));
    }
    expectOutputs(*model, {GB::bytes(qa), GB::bytes(qb)}, {GB::bytes(want)}, false, 1);
}

}  // namespace
}  // namespace nnemu::tflite::test

namespace nnemu::tflite::test {
namespace {

// Scales NNAPI refuses (1e-13, 1e11) but TFLite takes: MUL runs on the tools' CPU kernel.
TEST(ArithmeticKernel, MulWithExtremeButLegalScales) {
    std::unique_ptr<Model> model = binaryModel(fb::BuiltinOperator_MUL, fb::TensorType_UINT8, {2, 3}, {3}, {2, 3},
                                               {1e-13f, 1e11f, 0.05f}, {10, 3, 7});
    ASSERT_NE(model, nullptr);
    const std::vector<uint8_t> a = randomValues<uint8_t>(6, 0, 40, 61), b = randomValues<uint8_t>(3, 0, 40, 62);
    std::vector<uint8_t> want;
    for (size_t i = 0; i < a.size(); ++i) {
        const double real = (a[i] - 10) * 1e-13 * ((b[i % 3] - 3) * 1e11);
        want.push_back(static_cast<uint8_t>(std::clamp(std::lround(real / 0.05) + 7, 0L, 255L)));
    }
    expectOutputs(*model, {a, b}, {want}, true, 1);
}

}  // namespace
}  // namespace nnemu::tflite::test
