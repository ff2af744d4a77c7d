// Property tests of the NPU core's own quantized GEMM (driver/synap/kernels): random 1x1
// convolutions (uint8, int8 per tensor, int8 per channel; zero points, activations, multipliers
// below and above 1) against the reference CONV_2D kernel, on every ISA this CPU runs (and on
// AMX machines both the AVX-512 VNNI and the AMX-INT8 kernel on every shape), whole, in row
// slices and in tiles of channel blocks.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

#include "KernelTestSupport.h"
#include "kernels/QuantGemm.h"

namespace nnemu::synap::kernels {
namespace {

using hal::OperandView;

struct Case {
    uint32_t rows, depth, channels;
    RandomQuant quant;
    std::vector<uint8_t> input, weights;

    Case(std::mt19937& rng, Family family, uint32_t rowCount, uint32_t depthCount, uint32_t channelCount)
        : rows(rowCount), depth(depthCount), channels(channelCount), quant(rng, family, channels, 0, -2.0f, 4.5f),
          input(randomBytes(rng, size_t{rows} * depth)), weights(randomBytes(rng, size_t{channels} * depth)) {}
};

Case randomCase(std::mt19937& rng, Family family) {
    auto uniform = [&](int lo, int hi) { return static_cast<uint32_t>(std::uniform_int_distribution<int>(lo, hi)(rng)); };
    const uint32_t rows = uniform(1, 37);
    const uint32_t depth = uniform(1, 3) == 1 ? uniform(1, 9) : uniform(1, 300);
    const uint32_t channels = uniform(1, 3) == 1 ? uniform(1, 9) : uniform(1, 150);
    return Case(rng, family, rows, depth, channels);
}

// The reference CONV_2D on [1, rows, 1, depth] with a [channels, 1, 1, depth] filter.
std::vector<uint8_t> reference(Case& c) {
    hal::OperationContext context;
    context.type = hal::OperationType::CONV_2D;
    int32_t padding = 2, stride = 1;
    context.inputs = {c.quant.input({1, c.rows, 1, c.depth}, c.input), c.quant.filter({c.channels, 1, 1, c.depth}, c.weights),
                      c.quant.biasView(), int32Scalar(&padding), int32Scalar(&stride), int32Scalar(&stride),
                      int32Scalar(&c.quant.activation)};
    std::vector<uint8_t> out(size_t{c.rows} * c.channels);
    context.outputs = {c.quant.output({1, c.rows, 1, c.channels}, out)};
    EXPECT_TRUE(runReference(context));
    return out;
}

std::vector<uint8_t> packed(const Case& c) {
    QuantGemmSpec spec;
    c.quant.fill(&spec, c.weights);
    spec.depth = c.depth;
    spec.channels = c.channels;
    std::vector<uint8_t> bytes;
    EXPECT_TRUE(packQuantGemm(spec, &bytes));
    return bytes;
}

// The kernels a run may take: each ISA's choice, and on AMX machines the AVX-512 VNNI kernel
// and the AMX-INT8 one on every shape (the choice runs each on the shapes it is faster on).
struct Kernel {
    std::string name;
    Isa isa;
    void (*kernel)(const GemmArgs&) = nullptr;  // nullptr: the ISA's choice
};

std::vector<Kernel> kernels() {
    std::vector<Kernel> all;
    for (Isa isa : supportedIsas()) all.push_back({isaName(isa), isa});
    if (amxInt8Usable()) {
        all.push_back({"avx512vnni without amx", Isa::Avx512Vnni, gemmAvx512Vnni});
        all.push_back({"amx-int8 on every shape", Isa::Avx512Vnni, gemmAmxInt8});
    }
    return all;
}

// Every kernel on `c`, whole and in two slices of rows, against the reference.
void expectMatches(Case& c, const std::string& label) {
    const std::vector<uint8_t> expected = reference(c);
    const std::vector<uint8_t> bytes = packed(c);
    for (const Kernel& k : kernels()) {
        std::vector<uint8_t> out(expected.size(), 0xCD);
        QuantGemmScratch scratch;
        QuantGemmJob job;
        if (k.kernel == nullptr) {
            ASSERT_TRUE(runQuantGemm(k.isa, bytes, c.input.data(), c.rows, out.data(), &scratch));
        } else {
            ASSERT_TRUE(prepareQuantGemm(k.isa, bytes, c.input.data(), c.rows, out.data(), &scratch, &job));
            job.kernel = k.kernel;
            runQuantGemmRows(job, 0, c.rows);
        }
        ASSERT_EQ(out, expected) << k.name << " " << label << ": rows " << c.rows << " depth " << c.depth
                                 << " channels " << c.channels << " output scale " << c.quant.outputScale;
        // The same in two slices of rows, as the core's thread pool runs it.
        std::fill(out.begin(), out.end(), 0xCD);
        ASSERT_TRUE(prepareQuantGemm(k.isa, bytes, c.input.data(), c.rows, out.data(), &scratch, &job));
        if (k.kernel != nullptr) job.kernel = k.kernel;
        const size_t split = c.rows / 2;
        runQuantGemmRows(job, split, c.rows + 3);
        runQuantGemmRows(job, 0, split);
        ASSERT_EQ(out, expected) << k.name << " in slices, " << label;
        // And in tiles of channel blocks, the later ones first (slices of layers with few rows).
        std::fill(out.begin(), out.end(), 0xCD);
        const size_t blocks = (c.channels + kGemmBlock - 1) / kGemmBlock, middle = blocks / 2 * kGemmBlock;
        runQuantGemmTile(job, split, c.rows, middle, c.channels + 5);
        runQuantGemmTile(job, 0, split, middle, c.channels);
        runQuantGemmTile(job, 0, c.rows, 0, middle);
        ASSERT_EQ(out, expected) << k.name << " in channel tiles, " << label;
        // uint8 rows with their row terms given by the caller instead of summed by the kernel.
        if (job.args.rowFactor == 0) continue;
        std::vector<int32_t> terms(c.rows);
        for (size_t r = 0; r < c.rows; ++r) {
            uint32_t sum = 0;
            for (size_t b = 0; b < job.args.depthGroups * 4; ++b) sum += job.args.rows[r * job.args.rowStride + b];
            terms[r] = static_cast<int32_t>(sum * static_cast<uint32_t>(job.args.rowFactor));
        }
        std::fill(out.begin(), out.end(), 0xCD);
        QuantGemmJob given = job;
        given.args.rowTerms = terms.data();
        given.args.rowFactor = 0;
        runQuantGemmRows(given, split, c.rows);
        runQuantGemmRows(given, 0, split);
        ASSERT_EQ(out, expected) << k.name << " with the caller's row terms, " << label;
    }
}

class KernelGemm : public ::testing::TestWithParam<Family> {};

TEST_P(KernelGemm, MatchesTheReferenceOnEveryIsa) {
    std::mt19937 rng(1234 + static_cast<int>(GetParam()));
    for (int iteration = 0; iteration < 150; ++iteration) {
        Case c = randomCase(rng, GetParam());
        expectMatches(c, "iteration " + std::to_string(iteration));
        if (HasFatalFailure()) return;
    }
}

// Shapes like MobileNets' 1x1 layers (depths that fill 4-byte groups: rows read in place; 1, 2
// and 4+ blocks of channels, partial blocks; row counts that are no multiple of the tile) and
// the first convolution's 27-deep rows, with output scales from saturating to fine; and depths
// whose 4-byte groups split into AMX chunks unevenly or not at all (17 and 65 groups: chunks of
// 1 and 13; 288: 18 chunks of 16), more rows than channels and fewer (int8 rows read in place or
// copied flipped); depths of 16, 24 and 32 on 1 to 7 blocks (the AVX-512 kernel's loop unrolled
// at those); and depths at and past the 2048 whose rows the AVX2 kernel splits once per tile
// (deeper ones: in its loop).
TEST_P(KernelGemm, MatchesTheReferenceOnNetworkShapes) {
    std::mt19937 rng(99 + static_cast<int>(GetParam()));
    const uint32_t shapes[][3] = {{130, 16, 96}, {67, 24, 144}, {61, 144, 24}, {49, 320, 40}, {23, 32, 16},
                                  {9, 64, 16},   {1, 1280, 70}, {50, 27, 32},  {14, 8, 200},  {3, 4, 33},
                                  {45, 68, 40},  {33, 260, 17}, {100, 1152, 48}, {20, 96, 130},
                                  {6, 2048, 18},  {7, 2053, 20}, {40, 32, 100}};
    for (const auto& shape : shapes) {
        for (float exponent : {-0.5f, 0.1f, 1.0f, 3.0f}) {
            Case c(rng, GetParam(), shape[0], shape[1], shape[2]);
            c.quant.outputScale = c.quant.inputScale * c.quant.filterScales[0] * std::pow(10.0f, exponent);
            expectMatches(c, "output scale exponent " + std::to_string(exponent));
            if (HasFatalFailure()) return;
        }
    }
}

// A thread whose tile state the core took at a program's load (prepareAmxThread: tiles
// configured, used and released) runs every kernel the same, as does a child it forks; a second
// call changes nothing. Where AMX is unusable the call does nothing.
TEST_P(KernelGemm, AThreadPreparedForAmxTilesRunsThemTheSame) {
    const auto check = [&] {
        std::mt19937 rng(7 + static_cast<int>(GetParam()));
        prepareAmxThread();
        prepareAmxThread();
        Case c(rng, GetParam(), 67, 144, 40);  // a shape the choice runs on tiles
        expectMatches(c, "after prepareAmxThread");
        Case d(rng, GetParam(), 33, 260, 17);
        expectMatches(d, "after prepareAmxThread");
    };
    std::thread([&] { check(); }).join();
    if (HasFatalFailure()) return;
    std::thread([&] {
        prepareAmxThread();
        const pid_t child = fork();
        ASSERT_GE(child, 0);
        if (child == 0) {
            check();
            _exit(::testing::Test::HasFailure() ? 1 : 0);
        }
        int status = 0;
        ASSERT_EQ(waitpid(child, &status, 0), child);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the forked child, status " << status;
    }).join();
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
