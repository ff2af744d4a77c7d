// Property tests of the NPU core's own float32 GEMM (driver/synap/kernels/FloatGemm.h): random
// shapes against a double-precision reference on every ISA this CPU runs, whole and in tiles of
// rows and channel blocks (the tiles must equal the whole to the bit: each output is computed the
// same way wherever it falls); packing and unpacking keep the weights to the bit; malformed packed
// bytes are refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "FloatGemmCases.h"
#include "kernels/FloatGemm.h"

namespace nnemu::synap::kernels {
namespace {

using test::Case;

Case randomCase(std::mt19937& rng) { return test::randomCase(rng, 200); }

std::vector<uint8_t> packed(const Case& c) {
    FloatGemmSpec spec;
    spec.depth = c.depth;
    spec.channels = c.channels;
    spec.weights = reinterpret_cast<const uint8_t*>(c.weights.data());
    spec.bias = reinterpret_cast<const uint8_t*>(c.bias.data());
    std::vector<uint8_t> bytes;
    EXPECT_TRUE(packFloatGemm(spec, &bytes));
    return bytes;
}

TEST(KernelFloatGemm, EveryIsaMatchesADoublePrecisionReference) {
    std::mt19937 rng(20261129);
    for (int trial = 0; trial < 60; ++trial) {
        // Every fourth case deep enough for the 12-row calls (from a depth of 256).
        const Case c = test::randomCase(rng, trial % 4 == 3 ? 600 : 200);
        const std::vector<uint8_t> bytes = packed(c);
        ASSERT_TRUE(checkPackedFloatGemm(bytes, c.depth, c.channels));
        for (Isa isa : supportedIsas()) {
            SCOPED_TRACE(std::string(isaName(isa)) + " rows " + std::to_string(c.rows) + " depth " +
                         std::to_string(c.depth) + " channels " + std::to_string(c.channels));
            std::vector<float> whole(size_t{c.rows} * c.channels, NAN);
            runFloatGemmTile(isa, bytes, c.input.data(), whole.data(), c.low, c.high, 0, c.rows, 0, c.channels);
            for (size_t r = 0; r < c.rows; ++r) {
                for (size_t n = 0; n < c.channels; ++n) {
                    double sum = c.bias[n], magnitude = std::fabs(c.bias[n]);
                    for (size_t k = 0; k < c.depth; ++k) {
                        sum += double{c.input[r * c.depth + k]} * c.weights[n * c.depth + k];
                        magnitude += std::fabs(double{c.input[r * c.depth + k]} * c.weights[n * c.depth + k]);
                    }
                    const double expected = std::min<double>(std::max<double>(sum, c.low), c.high);
                    // Float sums in order: each of the depth + 1 roundings errs by at most half an
                    // ulp of the running sum, itself at most the sum of magnitudes.
                    const double bound = (c.depth + 1) * magnitude * std::numeric_limits<float>::epsilon();
                    ASSERT_NEAR(whole[r * c.channels + n], expected, bound) << "row " << r << " channel " << n;
                }
            }
            // Tiles: rows in slices of 5, channels in single blocks, each filled exactly once.
            std::vector<float> tiled(whole.size(), NAN);
            for (size_t r = 0; r < c.rows; r += 5) {
                for (size_t n = 0; n < c.channels; n += kFloatGemmBlock) {
                    runFloatGemmTile(isa, bytes, c.input.data(), tiled.data(), c.low, c.high, r,
                                     std::min<size_t>(c.rows, r + 5), n, n + kFloatGemmBlock);
                }
            }
            ASSERT_EQ(0, std::memcmp(tiled.data(), whole.data(), whole.size() * sizeof(float)));
        }
    }
}

TEST(KernelFloatGemm, UnpackGivesTheWeightsBack) {
    std::mt19937 rng(7);
    for (int trial = 0; trial < 20; ++trial) {
        const Case c = randomCase(rng);
        std::vector<uint8_t> weights;
        ASSERT_TRUE(unpackFloatGemm(packed(c), &weights));
        ASSERT_EQ(weights.size(), c.weights.size() * sizeof(float));
        EXPECT_EQ(0, std::memcmp(weights.data(), c.weights.data(), weights.size()));
    }
}

TEST(KernelFloatGemm, MalformedPackedBytesAreRefused) {
    std::mt19937 rng(11);
    const Case c = randomCase(rng);
    std::vector<uint8_t> bytes = packed(c);
    EXPECT_FALSE(checkPackedFloatGemm(bytes, c.depth + 1, c.channels));
    EXPECT_FALSE(checkPackedFloatGemm(bytes, c.depth, c.channels + 1));
    EXPECT_FALSE(checkPackedFloatGemm(std::span<const uint8_t>(bytes).first(bytes.size() - 4), c.depth, c.channels));
    EXPECT_FALSE(checkPackedFloatGemm(std::span<const uint8_t>(bytes).first(10), c.depth, c.channels));
    std::vector<uint8_t> unpacked;
    EXPECT_FALSE(unpackFloatGemm(std::span<const uint8_t>(bytes).first(bytes.size() - 4), &unpacked));
    bytes[0] ^= 1;  // the magic
    EXPECT_FALSE(checkPackedFloatGemm(bytes, c.depth, c.channels));
    EXPECT_FALSE(unpackFloatGemm(bytes, &unpacked));
    FloatGemmSpec empty;
    EXPECT_FALSE(packFloatGemm(empty, &bytes));
}

}  // namespace
}  // namespace nnemu::synap::kernels
