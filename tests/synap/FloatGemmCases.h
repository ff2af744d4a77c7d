// Random float GEMM cases for the kernels' property tests (KernelFloatGemmTest.cpp,
// KernelFloatGemmBf16Test.cpp): shapes small and odd or up to `maxDepth` deep, values in [-1, 1],
// no clamp, RELU or RELU6.
#pragma once

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace nnemu::synap::kernels::test {

struct Case {
    uint32_t rows, depth, channels;
    std::vector<float> input, weights, bias;
    float low, high;
};

inline Case randomCase(std::mt19937& rng, int maxDepth = 200) {
    auto uniform = [&](int lo, int hi) { return static_cast<uint32_t>(std::uniform_int_distribution<int>(lo, hi)(rng)); };
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    Case c;
    c.rows = uniform(1, 23);
    c.depth = uniform(1, 3) == 1 ? uniform(1, 9) : uniform(1, maxDepth);
    c.channels = uniform(1, 3) == 1 ? uniform(1, 9) : uniform(1, 100);
    for (size_t i = 0; i < size_t{c.rows} * c.depth; ++i) c.input.push_back(value(rng));
    for (size_t i = 0; i < size_t{c.channels} * c.depth; ++i) c.weights.push_back(value(rng));
    for (size_t i = 0; i < c.channels; ++i) c.bias.push_back(value(rng));
    const uint32_t clamp = uniform(0, 2);  // none, RELU, RELU6
    c.low = clamp == 0 ? -std::numeric_limits<float>::infinity() : 0.0f;
    c.high = clamp == 2 ? 6.0f : std::numeric_limits<float>::infinity();
    return c;
}

}  // namespace nnemu::synap::kernels::test
