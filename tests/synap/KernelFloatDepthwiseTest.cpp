// Property tests of the NPU core's own float32 3x3 depthwise and few-channel convolution
// (driver/synap/kernels/FloatDepthwise.h, FloatConv.h): random geometries (strides 1 and 2, and
// for the convolution 3, kernels up to 7x7, dilations 1 and 2; SAME and VALID padding, no clamp,
// RELU, RELU6) against a double-precision reference on every ISA this CPU runs, whole and in
// slices of rows (which must equal the whole to the bit); the convolution equal to the bit to the
// float GEMM over unfolded windows; packing and unpacking keep the filter to the bit; malformed
// packed bytes are refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "kernels/FloatConv.h"

namespace nnemu::synap::kernels {
namespace {

struct ConvCase {
    FloatImage g;
    bool depthwise;
    std::vector<float> input, filter, bias;
};

uint32_t uniform(std::mt19937& rng, int lo, int hi) {
    return static_cast<uint32_t>(std::uniform_int_distribution<int>(lo, hi)(rng));
}

// SAME (TFLite's: the padding split with the smaller half first) or VALID, along one axis.
void geometry(std::mt19937& rng, uint32_t in, uint32_t kernel, uint32_t stride, uint32_t dilation, uint32_t* out,
              uint32_t* padBefore) {
    const uint32_t extent = (kernel - 1) * dilation + 1;
    if (uniform(rng, 0, 1) == 0 || in < extent) {  // SAME
        *out = (in + stride - 1) / stride;
        const uint32_t needed = (*out - 1) * stride + extent;
        *padBefore = needed > in ? (needed - in) / 2 : 0;
    } else {  // VALID
        *out = (in - extent) / stride + 1;
        *padBefore = 0;
    }
}

ConvCase randomCase(std::mt19937& rng, bool depthwise) {
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    ConvCase c;
    c.depthwise = depthwise;
    FloatImage& g = c.g;
    g.batches = uniform(rng, 1, 2);
    g.inHeight = uniform(rng, 1, 13);
    g.inWidth = uniform(rng, 1, 17);
    g.strideHeight = g.strideWidth = uniform(rng, 1, 2);
    if (depthwise) {
        g.inChannels = g.channels = uniform(rng, 1, 3) == 1 ? uniform(rng, 1, 9) : uniform(rng, 1, 80);
    } else {
        // Few input channels, kernels up to 7x7 (wider rows, so that runs of 6 pixels have their
        // window inside), and geometries only NNEMU_NPU_KERNELS=all gives the kernel.
        g.inWidth = uniform(rng, 1, 40);
        g.inChannels = uniform(rng, 1, 3) == 1 ? uniform(rng, 5, 12) : uniform(rng, 1, 4);
        g.channels = uniform(rng, 1, 40);
        g.kernelHeight = uniform(rng, 1, 7);
        g.kernelWidth = uniform(rng, 1, 7);
        g.strideWidth = uniform(rng, 1, 3);
        g.dilationHeight = uniform(rng, 1, 2);
        g.dilationWidth = uniform(rng, 1, 2);
    }
    geometry(rng, g.inHeight, g.kernelHeight, g.strideHeight, g.dilationHeight, &g.outHeight, &g.padTop);
    geometry(rng, g.inWidth, g.kernelWidth, g.strideWidth, g.dilationWidth, &g.outWidth, &g.padLeft);
    const uint32_t clamp = uniform(rng, 0, 2);  // none, RELU, RELU6
    g.low = clamp == 0 ? -std::numeric_limits<float>::infinity() : 0.0f;
    g.high = clamp == 2 ? 6.0f : std::numeric_limits<float>::infinity();
    const size_t filterSize =
        size_t{g.kernelHeight} * g.kernelWidth * g.channels * (depthwise ? 1 : g.inChannels);
    for (size_t i = 0; i < size_t{g.batches} * g.inHeight * g.inWidth * g.inChannels; ++i) c.input.push_back(value(rng));
    for (size_t i = 0; i < filterSize; ++i) c.filter.push_back(value(rng));
    for (size_t i = 0; i < g.channels; ++i) c.bias.push_back(value(rng));
    return c;
}

std::vector<uint8_t> packed(const ConvCase& c) {
    std::vector<uint8_t> bytes;
    if (c.depthwise) {
        EXPECT_TRUE(packFloatDepthwise(reinterpret_cast<const uint8_t*>(c.filter.data()),
                                       reinterpret_cast<const uint8_t*>(c.bias.data()), c.g.channels, &bytes));
        EXPECT_TRUE(checkPackedFloatDepthwise(bytes, c.g.channels));
        return bytes;
    }
    FloatGemmSpec spec;
    spec.depth = c.g.kernelHeight * c.g.kernelWidth * c.g.inChannels;
    spec.channels = c.g.channels;
    spec.weights = reinterpret_cast<const uint8_t*>(c.filter.data());
    spec.bias = reinterpret_cast<const uint8_t*>(c.bias.data());
    EXPECT_TRUE(packFloatGemm(spec, &bytes));
    return bytes;
}

void run(Isa isa, const ConvCase& c, std::span<const uint8_t> bytes, float* output, size_t begin, size_t end) {
    if (c.depthwise) return runFloatDepthwiseRows(isa, c.g, bytes, c.input.data(), output, begin, end);
    std::vector<float> scratch;
    runFloatConvRows(isa, c.g, bytes, c.input.data(), output, begin, end, &scratch);
}

// Every output against the double sum of its in-bounds products: float sums of the taps + 1
// terms in any order err by at most (terms) half-ulps of a running sum bounded by the sum of
// magnitudes, so (terms) * magnitude * epsilon bounds it.
void expectNearReference(const ConvCase& c, const std::vector<float>& got) {
    const FloatImage& g = c.g;
    const size_t cin = c.depthwise ? 1 : g.inChannels;
    for (size_t b = 0; b < g.batches; ++b) {
        for (size_t oy = 0; oy < g.outHeight; ++oy) {
            for (size_t ox = 0; ox < g.outWidth; ++ox) {
                for (size_t n = 0; n < g.channels; ++n) {
                    double sum = c.bias[n], magnitude = std::fabs(c.bias[n]);
                    size_t terms = 1;
                    for (size_t ky = 0; ky < g.kernelHeight; ++ky) {
                        for (size_t kx = 0; kx < g.kernelWidth; ++kx) {
                            const long y = static_cast<long>(oy * g.strideHeight + ky * g.dilationHeight) - g.padTop;
                            const long x = static_cast<long>(ox * g.strideWidth + kx * g.dilationWidth) - g.padLeft;
                            if (y < 0 || y >= long{g.inHeight} || x < 0 || x >= long{g.inWidth}) continue;
                            for (size_t i = 0; i < cin; ++i) {
                                const size_t channel = c.depthwise ? n : i;
                                const double in =
                                    c.input[((b * g.inHeight + y) * g.inWidth + x) * g.inChannels + channel];
                                const double w = c.depthwise
                                                     ? c.filter[(ky * 3 + kx) * g.channels + n]
                                                     : c.filter[((n * g.kernelHeight + ky) * g.kernelWidth + kx) * cin + i];
                                sum += in * w;
                                magnitude += std::fabs(in * w);
                                ++terms;
                            }
                        }
                    }
                    const double expected = std::min<double>(std::max<double>(sum, g.low), g.high);
                    const double bound = terms * magnitude * std::numeric_limits<float>::epsilon();
                    const size_t at = ((b * g.outHeight + oy) * g.outWidth + ox) * g.channels + n;
                    ASSERT_NEAR(got[at], expected, bound) << "batch " << b << " y " << oy << " x " << ox << " n " << n;
                }
            }
        }
    }
}

void checkEveryIsa(bool depthwise, uint32_t seed) {
    std::mt19937 rng(seed);
    for (int trial = 0; trial < 80; ++trial) {
        const ConvCase c = randomCase(rng, depthwise);
        const std::vector<uint8_t> bytes = packed(c);
        const FloatImage& g = c.g;
        const size_t rows = size_t{g.batches} * g.outHeight;
        for (Isa isa : supportedIsas()) {
            SCOPED_TRACE(std::string(isaName(isa)) + " in " + std::to_string(g.inHeight) + "x" + std::to_string(g.inWidth) +
                         "x" + std::to_string(g.inChannels) + " channels " + std::to_string(g.channels) + " stride " +
                         std::to_string(g.strideHeight) + " pad " + std::to_string(g.padTop) + "," +
                         std::to_string(g.padLeft));
            std::vector<float> whole(rows * g.outWidth * g.channels, NAN);
            run(isa, c, bytes, whole.data(), 0, rows);
            expectNearReference(c, whole);
            std::vector<float> sliced(whole.size(), NAN);
            for (size_t r = 0; r < rows; r += 3) run(isa, c, bytes, sliced.data(), r, std::min(rows, r + 3));
            ASSERT_EQ(0, std::memcmp(sliced.data(), whole.data(), whole.size() * sizeof(float)));
        }
    }
}

TEST(KernelFloatDepthwise, EveryIsaMatchesADoublePrecisionReference) { checkEveryIsa(true, 20261130); }

TEST(KernelFloatConv, EveryIsaMatchesADoublePrecisionReference) { checkEveryIsa(false, 3); }

// The documented summation order: every output equals, to the bit, the float GEMM's over its
// unfolded window (bias, then the taps in (row, column, input channel) order, zeros outside).
TEST(KernelFloatConv, EqualsTheFloatGemmOverUnfoldedWindowsToTheBit) {
    std::mt19937 rng(11);
    for (int trial = 0; trial < 60; ++trial) {
        const ConvCase c = randomCase(rng, false);
        const FloatImage& g = c.g;
        const std::vector<uint8_t> bytes = packed(c);
        const size_t pixels = size_t{g.batches} * g.outHeight * g.outWidth;
        const size_t depth = size_t{g.kernelHeight} * g.kernelWidth * g.inChannels;
        std::vector<float> unfolded(pixels * depth, 0.0f);
        float* to = unfolded.data();
        for (size_t b = 0; b < g.batches; ++b) {
            for (size_t oy = 0; oy < g.outHeight; ++oy) {
                for (size_t ox = 0; ox < g.outWidth; ++ox) {
                    for (size_t ky = 0; ky < g.kernelHeight; ++ky) {
                        for (size_t kx = 0; kx < g.kernelWidth; ++kx, to += g.inChannels) {
                            const long y = static_cast<long>(oy * g.strideHeight + ky * g.dilationHeight) - g.padTop;
                            const long x = static_cast<long>(ox * g.strideWidth + kx * g.dilationWidth) - g.padLeft;
                            if (y < 0 || y >= long{g.inHeight} || x < 0 || x >= long{g.inWidth}) continue;
                            std::memcpy(to, &c.input[((b * g.inHeight + y) * g.inWidth + x) * g.inChannels],
                                        g.inChannels * sizeof(float));
                        }
                    }
                }
            }
        }
        for (Isa isa : supportedIsas()) {
            SCOPED_TRACE(std::string(isaName(isa)) + " trial " + std::to_string(trial));
            std::vector<float> direct(pixels * g.channels, NAN), gemm(direct.size(), NAN);
            run(isa, c, bytes, direct.data(), 0, size_t{g.batches} * g.outHeight);
            runFloatGemmTile(isa, bytes, unfolded.data(), gemm.data(), g.low, g.high, 0, pixels, 0, g.channels);
            ASSERT_EQ(0, std::memcmp(direct.data(), gemm.data(), direct.size() * sizeof(float)));
        }
    }
}

TEST(KernelFloatDepthwise, UnpackGivesTheFilterBack) {
    std::mt19937 rng(5);
    for (int trial = 0; trial < 20; ++trial) {
        const ConvCase c = randomCase(rng, true);
        std::vector<uint8_t> filter;
        ASSERT_TRUE(unpackFloatDepthwise(packed(c), &filter));
        ASSERT_EQ(filter.size(), c.filter.size() * sizeof(float));
        EXPECT_EQ(0, std::memcmp(filter.data(), c.filter.data(), filter.size()));
    }
}

TEST(KernelFloatDepthwise, MalformedPackedBytesAreRefused) {
    std::mt19937 rng(9);
    const ConvCase c = randomCase(rng, true);
    std::vector<uint8_t> bytes = packed(c);
    EXPECT_FALSE(checkPackedFloatDepthwise(bytes, c.g.channels + 1));
    EXPECT_FALSE(checkPackedFloatDepthwise(std::span<const uint8_t>(bytes).first(bytes.size() - 4), c.g.channels));
    std::vector<uint8_t> filter;
    EXPECT_FALSE(unpackFloatDepthwise(std::span<const uint8_t>(bytes).first(20), &filter));
    bytes[0] ^= 1;  // the magic
    EXPECT_FALSE(checkPackedFloatDepthwise(bytes, c.g.channels));
    EXPECT_FALSE(unpackFloatDepthwise(bytes, &filter));
    EXPECT_FALSE(packFloatDepthwise(nullptr, nullptr, 4, &bytes));
}

}  // namespace
}  // namespace nnemu::synap::kernels
