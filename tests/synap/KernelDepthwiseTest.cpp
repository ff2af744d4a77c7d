// Property tests of the NPU core's own 3x3 depthwise kernel (driver/synap/kernels): random
// shapes, strides 1 and 2, paddings, zero points, activations, multipliers below and above 1,
// uint8 / int8 / int8 per channel, against the reference DEPTHWISE_CONV_2D on every ISA.
#include <gtest/gtest.h>

#include <random>

#include "kernels/Depthwise.h"
#include "nnemu/cpu/Kernels.h"
#include "nnemu/cpu/QuantMath.h"

namespace nnemu::synap::kernels {
namespace {

using hal::OperandType;
using hal::OperandView;

enum class Family { Uint8, Int8, Int8PerChannel };

struct Case {
    Family family;
    uint32_t batches, height, width, channels, stride, pad[4];  // left, right, top, bottom
    int32_t inputZero, filterZero, outputZero, activation;
    float inputScale, outputScale;
    std::vector<float> filterScales;
    std::vector<uint8_t> input, weights;
    std::vector<int32_t> bias;
    uint32_t outHeight() const { return (height + pad[2] + pad[3] - 3) / stride + 1; }
    uint32_t outWidth() const { return (width + pad[0] + pad[1] - 3) / stride + 1; }
};

Case randomCase(std::mt19937& rng, Family family) {
    auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    auto real = [&](float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng); };
    Case c;
    c.family = family;
    c.batches = static_cast<uint32_t>(uniform(1, 2));
    c.stride = static_cast<uint32_t>(uniform(1, 2));
    for (uint32_t& p : c.pad) p = static_cast<uint32_t>(uniform(0, 1));
    c.height = static_cast<uint32_t>(uniform(3, 13));
    c.width = static_cast<uint32_t>(uniform(3, 13));
    c.channels = static_cast<uint32_t>(uniform(1, 40));
    const bool isSigned = family != Family::Uint8;
    c.inputZero = isSigned ? uniform(-128, 127) : uniform(0, 255);
    c.filterZero = family == Family::Uint8 ? uniform(0, 255) : 0;
    c.outputZero = isSigned ? uniform(-128, 127) : uniform(0, 255);
    c.activation = uniform(0, 3);
    c.inputScale = real(0.001f, 0.1f);
    c.filterScales.resize(family == Family::Int8PerChannel ? c.channels : 1);
    for (float& s : c.filterScales) s = real(0.0005f, 0.05f);
    c.outputScale = c.inputScale * c.filterScales[0] * std::pow(10.0f, real(-1.5f, 3.5f));
    c.input.resize(size_t{c.batches} * c.height * c.width * c.channels);
    c.weights.resize(size_t{9} * c.channels);
    for (uint8_t& v : c.input) v = static_cast<uint8_t>(uniform(0, 255));
    for (uint8_t& v : c.weights) v = static_cast<uint8_t>(uniform(0, 255));
    c.bias.resize(c.channels);
    const int biasRange = uniform(0, 4) == 0 ? 2'000'000'000 : 20000;
    for (int32_t& b : c.bias) b = uniform(-biasRange, biasRange);
    return c;
}

OperandView int32Scalar(int32_t* value) {
    OperandView v;
    v.type = OperandType::INT32;
    v.data = reinterpret_cast<uint8_t*>(value);
    v.length = sizeof(int32_t);
    return v;
}

std::vector<uint8_t> reference(Case& c) {
    const OperandType type = c.family == Family::Uint8 ? OperandType::TENSOR_QUANT8_ASYMM
                                                       : OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
    OperandView input{type, {c.batches, c.height, c.width, c.channels}, c.inputScale, c.inputZero, nullptr,
                      c.input.data(), c.input.size()};
    OperandView filter{type, {1, 3, 3, c.channels}, c.filterScales[0], c.filterZero, nullptr, c.weights.data(),
                       c.weights.size()};
    hal::SymmPerChannelQuantParams channelQuant{c.filterScales, 3};
    if (c.family == Family::Int8PerChannel) {
        filter.type = OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
        filter.scale = 0.0f;
        filter.channelQuant = &channelQuant;
    }
    OperandView bias{OperandType::TENSOR_INT32, {c.channels}, 0.0f, 0, nullptr,
                     reinterpret_cast<uint8_t*>(c.bias.data()), c.bias.size() * 4};
    int32_t pads[4] = {int32_t(c.pad[0]), int32_t(c.pad[1]), int32_t(c.pad[2]), int32_t(c.pad[3])};
    int32_t stride = static_cast<int32_t>(c.stride), multiplier = 1;
    hal::OperationContext context;
    context.type = hal::OperationType::DEPTHWISE_CONV_2D;
    context.inputs = {input, filter, bias, int32Scalar(&pads[0]), int32Scalar(&pads[1]), int32Scalar(&pads[2]),
                      int32Scalar(&pads[3]), int32Scalar(&stride), int32Scalar(&stride), int32Scalar(&multiplier),
                      int32Scalar(&c.activation)};
    std::vector<uint8_t> out(size_t{c.batches} * c.outHeight() * c.outWidth() * c.channels);
    context.outputs = {OperandView{type, {c.batches, c.outHeight(), c.outWidth(), c.channels}, c.outputScale,
                                   c.outputZero, nullptr, out.data(), out.size()}};
    const cpu::Kernel kernel = cpu::findKernel(hal::OperationType::DEPTHWISE_CONV_2D);
    EXPECT_TRUE(kernel != nullptr && kernel(context));
    return out;
}

class KernelDepthwise : public ::testing::TestWithParam<Family> {};

TEST_P(KernelDepthwise, MatchesTheReferenceOnEveryIsa) {
    std::mt19937 rng(4321 + static_cast<int>(GetParam()));
    for (int iteration = 0; iteration < 150; ++iteration) {
        Case c = randomCase(rng, GetParam());
        const std::vector<uint8_t> expected = reference(c);
        DepthwiseSpec spec;
        spec.batches = c.batches;
        spec.inHeight = c.height;
        spec.inWidth = c.width;
        spec.channels = c.channels;
        spec.outHeight = c.outHeight();
        spec.outWidth = c.outWidth();
        spec.stride = c.stride;
        spec.padTop = c.pad[2];
        spec.padLeft = c.pad[0];
        spec.signedValues = c.family != Family::Uint8;
        spec.inputZeroPoint = c.inputZero;
        spec.filterZeroPoint = c.filterZero;
        spec.outputZeroPoint = c.outputZero;
        spec.inputScale = c.inputScale;
        spec.outputScale = c.outputScale;
        spec.filterScales = c.filterScales;
        const int32_t qmin = spec.signedValues ? -128 : 0;
        cpu::quantizedActivationRange(c.activation, c.outputScale, c.outputZero, qmin, qmin + 255, &spec.low,
                                      &spec.high);
        spec.weights = c.weights.data();
        spec.bias = c.bias.data();
        PackedDepthwise packed(c.channels);
        ASSERT_TRUE(packDepthwise(spec, &packed));
        const size_t rows = size_t{c.batches} * c.outHeight();
        for (Isa isa : supportedIsas()) {
            std::vector<uint8_t> out(expected.size(), 0xCD);
            runDepthwise(isa, packed, c.input.data(), out.data(), rows / 2, rows + 1);
            runDepthwise(isa, packed, c.input.data(), out.data(), 0, rows / 2);
            ASSERT_EQ(out, expected) << isaName(isa) << " iteration " << iteration << ": " << c.height << "x" << c.width
                                     << "x" << c.channels << " stride " << c.stride;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Families, KernelDepthwise,
                         ::testing::Values(Family::Uint8, Family::Int8, Family::Int8PerChannel));

}  // namespace
}  // namespace nnemu::synap::kernels
