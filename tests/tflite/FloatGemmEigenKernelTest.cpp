// The lane kernels of the float GEMM in TFLite's order (src/cpu/FloatGemmEigen.h): the portable
// build and the AVX-512 one (where the CPU has it) give, lane by lane, the plain sequential sums
// of each depth range (each product rounded, then added), for every tile size; the matrix-vector
// kernel the 4-lane order. The orders themselves are checked against real TFLite in
// RealTfliteFloatConvTest.cpp (which runs the build the CPU picks).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "cpu/FloatGemmEigen.h"

namespace nnemu::tflite::kernels::floatgemm {
namespace {

std::vector<float> spread(size_t count, uint32_t seed) {
    std::vector<float> values(count);
    for (float& v : values) {
        seed = seed * 1664525u + 1013904223u;
        v = static_cast<float>((seed >> 8) / 8388608.0 - 1.0);
    }
    return values;
}

volatile float sink;   // keeps the reference's products and sums apart
float product(float a, float b) {
    sink = a * b;
    return sink;
}
float add(float a, float b) {
    sink = a + b;
    return sink;
}

std::vector<LaneKernels> builds() {
    std::vector<LaneKernels> kernels = {portableKernels()};
    if (__builtin_cpu_supports("avx512f")) kernels.push_back(avx512Kernels());
    return kernels;
}

TEST(FloatGemmEigenKernel, TilesSumEachLaneInTurn) {
    const size_t depth = 37, units = 16;
    const std::vector<float> filters = spread(units * depth, 3), in = spread(kMaxPixels * depth, 5);
    Plan plan;
    makePlan(filters.data(), units, depth, &plan);
    for (const LaneKernels& k : builds()) {
        for (size_t count = 1; count <= k.pixels; ++count) {
            SCOPED_TRACE("pixels " + std::to_string(count) + " of " + std::to_string(k.pixels));
            std::vector<const float*> rows(count);
            for (size_t i = 0; i < count; ++i) rows[i] = in.data() + i * depth;
            std::vector<float> acc(kMaxPixels * kLanes, 0.5f);
            k.tile(plan.packed.data(), rows.data(), count, 3, 30, acc.data());
            for (size_t i = 0; i < count; ++i) {
                for (size_t c = 0; c < units; ++c) {
                    float sum = 0;
                    for (size_t d = 3; d < 33; ++d) sum = add(sum, product(filters[c * depth + d], in[i * depth + d]));
                    const float want = add(0.5f, sum);
                    EXPECT_EQ(std::memcmp(&acc[i * kLanes + c], &want, 4), 0) << "pixel " << i << " channel " << c;
                }
            }
        }
    }
}

TEST(FloatGemmEigenKernel, MatrixVectorLanesOfDepthModuloFour) {
    for (const size_t depth : {1, 3, 4, 7, 8, 37}) {
        SCOPED_TRACE("depth " + std::to_string(depth));
        const size_t units = 16;
        const std::vector<float> filters = spread(units * depth, 7), in = spread(depth, 11);
        Plan plan;
        makePlan(filters.data(), units, depth, &plan);
        for (const LaneKernels& k : builds()) {
            float sums[kLanes];
            k.gemv(plan.packed.data(), in.data(), depth, sums);
            for (size_t c = 0; c < units; ++c) {
                float lane[4] = {0, 0, 0, 0};
                const size_t whole = depth / 4 * 4;
                for (size_t d = 0; d < whole; ++d) lane[d % 4] = add(lane[d % 4], product(filters[c * depth + d], in[d]));
                float want = add(add(lane[0], lane[2]), add(lane[1], lane[3]));
                for (size_t d = whole; d < depth; ++d) want = add(want, product(filters[c * depth + d], in[d]));
                EXPECT_EQ(std::memcmp(&sums[c], &want, 4), 0) << "channel " << c;
            }
        }
    }
}

TEST(FloatGemmEigenKernel, DepthBlocksAsEigenSplitsThem) {
    // 48 KB of L1: blocks of at most ((49152 - 128) / 48) & ~7 = 1016; below 48 in every dimension, none.
    EXPECT_EQ(depthBlock(1016, 64, 64, 48 * 1024), 1016u);
    EXPECT_EQ(depthBlock(1024, 64, 64, 48 * 1024), 520u);
    EXPECT_EQ(depthBlock(2032, 64, 64, 48 * 1024), 1016u);
    EXPECT_EQ(depthBlock(3000, 9, 15, 48 * 1024), 1008u);
    EXPECT_EQ(depthBlock(40, 40, 40, 1024), 40u);
    // 32 KB (Eigen's default): 680.
    EXPECT_EQ(depthBlock(700, 64, 64, 32 * 1024), 352u);
    EXPECT_GE(eigenL1CacheBytes(), 1024u);
}

}  // namespace
}  // namespace nnemu::tflite::kernels::floatgemm
