// Property test of synap-npu's 8-bit 3x3 depthwise layer as an app sees it: random shapes,
// strides, paddings, zero points, activations and multipliers below and above 1, one
// DEPTHWISE_CONV_2D compiled for synap-npu alone, give nnapi-reference's bytes. Whatever the
// kernel ISA (the ctest variants cap it with NNEMU_NPU_KERNEL_ISA) and requantization, the layer
// must run on a kernel that computes as the reference does (XNNPACK's rounds in float).
#include <gtest/gtest.h>

#include <random>

#include "OneOperationModel.h"

namespace nnemu {
namespace {

using test::int32Scalar;
using test::OneOperationModel;
using test::TestOperand;

constexpr int32_t kU8 = ANEURALNETWORKS_TENSOR_QUANT8_ASYMM;

TEST(NpuQuantDepthwise, RandomLayersGiveTheReferenceBytesOnEveryIsa) {
    std::mt19937 random(26);
    auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(random); };
    auto bytes = [&](size_t count) {
        std::vector<uint8_t> values(count);
        for (uint8_t& b : values) b = static_cast<uint8_t>(uniform(0, 255));
        return values;
    };
    for (int iteration = 0; iteration < 24; ++iteration) {
        const uint32_t height = uniform(3, 12), width = uniform(3, 12), channels = uniform(1, 40);
        const int32_t stride = uniform(1, 2), pads[4] = {uniform(0, 1), uniform(0, 1), uniform(0, 1), uniform(0, 1)};
        const float inputScale = 0.02f * static_cast<float>(uniform(1, 50));
        const float filterScale = 0.005f * static_cast<float>(uniform(1, 40));
        // Output scales from 1/8 to 4 times the product: multipliers below and above 1.
        const float outputScale = inputScale * filterScale * 2.0f * static_cast<float>(uniform(1, 32)) / 16.0f *
                                  static_cast<float>(uniform(1, 4));
        std::vector<int32_t> bias(channels);
        for (int32_t& b : bias) b = uniform(-3000, 3000);
        const uint32_t outHeight = (height + pads[2] + pads[3] - 3) / stride + 1;
        const uint32_t outWidth = (width + pads[0] + pads[1] - 3) / stride + 1;
        OneOperationModel model(
            ANEURALNETWORKS_DEPTHWISE_CONV_2D,
            {TestOperand(kU8, {1, height, width, channels}, inputScale, uniform(0, 255)),
             TestOperand(kU8, {1, 3, 3, channels}, filterScale, uniform(0, 255), bytes(9 * channels)),
             TestOperand(ANEURALNETWORKS_TENSOR_INT32, {channels}, inputScale * filterScale, 0, test::bytesOf(bias)),
             int32Scalar(pads[0]), int32Scalar(pads[1]), int32Scalar(pads[2]), int32Scalar(pads[3]),
             int32Scalar(stride), int32Scalar(stride), int32Scalar(1), int32Scalar(uniform(0, 3))},
            TestOperand(kU8, {1, outHeight, outWidth, channels}, outputScale, uniform(0, 255)));
        ASSERT_TRUE(model.claimedBy("synap-npu")) << "iteration " << iteration;
        const auto inputs = model.randomInputs(static_cast<uint32_t>(iteration));
        const std::vector<uint8_t> npu = model.run("synap-npu", inputs);
        ASSERT_FALSE(npu.empty()) << "iteration " << iteration;
        EXPECT_EQ(npu, model.run("nnapi-reference", inputs))
            << "iteration " << iteration << ": " << height << "x" << width << "x" << channels << " stride " << stride
            << " multiplier " << inputScale * filterScale / outputScale;
    }
}

}  // namespace
}  // namespace nnemu
