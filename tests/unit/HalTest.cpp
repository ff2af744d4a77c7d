#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "nnemu/kernels/QuantMath.h"
#include "nnemu/base/Half.h"
#include "nnemu/hal/OperandTypes.h"
#include "nnemu/hal/Validation.h"

namespace nnemu {
namespace {

using hal::OperandType;

TEST(Half, ExactValuesRoundTrip) {
    for (float value : {0.0f, -0.0f, 1.0f, -2.5f, 65504.0f, 6.103515625e-05f, 5.9604644775390625e-08f}) {
        EXPECT_EQ(base::halfToFloat(base::floatToHalf(value)), value) << value;
    }
}

TEST(Half, RoundsToNearestEven) {
    // 5.9 is not representable: the nearest halves are 5.8984375 and 5.90234375.
    EXPECT_EQ(base::halfToFloat(base::floatToHalf(5.900000095367432f)), 5.8984375f);
    // 1 + 2^-11 lies exactly between 1 and 1 + 2^-10: ties go to the even mantissa (1.0).
    EXPECT_EQ(base::halfToFloat(base::floatToHalf(1.0f + 0.00048828125f)), 1.0f);
    EXPECT_EQ(base::halfToFloat(base::floatToHalf(1.0f + 3 * 0.00048828125f)), 1.001953125f);
    EXPECT_TRUE(std::isinf(base::halfToFloat(base::floatToHalf(70000.0f))));
    EXPECT_TRUE(std::isnan(base::halfToFloat(base::floatToHalf(std::numeric_limits<float>::quiet_NaN()))));
    EXPECT_EQ(base::halfToFloat(base::floatToHalf(1e-9f)), 0.0f);
}

TEST(Half, EveryHalfSurvivesTheTripThroughFloat) {
    for (uint32_t bits = 0; bits < 0x10000; ++bits) {
        const auto half = static_cast<uint16_t>(bits);
        const float value = base::halfToFloat(half);
        if (std::isnan(value)) continue;
        EXPECT_EQ(base::floatToHalf(value), half) << bits;
    }
}

TEST(QuantMath, MultiplierReproducesTheRealFactor) {
    for (double real : {0.0003, 0.25, 0.5, 0.999, 1.0, 3.7, 1000.0}) {
        int32_t quantized = 0;
        int shift = 0;
        quant::quantizeMultiplier(real, &quantized, &shift);
        EXPECT_NEAR(quantized * std::ldexp(1.0, shift - 31), real, real * 1e-8);
        EXPECT_NEAR(quant::multiplyByQuantizedMultiplier(10000, quantized, shift), 10000 * real, 1.0);
    }
}

TEST(QuantMath, ExtremeValuesSaturateInsteadOfOverflowing) {
    EXPECT_EQ(quant::saturatingAdd(INT32_MAX, 5), INT32_MAX);
    EXPECT_EQ(quant::saturatingAdd(INT32_MIN, -5), INT32_MIN);
    EXPECT_EQ(quant::saturatingAdd(7, -9), -2);
    int32_t quantized = 0;
    int shift = 0;
    quant::quantizeMultiplier(1e12, &quantized, &shift);  // a left shift far past 31 bits
    ASSERT_GT(shift, 31);
    // The shifted value saturates first, then takes the Q31 multiplier.
    EXPECT_EQ(quant::multiplyByQuantizedMultiplier(1000, quantized, shift),
              quant::saturatingRoundingDoublingHighMul(INT32_MAX, quantized));
    EXPECT_EQ(quant::multiplyByQuantizedMultiplier(-1000, quantized, shift),
              quant::saturatingRoundingDoublingHighMul(INT32_MIN, quantized));
}

TEST(QuantMath, RoundingDivideRoundsHalfAwayFromZero) {
    EXPECT_EQ(quant::roundingDivideByPOT(5, 1), 3);
    EXPECT_EQ(quant::roundingDivideByPOT(-5, 1), -3);
    EXPECT_EQ(quant::roundingDivideByPOT(4, 1), 2);
    EXPECT_EQ(quant::roundingDivideByPOT(-7, 2), -2);
}

TEST(OperandTypes, SizesAndSpecification) {
    EXPECT_EQ(hal::byteSize(OperandType::TENSOR_FLOAT32, {2, 3}), 24u);
    EXPECT_EQ(hal::byteSize(OperandType::TENSOR_FLOAT16, {5}), 10u);
    EXPECT_EQ(hal::byteSize(OperandType::TENSOR_FLOAT32, {2, 0}), 0u);
    EXPECT_EQ(hal::byteSize(OperandType::TENSOR_FLOAT32, {}), 0u);  // unknown rank
    EXPECT_EQ(hal::byteSize(OperandType::INT32, {}), 4u);
    EXPECT_TRUE(hal::dimsCompatible({2, 0}, {2, 7}));
    EXPECT_FALSE(hal::dimsCompatible({2, 3}, {2, 7}));
    EXPECT_FALSE(hal::dimsCompatible({2, 3}, {2, 3, 1}));
    EXPECT_TRUE(hal::dimsCompatible({}, {4, 4}));
}

TEST(Validation, OperandTypeRules) {
    EXPECT_TRUE(hal::validateOperandType(5, {1, 2}, 0.5f, 128).isOk());
    EXPECT_FALSE(hal::validateOperandType(5, {1, 2}, 0.0f, 128).isOk());   // scale must be > 0
    EXPECT_FALSE(hal::validateOperandType(5, {1, 2}, 0.5f, 256).isOk());   // zero point range
    EXPECT_FALSE(hal::validateOperandType(3, {1}, 0.5f, 0).isOk());        // float with a scale
    EXPECT_FALSE(hal::validateOperandType(0, {1}, 0.0f, 0).isOk());        // scalar with dims
    EXPECT_FALSE(hal::validateOperandType(15, {1}, 0.0f, 0).isOk());       // unknown code
    EXPECT_TRUE(hal::validateOperandType(14, {1, 2}, 0.5f, -128).isOk());  // QUANT8_ASYMM_SIGNED
    EXPECT_TRUE(hal::validateOperandType(14, {1, 2}, 0.5f, 127).isOk());
    EXPECT_FALSE(hal::validateOperandType(14, {1, 2}, 0.5f, 128).isOk());  // zero point range
    EXPECT_FALSE(hal::validateOperandType(14, {1, 2}, 0.5f, -129).isOk());
    EXPECT_FALSE(hal::validateOperandType(14, {1, 2}, 0.0f, 0).isOk());    // scale must be > 0
    EXPECT_TRUE(hal::validateOperandType(10001, {4}, 0.0f, 0).isOk());     // OEM byte tensor
    EXPECT_TRUE(hal::validateOperandType(4, {3}, 0.25f, 0).isOk());        // int32 bias scale
    EXPECT_FALSE(hal::validateOperandType(4, {3}, 0.25f, 1).isOk());
}

}  // namespace
}  // namespace nnemu
