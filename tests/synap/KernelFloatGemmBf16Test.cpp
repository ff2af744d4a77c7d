// Property tests of the relaxed float GEMM in bfloat16 (driver/synap/kernels/FloatGemmBf16.h):
// the software rounding to bf16 agrees with the CPU's conversion instruction; random shapes
// against a double-precision reference of the rounded operands (float32 summation bound) and of
// the exact ones (the relaxed bound); tiles equal the whole to the bit; unpacking gives the
// rounded weights exactly; malformed packed bytes are refused. The AMX kernel against the
// AVX512-BF16 one and the float32 GEMM on random shapes with tails in rows, depth and channels.
// The kernel tests skip on a CPU without AVX512-BF16 (the AMX ones without usable AMX-BF16).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "FloatGemmCases.h"
#include "kernels/FloatGemmBf16.h"
#include "kernels/Isa.h"

namespace nnemu::synap::kernels {
namespace {

float rounded(float v) { return fromBf16(toBf16(v)); }

TEST(KernelFloatGemmBf16, RoundingIsToNearestEven) {
    EXPECT_EQ(toBf16(1.0f), 0x3f80);
    EXPECT_EQ(toBf16(std::bit_cast<float>(0x3f808000u)), 0x3f80);  // tie: to the even 0x3f80
    EXPECT_EQ(toBf16(std::bit_cast<float>(0x3f818000u)), 0x3f82);  // tie: to the even 0x3f82
    EXPECT_EQ(toBf16(std::bit_cast<float>(0x3f808001u)), 0x3f81);  // above the tie
    EXPECT_EQ(toBf16(-std::numeric_limits<float>::infinity()), 0xff80);
    EXPECT_EQ(toBf16(std::numeric_limits<float>::max()), 0x7f80);  // rounds to infinity, as float's
    EXPECT_TRUE(std::isnan(fromBf16(toBf16(std::numeric_limits<float>::quiet_NaN()))));
    EXPECT_TRUE(std::isnan(fromBf16(toBf16(std::bit_cast<float>(0x7f800001u)))));  // a NaN that would round to inf
}

TEST(KernelFloatGemmBf16, SoftwareRoundingMatchesTheInstruction) {
    if (!hasFloatGemmBf16()) GTEST_SKIP() << "this CPU has no AVX512-BF16 (or NNEMU_NPU_KERNEL_ISA caps it)";
    std::mt19937 rng(5);
    std::vector<float> values;
    while (values.size() < 4096) {
        const float v = std::bit_cast<float>(static_cast<uint32_t>(rng()));
        if (std::isnormal(v)) values.push_back(v);  // the instruction flushes subnormals; NaN payloads differ
    }
    std::vector<uint32_t> pairs(values.size() / 2);
    toBf16PairsAvx512(values.data(), values.size(), 1, values.size(), pairs.data());
    for (size_t i = 0; i < values.size(); ++i) {
        const uint16_t hardware = static_cast<uint16_t>(pairs[i / 2] >> (16 * (i % 2)));
        ASSERT_EQ(hardware, toBf16(values[i])) << std::hexfloat << values[i];
    }
}

using test::Case;

Case randomCase(std::mt19937& rng) { return test::randomCase(rng, 300); }

std::vector<uint8_t> packed(const Case& c) {
    FloatGemmSpec spec;
    spec.depth = c.depth;
    spec.channels = c.channels;
    spec.weights = reinterpret_cast<const uint8_t*>(c.weights.data());
    spec.bias = reinterpret_cast<const uint8_t*>(c.bias.data());
    std::vector<uint8_t> bytes;
    EXPECT_TRUE(packFloatGemmBf16(spec, &bytes));
    return bytes;
}

TEST(KernelFloatGemmBf16, MatchesADoublePrecisionReference) {
    if (!hasFloatGemmBf16()) GTEST_SKIP() << "this CPU has no AVX512-BF16 (or NNEMU_NPU_KERNEL_ISA caps it)";
    std::mt19937 rng(20261130);
    std::vector<uint32_t> scratch;
    for (int trial = 0; trial < 60; ++trial) {
        const Case c = randomCase(rng);
        SCOPED_TRACE("rows " + std::to_string(c.rows) + " depth " + std::to_string(c.depth) + " channels " +
                     std::to_string(c.channels));
        const std::vector<uint8_t> bytes = packed(c);
        ASSERT_TRUE(checkPackedFloatGemmBf16(bytes, c.depth, c.channels));
        std::vector<float> whole(size_t{c.rows} * c.channels, NAN);
        runFloatGemmBf16Tile(bytes, c.input.data(), whole.data(), c.low, c.high, 0, c.rows, 0, c.channels, &scratch);
        for (size_t r = 0; r < c.rows; ++r) {
            for (size_t n = 0; n < c.channels; ++n) {
                double ofRounded = c.bias[n], exact = c.bias[n], magnitude = std::fabs(c.bias[n]);
                for (size_t k = 0; k < c.depth; ++k) {
                    const float x = c.input[r * c.depth + k], w = c.weights[n * c.depth + k];
                    ofRounded += double{rounded(x)} * rounded(w);
                    exact += double{x} * w;
                    magnitude += std::fabs(double{x} * w);
                }
                auto clamp = [&](double v) { return std::min<double>(std::max<double>(v, c.low), c.high); };
                // The rounded operands' products are exact in float32; their sum rounds depth + 1
                // times, each by at most half an ulp of a running sum bounded by the magnitude.
                const double summation = (c.depth + 1) * magnitude * std::numeric_limits<float>::epsilon();
                ASSERT_NEAR(whole[r * c.channels + n], clamp(ofRounded), summation) << "row " << r << " channel " << n;
                // Against the exact operands: each rounded by at most 2^-8 of itself (8 significant bits).
                ASSERT_NEAR(whole[r * c.channels + n], clamp(exact), summation + magnitude * std::ldexp(1.0, -7) * 1.01)
                        << "row " << r << " channel " << n;
            }
        }
        std::vector<float> tiled(whole.size(), NAN);
        for (size_t r = 0; r < c.rows; r += 5) {
            for (size_t n = 0; n < c.channels; n += kFloatGemmBlock) {
                runFloatGemmBf16Tile(bytes, c.input.data(), tiled.data(), c.low, c.high, r,
                                     std::min<size_t>(c.rows, r + 5), n, n + kFloatGemmBlock, &scratch);
            }
        }
        ASSERT_EQ(0, std::memcmp(tiled.data(), whole.data(), whole.size() * sizeof(float)));
    }
}

// Shapes for the AMX kernel: row counts around its 16- and 32-row tiles and past a chunk of
// converted rows, depths around its 32-value groups (odd ones too) and deep ones converted 32 rows
// at a time, channels around its blocks.
Case amxCase(std::mt19937& rng) {
    Case c = test::randomCase(rng, 700);
    auto uniform = [&](int lo, int hi) { return static_cast<uint32_t>(std::uniform_int_distribution<int>(lo, hi)(rng)); };
    const uint32_t kind = uniform(0, 3);
    if (kind == 0) c.rows = 16 * uniform(1, 4) + uniform(0, 2) - 1;  // 15-17, 31-33, ...
    if (kind == 1) c.rows = uniform(200, 420);                        // several chunks when deep
    if (kind == 2) c.depth = 32 * uniform(1, 8) + uniform(0, 2) - 1;  // a group +- 1
    if (kind == 3 && uniform(0, 3) == 0) {                              // deep: 32-row chunks
        c.depth = uniform(4000, 6000);
        c.rows = uniform(33, 100);
    }
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    c.input.resize(size_t{c.rows} * c.depth);
    c.weights.resize(size_t{c.channels} * c.depth);
    for (float& v : c.input) v = value(rng);
    for (float& v : c.weights) v = value(rng);
    return c;
}

TEST(KernelFloatGemmBf16, AmxAgreesWithTheAvx512KernelAndTheFloatGemm) {
    if (!hasFloatGemmBf16() || !amxBf16Usable()) GTEST_SKIP() << "AMX-BF16 is not usable here";
    std::mt19937 rng(26032026);
    std::vector<uint32_t> scratch;
    for (int trial = 0; trial < 80; ++trial) {
        const Case c = amxCase(rng);
        SCOPED_TRACE("rows " + std::to_string(c.rows) + " depth " + std::to_string(c.depth) + " channels " +
                     std::to_string(c.channels));
        const std::vector<uint8_t> bytes = packed(c);
        std::vector<float> amx(size_t{c.rows} * c.channels, NAN), avx512(amx.size(), NAN), strict(amx.size(), NAN);
        runFloatGemmBf16Tile(Bf16Kernel::Amx, bytes, c.input.data(), amx.data(), c.low, c.high, 0, c.rows, 0,
                             c.channels, &scratch);
        runFloatGemmBf16Tile(Bf16Kernel::Avx512, bytes, c.input.data(), avx512.data(), c.low, c.high, 0, c.rows, 0,
                             c.channels, &scratch);
        FloatGemmSpec spec;
        spec.depth = c.depth;
        spec.channels = c.channels;
        spec.weights = reinterpret_cast<const uint8_t*>(c.weights.data());
        spec.bias = reinterpret_cast<const uint8_t*>(c.bias.data());
        std::vector<uint8_t> float32;
        ASSERT_TRUE(packFloatGemm(spec, &float32));
        runFloatGemmTile(bestIsa(), float32, c.input.data(), strict.data(), c.low, c.high, 0, c.rows, 0, c.channels);
        for (size_t r = 0; r < c.rows; ++r) {
            for (size_t n = 0; n < c.channels; ++n) {
                double magnitude = std::fabs(c.bias[n]);
                for (size_t k = 0; k < c.depth; ++k) magnitude += std::fabs(double{c.input[r * c.depth + k]} * c.weights[n * c.depth + k]);
                // Both sum the same rounded products in float32, in different orders.
                const double summation = (c.depth + 1) * magnitude * std::numeric_limits<float>::epsilon();
                const size_t i = r * c.channels + n;
                ASSERT_NEAR(amx[i], avx512[i], 2 * summation) << "row " << r << " channel " << n;
                ASSERT_NEAR(amx[i], strict[i], 2 * summation + magnitude * std::ldexp(1.0, -7) * 1.01)
                        << "row " << r << " channel " << n;
            }
        }
        // Any cut of rows and of 16-channel blocks gives the whole's bits.
        const size_t rowStep = 1 + rng() % 40, blockStep = 1 + rng() % 3;
        std::vector<float> tiled(amx.size(), NAN);
        for (size_t r = 0; r < c.rows; r += rowStep) {
            for (size_t n = 0; n < c.channels; n += blockStep * kFloatGemmBlock) {
                runFloatGemmBf16Tile(Bf16Kernel::Amx, bytes, c.input.data(), tiled.data(), c.low, c.high, r,
                                     std::min<size_t>(c.rows, r + rowStep), n, n + blockStep * kFloatGemmBlock, &scratch);
            }
        }
        ASSERT_EQ(0, std::memcmp(tiled.data(), amx.data(), amx.size() * sizeof(float)));
    }
}

// Infinities and NaNs give what the AVX512-BF16 kernel gives (a NaN sum is clamped to the low
// bound by the shared clamp: max(NaN, low) is low), to the bit.
TEST(KernelFloatGemmBf16, AmxTreatsInfinitiesAndNaNsAsTheAvx512Kernel) {
    if (!hasFloatGemmBf16() || !amxBf16Usable()) GTEST_SKIP() << "AMX-BF16 is not usable here";
    Case c;
    c.rows = 4;
    c.depth = 5;
    c.channels = 2;
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    c.input = {1, inf, 3, 4, 5, 1, 1, nan, 1, 1, 0, 0, 0, 0, 0, 1, -inf, 1, inf, 1};
    c.weights = {1, 1, 1, 1, 1, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f};
    c.bias = {0, 1};
    std::vector<uint32_t> scratch;
    for (const float low : {-inf, 0.0f}) {
        std::vector<float> amx(8, 0), avx512(8, 1);
        runFloatGemmBf16Tile(Bf16Kernel::Amx, packed(c), c.input.data(), amx.data(), low, inf, 0, 4, 0, 2, &scratch);
        runFloatGemmBf16Tile(Bf16Kernel::Avx512, packed(c), c.input.data(), avx512.data(), low, inf, 0, 4, 0, 2, &scratch);
        EXPECT_EQ(0, std::memcmp(amx.data(), avx512.data(), amx.size() * sizeof(float))) << "low " << low;
        EXPECT_EQ(amx[0], inf);
        EXPECT_EQ(amx[1], inf);
        EXPECT_EQ(amx[4], 0.0f);
        EXPECT_EQ(amx[5], 1.0f);
    }
}

TEST(KernelFloatGemmBf16, UnpackGivesTheRoundedWeights) {
    std::mt19937 rng(7);
    for (int trial = 0; trial < 20; ++trial) {
        const Case c = randomCase(rng);
        std::vector<uint8_t> weights;
        ASSERT_TRUE(unpackFloatGemmBf16(packed(c), &weights));
        ASSERT_EQ(weights.size(), c.weights.size() * sizeof(float));
        for (size_t i = 0; i < c.weights.size(); ++i) {
            float w;
            std::memcpy(&w, weights.data() + i * sizeof w, sizeof w);
            ASSERT_EQ(std::bit_cast<uint32_t>(w), std::bit_cast<uint32_t>(rounded(c.weights[i]))) << i;
        }
    }
}

TEST(KernelFloatGemmBf16, MalformedPackedBytesAreRefused) {
    std::mt19937 rng(11);
    const Case c = randomCase(rng);
    std::vector<uint8_t> bytes = packed(c);
    EXPECT_FALSE(checkPackedFloatGemmBf16(bytes, c.depth + 2, c.channels));
    EXPECT_FALSE(checkPackedFloatGemmBf16(bytes, c.depth, c.channels + 1));
    EXPECT_FALSE(checkPackedFloatGemmBf16(std::span<const uint8_t>(bytes).first(bytes.size() - 4), c.depth, c.channels));
    EXPECT_FALSE(checkPackedFloatGemmBf16(std::span<const uint8_t>(bytes).first(10), c.depth, c.channels));
    std::vector<uint8_t> unpacked;
    EXPECT_FALSE(unpackFloatGemmBf16(std::span<const uint8_t>(bytes).first(bytes.size() - 4), &unpacked));
    bytes[0] ^= 1;  // the magic
    EXPECT_FALSE(checkPackedFloatGemmBf16(bytes, c.depth, c.channels));
    EXPECT_FALSE(unpackFloatGemmBf16(bytes, &unpacked));
    FloatGemmSpec empty;
    EXPECT_FALSE(packFloatGemmBf16(empty, &bytes));
}

}  // namespace
}  // namespace nnemu::synap::kernels
