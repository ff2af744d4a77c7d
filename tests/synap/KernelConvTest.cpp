// Property tests of the NPU core's own general convolution (driver/synap/kernels/QuantConv):
// random shapes, kernel sizes, strides, dilations, explicit paddings, zero points, activations,
// multipliers below and above 1, uint8 / int8 / int8 per channel, against the reference CONV_2D
// on every ISA, whole and in slices of output rows.
#include <gtest/gtest.h>

#include "KernelTestSupport.h"
#include "kernels/QuantConv.h"

namespace nnemu::synap::kernels {
namespace {

struct Case {
    uint32_t batches, height, width, inChannels, channels, kernel[2], stride[2], dilation[2];
    uint32_t pad[4];  // left, right, top, bottom
    RandomQuant quant;
    std::vector<uint8_t> input, weights;

    uint32_t extent(int axis) const { return (kernel[axis] - 1) * dilation[axis] + 1; }
    uint32_t outHeight() const { return (height + pad[2] + pad[3] - extent(0)) / stride[0] + 1; }
    uint32_t outWidth() const { return (width + pad[0] + pad[1] - extent(1)) / stride[1] + 1; }
};

Case randomCase(std::mt19937& rng, Family family) {
    auto uniform = [&](int lo, int hi) { return static_cast<uint32_t>(std::uniform_int_distribution<int>(lo, hi)(rng)); };
    for (;;) {
        const uint32_t kernel[2] = {uniform(1, 20) == 1 ? uniform(15, 18) : uniform(1, 5), uniform(1, 5)};
        const uint32_t stride[2] = {uniform(1, 3), uniform(1, 3)};
        const uint32_t dilation[2] = {uniform(1, 3) == 1 ? uniform(1, 3) : 1, uniform(1, 3) == 1 ? uniform(1, 3) : 1};
        const uint32_t pad[4] = {uniform(0, 3), uniform(0, 3), uniform(0, 3), uniform(0, 3)};
        const uint32_t batches = uniform(1, 2), height = uniform(1, 24), width = uniform(1, 24);
        const uint32_t inChannels = uniform(1, 4) == 1 ? uniform(9, 64) : uniform(1, 8), channels = uniform(1, 70);
        if (height + pad[2] + pad[3] < (kernel[0] - 1) * dilation[0] + 1 ||
            width + pad[0] + pad[1] < (kernel[1] - 1) * dilation[1] + 1) {
            continue;
        }
        RandomQuant quant(rng, family, channels, 0, -2.0f, 3.5f);
        std::vector<uint8_t> input = randomBytes(rng, size_t{batches} * height * width * inChannels);
        std::vector<uint8_t> weights = randomBytes(rng, size_t{channels} * kernel[0] * kernel[1] * inChannels);
        return {batches,
                height,
                width,
                inChannels,
                channels,
                {kernel[0], kernel[1]},
                {stride[0], stride[1]},
                {dilation[0], dilation[1]},
                {pad[0], pad[1], pad[2], pad[3]},
                std::move(quant),
                std::move(input),
                std::move(weights)};
    }
}

std::vector<uint8_t> reference(Case& c) {
    int32_t ints[8] = {int32_t(c.pad[0]),    int32_t(c.pad[1]),      int32_t(c.pad[2]),      int32_t(c.pad[3]),
                       int32_t(c.stride[1]), int32_t(c.stride[0]),   int32_t(c.dilation[1]), int32_t(c.dilation[0])};
    uint8_t nchw = 0;
    hal::OperandView layout;
    layout.type = hal::OperandType::BOOL;
    layout.data = &nchw;
    layout.length = 1;
    hal::OperationContext context;
    context.type = hal::OperationType::CONV_2D;
    context.inputs = {c.quant.input({c.batches, c.height, c.width, c.inChannels}, c.input),
                      c.quant.filter({c.channels, c.kernel[0], c.kernel[1], c.inChannels}, c.weights),
                      c.quant.biasView(), int32Scalar(&ints[0]), int32Scalar(&ints[1]), int32Scalar(&ints[2]),
                      int32Scalar(&ints[3]), int32Scalar(&ints[4]), int32Scalar(&ints[5]),
                      int32Scalar(&c.quant.activation), layout, int32Scalar(&ints[6]), int32Scalar(&ints[7])};
    std::vector<uint8_t> out(size_t{c.batches} * c.outHeight() * c.outWidth() * c.channels);
    context.outputs = {c.quant.output({c.batches, c.outHeight(), c.outWidth(), c.channels}, out)};
    EXPECT_TRUE(runReference(context));
    return out;
}

PackedQuantConv packed(const Case& c) {
    QuantConvSpec spec;
    c.quant.fill(&spec, c.weights);
    spec.batches = c.batches;
    spec.inHeight = c.height;
    spec.inWidth = c.width;
    spec.inChannels = c.inChannels;
    spec.outHeight = c.outHeight();
    spec.outWidth = c.outWidth();
    spec.channels = c.channels;
    spec.kernelHeight = c.kernel[0];
    spec.kernelWidth = c.kernel[1];
    spec.strideHeight = c.stride[0];
    spec.strideWidth = c.stride[1];
    spec.dilationHeight = c.dilation[0];
    spec.dilationWidth = c.dilation[1];
    spec.padTop = c.pad[2];
    spec.padLeft = c.pad[0];
    PackedQuantConv p;
    EXPECT_TRUE(packQuantConv(spec, &p));
    return p;
}

class KernelConv : public ::testing::TestWithParam<Family> {};

TEST_P(KernelConv, MatchesTheReferenceOnEveryIsa) {
    std::mt19937 rng(2468 + static_cast<int>(GetParam()));
    for (int iteration = 0; iteration < 200; ++iteration) {
        Case c = randomCase(rng, GetParam());
        const std::vector<uint8_t> expected = reference(c);
        const PackedQuantConv p = packed(c);
        const size_t rows = size_t{c.batches} * c.outHeight();
        for (Isa isa : supportedIsas()) {
            std::vector<uint8_t> out(expected.size(), 0xCD);
            QuantConvScratch scratch;
            ASSERT_TRUE(runQuantConvRows(isa, p, c.input.data(), out.data(), rows / 2, rows + 1, &scratch));
            ASSERT_TRUE(runQuantConvRows(isa, p, c.input.data(), out.data(), 0, rows / 2, &scratch));
            ASSERT_EQ(out, expected) << isaName(isa) << " iteration " << iteration << ": " << c.batches << "x"
                                     << c.height << "x" << c.width << "x" << c.inChannels << " -> " << c.channels
                                     << " kernel " << c.kernel[0] << "x" << c.kernel[1] << " stride " << c.stride[0]
                                     << "," << c.stride[1] << " dilation " << c.dilation[0] << "," << c.dilation[1]
                                     << " pads " << c.pad[0] << c.pad[1] << c.pad[2] << c.pad[3];
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Families, KernelConv, ::testing::Values(Family::Uint8, Family::Int8, Family::Int8PerChannel));

// Fixed shapes, whole: the MobileNet first layer's (3x3 stride 2, SAME, 3 input channels), where
// the interior copies run over whole rows, and rows wider than one unfolding chunk.
void checkShape(Case c, std::mt19937& rng) {
    c.input = randomBytes(rng, size_t{c.batches} * c.height * c.width * c.inChannels);
    c.weights = randomBytes(rng, size_t{c.channels} * c.kernel[0] * c.kernel[1] * c.inChannels);
    const std::vector<uint8_t> expected = reference(c);
    const PackedQuantConv p = packed(c);
    for (Isa isa : supportedIsas()) {
        std::vector<uint8_t> out(expected.size(), 0xCD);
        QuantConvScratch scratch;
        ASSERT_TRUE(runQuantConvRows(isa, p, c.input.data(), out.data(), 0, c.batches * c.outHeight(), &scratch));
        ASSERT_EQ(out, expected) << isaName(isa) << ": " << c.height << "x" << c.width << "x" << c.inChannels;
    }
}

TEST(KernelConvShapes, MobileNetFirstLayerAndWideRows) {
    std::mt19937 rng(97);
    for (Family family : {Family::Uint8, Family::Int8, Family::Int8PerChannel}) {
        checkShape({1, 32, 32, 3, 32, {3, 3}, {2, 2}, {1, 1}, {0, 1, 0, 1}, RandomQuant(rng, family, 32, 0, -2.0f, 3.5f),
                    {}, {}},
                   rng);
        checkShape({2, 3, 300, 3, 16, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, RandomQuant(rng, family, 16, 0, -2.0f, 3.5f),
                    {}, {}},
                   rng);
        checkShape({1, 4, 261, 20, 24, {2, 3}, {1, 2}, {1, 1}, {0, 2, 0, 0}, RandomQuant(rng, family, 24, 0, -2.0f, 3.5f),
                    {}, {}},
                   rng);
    }
}

TEST(KernelConvPacking, RejectsWhatItCannotCompute) {
    std::vector<uint8_t> weights(9, 1);
    std::vector<int32_t> bias(1, 0);
    std::vector<float> scales{0.5f};
    QuantConvSpec spec;
    spec.batches = spec.inHeight = spec.inWidth = spec.outHeight = spec.outWidth = 1;
    spec.inChannels = 1;
    spec.channels = 1;
    spec.kernelHeight = spec.kernelWidth = 3;
    spec.inputScale = spec.outputScale = 1.0f;
    spec.filterScales = scales;
    spec.weights = weights.data();
    spec.bias = bias.data();
    PackedQuantConv p;
    EXPECT_TRUE(packQuantConv(spec, &p));
    spec.strideWidth = 0;
    EXPECT_FALSE(packQuantConv(spec, &p));  // no stride
    spec.strideWidth = 1;
    spec.signedValues = true;
    spec.filterZeroPoint = 5;
    EXPECT_FALSE(packQuantConv(spec, &p));  // int8 weights take no zero point
    spec.filterZeroPoint = 0;
    spec.outputScale = 0.0f;
    EXPECT_FALSE(packQuantConv(spec, &p));  // no output scale
}

}  // namespace
}  // namespace nnemu::synap::kernels
