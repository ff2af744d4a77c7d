// Property tests of the NPU core's own quantized ADD / SUB (driver/synap/kernels/QuantAdd.h):
// random shapes and broadcasts, zero points, input scale ratios from 1 to 2^-10 (the shifts'
// extremes), output scales, activations, uint8 and int8, against the reference kernel on every
// ISA this CPU runs (AVX-512 with and without the VBMI lookups).
#include <gtest/gtest.h>

#include <string>

#include "KernelTestSupport.h"
#include "kernels/QuantAdd.h"
#include "nnemu/hal/Broadcast.h"

namespace nnemu::synap::kernels {
namespace {

struct AddCase {
    bool isSigned, subtract;
    std::vector<uint32_t> dims[3];  // inputs, output
    float scales[3];
    int32_t zeroPoints[3], activation;
    std::vector<uint8_t> data[2];
};

// An output shape of rank 1 to 4, each input its own broadcast of it (dims 1, fewer dims).
AddCase randomCase(std::mt19937& rng, bool isSigned) {
    auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    auto real = [&](float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng); };
    AddCase c{isSigned, uniform(0, 3) == 0, {}, {}, {}, uniform(0, 3), {}};
    const int rank = uniform(1, 4);
    for (int k = 0; k < rank; ++k) c.dims[2].push_back(static_cast<uint32_t>(uniform(0, 2) == 0 ? 1 : uniform(1, 40)));
    for (int i = 0; i < 2; ++i) {
        const int form = uniform(0, 3);  // 0, 1: same shape; 2: dims set to 1; 3: a suffix of the dims
        std::vector<uint32_t>& d = c.dims[i];
        d = c.dims[2];
        if (form == 2) {
            for (uint32_t& n : d) n = uniform(0, 1) ? 1 : n;
        } else if (form == 3) {
            d.erase(d.begin(), d.begin() + uniform(0, rank - 1));
        }
        size_t count = 1;
        for (uint32_t n : d) count *= n;
        c.data[i] = randomBytes(rng, count);
    }
    // The output is the inputs' broadcast (a dim both set to 1 is 1, both suffixes are shorter).
    EXPECT_TRUE(hal::broadcastShape(c.dims[0], c.dims[1], &c.dims[2]));
    const int qmin = isSigned ? -128 : 0;
    for (int i = 0; i < 3; ++i) c.zeroPoints[i] = uniform(qmin, qmin + 255);
    c.scales[0] = real(0.001f, 0.1f);
    // The other input's scale from the same to 2^-10 times smaller or larger.
    const float ratio = std::ldexp(1.0f, -uniform(0, 10)) * real(0.5f, 1.0f);
    c.scales[1] = uniform(0, 1) ? c.scales[0] * ratio : c.scales[0] / ratio;
    // The output scale: ratios to the larger input from 2^-9 to 2^9.
    c.scales[2] = std::max(c.scales[0], c.scales[1]) * std::ldexp(real(1.0f, 2.0f), uniform(-9, 9));
    return c;
}

std::vector<uint8_t> reference(AddCase& c, std::vector<uint8_t>* out) {
    const auto type = c.isSigned ? hal::OperandType::TENSOR_QUANT8_ASYMM_SIGNED : hal::OperandType::TENSOR_QUANT8_ASYMM;
    hal::OperationContext context;
    context.type = c.subtract ? hal::OperationType::SUB : hal::OperationType::ADD;
    for (int i = 0; i < 2; ++i) {
        context.inputs.push_back({type, c.dims[i], c.scales[i], c.zeroPoints[i], nullptr, c.data[i].data(), c.data[i].size()});
    }
    context.inputs.push_back(int32Scalar(&c.activation));
    context.outputs = {{type, c.dims[2], c.scales[2], c.zeroPoints[2], nullptr, out->data(), out->size()}};
    EXPECT_TRUE(runReference(context));
    return *out;
}

QuantAddParams params(const AddCase& c) {
    QuantAddSpec spec;
    spec.signedValues = c.isSigned;
    spec.subtract = c.subtract;
    for (int i = 0; i < 2; ++i) {
        spec.zeroPoints[i] = c.zeroPoints[i];
        spec.scales[i] = c.scales[i];
    }
    spec.outputZeroPoint = c.zeroPoints[2];
    spec.outputScale = c.scales[2];
    const int32_t qmin = c.isSigned ? -128 : 0;
    quant::quantizedActivationRange(c.activation, c.scales[2], c.zeroPoints[2], qmin, qmin + 255, &spec.low, &spec.high);
    QuantAddParams p{};
    EXPECT_TRUE(prepareQuantAdd(spec, &p));
    return p;
}

// The parameters as prepared and, where they pick them, without the 16-bit words, without any
// words and without the VBMI lookups: every AVX-512 kernel runs on a CPU with VBMI.
std::vector<QuantAddParams> kernelsOf(const QuantAddParams& p) {
    std::vector<QuantAddParams> variants{p};
    if (p.wordTables && p.wideWords) {
        variants.push_back(p);
        variants.back().wordTables = false;
    }
    if (p.wideWords || p.wordTables) {
        variants.push_back(p);
        variants.back().wordTables = variants.back().wideWords = false;
    }
    if (p.byteLookups) {
        variants.push_back(p);
        variants.back().byteLookups = variants.back().wordTables = variants.back().wideWords = false;
    }
    return variants;
}

const char* kernelName(const QuantAddParams& p) {
    return p.wordTables ? " (words)" : p.wideWords ? " (wide words)" : p.byteLookups ? " (VBMI)" : "";
}

// Both inputs as a 256 x 256 grid: every pair of byte values once.
void everyPair(AddCase* c) {
    c->dims[0] = c->dims[1] = c->dims[2] = {256, 256};
    c->data[0].resize(65536);
    c->data[1].resize(65536);
    for (size_t i = 0; i < 65536; ++i) {
        c->data[0][i] = static_cast<uint8_t>(i >> 8);
        c->data[1][i] = static_cast<uint8_t>(i);
    }
}

class KernelAdd : public ::testing::TestWithParam<bool> {};

TEST_P(KernelAdd, MatchesTheReferenceOnEveryIsa) {
    std::mt19937 rng(77 + GetParam());
    for (int iteration = 0; iteration < 400; ++iteration) {
        AddCase c = randomCase(rng, GetParam());
        size_t count = 1;
        for (uint32_t n : c.dims[2]) count *= n;
        std::vector<uint8_t> out(count);
        const std::vector<uint8_t> expected = reference(c, &out);
        for (const QuantAddParams& p : kernelsOf(params(c))) {
            for (Isa isa : supportedIsas()) {
                std::fill(out.begin(), out.end(), 0xCD);
                ASSERT_TRUE(runQuantAdd(isa, p, c.dims[0], c.data[0].data(), c.dims[1], c.data[1].data(), c.dims[2],
                                        out.data()));
                ASSERT_EQ(out, expected) << isaName(isa) << kernelName(p) << " iteration "
                                         << iteration << " scales " << c.scales[0] << " " << c.scales[1] << " "
                                         << c.scales[2];
            }
        }
    }
}

// Every pair of byte values, for the extreme scale ratios: the vector arithmetic against the
// reference's on each value.
TEST_P(KernelAdd, EveryValuePairAtExtremeRatios) {
    std::mt19937 rng(5 + GetParam());
    for (float ratio : {1.0f, 0.5f, 0.00098f, 1024.0f, 255.0f}) {
        AddCase c = randomCase(rng, GetParam());
        everyPair(&c);
        c.scales[1] = c.scales[0] * ratio;
        c.scales[2] = std::max(c.scales[0], c.scales[1]) * 0.7f;
        std::vector<uint8_t> out(65536);
        const std::vector<uint8_t> expected = reference(c, &out);
        for (const QuantAddParams& p : kernelsOf(params(c))) {
            for (Isa isa : supportedIsas()) {
                std::fill(out.begin(), out.end(), 0xCD);
                ASSERT_TRUE(runQuantAdd(isa, p, c.dims[0], c.data[0].data(), c.dims[1], c.data[1].data(), c.dims[2],
                                        out.data()));
                ASSERT_EQ(out, expected) << isaName(isa) << kernelName(p) << " ratio " << ratio;
            }
        }
    }
}

// Every pair of byte values for many random parameter sets (scale ratios, zero points, output
// scales, activations, ADD and SUB): each kernel, the word tables' included wherever prepare kept
// them, against the reference. On a CPU with VBMI the word tables must be kept for nearly every
// set whose output scale is at least 1.1x the larger input's (each input then spans at most ~232
// output steps: the words fit; the rare miss is a b whose sums of both signs round at one f).
TEST_P(KernelAdd, EveryValuePairForRandomParameters) {
    std::mt19937 rng(303 + GetParam());
    int sets = 0, withWords = 0, withWide = 0, narrow = 0, narrowWithWords = 0;
    for (; sets < 150; ++sets) {
        AddCase c = randomCase(rng, GetParam());
        everyPair(&c);
        std::vector<uint8_t> out(65536);
        const std::vector<uint8_t> expected = reference(c, &out);
        const QuantAddParams prepared = params(c);
        const bool isNarrow = prepared.byteLookups && c.scales[2] >= 1.1f * std::max(c.scales[0], c.scales[1]);
        withWords += prepared.wordTables;
        withWide += prepared.wideWords;
        narrow += isNarrow;
        narrowWithWords += isNarrow && prepared.wordTables;
        for (const QuantAddParams& p : kernelsOf(prepared)) {
            for (Isa isa : supportedIsas()) {
                std::fill(out.begin(), out.end(), 0xCD);
                ASSERT_TRUE(runQuantAdd(isa, p, c.dims[0], c.data[0].data(), c.dims[1], c.data[1].data(), c.dims[2],
                                        out.data()));
                ASSERT_EQ(out, expected) << isaName(isa) << kernelName(p) << " set " << sets << " scales " << c.scales[0]
                                         << " " << c.scales[1] << " " << c.scales[2];
            }
        }
    }
    // The counts go to the test's XML record (and into a failure's message), not to the quiet output.
    RecordProperty("sets_with_16_bit_words", withWords);
    RecordProperty("sets_with_32_bit_words", withWide);
    const std::string counts = "16-bit words kept for " + std::to_string(withWords) + " of " + std::to_string(sets) +
                               " parameter sets (" + std::to_string(narrowWithWords) + " of the " +
                               std::to_string(narrow) + " with an output scale >= 1.1x), 32-bit words for " +
                               std::to_string(withWide);
    EXPECT_GE(narrowWithWords * 100, narrow * 95) << counts;
    EXPECT_GE(withWide * 100, narrow * 95) << counts;
}

TEST(KernelAdd, RefusesShapesThatDoNotBroadcast) {
    AddCase c{false, false, {{2, 3}, {4, 3}, {2, 3}}, {0.1f, 0.1f, 0.1f}, {0, 0, 0}, 0, {}};
    const QuantAddParams p = params(c);
    std::vector<uint8_t> a(6), b(12), out(6);
    EXPECT_FALSE(runQuantAdd(Isa::Portable, p, c.dims[0], a.data(), c.dims[1], b.data(), c.dims[2], out.data()));
}

TEST(KernelAdd, EmptyOutputsTouchNothing) {
    AddCase c{false, false, {{0, 3}, {1, 3}, {0, 3}}, {0.1f, 0.1f, 0.1f}, {0, 0, 0}, 0, {}};
    const QuantAddParams p = params(c);
    for (Isa isa : supportedIsas()) {
        EXPECT_TRUE(runQuantAdd(isa, p, c.dims[0], nullptr, c.dims[1], nullptr, c.dims[2], nullptr)) << isaName(isa);
    }
}

INSTANTIATE_TEST_SUITE_P(Types, KernelAdd, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Int8" : "Uint8"; });

}  // namespace
}  // namespace nnemu::synap::kernels
