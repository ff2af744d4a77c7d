// How the own-kernel layers cut their work over the core's threads (OwnLayerSupport.h): slices
// by cost, along the channels when the rows are few, covering every output once; and the
// kernels (GEMM, depthwise, unfolded convolution, same-shape ADD) give the same bytes on a 2-thread pool as on
// the calling thread alone.
#include <gtest/gtest.h>

#include "KernelTestSupport.h"
#include "core/OwnLayerSupport.h"
#include "kernels/Depthwise.h"
#include "kernels/QuantAdd.h"
#include "kernels/QuantConv.h"
#include "kernels/QuantGemm.h"

namespace nnemu::synap::own {
namespace {

using namespace kernels;

struct Shape {
    size_t rows, units;
    double unitRowCost;
};

// MobileNet-like GEMMs (16-channel units, 16 x depth per unit row) and depthwise layers (rows).
constexpr Shape kShapes[] = {
        {12544, 1, 16 * 32},  {12544, 6, 16 * 16},   {3136, 9, 16 * 24},  {196, 24, 16 * 64}, {49, 60, 16 * 160},
        {49, 10, 16 * 960},   {1, 63, 16 * 1280},    {1, 1, 16 * 8},      {3, 2, 16 * 4},     {112, 1, 36 * 112 * 96},
        {7, 1, 36 * 7 * 960}, {14, 1, 36 * 14 * 576}, {2, 1, 36 * 2 * 8}, {0, 4, 100},        {5, 0, 100}};

TEST(OwnSlicing, SlicesCoverEveryOutputOnceAndAreWorthTheirCost) {
    for (size_t threads = 1; threads <= 5; ++threads) {
        for (const Shape& s : kShapes) {
            const Tiling t = tilingOf(threads, s.rows, s.units, s.unitRowCost);
            const size_t slices = t.rowSlices * t.unitSlices;
            ASSERT_GE(slices, 1u);
            if (slices == 1) continue;
            EXPECT_TRUE(slices % threads == 0 || slices < threads) << s.rows << "x" << s.units << " on " << threads;
            EXPECT_LE(slices, 4 * threads);
            EXPECT_GE(static_cast<double>(s.rows * s.units) * s.unitRowCost / static_cast<double>(slices),
                      kMinSliceCost);
            std::vector<int> covered(s.rows * s.units, 0);
            for (size_t i = 0; i < slices; ++i) {
                const size_t r = i / t.unitSlices, u = i % t.unitSlices;
                for (size_t row = s.rows * r / t.rowSlices; row < s.rows * (r + 1) / t.rowSlices; ++row) {
                    for (size_t unit = s.units * u / t.unitSlices; unit < s.units * (u + 1) / t.unitSlices; ++unit) {
                        ++covered[row * s.units + unit];
                    }
                }
            }
            EXPECT_EQ(std::count(covered.begin(), covered.end(), 1), static_cast<long>(covered.size()));
        }
    }
}

TEST(OwnSlicing, GrainedSlicesAreWholeGrainsAndCoverEveryOutputOnce) {
    // AMX-like rules (gemmCutRules): 32-row groups, pairs of blocks, one channel slice per thread.
    for (size_t threads = 1; threads <= 5; ++threads) {
        for (const Shape& s : kShapes) {
            const CutRules rules{s.unitRowCost * 0.3, 32, 2, 32, 1};
            const Tiling t = tilingOf(threads, s.rows, s.units, rules);
            const size_t slices = t.rowSlices * t.unitSlices;
            ASSERT_GE(slices, 1u);
            if (slices == 1) continue;
            EXPECT_LE(t.rowSlices, grainsOf(s.rows, 32));
            EXPECT_LE(t.unitSlices, grainsOf(s.units, 2));
            if (t.unitSlices > 1) {
                EXPECT_LE(slices, threads) << s.rows << "x" << s.units << " on " << threads;
            }
            std::vector<int> covered(s.rows * s.units, 0);
            for (size_t i = 0; i < slices; ++i) {
                const size_t r = i / t.unitSlices, u = i % t.unitSlices;
                const size_t rowBegin = grainBoundary(s.rows, 32, r, t.rowSlices);
                const size_t rowEnd = grainBoundary(s.rows, 32, r + 1, t.rowSlices);
                const size_t unitBegin = grainBoundary(s.units, 2, u, t.unitSlices);
                const size_t unitEnd = grainBoundary(s.units, 2, u + 1, t.unitSlices);
                EXPECT_TRUE(rowBegin % 32 == 0 && unitBegin % 2 == 0);
                EXPECT_TRUE(rowEnd % 32 == 0 || rowEnd == s.rows);
                EXPECT_TRUE(unitEnd % 2 == 0 || unitEnd == s.units);
                for (size_t row = rowBegin; row < rowEnd; ++row) {
                    for (size_t unit = unitBegin; unit < unitEnd; ++unit) ++covered[row * s.units + unit];
                }
            }
            EXPECT_EQ(std::count(covered.begin(), covered.end(), 1), static_cast<long>(covered.size()));
        }
    }
}

TEST(OwnSlicing, LayersOfFewRowsUseEveryThread) {
    // 7x7 1x1 convolutions and the classifier: along the channels.
    for (const Shape s : {Shape{49, 60, 16 * 160}, Shape{49, 10, 16 * 960}, Shape{1, 63, 16 * 1280}}) {
        const Tiling t = tilingOf(2, s.rows, s.units, s.unitRowCost);
        EXPECT_GE(t.unitSlices, 2u) << s.rows << "x" << s.units;
    }
    // A 7x7 depthwise layer of 960 channels: its 7 rows.
    EXPECT_GE(tilingOf(2, 7, 1, 36 * 7 * 960).rowSlices, 2u);
    // Tiny work stays whole.
    EXPECT_EQ(tilingOf(2, 3, 2, 16 * 4).rowSlices * tilingOf(2, 3, 2, 16 * 4).unitSlices, 1u);
}

class Pool {
public:
    explicit Pool(size_t threads) : pool_(CorePool::create(threads)) {}
    CorePool* get() const { return pool_.get(); }

private:
    std::unique_ptr<CorePool> pool_;
};

// The GEMM as GemmLayer runs it (OwnConvolutionLayers.cpp: cut by gemmCutRules) on `pool`.
std::vector<uint8_t> gemmOn(CorePool* pool, Isa isa, const std::vector<uint8_t>& packed,
                            const std::vector<uint8_t>& input, size_t rows, size_t channels) {
    std::vector<uint8_t> out(rows * channels, 0xCD);
    QuantGemmScratch scratch;
    QuantGemmJob job;
    EXPECT_TRUE(prepareQuantGemm(isa, packed, input.data(), rows, out.data(), &scratch, &job));
    const size_t blocks = (channels + kGemmBlock - 1) / kGemmBlock;
    inTiles(pool, rows, blocks, gemmCutRules(job),
            [&](size_t begin, size_t end, size_t first, size_t last) {
                runQuantGemmTile(job, begin, end, first * kGemmBlock, last * kGemmBlock);
            });
    return out;
}

TEST(OwnSlicing, GemmOnTwoThreadsMatchesOneBitForBit) {
    Pool two(2);
    std::mt19937 rng(77);
    const uint32_t shapes[][3] = {{49, 160, 960}, {49, 960, 160}, {1, 1280, 1000}, {196, 96, 576}, {3136, 24, 144},
                                  {49, 960, 320}, {196, 384, 64}, {200, 512, 512}, {40, 256, 48}};
    for (Family family : {Family::Uint8, Family::Int8, Family::Int8PerChannel}) {
        for (const auto& shape : shapes) {
            const uint32_t rows = shape[0], depth = shape[1], channels = shape[2];
            RandomQuant quant(rng, family, channels, 0, -2.0f, 4.5f);
            const std::vector<uint8_t> input = randomBytes(rng, size_t{rows} * depth);
            const std::vector<uint8_t> weights = randomBytes(rng, size_t{channels} * depth);
            QuantGemmSpec spec;
            quant.fill(&spec, weights);
            spec.depth = depth;
            spec.channels = channels;
            std::vector<uint8_t> packed;
            ASSERT_TRUE(packQuantGemm(spec, &packed));
            for (Isa isa : supportedIsas()) {
                EXPECT_EQ(gemmOn(two.get(), isa, packed, input, rows, channels),
                          gemmOn(nullptr, isa, packed, input, rows, channels))
                        << isaName(isa) << " " << rows << "x" << depth << "x" << channels;
            }
        }
    }
}

TEST(OwnSlicing, DepthwiseOnTwoThreadsMatchesOneBitForBit) {
    Pool two(2);
    std::mt19937 rng(78);
    const uint32_t shapes[][3] = {{7, 960, 1}, {14, 576, 1}, {28, 192, 2}, {56, 144, 2}};  // size, channels, stride
    for (Family family : {Family::Uint8, Family::Int8PerChannel}) {
        for (const auto& shape : shapes) {
            const uint32_t size = shape[0], channels = shape[1], stride = shape[2];
            RandomQuant quant(rng, family, channels, 3, -1.5f, 3.5f);
            const std::vector<uint8_t> input = randomBytes(rng, size_t{size} * size * channels);
            const std::vector<uint8_t> weights = randomBytes(rng, size_t{9} * channels);
            DepthwiseSpec spec;
            quant.fill(&spec, weights);
            spec.batches = 1;
            spec.inHeight = spec.inWidth = size;
            spec.channels = channels;
            spec.outHeight = spec.outWidth = (size - 1) / stride + 1;  // SAME padding
            spec.stride = stride;
            spec.padTop = spec.padLeft = stride == 1 ? 1 : 0;
            PackedDepthwise packed(channels);
            ASSERT_TRUE(packDepthwise(spec, &packed));
            const size_t rows = spec.outHeight, outBytes = rows * spec.outWidth * channels;
            for (Isa isa : supportedIsas()) {
                std::vector<uint8_t> one(outBytes, 0xCD), both(outBytes, 0xAB);
                for (const auto& [pool, target] : {std::pair{two.get(), &both}, std::pair{static_cast<CorePool*>(nullptr), &one}}) {
                    std::vector<uint8_t>* out = target;  // a structured binding cannot be captured before C++20
                    inTiles(pool, rows, 1, 36.0 * spec.outWidth * channels, [&](size_t begin, size_t end, size_t, size_t) {
                        runDepthwise(isa, packed, input.data(), out->data(), begin, end);
                    });
                }
                EXPECT_EQ(both, one) << isaName(isa) << " " << size << "x" << size << "x" << channels;
            }
        }
    }
}

TEST(OwnSlicing, UnfoldedConvolutionOnTwoThreadsMatchesOneBitForBit) {
    Pool two(2);
    std::mt19937 rng(79);
    // First layers of image networks: size, input channels, output channels, stride (3x3, SAME).
    const uint32_t shapes[][4] = {{224, 3, 32, 2}, {96, 3, 16, 2}, {56, 16, 24, 1}, {9, 8, 8, 1}};
    for (Family family : {Family::Uint8, Family::Int8, Family::Int8PerChannel}) {
        for (const auto& shape : shapes) {
            const uint32_t size = shape[0], inChannels = shape[1], channels = shape[2], stride = shape[3];
            RandomQuant quant(rng, family, channels, 0, -2.0f, 4.5f);
            const std::vector<uint8_t> input = randomBytes(rng, size_t{size} * size * inChannels);
            const std::vector<uint8_t> weights = randomBytes(rng, size_t{channels} * 9 * inChannels);
            QuantConvSpec spec;
            quant.fill(&spec, weights);
            spec.batches = 1;
            spec.inHeight = spec.inWidth = size;
            spec.inChannels = inChannels;
            spec.channels = channels;
            spec.outHeight = spec.outWidth = (size - 1) / stride + 1;
            spec.kernelHeight = spec.kernelWidth = 3;
            spec.strideHeight = spec.strideWidth = stride;
            spec.padTop = spec.padLeft = stride == 1 ? 1 : 0;
            PackedQuantConv packed;
            ASSERT_TRUE(packQuantConv(spec, &packed));
            const size_t outBytes = size_t{spec.outHeight} * spec.outWidth * channels;
            for (Isa isa : supportedIsas()) {
                std::vector<uint8_t> one(outBytes, 0xCD), both(outBytes, 0xAB);
                ASSERT_TRUE(runUnfoldedConvolution(nullptr, isa, packed, input.data(), one.data()));
                ASSERT_TRUE(runUnfoldedConvolution(two.get(), isa, packed, input.data(), both.data()));
                EXPECT_EQ(both, one) << isaName(isa) << " " << size << "x" << size << "x" << inChannels;
            }
        }
    }
}

TEST(OwnSlicing, AddOnTwoThreadsMatchesOneBitForBit) {
    Pool two(2);
    std::mt19937 rng(80);
    // MobileNet v2's residual ADDs (56x56x24 ... 7x7x160), odd counts, and one below a slice.
    for (const size_t count : {size_t{75264}, size_t{25088}, size_t{18816}, size_t{7840}, size_t{16385}, size_t{40001}}) {
        for (const bool isSigned : {false, true}) {
            QuantAddSpec spec;
            spec.signedValues = isSigned;
            spec.zeroPoints[0] = isSigned ? -3 : 125;
            spec.zeroPoints[1] = isSigned ? 7 : 131;
            spec.scales[0] = 0.031f;
            spec.scales[1] = 0.047f;
            spec.outputZeroPoint = isSigned ? -1 : 128;
            spec.outputScale = 0.06f;
            spec.low = isSigned ? -128 : 0;
            spec.high = isSigned ? 127 : 255;
            QuantAddParams params{};
            ASSERT_TRUE(prepareQuantAdd(spec, &params));
            const std::vector<uint8_t> a = randomBytes(rng, count), b = randomBytes(rng, count);
            for (Isa isa : supportedIsas()) {
                std::vector<uint8_t> one(count, 0xCD), both(count, 0xAB);
                addInSlices(nullptr, isa, params, a.data(), b.data(), one.data(), count);
                addInSlices(two.get(), isa, params, a.data(), b.data(), both.data(), count);
                EXPECT_EQ(both, one) << isaName(isa) << " " << count;
            }
        }
    }
}

}  // namespace
}  // namespace nnemu::synap::own
