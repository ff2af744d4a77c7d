// The feature level 30 operations and operand uses through the C API: they are accepted and
// computed (the FL6/FL7 ones: Fl67OperationsApiTest.cpp).
#include <android/NeuralNetworks.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "OperationModelTest.h"

namespace nnemu {
namespace {

class Fl30Operations : public apitest::OperationModelTest {};

TEST_F(Fl30Operations, Int32FloorDivision) {
    const uint32_t a = add(ANEURALNETWORKS_TENSOR_INT32, {4});
    const uint32_t b = constant<int32_t>(ANEURALNETWORKS_TENSOR_INT32, {4}, {2, -2, 0, 3});
    const uint32_t fuse = constant<int32_t>(ANEURALNETWORKS_INT32, {}, {0});
    const uint32_t out = add(ANEURALNETWORKS_TENSOR_INT32, {4});
    ASSERT_EQ(operation(ANEURALNETWORKS_DIV, {a, b, fuse}, out), ANEURALNETWORKS_NO_ERROR);
    std::vector<int32_t> result(4, -1);
    runOne(a, out, std::vector<int32_t>{-7, 7, 5, 9}, &result);
    EXPECT_EQ(result, (std::vector<int32_t>{-4, -4, 0, 3}));
}

TEST_F(Fl30Operations, RankHasAScalarOutput) {
    const uint32_t in = add(ANEURALNETWORKS_TENSOR_FLOAT32, {2, 3});
    const uint32_t out = add(ANEURALNETWORKS_INT32, {});
    ASSERT_EQ(operation(ANEURALNETWORKS_RANK, {in}, out), ANEURALNETWORKS_NO_ERROR);
    std::vector<int32_t> result(1, -1);
    runOne(in, out, std::vector<float>(6, 1.0f), &result);
    EXPECT_EQ(result[0], 2);
}

TEST_F(Fl30Operations, HardSwish) {
    const uint32_t in = add(ANEURALNETWORKS_TENSOR_FLOAT32, {3});
    const uint32_t out = add(ANEURALNETWORKS_TENSOR_FLOAT32, {3});
    ASSERT_EQ(operation(ANEURALNETWORKS_HARD_SWISH, {in}, out), ANEURALNETWORKS_NO_ERROR);
    std::vector<float> result(3, -1.0f);
    runOne(in, out, std::vector<float>{-3.0f, 3.0f, 1.0f}, &result);
    EXPECT_FLOAT_EQ(result[0], 0.0f);
    EXPECT_FLOAT_EQ(result[1], 3.0f);
    EXPECT_FLOAT_EQ(result[2], 4.0f / 6.0f);
}

// synap-npu claims float HARD_SWISH (XNNPACK's hardswish) and computes what the reference does.
TEST_F(Fl30Operations, HardSwishOnTheNpu) {
    const uint32_t in = add(ANEURALNETWORKS_TENSOR_FLOAT32, {2, 5});
    const uint32_t out = add(ANEURALNETWORKS_TENSOR_FLOAT32, {2, 5});
    ASSERT_EQ(operation(ANEURALNETWORKS_HARD_SWISH, {in}, out), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model_.get(), 1, &in, 1, &out), ANEURALNETWORKS_NO_ERROR);
    ASSERT_EQ(ANeuralNetworksModel_finish(model_.get()), ANEURALNETWORKS_NO_ERROR);
    const ANeuralNetworksDevice* npu = apitest::findDevice("synap-npu");
    ASSERT_NE(npu, nullptr);
    bool supported = false;
    ASSERT_EQ(ANeuralNetworksModel_getSupportedOperationsForDevices(model_.get(), &npu, 1, &supported),
              ANEURALNETWORKS_NO_ERROR);
    EXPECT_TRUE(supported);
    const std::vector<float> input = {-5.0f, -3.0f, -2.5f, -1.0f, -0.125f, 0.0f, 0.5f, 2.75f, 3.0f, 7.0f};
    auto runOn = [&](const ANeuralNetworksDevice* device) {
        std::vector<float> result(input.size(), -100.0f);
        auto compilation = apitest::compileFor(model_.get(), {device});
        if (compilation == nullptr) return result;
        auto execution = apitest::newExecution(compilation.get());
        EXPECT_EQ(ANeuralNetworksExecution_setInput(execution.get(), 0, nullptr, input.data(), input.size() * sizeof(float)),
                  ANEURALNETWORKS_NO_ERROR);
        EXPECT_EQ(ANeuralNetworksExecution_setOutput(execution.get(), 0, nullptr, result.data(), result.size() * sizeof(float)),
                  ANEURALNETWORKS_NO_ERROR);
        EXPECT_EQ(ANeuralNetworksExecution_compute(execution.get()), ANEURALNETWORKS_NO_ERROR);
        return result;
    };
    const std::vector<float> expected = runOn(apitest::referenceDevice());
    const std::vector<float> actual = runOn(npu);
    for (size_t i = 0; i < input.size(); ++i) {
        const float x = input[i];
        EXPECT_NEAR(expected[i], x * std::min(std::max(x + 3.0f, 0.0f), 6.0f) / 6.0f, 1e-6f) << i;
        EXPECT_NEAR(actual[i], expected[i], 1e-5f + 5.96e-7f * std::abs(expected[i])) << i;
    }
}

}  // namespace
}  // namespace nnemu
