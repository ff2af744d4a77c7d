// Property tests of the NPU core's own 8-bit pools (driver/synap/kernels/QuantPool.h): random
// max pools (windows, strides, paddings, activations) against the reference MAX_POOL_2D, and
// global averages against the reference AVERAGE_POOL_2D (whole image) and MEAN (same and
// different quantization), uint8 and int8, on every ISA this CPU runs.
#include <gtest/gtest.h>

#include "KernelTestSupport.h"
#include "kernels/QuantPool.h"

namespace nnemu::synap::kernels {
namespace {

using hal::OperandType;

OperandType typeOf(bool isSigned) {
    return isSigned ? OperandType::TENSOR_QUANT8_ASYMM_SIGNED : OperandType::TENSOR_QUANT8_ASYMM;
}

int uniform(std::mt19937& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

class KernelPool : public ::testing::TestWithParam<bool> {};

TEST_P(KernelPool, MaxPoolMatchesTheReferenceOnEveryIsa) {
    std::mt19937 rng(11 + GetParam());
    for (int iteration = 0; iteration < 300; ++iteration) {
        MaxPoolSpec s;
        s.signedValues = GetParam();
        s.batches = uniform(rng, 1, 2);
        s.inHeight = uniform(rng, 1, 20);
        s.inWidth = uniform(rng, 1, 20);
        s.channels = uniform(rng, 1, 3) == 1 ? uniform(rng, 1, 5) : uniform(rng, 1, 90);
        s.poolHeight = uniform(rng, 1, 4);
        s.poolWidth = uniform(rng, 1, 4);
        s.strideHeight = uniform(rng, 1, 3);
        s.strideWidth = uniform(rng, 1, 3);
        int32_t pads[4] = {uniform(rng, 0, 2), uniform(rng, 0, 2), uniform(rng, 0, 2), uniform(rng, 0, 2)};  // l r t b
        const int64_t spanH = int64_t(s.inHeight) + pads[2] + pads[3] - s.poolHeight;
        const int64_t spanW = int64_t(s.inWidth) + pads[0] + pads[1] - s.poolWidth;
        if (spanH < 0 || spanW < 0) continue;
        const int64_t outH = spanH / s.strideHeight + 1, outW = spanW / s.strideWidth + 1;
        s.outHeight = uint32_t(outH);
        s.outWidth = uint32_t(outW);
        s.padTop = pads[2];
        s.padLeft = pads[0];
        const int qmin = s.signedValues ? -128 : 0;
        s.zeroPoint = uniform(rng, qmin, qmin + 255);
        const float scale = std::uniform_real_distribution<float>(0.001f, 0.1f)(rng);
        int32_t activation = uniform(rng, 0, 3);
        quant::quantizedActivationRange(activation, scale, s.zeroPoint, qmin, qmin + 255, &s.low, &s.high);
        std::vector<uint8_t> input = randomBytes(rng, size_t{s.batches} * s.inHeight * s.inWidth * s.channels);
        std::vector<uint8_t> expected(size_t{s.batches} * s.outHeight * s.outWidth * s.channels);
        hal::OperationContext context;
        context.type = hal::OperationType::MAX_POOL_2D;
        int32_t strideW = s.strideWidth, strideH = s.strideHeight, filterW = s.poolWidth, filterH = s.poolHeight;
        context.inputs = {{typeOf(s.signedValues), {s.batches, s.inHeight, s.inWidth, s.channels}, scale, s.zeroPoint,
                           nullptr, input.data(), input.size()},
                          int32Scalar(&pads[0]), int32Scalar(&pads[1]), int32Scalar(&pads[2]), int32Scalar(&pads[3]),
                          int32Scalar(&strideW), int32Scalar(&strideH), int32Scalar(&filterW), int32Scalar(&filterH),
                          int32Scalar(&activation)};
        context.outputs = {{typeOf(s.signedValues), {s.batches, s.outHeight, s.outWidth, s.channels}, scale,
                            s.zeroPoint, nullptr, expected.data(), expected.size()}};
        ASSERT_TRUE(runReference(context)) << s.inHeight << "x" << s.inWidth << " pool " << s.poolHeight << "x"
                                           << s.poolWidth << " pads " << pads[0] << pads[1] << pads[2] << pads[3];
        for (Isa isa : supportedIsas()) {
            std::vector<uint8_t> out(expected.size(), 0xCD);
            const size_t rows = size_t{s.batches} * s.outHeight, split = rows / 2;
            runMaxPoolRows(isa, s, input.data(), out.data(), split, rows);
            runMaxPoolRows(isa, s, input.data(), out.data(), 0, split);
            ASSERT_EQ(out, expected) << isaName(isa) << " iteration " << iteration;
        }
    }
}

// AVERAGE_POOL_2D over the whole image, or MEAN over H and W (keeping them).
std::vector<uint8_t> referenceAverage(const GlobalAverageSpec& s, std::vector<uint8_t>& input, uint32_t height,
                                      int32_t activation) {
    std::vector<uint8_t> out(size_t{s.batches} * s.channels);
    const OperandType type = typeOf(s.signedValues);
    hal::OperationContext context;
    hal::OperandView in{type, {s.batches, height, s.pixels / height, s.channels}, s.inputScale, s.inputZeroPoint,
                        nullptr, input.data(), input.size()};
    static int32_t zero = 0, one = 1;
    static int32_t axes[2] = {1, 2};
    int32_t width = int32_t(s.pixels / height), h = int32_t(height);
    if (s.rounding == AverageRounding::HalfAway) {
        context.type = hal::OperationType::AVERAGE_POOL_2D;
        context.inputs = {in, int32Scalar(&zero), int32Scalar(&zero), int32Scalar(&zero), int32Scalar(&zero),
                          int32Scalar(&one), int32Scalar(&one), int32Scalar(&width), int32Scalar(&h),
                          int32Scalar(&activation)};
    } else {
        context.type = hal::OperationType::MEAN;
        context.inputs = {in,
                          {OperandType::TENSOR_INT32, {2}, 0.0f, 0, nullptr, reinterpret_cast<uint8_t*>(axes), 8},
                          int32Scalar(&one)};
    }
    context.outputs = {{type, {s.batches, 1, 1, s.channels}, s.outputScale, s.outputZeroPoint, nullptr, out.data(),
                        out.size()}};
    EXPECT_TRUE(runReference(context));
    return out;
}

TEST_P(KernelPool, GlobalAverageMatchesTheReferenceOnEveryIsa) {
    std::mt19937 rng(21 + GetParam());
    for (int iteration = 0; iteration < 300; ++iteration) {
        GlobalAverageSpec s;
        s.signedValues = GetParam();
        s.rounding = static_cast<AverageRounding>(uniform(rng, 0, 2));
        s.batches = uniform(rng, 1, 2);
        const uint32_t height = uniform(rng, 1, 12);
        s.pixels = height * uniform(rng, 1, 12);
        s.channels = uniform(rng, 1, 3) == 1 ? uniform(rng, 1, 5) : uniform(rng, 1, 300);
        const int qmin = s.signedValues ? -128 : 0;
        s.inputScale = std::uniform_real_distribution<float>(0.001f, 0.1f)(rng);
        s.inputZeroPoint = uniform(rng, qmin, qmin + 255);
        s.outputScale = s.inputScale;
        s.outputZeroPoint = s.inputZeroPoint;
        if (s.rounding == AverageRounding::MeanRequantize) {
            s.outputScale = s.inputScale * std::uniform_real_distribution<float>(0.3f, 3.0f)(rng);
            s.outputZeroPoint = uniform(rng, qmin, qmin + 255);
        }
        const int32_t activation = s.rounding == AverageRounding::HalfAway ? uniform(rng, 0, 3) : 0;
        quant::quantizedActivationRange(activation, s.outputScale, s.outputZeroPoint, qmin, qmin + 255, &s.low, &s.high);
        std::vector<uint8_t> input = randomBytes(rng, size_t{s.batches} * s.pixels * s.channels);
        const std::vector<uint8_t> expected = referenceAverage(s, input, height, activation);
        for (Isa isa : supportedIsas()) {
            std::vector<uint8_t> out(expected.size(), 0xCD);
            std::vector<int32_t> sums;
            runGlobalAverage(isa, s, input.data(), out.data(), &sums);
            ASSERT_EQ(out, expected) << isaName(isa) << " iteration " << iteration << " rounding "
                                     << int(s.rounding);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Types, KernelPool, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Int8" : "Uint8"; });

}  // namespace
}  // namespace nnemu::synap::kernels
