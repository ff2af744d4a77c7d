// Property tests of the NPU core's own 3x3 depthwise kernel (driver/synap/kernels): random
// shapes, strides 1 and 2, paddings, zero points, activations, multipliers below and above 1,
// uint8 / int8 / int8 per channel, against the reference DEPTHWISE_CONV_2D on every ISA
// (portable, AVX2 and AVX-512 VNNI where the CPU has them).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>

#include "KernelTestSupport.h"
#include "kernels/Depthwise.h"

namespace nnemu::synap::kernels {
namespace {

struct Case {
    uint32_t batches, height, width, channels, stride, pad[4];  // left, right, top, bottom
    RandomQuant quant;
    std::vector<uint8_t> input, weights;

    uint32_t outHeight() const { return (height + pad[2] + pad[3] - 3) / stride + 1; }
    uint32_t outWidth() const { return (width + pad[0] + pad[1] - 3) / stride + 1; }
};

Case randomCase(std::mt19937& rng, Family family) {
    auto uniform = [&](int lo, int hi) { return static_cast<uint32_t>(std::uniform_int_distribution<int>(lo, hi)(rng)); };
    const uint32_t batches = uniform(1, 2), stride = uniform(1, 2);
    const uint32_t pad[4] = {uniform(0, 2), uniform(0, 2), uniform(0, 2), uniform(0, 2)};
    const uint32_t height = uniform(3, 13), width = uniform(3, 13);
    // A quarter of the cases end in a block of exactly 8 channels (8, 24, ... 152: the AVX2
    // kernel's half block with whole 8-byte loads), the rest anything from 1 to 150.
    const uint32_t channels = uniform(0, 3) == 0 ? 8 + 16 * uniform(0, 9) : uniform(1, 150);
    RandomQuant quant(rng, family, channels, 3, -1.5f, 3.5f);
    std::vector<uint8_t> input = randomBytes(rng, size_t{batches} * height * width * channels);
    std::vector<uint8_t> weights = randomBytes(rng, size_t{9} * channels);
    return {batches, height, width, channels, stride, {pad[0], pad[1], pad[2], pad[3]}, std::move(quant),
            std::move(input), std::move(weights)};
}

std::vector<uint8_t> reference(Case& c) {
    int32_t pads[4] = {int32_t(c.pad[0]), int32_t(c.pad[1]), int32_t(c.pad[2]), int32_t(c.pad[3])};
    int32_t stride = static_cast<int32_t>(c.stride), multiplier = 1;
    hal::OperationContext context;
    context.type = hal::OperationType::DEPTHWISE_CONV_2D;
    context.inputs = {c.quant.input({c.batches, c.height, c.width, c.channels}, c.input),
                      c.quant.filter({1, 3, 3, c.channels}, c.weights), c.quant.biasView(), int32Scalar(&pads[0]),
                      int32Scalar(&pads[1]), int32Scalar(&pads[2]), int32Scalar(&pads[3]), int32Scalar(&stride),
                      int32Scalar(&stride), int32Scalar(&multiplier), int32Scalar(&c.quant.activation)};
    std::vector<uint8_t> out(size_t{c.batches} * c.outHeight() * c.outWidth() * c.channels);
    context.outputs = {c.quant.output({c.batches, c.outHeight(), c.outWidth(), c.channels}, out)};
    EXPECT_TRUE(runReference(context));
    return out;
}

// uint8 weights the VNNI kernel splits into 1, 2 or 3 signed sets: all within 127 of the filter
// zero point (maybe but one), spread over 0..255, or a zero point 0 with a weight 255.
void spreadWeights(std::mt19937& rng, int iteration, Case* c) {
    if (c->quant.family != Family::Uint8 || iteration % 3 == 0) return;
    if (iteration % 3 == 1) {
        std::uniform_int_distribution<int> near(-127, 127);
        for (uint8_t& w : c->weights) w = static_cast<uint8_t>(std::clamp(c->quant.filterZero + near(rng), 0, 255));
        // Sometimes one weight far off: that block needs 2 sets, the others 1.
        if (iteration % 2 == 1) c->weights[rng() % c->weights.size()] = c->quant.filterZero >= 128 ? 0 : 255;
    } else {
        c->quant.filterZero = 0;
        c->weights[rng() % c->weights.size()] = 255;
    }
}

DepthwiseSpec specOf(Case& c) {
    DepthwiseSpec spec;
    c.quant.fill(&spec, c.weights);
    spec.batches = c.batches;
    spec.inHeight = c.height;
    spec.inWidth = c.width;
    spec.channels = c.channels;
    spec.outHeight = c.outHeight();
    spec.outWidth = c.outWidth();
    spec.stride = c.stride;
    spec.padTop = c.pad[2];
    spec.padLeft = c.pad[0];
    return spec;
}

class KernelDepthwise : public ::testing::TestWithParam<Family> {};

TEST_P(KernelDepthwise, MatchesTheReferenceOnEveryIsa) {
    std::mt19937 rng(4321 + static_cast<int>(GetParam()));
    int folded = 0, sets[4] = {}, mixed = 0, avx2Folded = 0, avx2AboveZero = 0;
    for (int iteration = 0; iteration < 150; ++iteration) {
        Case c = randomCase(rng, GetParam());
        spreadWeights(rng, iteration, &c);
        const std::vector<uint8_t> expected = reference(c);
        const DepthwiseSpec spec = specOf(c);
        PackedDepthwise packed(c.channels);
        ASSERT_TRUE(packDepthwise(spec, &packed));
        avx2Folded += !packed.avx2.folded.empty();
        avx2AboveZero += !packed.avx2.folded.empty() && spec.low >= spec.outputZeroPoint;
        if (!packed.folded.empty()) {
            ++folded;
            ++sets[packed.weightSets];
            const auto& blocks = packed.blockSets;
            mixed += packed.weightSets > 1 && std::find(blocks.begin(), blocks.end(), 1) != blocks.end();
        }
        const size_t rows = size_t{c.batches} * c.outHeight();
        for (Isa isa : supportedIsas()) {
            std::vector<uint8_t> out(expected.size(), 0xCD);
            runDepthwise(isa, packed, c.input.data(), out.data(), rows / 2, rows + 1);
            runDepthwise(isa, packed, c.input.data(), out.data(), 0, rows / 2);
            ASSERT_EQ(out, expected) << isaName(isa) << " iteration " << iteration << ": " << c.height << "x" << c.width
                                     << "x" << c.channels << " stride " << c.stride;
        }
        // What the core keeps for its one isa (keepDepthwiseFor) computes the same.
        // Kept for each isa, stored as a program stores it, and run where it lies: the same.
        for (Isa isa : supportedIsas()) {
            PackedDepthwise kept = packed;
            keepDepthwiseFor(isa, &kept);
            std::vector<uint8_t> out(expected.size(), 0xCD);
            runDepthwise(isa, kept, c.input.data(), out.data(), 0, rows);
            ASSERT_EQ(out, expected) << "kept for " << isaName(isa) << ", iteration " << iteration;
            std::vector<uint8_t> stored;
            storeDepthwise(kept, &stored);
            DepthwiseArgs args;
            const bool folded = isa == Isa::Avx512Vnni ? !kept.folded.empty()
                                                       : baseIsa(isa) == Isa::Avx2 && !kept.avx2.folded.empty();
            EXPECT_EQ(viewStoredDepthwise(stored, spec, isa, true, &args), folded) << isaName(isa);
            ASSERT_TRUE(viewStoredDepthwise(stored, spec, isa, false, &args)) << isaName(isa);
            std::fill(out.begin(), out.end(), 0xCD);
            runDepthwise(isa, args, c.input.data(), out.data(), rows / 2, rows + 1);
            runDepthwise(isa, args, c.input.data(), out.data(), 0, rows / 2);
            ASSERT_EQ(out, expected) << "stored for " << isaName(isa) << ", iteration " << iteration;
            // An ISA that reads another's layouts (AVX-VNNI: AVX2's) stores exactly what that one
            // stores, so a program packed by either runs on both.
            if (baseIsa(isa) != isa) {
                PackedDepthwise base = packed;
                keepDepthwiseFor(baseIsa(isa), &base);
                std::vector<uint8_t> baseStored;
                storeDepthwise(base, &baseStored);
                EXPECT_EQ(stored, baseStored) << isaName(isa);
            }
        }
    }
    // The AVX2 kernel's folded and saturating requantizations both ran, the folded one also
    // with a clamp at or above the output zero point (ReLU: no negative nudge) and without.
    EXPECT_GT(avx2Folded, 30);
    EXPECT_LT(avx2Folded, 120);
    EXPECT_GT(avx2AboveZero, 10);
    EXPECT_LT(avx2AboveZero, avx2Folded - 10);
    // Both requantizations and, for uint8, every weight split ran.
    EXPECT_GT(folded, 30);
    EXPECT_LT(folded, 120);
    if (GetParam() == Family::Uint8) {
        EXPECT_GT(sets[1], 5);
        EXPECT_GT(sets[2], 5);
        EXPECT_GT(sets[3], 5);
        EXPECT_GT(mixed, 3);  // blocks with 1 set next to blocks with more
    }
}

// Rows wider than the random cases' (33-75 output columns against 3-15): several of the AVX-512
// kernel's 16-column tiles per row, the last one partial, with channel counts that take groups
// of 64 and 32 and 16-channel blocks (96, 144, 112, 40), in both strides.
TEST_P(KernelDepthwise, MatchesTheReferenceOnRowsOfSeveralTiles) {
    std::mt19937 rng(77 + static_cast<int>(GetParam()));
    auto uniform = [&](int lo, int hi) { return static_cast<uint32_t>(std::uniform_int_distribution<int>(lo, hi)(rng)); };
    int folded = 0;
    for (int iteration = 0; iteration < 12; ++iteration) {
        Case c = randomCase(rng, GetParam());
        c.width = uniform(33, 75);
        c.channels = std::array<uint32_t, 4>{96, 144, 112, 40}[iteration % 4];
        c.stride = 1 + iteration / 4 % 2;
        c.quant = RandomQuant(rng, GetParam(), c.channels, 3, -1.5f, 3.5f);
        c.input = randomBytes(rng, size_t{c.batches} * c.height * c.width * c.channels);
        c.weights = randomBytes(rng, size_t{9} * c.channels);
        const std::vector<uint8_t> expected = reference(c);
        PackedDepthwise packed(c.channels);
        ASSERT_TRUE(packDepthwise(specOf(c), &packed));
        folded += !packed.folded.empty();
        const size_t rows = size_t{c.batches} * c.outHeight();
        for (Isa isa : supportedIsas()) {
            std::vector<uint8_t> out(expected.size(), 0xCD);
            runDepthwise(isa, packed, c.input.data(), out.data(), 0, rows);
            ASSERT_EQ(out, expected) << isaName(isa) << " iteration " << iteration << ": " << c.height << "x" << c.width
                                     << "x" << c.channels << " stride " << c.stride;
        }
    }
    EXPECT_GT(folded, 3);  // the folded kernel (the tiles) ran
}

// Stored state from a program file is untrusted: every size, the layer's geometry and every
// shift are checked before anything points into it.
TEST(KernelDepthwiseStore, DamagedStoredStateIsRefused) {
    std::mt19937 rng(99);
    Case c = randomCase(rng, Family::Uint8);
    const DepthwiseSpec spec = specOf(c);
    PackedDepthwise packed(c.channels);
    ASSERT_TRUE(packDepthwise(spec, &packed));
    std::vector<uint8_t> stored;
    storeDepthwise(packed, &stored);
    DepthwiseArgs args;
    ASSERT_TRUE(viewStoredDepthwise(stored, spec, Isa::Portable, false, &args));
    EXPECT_FALSE(viewStoredDepthwise(std::span(stored).first(stored.size() - 1), spec, Isa::Portable, false, &args));
    EXPECT_FALSE(viewStoredDepthwise(std::span(stored).first(20), spec, Isa::Portable, false, &args));
    EXPECT_FALSE(viewStoredDepthwise({}, spec, Isa::Portable, false, &args));
    DepthwiseSpec wider = spec, more = spec;
    ++wider.inWidth;  // a longer zero-point row
    more.channels += 16;
    EXPECT_FALSE(viewStoredDepthwise(stored, wider, Isa::Portable, false, &args));
    EXPECT_FALSE(viewStoredDepthwise(stored, more, Isa::Portable, false, &args));
    // Each header word changed: magic, version, channels, padded, weight sets, then the sizes.
    for (size_t word = 0; word < 6 + 2 * 12; ++word) {
        if (word == 5) continue;  // reserved
        std::vector<uint8_t> damaged = stored;
        damaged[word * 4] ^= word < 4 ? 1 : 64;
        EXPECT_FALSE(viewStoredDepthwise(damaged, spec, Isa::Portable, false, &args)) << "word " << word;
    }
    // A right shift of 40 in the requantization arrays (the 5th array, after a 64-byte aligned header).
    std::vector<uint8_t> shifted = stored;
    const size_t padded = (c.channels + 15) / 16 * 16, header = 128;
    shifted[header + 4 * 4 * padded] = 40;
    EXPECT_FALSE(viewStoredDepthwise(shifted, spec, Isa::Portable, false, &args));
}

INSTANTIATE_TEST_SUITE_P(Families, KernelDepthwise,
                         ::testing::Values(Family::Uint8, Family::Int8, Family::Int8PerChannel));

}  // namespace
}  // namespace nnemu::synap::kernels
