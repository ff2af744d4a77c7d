// unpackQuantGemm recovers exactly the weights packQuantGemm packed (the program drops the raw
// filter of a packed layer): random shapes, uint8 and int8, per-tensor and per-channel scales;
// packing the unpacked weights again gives the same bytes, which every ISA runs the same.
#include <gtest/gtest.h>

#include <random>

#include "kernels/Isa.h"
#include "kernels/QuantGemm.h"

namespace nnemu::synap::kernels {
namespace {

struct Case {
    std::vector<uint8_t> weights;
    std::vector<int32_t> bias;
    std::vector<float> scales;
    QuantGemmSpec spec;
};

Case randomCase(std::mt19937& rng, bool signedValues) {
    Case c;
    auto pick = [&](int low, int high) { return std::uniform_int_distribution<int>(low, high)(rng); };
    c.spec.depth = static_cast<uint32_t>(pick(1, 300));
    c.spec.channels = static_cast<uint32_t>(pick(1, 70));
    c.weights.resize(size_t{c.spec.depth} * c.spec.channels);
    for (auto& w : c.weights) w = static_cast<uint8_t>(pick(0, 255));
    c.bias.resize(c.spec.channels);
    for (auto& b : c.bias) b = pick(-5000, 5000);
    const bool perChannel = signedValues && pick(0, 1) == 1;
    for (uint32_t i = 0; i < (perChannel ? c.spec.channels : 1); ++i) c.scales.push_back(0.001f * static_cast<float>(pick(1, 40)));
    c.spec.signedValues = signedValues;
    c.spec.inputZeroPoint = signedValues ? pick(-128, 127) : pick(0, 255);
    c.spec.filterZeroPoint = signedValues ? 0 : pick(0, 255);
    c.spec.outputZeroPoint = signedValues ? pick(-128, 127) : pick(0, 255);
    c.spec.inputScale = 0.02f;
    c.spec.outputScale = 0.0001f * static_cast<float>(pick(1, 100));  // multipliers below and above 1
    c.spec.filterScales = c.scales;
    c.spec.low = signedValues ? -128 : 0;
    c.spec.high = c.spec.low + 255;
    c.spec.weights = c.weights.data();
    c.spec.bias = c.bias.data();
    return c;
}

TEST(PackedWeightsUnpackTest, RoundTripsExactlyOnEveryIsa) {
    std::mt19937 rng(1234);
    for (int i = 0; i < 60; ++i) {
        Case c = randomCase(rng, i % 2 == 1);
        std::vector<uint8_t> packed, unpacked, repacked;
        ASSERT_TRUE(packQuantGemm(c.spec, &packed)) << i;
        ASSERT_TRUE(unpackQuantGemm(packed, &unpacked)) << i;
        ASSERT_EQ(unpacked, c.weights) << "case " << i;
        Case again = c;
        again.weights = unpacked;
        again.spec.weights = again.weights.data();
        again.spec.bias = again.bias.data();
        again.spec.filterScales = again.scales;
        ASSERT_TRUE(packQuantGemm(again.spec, &repacked)) << i;
        ASSERT_EQ(repacked, packed) << "case " << i;
        const size_t rows = 5;
        std::vector<uint8_t> input(rows * c.spec.depth);
        for (auto& v : input) v = static_cast<uint8_t>(rng());
        for (Isa isa : supportedIsas()) {
            std::vector<uint8_t> expected(rows * c.spec.channels), actual(expected.size());
            QuantGemmScratch scratch;
            ASSERT_TRUE(runQuantGemm(isa, packed, input.data(), rows, expected.data(), &scratch));
            ASSERT_TRUE(runQuantGemm(isa, repacked, input.data(), rows, actual.data(), &scratch));
            ASSERT_EQ(actual, expected) << "case " << i << " on " << isaName(isa);
        }
    }
}

TEST(PackedWeightsUnpackTest, RefusesWhatIsNoPackedGemm) {
    std::mt19937 rng(99);
    Case c = randomCase(rng, false);
    std::vector<uint8_t> packed, unpacked;
    ASSERT_TRUE(packQuantGemm(c.spec, &packed));
    EXPECT_FALSE(unpackQuantGemm(std::span(packed).first(packed.size() - 1), &unpacked));
    EXPECT_FALSE(unpackQuantGemm(std::span(packed).first(10), &unpacked));
    auto bad = packed;
    bad[0] ^= 1;  // magic
    EXPECT_FALSE(unpackQuantGemm(bad, &unpacked));
    bad = packed;
    bad[8] += 4;  // depth
    EXPECT_FALSE(unpackQuantGemm(bad, &unpacked));
}

}  // namespace
}  // namespace nnemu::synap::kernels
