// The per-instruction-set builds of the CPU path's XNNPACK float GEMM and depthwise
// (XnnpackFloatTile.h) against a plain loop of the order XnnpackFloatConv.h describes, bit for bit,
// on every build this CPU can run: shapes past every tile edge (1-13 pixels, units and channels
// across 4-, 8- and 16-lane vectors and 32-unit groups), both accumulator modes, padded taps, and
// values with full mantissas, signed zeros, infinities and NaN. RealTfliteFloatXnnpackTest.cpp
// checks the same order against real TFLite's XNNPACK.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cpu/XnnpackFloatKernels.h"

namespace nnemu::tflite::test {
namespace {

using kernels::xnnpackfloat::DepthwiseShape;
using kernels::xnnpackfloat::IsaKernels;

struct Build {
    std::string name;
    IsaKernels kernels;
};

std::vector<Build> buildsHere() {
    std::vector<Build> builds{{"portable", kernels::xnnpackfloat::portableKernels()}};
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        builds.push_back({"avx2", kernels::xnnpackfloat::avx2Kernels()});
    }
    if (__builtin_cpu_supports("avx512f")) builds.push_back({"avx512", kernels::xnnpackfloat::avx512Kernels()});
    return builds;
}

// Mostly full-mantissa values; one in `special` of them a signed zero, an infinity or NaN.
std::vector<float> values(std::mt19937& random, size_t count, int special) {
    std::uniform_real_distribution<float> plain(-2.0f, 2.0f);
    const float odd[] = {0.0f, -0.0f, std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                         std::numeric_limits<float>::quiet_NaN(), 1e30f};
    std::vector<float> v(count);
    for (float& x : v) x = special > 0 && random() % special == 0 ? odd[random() % 6] : plain(random);
    return v;
}

bool sameBits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

float clampAs(float x, float low, float high) { return std::min(std::max(x, low), high); }

TEST(XnnpackFloatKernel, EveryGemmBuildGivesThePlainOrder) {
    std::mt19937 random(2612);
    const std::vector<Build> builds = buildsHere();
    const std::pair<float, float> ranges[] = {{-std::numeric_limits<float>::infinity(), std::numeric_limits<float>::infinity()},
                                             {0.0f, 6.0f},
                                             {-1.0f, 1.0f}};
    for (int i = 0; i < 400; ++i) {
        const size_t pixels = 1 + random() % 13, depth = 1 + random() % 70, units = 1 + random() % 70;
        const bool two = i % 2 == 0;
        const auto [low, high] = ranges[random() % 3];
        const int special = i % 4 == 3 ? 40 : 0;
        const std::vector<float> rows = values(random, pixels * depth, special);
        const std::vector<float> weights = values(random, units * depth, special);
        const std::vector<float> bias = values(random, units, special);
        std::vector<float> expected(pixels * units);
        for (size_t p = 0; p < pixels; ++p) {
            for (size_t u = 0; u < units; ++u) {
                float even = bias[u], odd = 0.0f;
                for (size_t k = 0; k < depth; ++k) {
                    float& sum = two && k % 2 == 1 ? odd : even;
                    sum = std::fma(rows[p * depth + k], weights[u * depth + k], sum);
                }
                expected[p * units + u] = clampAs(two ? even + odd : even, low, high);
            }
        }
        for (const Build& build : builds) {
            SCOPED_TRACE(build.name + ", case " + std::to_string(i) + ": " + std::to_string(pixels) + " x " +
                         std::to_string(depth) + " -> " + std::to_string(units) + (two ? ", two sums" : ", one sum"));
            const size_t lanes = build.kernels.lanes, padded = (units + lanes - 1) / lanes * lanes;
            std::vector<float> packed(padded * depth);
            build.kernels.pack(weights.data(), units, depth, packed.data());
            std::vector<float> paddedBias(padded, 0.0f);
            std::copy(bias.begin(), bias.end(), paddedBias.begin());
            std::vector<float> out(pixels * units + 16, 7.0f);   // a guard past the end
            build.kernels.gemm(rows.data(), pixels, packed.data(), units, depth, paddedBias.data(), low, high,
                               out.data(), two);
            EXPECT_TRUE(std::all_of(out.end() - 16, out.end(), [](float x) { return x == 7.0f; })) << "wrote past the end";
            out.resize(pixels * units);
            EXPECT_TRUE(sameBits(out, expected));
        }
    }
}

TEST(XnnpackFloatKernel, EveryDepthwiseBuildGivesThePlainOrder) {
    std::mt19937 random(2613);
    const std::vector<Build> builds = buildsHere();
    for (int i = 0; i < 200; ++i) {
        DepthwiseShape s{};
        s.batch = 1 + static_cast<int32_t>(random() % 2);
        s.kh = 1 + static_cast<int32_t>(random() % 5);
        s.kw = 1 + static_cast<int32_t>(random() % 5);
        s.strideH = 1 + static_cast<int32_t>(random() % 2);
        s.strideW = 1 + static_cast<int32_t>(random() % 2);
        s.dilationH = i % 5 == 0 ? 2 : 1;
        s.dilationW = i % 7 == 0 ? 2 : 1;
        s.inH = s.kh * s.dilationH + static_cast<int32_t>(random() % 6);
        s.inW = s.kw * s.dilationW + static_cast<int32_t>(random() % 6);
        s.inC = 1 + static_cast<int32_t>(random() % 70);
        s.padTop = static_cast<int32_t>(random() % static_cast<uint32_t>(s.kh));
        s.padLeft = static_cast<int32_t>(random() % static_cast<uint32_t>(s.kw));
        s.outH = (s.inH + s.padTop - (s.kh - 1) * s.dilationH - 1) / s.strideH + 1 + static_cast<int32_t>(random() % 2);
        s.outW = (s.inW + s.padLeft - (s.kw - 1) * s.dilationW - 1) / s.strideW + 1 + static_cast<int32_t>(random() % 2);
        s.multiplier = 1;
        const auto channels = static_cast<size_t>(s.inC);
        const int special = i % 4 == 3 ? 40 : 0;
        const std::vector<float> input = values(random, static_cast<size_t>(s.batch) * s.inH * s.inW * channels, special);
        const std::vector<float> filter = values(random, static_cast<size_t>(s.kh) * s.kw * channels, special);
        const std::vector<float> bias = values(random, channels, special);
        const float low = i % 3 == 0 ? 0.0f : -std::numeric_limits<float>::infinity();
        const float high = i % 3 == 0 ? 6.0f : std::numeric_limits<float>::infinity();
        std::vector<float> expected;
        for (int32_t b = 0; b < s.batch; ++b) {
            for (int32_t oy = 0; oy < s.outH; ++oy) {
                for (int32_t ox = 0; ox < s.outW; ++ox) {
                    for (size_t c = 0; c < channels; ++c) {
                        float sum = bias[c];
                        for (int32_t kx = 0; kx < s.kw; ++kx) {       // columns outer, rows inner
                            for (int32_t ky = 0; ky < s.kh; ++ky) {
                                const int32_t iy = oy * s.strideH - s.padTop + ky * s.dilationH;
                                const int32_t ix = ox * s.strideW - s.padLeft + kx * s.dilationW;
                                const bool inside = iy >= 0 && iy < s.inH && ix >= 0 && ix < s.inW;
                                const float x =
                                        inside ? input[((static_cast<size_t>(b) * s.inH + iy) * s.inW + ix) * channels + c]
                                               : 0.0f;
                                sum = std::fma(x, filter[(static_cast<size_t>(ky) * s.kw + kx) * channels + c], sum);
                            }
                        }
                        expected.push_back(clampAs(sum, low, high));
                    }
                }
            }
        }
        for (const Build& build : builds) {
            SCOPED_TRACE(build.name + ", case " + std::to_string(i) + ": " + std::to_string(s.inH) + "x" +
                         std::to_string(s.inW) + "x" + std::to_string(s.inC) + ", kernel " + std::to_string(s.kh) + "x" +
                         std::to_string(s.kw));
            std::vector<float> out(expected.size() + 16, 7.0f);
            build.kernels.depthwise(s, input.data(), filter.data(), bias.data(), low, high, out.data());
            EXPECT_TRUE(std::all_of(out.end() - 16, out.end(), [](float x) { return x == 7.0f; })) << "wrote past the end";
            out.resize(expected.size());
            EXPECT_TRUE(sameBits(out, expected));
        }
    }
}

}  // namespace
}  // namespace nnemu::tflite::test
