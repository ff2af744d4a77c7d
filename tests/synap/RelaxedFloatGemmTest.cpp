// A relaxed float model (relaxComputationFloat32toFloat16) on synap-npu: its program says so and
// stores its float GEMMs in bfloat16 where the CPU runs that kernel, a core runs them in place
// (mapped or not), a core that cannot (NNEMU_NPU_KERNELS=xnnpack) unpacks the rounded weights;
// every way, the outputs are within NNAPI's relaxed tolerance (the CTS's: 5 fp16 epsilons,
// absolute and relative) of the strict float32 program's. A strict model is never relaxed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>

#include "HalNetworkBuilder.h"
#include "compiler/Compiler.h"
#include "core/BandedLayers.h"
#include "core/NpuCore.h"
#include "kernels/FloatGemmBf16.h"
#include "nnemu/cache/CacheCounters.h"

namespace nnemu {
namespace {

using cache::cacheCounters;
using hal::OperandType;

std::vector<float> randomFloats(size_t n, uint32_t seed, float scale) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> value(-scale, scale);
    std::vector<float> values(n);
    for (float& v : values) v = value(rng);
    return values;
}

// float32 [1, height, width, depth] -> 1x1 CONV_2D to `hidden` channels (RELU) -> FULLY_CONNECTED
// to `classes`: two float GEMMs. The default is 7x7x96 -> 80 -> 10.
struct Shape {
    uint32_t height = 7, width = 7, depth = 96, hidden = 80, classes = 10;
    uint32_t seed = 1;
};

hal::Model floatNetwork(bool relaxed, const Shape& s = {}) {
    test::HalNetworkBuilder b;
    const uint32_t input = b.tensor(OperandType::TENSOR_FLOAT32, {1, s.height, s.width, s.depth});
    const uint32_t f = b.constant(OperandType::TENSOR_FLOAT32, {s.hidden, 1, 1, s.depth},
                                  randomFloats(size_t{s.hidden} * s.depth, s.seed, 0.2f));
    const uint32_t bias = b.constant(OperandType::TENSOR_FLOAT32, {s.hidden}, randomFloats(s.hidden, s.seed + 1, 0.5f));
    const uint32_t hidden = b.tensor(OperandType::TENSOR_FLOAT32, {1, s.height, s.width, s.hidden});
    b.operation(hal::OperationType::CONV_2D, {input, f, bias, b.scalar(1), b.scalar(1), b.scalar(1), b.scalar(1)},
                hidden);
    const uint32_t flat = s.height * s.width * s.hidden;
    const uint32_t w = b.constant(OperandType::TENSOR_FLOAT32, {s.classes, flat},
                                  randomFloats(size_t{s.classes} * flat, s.seed + 2, 0.05f));
    const uint32_t wb = b.constant(OperandType::TENSOR_FLOAT32, {s.classes}, randomFloats(s.classes, s.seed + 3, 0.5f));
    const uint32_t output = b.tensor(OperandType::TENSOR_FLOAT32, {1, s.classes});
    b.operation(hal::OperationType::FULLY_CONNECTED, {hidden, w, wb, b.scalar(0)}, output);
    hal::Model model = b.finish(input, output);
    model.relaxComputationFloat32toFloat16 = relaxed;
    return model;
}

std::vector<uint8_t> compiled(bool relaxed, const Shape& s = {}) {
    Result<std::vector<uint8_t>> program = synap::compileProgram(floatNetwork(relaxed, s), {{1, s.height, s.width, s.depth}});
    EXPECT_TRUE(program.isOk()) << program.message();
    return program.isOk() ? std::move(program).value() : std::vector<uint8_t>();
}

struct Ran {
    std::vector<float> output;
    uint64_t inPlace = 0, packings = 0;
};

Ran run(const std::vector<uint8_t>& program, const Shape& s = {}) {
    cacheCounters().reset();
    auto core = synap::NpuCore::load(cache::ProgramImage(program));
    EXPECT_TRUE(core.isOk()) << core.message();
    if (!core.isOk()) return {};
    const std::vector<float> input = randomFloats(size_t{s.height} * s.width * s.depth, s.seed + 4, 1.0f);
    std::vector<float> output(s.classes);
    const Status ran = (*core)->run({reinterpret_cast<const uint8_t*>(input.data())},
                                    {reinterpret_cast<uint8_t*>(output.data())});
    EXPECT_TRUE(ran.isOk()) << ran.message();
    return {output, cacheCounters().weightsInPlace.load(), cacheCounters().weightPackings.load()};
}

// NNAPI's relaxed tolerance as the CTS checks it: |got - expected| <= atol + rtol * |expected|.
void expectWithinRelaxedTolerance(const std::vector<float>& got, const std::vector<float>& expected) {
    constexpr double kTolerance = 5 * 0.0009765625;
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i) {
        EXPECT_LE(std::fabs(double{got[i]} - expected[i]), kTolerance + kTolerance * std::fabs(expected[i])) << i;
    }
}

class RelaxedFloatGemm : public ::testing::Test {
protected:
    void SetUp() override {
        const char* choice = std::getenv("NNEMU_NPU_KERNELS");
        if (choice != nullptr && std::string(choice) == "xnnpack") GTEST_SKIP() << "own kernels are off";
    }
};

TEST_F(RelaxedFloatGemm, TheProgramSaysWhetherTheModelIsRelaxed) {
    const std::vector<uint8_t> strict = compiled(false), relaxed = compiled(true);
    EXPECT_FALSE(npu::GetProgram(strict.data())->relaxed_float32());
    EXPECT_TRUE(npu::GetProgram(relaxed.data())->relaxed_float32());
    const auto kinds = [](const std::vector<uint8_t>& bytes) {
        std::vector<npu::PackedKernel> found;
        for (const npu::PackedWeights* p : *npu::GetProgram(bytes.data())->packed_weights()) found.push_back(p->kernel());
        return found;
    };
    using K = npu::PackedKernel;
    EXPECT_EQ(kinds(strict), (std::vector<K>{K::FLOAT_GEMM, K::FLOAT_GEMM}));
    const K expected = synap::kernels::hasFloatGemmBf16() ? K::FLOAT_GEMM_BF16 : K::FLOAT_GEMM;
    EXPECT_EQ(kinds(relaxed), (std::vector<K>{expected, expected}));
}

TEST_F(RelaxedFloatGemm, RunsInPlaceWithinTheRelaxedTolerance) {
    const Ran strict = run(compiled(false));
    const Ran relaxed = run(compiled(true));
    EXPECT_EQ(relaxed.inPlace, 2u);
    EXPECT_EQ(relaxed.packings, 0u);
    expectWithinRelaxedTolerance(relaxed.output, strict.output);
    if (synap::kernels::hasFloatGemmBf16()) {
        // bfloat16 operands: not the float32 results to the bit.
        EXPECT_NE(0, std::memcmp(relaxed.output.data(), strict.output.data(), strict.output.size() * sizeof(float)));
    }
}

// Random shapes with tails in rows (pixels), depth and channels on whichever bf16 kernel this CPU
// runs (AMX where usable; the ctest relaxed_on_avx512bf16 runs this again without AMX), none
// larger than the default network (7 x 7 x 96 -> 80): bf16's 8 significant bits (the bound of
// FloatGemmBf16.h) exceed the CTS's tolerance, made for fp16's 11, on longer sums of this scale,
// on either kernel.
TEST_F(RelaxedFloatGemm, RandomShapesStayWithinTheRelaxedTolerance) {
    std::mt19937 rng(2611);
    auto uniform = [&](uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng); };
    for (int trial = 0; trial < 16; ++trial) {
        Shape s;
        s.height = uniform(1, 7);
        s.width = uniform(1, 7);
        s.depth = uniform(1, 96);
        s.hidden = uniform(1, 80);
        s.classes = uniform(1, 40);
        s.seed = 100 + 10 * trial;
        SCOPED_TRACE(std::to_string(s.height) + "x" + std::to_string(s.width) + "x" + std::to_string(s.depth) + " -> " +
                     std::to_string(s.hidden) + " -> " + std::to_string(s.classes));
        const Ran strict = run(compiled(false, s), s);
        const Ran relaxed = run(compiled(true, s), s);
        EXPECT_EQ(relaxed.inPlace, 2u);
        expectWithinRelaxedTolerance(relaxed.output, strict.output);
    }
}

// float32 [batches, height, width, depth] -> `kernel` x `kernel` CONV_2D (SAME) to `expanded` (RELU6)
// -> 3x3 DEPTHWISE_CONV_2D stride `stride`, SAME, RELU6 -> 1x1 CONV_2D to `projected`: MobileNet
// v2's block (kernel 1), or its first block (kernel 3, depth 3: the few-channel convolution).
hal::Model floatBlock(bool relaxed, uint32_t height, uint32_t width, uint32_t depth, uint32_t expanded,
                      uint32_t stride, uint32_t projected, uint32_t seed, uint32_t batches = 1, uint32_t kernel = 1) {
    test::HalNetworkBuilder b;
    const uint32_t input = b.tensor(OperandType::TENSOR_FLOAT32, {batches, height, width, depth});
    const uint32_t f1 = b.constant(OperandType::TENSOR_FLOAT32, {expanded, kernel, kernel, depth},
                                   randomFloats(size_t{expanded} * kernel * kernel * depth, seed, 0.3f));
    const uint32_t b1 = b.constant(OperandType::TENSOR_FLOAT32, {expanded}, randomFloats(expanded, seed + 1, 0.5f));
    const uint32_t value = b.tensor(OperandType::TENSOR_FLOAT32, {batches, height, width, expanded});
    b.operation(hal::OperationType::CONV_2D, {input, f1, b1, b.scalar(1), b.scalar(1), b.scalar(1), b.scalar(3)}, value);
    const uint32_t outHeight = (height + stride - 1) / stride, outWidth = (width + stride - 1) / stride;
    const uint32_t f2 = b.constant(OperandType::TENSOR_FLOAT32, {1, 3, 3, expanded},
                                   randomFloats(size_t{expanded} * 9, seed + 2, 0.5f));
    const uint32_t b2 = b.constant(OperandType::TENSOR_FLOAT32, {expanded}, randomFloats(expanded, seed + 3, 0.5f));
    const uint32_t filtered = b.tensor(OperandType::TENSOR_FLOAT32, {batches, outHeight, outWidth, expanded});
    b.operation(hal::OperationType::DEPTHWISE_CONV_2D,
                {value, f2, b2, b.scalar(1), b.scalar(int32_t(stride)), b.scalar(int32_t(stride)), b.scalar(1), b.scalar(3)},
                filtered);
    const uint32_t f3 = b.constant(OperandType::TENSOR_FLOAT32, {projected, 1, 1, expanded},
                                   randomFloats(size_t{projected} * expanded, seed + 4, 0.2f));
    const uint32_t b3 = b.constant(OperandType::TENSOR_FLOAT32, {projected}, randomFloats(projected, seed + 5, 0.5f));
    const uint32_t output = b.tensor(OperandType::TENSOR_FLOAT32, {batches, outHeight, outWidth, projected});
    b.operation(hal::OperationType::CONV_2D, {filtered, f3, b3, b.scalar(1), b.scalar(1), b.scalar(1), b.scalar(0)},
                output);
    hal::Model model = b.finish(input, output);
    model.relaxComputationFloat32toFloat16 = relaxed;
    return model;
}

struct BlockRun {
    std::vector<float> output;
    size_t arenaBytes = 0;
};

BlockRun runBlock(const std::vector<uint8_t>& program, size_t inputCount, size_t outputCount, bool bands) {
    if (!bands) setenv("NNEMU_NPU_BANDS", "0", 1);  // read at every load
    auto core = synap::NpuCore::load(cache::ProgramImage(program));
    unsetenv("NNEMU_NPU_BANDS");
    EXPECT_TRUE(core.isOk()) << core.message();
    if (!core.isOk()) return {};
    const std::vector<float> input = randomFloats(inputCount, 77, 1.0f);
    BlockRun ran{std::vector<float>(outputCount, NAN), (*core)->arenaBytes()};
    const Status status = (*core)->run({reinterpret_cast<const uint8_t*>(input.data())},
                                       {reinterpret_cast<uint8_t*>(ran.output.data())});
    EXPECT_TRUE(status.isOk()) << status.message();
    return ran;
}

// A relaxed program's 1x1 convolution -> depthwise -> 1x1 convolution runs in row bands (BandedLayers.h)
// where the bf16 GEMM runs, a strict one where the expanded value holds two float bands: the outputs
// of the layers run apart (NNEMU_NPU_BANDS=0) to the bit, on random shapes (strides 1 and 2, tails
// in rows, depth and channels) and on v2's blocks at 112x112 (whose 4.8 MB expanded value then
// never lies whole in the arena), 56x56 and 28x28 (strict: apart).
TEST_F(RelaxedFloatGemm, BlocksInRowBandsGiveTheLayersApartsBits) {
    std::mt19937 rng(2613);
    auto uniform = [&](uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng); };
    size_t strictBanded = 0;
    for (int trial = 0; trial < 9; ++trial) {
        uint32_t height = uniform(1, 40), width = uniform(1, 40), depth = uniform(1, 40), expanded = uniform(1, 100);
        uint32_t stride = uniform(1, 2), projected = uniform(1, 40);
        if (trial == 0) height = width = 112, depth = 16, expanded = 96, stride = 2, projected = 24;
        if (trial == 1) height = width = 56, depth = 24, expanded = 144, stride = 1, projected = 24;
        if (trial == 2) height = width = 28, depth = 32, expanded = 192, stride = 2, projected = 64;
        SCOPED_TRACE(std::to_string(height) + "x" + std::to_string(width) + "x" + std::to_string(depth) + " -> " +
                     std::to_string(expanded) + " stride " + std::to_string(stride) + " -> " + std::to_string(projected));
        const uint32_t outHeight = (height + stride - 1) / stride, outWidth = (width + stride - 1) / stride;
        const size_t inputCount = size_t{height} * width * depth, outputCount = size_t{outHeight} * outWidth * projected;
        for (const bool relaxed : {true, false}) {
            Result<std::vector<uint8_t>> program = synap::compileProgram(
                    floatBlock(relaxed, height, width, depth, expanded, stride, projected, 30 + trial),
                    {{1, height, width, depth}});
            ASSERT_TRUE(program.isOk()) << program.message();
            const BlockRun banded = runBlock(*program, inputCount, outputCount, true);
            const BlockRun apart = runBlock(*program, inputCount, outputCount, false);
            ASSERT_EQ(banded.output.size(), outputCount);
            EXPECT_EQ(0, std::memcmp(banded.output.data(), apart.output.data(), outputCount * sizeof(float)));
            const size_t value = size_t{height} * width * expanded * sizeof(float);
            // (A relaxed program runs the float32 kernels where the CPU lacks the bf16 one.)
            const bool bands = (relaxed && synap::kernels::hasFloatGemmBf16()) || value >= synap::kStrictFloatBandedBytes;
            strictBanded += !relaxed && bands;  // (with or without bf16)
            if (!bands) {
                EXPECT_EQ(banded.arenaBytes, apart.arenaBytes);
            } else if (trial == 0) {
                EXPECT_LT(banded.arenaBytes, apart.arenaBytes / 2);  // 6.0 MB -> 2.5 MB
            }
        }
    }
    EXPECT_EQ(strictBanded, 2u);  // v2's blocks at 112x112 and 56x56 (not 28x28: a 0.6 MB value)
}

// The first convolution (3x3 over 3 channels, the own few-channel kernel) computes bands too:
// with its depthwise and projection, two images (bands never cross one), strides 1 and 2, the
// outputs of the layers apart to the bit.
TEST_F(RelaxedFloatGemm, FirstBlocksInRowBandsGiveTheLayersApartsBits) {
    for (const uint32_t stride : {1u, 2u}) {
        for (const bool relaxed : {false, true}) {
            SCOPED_TRACE("stride " + std::to_string(stride) + (relaxed ? " relaxed" : " strict"));
            const uint32_t batches = 2, height = 91, width = 77, expanded = 32, projected = 16;  // 1.8 MB value
            const uint32_t outHeight = (height + stride - 1) / stride, outWidth = (width + stride - 1) / stride;
            Result<std::vector<uint8_t>> program = synap::compileProgram(
                    floatBlock(relaxed, height, width, 3, expanded, stride, projected, 50 + stride, batches, 3),
                    {{batches, height, width, 3}});
            ASSERT_TRUE(program.isOk()) << program.message();
            const size_t inputCount = size_t{batches} * height * width * 3;
            const size_t outputCount = size_t{batches} * outHeight * outWidth * projected;
            const BlockRun banded = runBlock(*program, inputCount, outputCount, true);
            const BlockRun apart = runBlock(*program, inputCount, outputCount, false);
            ASSERT_EQ(banded.output.size(), outputCount);
            EXPECT_EQ(0, std::memcmp(banded.output.data(), apart.output.data(), outputCount * sizeof(float)));
            EXPECT_FALSE(std::isnan(banded.output[outputCount - 1]));
            // Banded: the value is not in the arena, the runs' band buffers are (one per thread,
            // each for a whole band: with two threads more than the value here).
            EXPECT_NE(banded.arenaBytes, apart.arenaBytes);
        }
    }
}

TEST_F(RelaxedFloatGemm, ACoreWithoutTheKernelRunsTheRoundedWeights) {
    const Ran strict = run(compiled(false));
    const std::vector<uint8_t> relaxed = compiled(true);
    setenv("NNEMU_NPU_KERNELS", "xnnpack", 1);  // read at every load
    const Ran xnnpack = run(relaxed);
    unsetenv("NNEMU_NPU_KERNELS");
    EXPECT_EQ(xnnpack.inPlace, 0u);
    expectWithinRelaxedTolerance(xnnpack.output, strict.output);
}

}  // namespace
}  // namespace nnemu
