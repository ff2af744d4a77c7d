// Float 3x3 depthwise and few-channel convolutions on synap-npu's own float kernels
// (kernels/FloatDepthwise.h, FloatConv.h): one operation compiled for synap-npu alone gives nnapi-reference's
// bytes on the same random operands (values in steps of 1/8: every sum is exact in float, so any
// order of the additions gives the same bytes); the program stores their weights packed with the
// filters dropped, a core runs them in place, and a core that cannot (NNEMU_NPU_KERNELS=xnnpack)
// unpacks the filters and gives the same outputs. Float ADD, SUB and global average pools on the
// core's own layers give the reference's bytes too.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <random>

#include "HalNetworkBuilder.h"
#include "OneOperationModel.h"
#include "compiler/Compiler.h"
#include "core/NpuCore.h"
#include "nnemu/cache/CacheCounters.h"

namespace nnemu {
namespace {

using test::int32Scalar;
using test::OneOperationModel;
using test::TestOperand;

constexpr int32_t kF32 = ANEURALNETWORKS_TENSOR_FLOAT32;

bool ownKernelsOff() {
    const char* choice = std::getenv("NNEMU_NPU_KERNELS");
    return choice != nullptr && std::string(choice) == "xnnpack";
}

TestOperand constant(TestOperand operand, uint32_t seed) {
    std::mt19937 random(seed);
    operand.value = test::randomData(operand, random);
    return operand;
}

// DEPTHWISE_CONV_2D (3x3, multiplier 1) or CONV_2D of a filter `kernel` x `kernel` with implicit
// padding, the stride both ways and the fused activation.
OneOperationModel convolution(bool depthwise, std::vector<uint32_t> in, uint32_t channels, uint32_t kernel,
                              int32_t padding, int32_t stride, int32_t activation) {
    const uint32_t inChannels = in[3];
    const auto extent = [&](uint32_t size) {
        return padding == ANEURALNETWORKS_PADDING_SAME ? (size + stride - 1) / stride : (size - kernel) / stride + 1;
    };
    std::vector<uint32_t> out{in[0], extent(in[1]), extent(in[2]), channels};
    std::vector<uint32_t> filter = depthwise ? std::vector<uint32_t>{1, kernel, kernel, channels}
                                             : std::vector<uint32_t>{channels, kernel, kernel, inChannels};
    std::vector<TestOperand> inputs{{kF32, std::move(in)}, constant({kF32, std::move(filter)}, 7),
                                    constant({kF32, {channels}}, 8), int32Scalar(padding), int32Scalar(stride),
                                    int32Scalar(stride)};
    if (depthwise) inputs.push_back(int32Scalar(1));
    inputs.push_back(int32Scalar(activation));
    return OneOperationModel(depthwise ? ANEURALNETWORKS_DEPTHWISE_CONV_2D : ANEURALNETWORKS_CONV_2D,
                             std::move(inputs), {kF32, std::move(out)});
}

void expectSameAsReference(const OneOperationModel& model) {
    ASSERT_TRUE(model.claimedBy("synap-npu"));
    for (uint32_t seed : {1u, 2u}) {
        const auto inputs = model.randomInputs(seed);
        const auto expected = model.run("nnapi-reference", inputs);
        const auto actual = model.run("synap-npu", inputs);
        ASSERT_FALSE(expected.empty());
        ASSERT_FALSE(actual.empty()) << "synap-npu failed to compile or run it";
        EXPECT_EQ(actual, expected) << "seed " << seed;
    }
}

TEST(NpuFloatConv, DepthwiseStridesPaddingsAndActivationsGiveTheReferenceBytes) {
    for (int32_t stride : {1, 2}) {
        for (int32_t padding : {ANEURALNETWORKS_PADDING_SAME, ANEURALNETWORKS_PADDING_VALID}) {
            for (int32_t activation : {ANEURALNETWORKS_FUSED_NONE, ANEURALNETWORKS_FUSED_RELU, ANEURALNETWORKS_FUSED_RELU6}) {
                SCOPED_TRACE("stride " + std::to_string(stride) + " padding " + std::to_string(padding) +
                             " activation " + std::to_string(activation));
                expectSameAsReference(convolution(true, {2, 9, 11, 37}, 37, 3, padding, stride, activation));
            }
        }
    }
}

// Sets NNEMU_NPU_KERNELS (read at every compilation and load) for the scope, unless the own
// kernels are off; then puts back what was there.
struct KernelChoice {
    std::optional<std::string> before;
    explicit KernelChoice(const char* choice) {
        if (const char* now = std::getenv("NNEMU_NPU_KERNELS")) before = now;
        if (!ownKernelsOff()) setenv("NNEMU_NPU_KERNELS", choice, 1);
    }
    ~KernelChoice() {
        if (before) {
            setenv("NNEMU_NPU_KERNELS", before->c_str(), 1);
        } else {
            unsetenv("NNEMU_NPU_KERNELS");
        }
    }
    KernelChoice(const KernelChoice&) = delete;
    KernelChoice& operator=(const KernelChoice&) = delete;
};

// The first convolution (up to 4 input channels, kernels up to 7x7: the own kernel by default),
// and with NNEMU_NPU_KERNELS=all one of more input channels.
TEST(NpuFloatConv, FirstConvolutionGivesTheReferenceBytes) {
    for (uint32_t kernel : {3u, 5u, 7u}) {
        for (int32_t stride : {1, 2}) {
            for (int32_t padding : {ANEURALNETWORKS_PADDING_SAME, ANEURALNETWORKS_PADDING_VALID}) {
                const uint32_t inChannels = kernel == 5 ? 1 : kernel == 7 ? 4 : 3;
                SCOPED_TRACE("kernel " + std::to_string(kernel) + " stride " + std::to_string(stride) + " padding " +
                             std::to_string(padding));
                expectSameAsReference(convolution(false, {1, 15, 29, inChannels}, kernel == 7 ? 24 : 32, kernel, padding,
                                                  stride, ANEURALNETWORKS_FUSED_RELU6));
            }
        }
    }
    const KernelChoice all("all");
    expectSameAsReference(convolution(false, {2, 9, 13, 8}, 20, 3, ANEURALNETWORKS_PADDING_SAME, 1,
                                      ANEURALNETWORKS_FUSED_NONE));
}

// Float ADD and SUB of same-shape tensors and float global average pools (core/OwnFloatElementwise.cpp:
// with the own float convolutions they leave a float MobileNet no XNNPACK stage): ADD and SUB round
// once as the reference does; the average sums in the reference's order and divides by the count.
TEST(NpuFloatElementwise, AddAndSubGiveTheReferenceBytes) {
    for (int32_t op : {ANEURALNETWORKS_ADD, ANEURALNETWORKS_SUB}) {
        for (int32_t activation : {ANEURALNETWORKS_FUSED_NONE, ANEURALNETWORKS_FUSED_RELU, ANEURALNETWORKS_FUSED_RELU6}) {
            // Large enough for several slices over the threads.
            for (std::vector<uint32_t> dims : {std::vector<uint32_t>{1, 5, 7, 3}, std::vector<uint32_t>{2, 56, 56, 24}}) {
                SCOPED_TRACE("op " + std::to_string(op) + " activation " + std::to_string(activation) + " batches " +
                             std::to_string(dims[0]));
                expectSameAsReference(OneOperationModel(op, {{kF32, dims}, {kF32, dims}, int32Scalar(activation)},
                                                        {kF32, dims}));
            }
        }
    }
}

TEST(NpuFloatElementwise, GlobalAverageGivesTheReferenceBytes) {
    for (int32_t activation : {ANEURALNETWORKS_FUSED_NONE, ANEURALNETWORKS_FUSED_RELU6}) {
        for (std::vector<uint32_t> dims : {std::vector<uint32_t>{1, 7, 7, 1280}, std::vector<uint32_t>{2, 3, 5, 17}}) {
            SCOPED_TRACE("activation " + std::to_string(activation) + " channels " + std::to_string(dims[3]));
            expectSameAsReference(OneOperationModel(
                ANEURALNETWORKS_AVERAGE_POOL_2D,
                {{kF32, dims}, int32Scalar(ANEURALNETWORKS_PADDING_VALID), int32Scalar(1), int32Scalar(1),
                 int32Scalar(static_cast<int32_t>(dims[2])), int32Scalar(static_cast<int32_t>(dims[1])),
                 int32Scalar(activation)},
                {kF32, {dims[0], 1, 1, dims[3]}}));
        }
    }
}

// float [1, 10, 10, 3] -> 3x3 stride-2 CONV_2D to 24 (RELU6) -> 3x3 DEPTHWISE_CONV_2D (RELU).
hal::Model floatNetwork() {
    test::HalNetworkBuilder b;
    std::mt19937 rng(3);
    const auto values = [&](size_t n) {
        std::vector<float> v(n);
        for (float& x : v) x = std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng);
        return v;
    };
    using hal::OperandType;
    const uint32_t input = b.tensor(OperandType::TENSOR_FLOAT32, {1, 10, 10, 3});
    const uint32_t f = b.constant(OperandType::TENSOR_FLOAT32, {24, 3, 3, 3}, values(24 * 27));
    const uint32_t bias = b.constant(OperandType::TENSOR_FLOAT32, {24}, values(24));
    const uint32_t hidden = b.tensor(OperandType::TENSOR_FLOAT32, {1, 5, 5, 24});
    b.operation(hal::OperationType::CONV_2D,
                {input, f, bias, b.scalar(ANEURALNETWORKS_PADDING_SAME), b.scalar(2), b.scalar(2), b.scalar(3)}, hidden);
    const uint32_t dw = b.constant(OperandType::TENSOR_FLOAT32, {1, 3, 3, 24}, values(9 * 24));
    const uint32_t dwBias = b.constant(OperandType::TENSOR_FLOAT32, {24}, values(24));
    const uint32_t output = b.tensor(OperandType::TENSOR_FLOAT32, {1, 5, 5, 24});
    b.operation(hal::OperationType::DEPTHWISE_CONV_2D,
                {hidden, dw, dwBias, b.scalar(ANEURALNETWORKS_PADDING_SAME), b.scalar(1), b.scalar(1), b.scalar(1),
                 b.scalar(1)},
                output);
    return b.finish(input, output);
}

struct Ran {
    std::vector<float> output;
    uint64_t inPlace = 0, packings = 0;
};

Ran run(const std::vector<uint8_t>& program) {
    cache::cacheCounters().reset();
    auto core = synap::NpuCore::load(cache::ProgramImage(program));
    EXPECT_TRUE(core.isOk()) << core.message();
    if (!core.isOk()) return {};
    std::vector<float> input(300), output(5 * 5 * 24);
    for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<float>(i % 17) / 8.0f - 1.0f;
    const Status ran = (*core)->run({reinterpret_cast<const uint8_t*>(input.data())},
                                    {reinterpret_cast<uint8_t*>(output.data())});
    EXPECT_TRUE(ran.isOk()) << ran.message();
    return {output, cache::cacheCounters().weightsInPlace.load(), cache::cacheCounters().weightPackings.load()};
}

TEST(NpuFloatConv, StoredPackedRunInPlaceAndUnpackForXnnpack) {
    if (ownKernelsOff()) GTEST_SKIP() << "own kernels are off";
    Result<std::vector<uint8_t>> program = synap::compileProgram(floatNetwork(), {{1, 10, 10, 3}});
    ASSERT_TRUE(program.isOk()) << program.message();
    const npu::Program& p = *npu::GetProgram(program->data());
    std::vector<npu::PackedKernel> kinds;
    for (const npu::PackedWeights* w : *p.packed_weights()) kinds.push_back(w->kernel());
    EXPECT_EQ(kinds, (std::vector<npu::PackedKernel>{npu::PackedKernel::FLOAT_CONV, npu::PackedKernel::FLOAT_DEPTHWISE}));
    size_t dropped = 0;
    for (const npu::Tensor* t : *p.tensors()) dropped += t->packed() ? 1 : 0;
    EXPECT_EQ(dropped, 2u);
    const Ran own = run(*program);
    EXPECT_EQ(own.inPlace, 2u);
    EXPECT_EQ(own.packings, 0u);
    setenv("NNEMU_NPU_KERNELS", "xnnpack", 1);  // read at every load
    const Ran xnnpack = run(*program);
    unsetenv("NNEMU_NPU_KERNELS");
    EXPECT_EQ(xnnpack.inPlace, 0u);
    ASSERT_EQ(own.output.size(), xnnpack.output.size());
    for (size_t i = 0; i < own.output.size(); ++i) {
        EXPECT_NEAR(own.output[i], xnnpack.output[i], 1e-5 + 1e-5 * std::fabs(xnnpack.output[i])) << i;
    }
}

// The first convolution reads the network input where the caller holds it (it reads no byte past
// the image); from a copy where those bytes are not aligned for floats: the same outputs either way.
TEST(NpuFloatConv, FirstConvolutionReadsItsInputInPlaceAlignedOrNot) {
    if (ownKernelsOff()) GTEST_SKIP() << "own kernels are off";
    Result<std::vector<uint8_t>> program = synap::compileProgram(floatNetwork(), {{1, 10, 10, 3}});
    ASSERT_TRUE(program.isOk()) << program.message();
    auto core = synap::NpuCore::load(cache::ProgramImage(*program));
    ASSERT_TRUE(core.isOk()) << core.message();
    std::vector<float> input(300);
    for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<float>(i % 17) / 8.0f - 1.0f;
    std::vector<uint8_t> shifted(input.size() * sizeof(float) + 1);
    std::memcpy(shifted.data() + 1, input.data(), input.size() * sizeof(float));
    std::vector<float> aligned(5 * 5 * 24), odd(aligned.size()), again(aligned.size());
    const auto runOn = [&](const uint8_t* in, std::vector<float>* out) {
        const Status ran = (*core)->run({in}, {reinterpret_cast<uint8_t*>(out->data())});
        EXPECT_TRUE(ran.isOk()) << ran.message();
    };
    runOn(reinterpret_cast<const uint8_t*>(input.data()), &aligned);
    runOn(shifted.data() + 1, &odd);
    runOn(reinterpret_cast<const uint8_t*>(input.data()), &again);
    EXPECT_EQ(0, std::memcmp(aligned.data(), odd.data(), aligned.size() * sizeof(float)));
    EXPECT_EQ(0, std::memcmp(aligned.data(), again.data(), aligned.size() * sizeof(float)));
    EXPECT_EQ(aligned, run(*program).output);
}

}  // namespace
}  // namespace nnemu
