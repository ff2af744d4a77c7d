// The vectorized float functions of nnapi-reference (driver/cpu/kernels/FloatMath.h) against the
// C library's double functions: at most 1 ULP from the double result rounded to float, over a
// dense sweep of every float sign, exponent and mantissa region and at the edges (zeros,
// denormals, the clamps' thresholds, infinities, NaN); the loops give the scalar function's bits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "../../driver/cpu/kernels/FloatMath.h"

namespace nnemu::cpu {
namespace {

namespace fm = floatmath;

float fromBits(uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, sizeof(f));
    return f;
}

// The distance in representable floats (-0 and +0 are 0 apart); NaN against NaN is 0.
uint64_t ulpsApart(float a, float b) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : UINT64_MAX;
    const auto ordered = [](float f) {
        int32_t i;
        std::memcpy(&i, &f, sizeof(i));
        return i < 0 ? static_cast<int64_t>(INT32_MIN) - i : static_cast<int64_t>(i);
    };
    const int64_t d = ordered(a) - ordered(b);
    return static_cast<uint64_t>(d < 0 ? -d : d);
}

// Every 509th bit pattern (all signs, exponents and mantissa regions) plus the edges.
std::vector<float> sweep(std::initializer_list<float> edges) {
    std::vector<float> values;
    for (uint64_t bits = 0; bits <= UINT32_MAX; bits += 509) values.push_back(fromBits(static_cast<uint32_t>(bits)));
    const float inf = std::numeric_limits<float>::infinity();
    for (float f : {0.0f, -0.0f, inf, -inf, std::numeric_limits<float>::quiet_NaN(),
                    std::numeric_limits<float>::denorm_min(), -std::numeric_limits<float>::denorm_min(),
                    std::numeric_limits<float>::min(), std::numeric_limits<float>::max(),
                    std::numeric_limits<float>::lowest()}) {
        values.push_back(f);
    }
    for (float edge : edges) {
        // 4096 floats on each side of each edge and of its negation.
        for (float e : {edge, -edge}) {
            float below = e, above = e;
            for (int i = 0; i < 4096; ++i) {
                values.push_back(below = std::nextafter(below, -inf));
                values.push_back(above = std::nextafter(above, inf));
            }
        }
    }
    return values;
}

template <typename Scalar, typename Loop, typename Exact>
void expectWithinOneUlp(Scalar scalar, Loop loop, Exact exact, std::initializer_list<float> edges) {
    const std::vector<float> in = sweep(edges);
    std::vector<float> out(in.size());
    loop(in.data(), out.data(), in.size());
    uint64_t worst = 0;
    float worstAt = 0;
    for (size_t i = 0; i < in.size(); ++i) {
        const float want = static_cast<float>(exact(static_cast<double>(in[i])));
        const uint64_t apart = ulpsApart(out[i], want);
        if (apart > worst) worst = apart, worstAt = in[i];
        const float one = scalar(in[i]);
        ASSERT_EQ(std::memcmp(&one, &out[i], sizeof(one)), 0) << "loop and scalar differ at " << in[i];
    }
    EXPECT_LE(worst, 1u) << "worst at x = " << worstAt;
}

TEST(FloatMath, ExpWithinOneUlpOfLibm) {
    expectWithinOneUlp([](float x) { return fm::exp(x); }, [](const float* i, float* o, size_t n) { fm::exp(i, o, n); },
                       [](double x) { return std::exp(x); }, {88.72f, 89.0f, 87.33f, 103.97f, 104.0f, 1e-20f});
    EXPECT_EQ(fm::exp(std::numeric_limits<float>::infinity()), std::numeric_limits<float>::infinity());
    EXPECT_EQ(fm::exp(-std::numeric_limits<float>::infinity()), 0.0f);
    EXPECT_EQ(fm::exp(0.0f), 1.0f);
    EXPECT_TRUE(std::isnan(fm::exp(std::numeric_limits<float>::quiet_NaN())));
}

TEST(FloatMath, TanhWithinOneUlpOfLibm) {
    expectWithinOneUlp([](float x) { return fm::tanh(x); }, [](const float* i, float* o, size_t n) { fm::tanh(i, o, n); },
                       [](double x) { return std::tanh(x); }, {0.0625f, 10.0f, 1e-20f, 0.5f, 9.0f});
    EXPECT_TRUE(std::signbit(fm::tanh(-0.0f)));
    EXPECT_EQ(fm::tanh(std::numeric_limits<float>::infinity()), 1.0f);
    EXPECT_EQ(fm::tanh(-std::numeric_limits<float>::infinity()), -1.0f);
    EXPECT_TRUE(std::isnan(fm::tanh(std::numeric_limits<float>::quiet_NaN())));
}

TEST(FloatMath, LogisticWithinOneUlpOfLibm) {
    expectWithinOneUlp([](float x) { return fm::logistic(x); },
                       [](const float* i, float* o, size_t n) { fm::logistic(i, o, n); },
                       [](double x) { return 1.0 / (1.0 + std::exp(-x)); }, {40.0f, 110.0f, 87.0f, 103.0f, 17.0f});
    EXPECT_EQ(fm::logistic(std::numeric_limits<float>::infinity()), 1.0f);
    EXPECT_EQ(fm::logistic(-std::numeric_limits<float>::infinity()), 0.0f);
    EXPECT_EQ(fm::logistic(0.0f), 0.5f);
    EXPECT_TRUE(std::isnan(fm::logistic(std::numeric_limits<float>::quiet_NaN())));
}

// HARD_SWISH keeps the reference's double formula bit for bit.
TEST(FloatMath, HardSwishIsTheDoubleFormula) {
    const std::vector<float> in = sweep({3.0f, 6.0f});
    std::vector<float> out(in.size());
    fm::hardSwish(in.data(), out.data(), in.size());
    for (size_t i = 0; i < in.size(); ++i) {
        const double x = in[i];
        const auto want = static_cast<float>(x * std::clamp(x + 3.0, 0.0, 6.0) / 6.0);
        if (std::isnan(want)) {
            ASSERT_TRUE(std::isnan(out[i])) << "x = " << in[i];
        } else {
            ASSERT_EQ(std::memcmp(&out[i], &want, sizeof(want)), 0) << "x = " << in[i];
        }
    }
}

}  // namespace
}  // namespace nnemu::cpu
