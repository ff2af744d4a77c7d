// The float GEMM of TFLite's x86 build, bit for bit: its CONV_2D (after im2col) and
// FULLY_CONNECTED hand dst = filters (row-major, one row per output channel) x im2col (one column
// per output pixel) to Eigen's matrix product, compiled for SSE2 without FMA (each product rounded,
// then added). Eigen sums each output in an order set by where it falls in its blocking:
// - depth blocks of kc (from the L1 data cache size Eigen reads with CPUID, eigenL1CacheBytes):
//   each block summed from 0, the blocks added to the result in order;
// - within a block, output channels in groups of 8 (two 4-float packets) sum sequentially; a last
//   group of 4 channels alternates even and odd depths over the whole groups of 8 depths
//   (then adds the two, then the rest) for pixels in groups of 4, sequentially for the last
//   pixels; the last 1-3 channels sum each depth modulo 4 apart (then (s0 + s1) + (s2 + s3), then
//   the rest) for pixels in groups of 4, sequentially for the last pixels;
// - one pixel or one channel: Eigen's matrix-vector product (each row in 4 lanes of depth modulo
//   4, reduced (l0 + l2) + (l1 + l3), then the rest); one of each: its inner product (4 packets);
//   depth + channels + pixels below 20: its coefficient-wise product (a sum of 2 packets).
// Then TFLite adds the bias and clamps. The kernels here give those bits with the outputs as SIMD
// lanes, each lane keeping its output's order (no FMA: the files build with -ffp-contract=off).
#pragma once

#include <cstddef>
#include <vector>

namespace nnemu::tflite::kernels::floatgemm {

// Output channels per packed weight block (the SIMD lanes of the tile kernels).
constexpr size_t kLanes = 16;
// Output pixels per tile, at most (each ISA's build takes its own count, up to this).
constexpr size_t kMaxPixels = 8;

// The filters [units, depth] packed depth-major in blocks of kLanes channels (zero padded), and
// the row-major copy the scalar orders read.
struct Plan {
    size_t units = 0, depth = 0, blocks = 0;
    std::vector<float> packed;
    std::vector<float> rows;
};
void makePlan(const float* filters, size_t units, size_t depth, Plan* plan);

// Eigen's L1 data cache size as its queryCacheSizes finds it (CPUID leaf 4 on Intel and other
// vendors, 0x80000005 on AMD; 32 KB when it finds none), and the depth block kc of a product.
size_t eigenL1CacheBytes();
size_t depthBlock(size_t depth, size_t units, size_t pixels, size_t l1Bytes);

// out[p * units + c] = clamp(sum_d filters[c][d] * in[p * depth + d] (in Eigen's order) + bias[c])
// to [low, high]; bias may be nullptr (no addition). `in` holds `pixels` rows of `depth` values.
void run(const Plan& plan, const float* in, size_t pixels, const float* bias, float low, float high, float* out);

// One tile: sums of up to the build's pixels per tile for one block of kLanes channels over
// depths [first, first + length), sequentially from 0, added to acc[pixel * kLanes + lane].
using TileKernel = void (*)(const float* packedBlock, const float* const* pixelRows, size_t pixelCount, size_t first,
                            size_t length, float* acc);
// The same for Eigen's matrix-vector order over the whole depth: lanes of depth modulo 4, reduced
// (l0 + l2) + (l1 + l3), then the rest, written to sums[lane].
using GemvKernel = void (*)(const float* packedBlock, const float* row, size_t depth, float* sums);

// Each build's kernels and its pixels per tile (4 portable: 16 SSE registers of accumulators;
// 8 with AVX-512's 32).
struct LaneKernels {
    TileKernel tile;
    GemvKernel gemv;
    size_t pixels;
};
LaneKernels portableKernels();
LaneKernels avx512Kernels();

}  // namespace nnemu::tflite::kernels::floatgemm
