// Property tests of the NPU core's own quantized GEMM (driver/synap/kernels): random 1x1
// convolutions (uint8, int8 per tensor, int8 per channel; zero points, activations, multipliers
// below and above 1) against the reference CONV_2D kernel, on every ISA this CPU runs.
#include <gtest/gtest.h>

#include <random>

#include "kernels/QuantGemm.h"
#include "nnemu/cpu/Kernels.h"
#include "nnemu/cpu/QuantMath.h"

namespace nnemu::synap::kernels {
namespace {

using hal::OperandType;
using hal::OperandView;

enum class Family { Uint8, Int8, Int8PerChannel };

struct Case {
    Family family;
    uint32_t rows, depth, channels;
    int32_t inputZero, filterZero, outputZero, activation;
    float inputScale, outputScale;
    std::vector<float> filterScales;
    std::vector<uint8_t> input, weights;
    std::vector<int32_t> bias;
};

Case randomCase(std::mt19937& rng, Family family) {
    auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    auto real = [&](float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng); };
    Case c;
    c.family = family;
    c.rows = static_cast<uint32_t>(uniform(1, 37));
    c.depth = static_cast<uint32_t>(uniform(1, 3) == 1 ? uniform(1, 9) : uniform(1, 300));
    c.channels = static_cast<uint32_t>(uniform(1, 3) == 1 ? uniform(1, 9) : uniform(1, 150));
    const bool isSigned = family != Family::Uint8;
    c.inputZero = isSigned ? uniform(-128, 127) : uniform(0, 255);
    c.filterZero = isSigned ? 0 : uniform(0, 255);
    c.outputZero = isSigned ? uniform(-128, 127) : uniform(0, 255);
    c.activation = uniform(0, 3);
    c.inputScale = real(0.001f, 0.1f);
    c.filterScales.resize(family == Family::Int8PerChannel ? c.channels : 1);
    for (float& s : c.filterScales) s = real(0.0005f, 0.05f);
    // Output scales both far below and above the products: multipliers from ~1e-5 to ~100.
    const float product = c.inputScale * c.filterScales[0];
    c.outputScale = product * std::pow(10.0f, real(-2.0f, 4.5f));
    c.input.resize(size_t{c.rows} * c.depth);
    c.weights.resize(size_t{c.channels} * c.depth);
    for (uint8_t& v : c.input) v = static_cast<uint8_t>(uniform(0, 255));
    for (uint8_t& v : c.weights) v = static_cast<uint8_t>(uniform(0, 255));
    c.bias.resize(c.channels);
    const int biasRange = uniform(0, 4) == 0 ? 2'000'000'000 : 20000;
    for (int32_t& b : c.bias) b = uniform(-biasRange, biasRange);
    return c;
}

template <typename T>
OperandView scalar(OperandType type, T* value) {
    OperandView v;
    v.type = type;
    v.data = reinterpret_cast<uint8_t*>(value);
    v.length = sizeof(T);
    return v;
}

// The reference CONV_2D on [1, rows, 1, depth] with a [channels, 1, 1, depth] filter.
std::vector<uint8_t> reference(Case& c) {
    const OperandType type = c.family == Family::Uint8 ? OperandType::TENSOR_QUANT8_ASYMM
                                                       : OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
    hal::OperationContext context;
    context.type = hal::OperationType::CONV_2D;
    OperandView input{type, {1, c.rows, 1, c.depth}, c.inputScale, c.inputZero, nullptr, c.input.data(),
                      c.input.size()};
    OperandView filter{type, {c.channels, 1, 1, c.depth}, c.filterScales[0], c.filterZero, nullptr, c.weights.data(),
                       c.weights.size()};
    hal::SymmPerChannelQuantParams channelQuant{c.filterScales, 0};
    if (c.family == Family::Int8PerChannel) {
        filter.type = OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
        filter.scale = 0.0f;
        filter.channelQuant = &channelQuant;
    }
    OperandView bias{OperandType::TENSOR_INT32, {c.channels}, 0.0f, 0, nullptr,
                     reinterpret_cast<uint8_t*>(c.bias.data()), c.bias.size() * 4};
    int32_t padding = 2, stride = 1;
    context.inputs = {input, filter, bias, scalar(OperandType::INT32, &padding), scalar(OperandType::INT32, &stride),
                      scalar(OperandType::INT32, &stride), scalar(OperandType::INT32, &c.activation)};
    std::vector<uint8_t> out(size_t{c.rows} * c.channels);
    context.outputs = {OperandView{type, {1, c.rows, 1, c.channels}, c.outputScale, c.outputZero, nullptr, out.data(),
                                   out.size()}};
    const cpu::Kernel kernel = cpu::findKernel(hal::OperationType::CONV_2D);
    EXPECT_TRUE(kernel != nullptr && kernel(context));
    return out;
}

std::vector<uint8_t> packed(const Case& c) {
    QuantGemmSpec spec;
    spec.depth = c.depth;
    spec.channels = c.channels;
    spec.signedValues = c.family != Family::Uint8;
    spec.inputZeroPoint = c.inputZero;
    spec.filterZeroPoint = c.filterZero;
    spec.outputZeroPoint = c.outputZero;
    spec.inputScale = c.inputScale;
    spec.outputScale = c.outputScale;
    spec.filterScales = c.filterScales;
    const int32_t qmin = spec.signedValues ? -128 : 0;
    cpu::quantizedActivationRange(c.activation, c.outputScale, c.outputZero, qmin, qmin + 255, &spec.low, &spec.high);
    spec.weights = c.weights.data();
    spec.bias = c.bias.data();
    std::vector<uint8_t> bytes;
    EXPECT_TRUE(packQuantGemm(spec, &bytes));
    return bytes;
}

class KernelGemm : public ::testing::TestWithParam<Family> {};

TEST_P(KernelGemm, MatchesTheReferenceOnEveryIsa) {
    std::mt19937 rng(1234 + static_cast<int>(GetParam()));
    for (int iteration = 0; iteration < 150; ++iteration) {
        Case c = randomCase(rng, GetParam());
        const std::vector<uint8_t> expected = reference(c);
        const std::vector<uint8_t> bytes = packed(c);
        for (Isa isa : supportedIsas()) {
            std::vector<uint8_t> out(expected.size(), 0xCD);
            QuantGemmScratch scratch;
            ASSERT_TRUE(runQuantGemm(isa, bytes, c.input.data(), c.rows, out.data(), &scratch));
            ASSERT_EQ(out, expected) << isaName(isa) << " iteration " << iteration << ": rows " << c.rows << " depth "
                                     << c.depth << " channels " << c.channels << " output scale " << c.outputScale;
            // The same in two slices of rows, as the core's thread pool runs it.
            std::fill(out.begin(), out.end(), 0xCD);
            QuantGemmJob job;
            ASSERT_TRUE(prepareQuantGemm(isa, bytes, c.input.data(), c.rows, out.data(), &scratch, &job));
            const size_t split = c.rows / 2;
            runQuantGemmRows(job, split, c.rows + 3);
            runQuantGemmRows(job, 0, split);
            ASSERT_EQ(out, expected) << isaName(isa) << " in slices, iteration " << iteration;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Families, KernelGemm,
                         ::testing::Values(Family::Uint8, Family::Int8, Family::Int8PerChannel));

TEST(KernelGemmPacking, RejectsWhatTheKernelsCannotComputeExactly) {
    std::vector<uint8_t> weights(4, 1), bytes;
    std::vector<int32_t> bias(1, 0);
    std::vector<float> scales{0.5f};
    QuantGemmSpec spec;
    spec.depth = 4;
    spec.channels = 1;
    spec.inputScale = 1.0f;
    spec.outputScale = 0.0f;
    spec.filterScales = scales;
    spec.weights = weights.data();
    spec.bias = bias.data();
    EXPECT_FALSE(packQuantGemm(spec, &bytes));  // no output scale
    spec.outputScale = 1.0f;
    spec.signedValues = true;
    spec.filterZeroPoint = 3;
    EXPECT_FALSE(packQuantGemm(spec, &bytes));  // int8 weights take no zero point
    spec.filterZeroPoint = 0;
    ASSERT_TRUE(packQuantGemm(spec, &bytes));
    bytes.pop_back();
    std::vector<uint8_t> in(4), out(1);
    QuantGemmScratch scratch;
    EXPECT_FALSE(runQuantGemm(Isa::Portable, bytes, in.data(), 1, out.data(), &scratch));
}

}  // namespace
}  // namespace nnemu::synap::kernels
