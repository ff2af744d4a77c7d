// A 1x1 convolution whose output only a 3x3 depthwise convolution reads runs with it in row
// bands (driver/synap/core/BandedLayers.h), and so does a 1x1 projection reading the depthwise's
// output: the result is the reference's to the bit, the same as the layers run apart
// (NNEMU_NPU_BANDS=0), and the activation arena no longer holds the values between them; in the
// default bands and in bands of 32 KiB (NNEMU_NPU_BAND_KIB: several bands for most cases, where the
// AVX-512 default of 256 KiB takes one or two). CMake runs this suite again with 2 threads and
// with each kernel ISA.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "HalNetworkBuilder.h"
#include "device/PreparedNetwork.h"
#include "nnemu/cpu/Executor.h"
#include "nnemu/hal/DeviceRegistry.h"
#include "nnemu/hal/Validation.h"

namespace nnemu {
namespace {

using hal::OperandType;
using hal::OperationType;

struct PairCase {
    bool isSigned;
    bool perChannel;
    uint32_t height, width, depth, channels;
    int32_t stride, padLeft, padRight, padTop, padBottom;
    float valueScale;   // of the 1x1 convolution's output; small: its multipliers above 1
    float outputScale;
    bool firstConv = false;  // a 3x3 stride-2 convolution (im2col + GEMM) instead of the 1x1
    uint32_t projection = 0;  // output channels of a 1x1 convolution after the depthwise, or none
    // int8 cases: the network's input is uint8, turned int8 by DEQUANTIZE + QUANTIZE (a sign flip)
    bool uint8Input = false;

    uint32_t outputChannels() const { return projection != 0 ? projection : channels; }
};

std::vector<uint8_t> randomBytes(size_t count, std::mt19937& random, int low, int high) {
    return test::randomValues<uint8_t>(count, random, low, high);
}

std::vector<int32_t> randomBias(size_t count, std::mt19937& random) {
    return test::randomValues<int32_t>(count, random, -2000, 2000);
}

// A filter of `count` values, per channel along `channelDim` or per tensor.
uint32_t filter(test::HalNetworkBuilder& b, const PairCase& c, std::vector<uint32_t> dims, uint32_t channelDim,
                std::mt19937& random) {
    size_t count = 1;
    for (uint32_t d : dims) count *= d;
    if (!c.isSigned) return b.constant(OperandType::TENSOR_QUANT8_ASYMM, dims, randomBytes(count, random, 0, 255), 0.01f, 120);
    if (!c.perChannel) {
        return b.constant(OperandType::TENSOR_QUANT8_ASYMM_SIGNED, dims, randomBytes(count, random, 0, 255), 0.01f, 0);
    }
    std::vector<float> scales(dims[channelDim]);
    std::uniform_real_distribution<float> scale(0.004f, 0.02f);
    for (float& s : scales) s = scale(random);
    const uint32_t index = b.constant(OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL, dims,
                                      randomBytes(count, random, 129, 383), 0.0f, 0);
    b.operand(index).channelQuant = hal::SymmPerChannelQuantParams{scales, channelDim};
    return index;
}

// input [1, H, W, depth] -> CONV_2D 1x1 (RELU6) -> DEPTHWISE_CONV_2D 3x3 with the case's
// stride and explicit padding (-> CONV_2D 1x1 to `projection` channels) -> output.
hal::Model pairNetwork(const PairCase& c, uint32_t* outHeight, uint32_t* outWidth) {
    std::mt19937 random(c.height * 131 + c.channels);
    test::HalNetworkBuilder b;
    const OperandType activations = c.isSigned ? OperandType::TENSOR_QUANT8_ASYMM_SIGNED : OperandType::TENSOR_QUANT8_ASYMM;
    const int32_t zero = c.isSigned ? -3 : 125;
    uint32_t input = b.tensor(activations, {1, c.height, c.width, c.depth}, 0.05f, zero);
    const uint32_t networkInput = c.uint8Input ? b.tensor(OperandType::TENSOR_QUANT8_ASYMM, {1, c.height, c.width, c.depth}, 0.05f, zero + 128)
                                               : input;
    if (c.uint8Input) {
        const uint32_t real = b.tensor(OperandType::TENSOR_FLOAT32, {1, c.height, c.width, c.depth});
        b.operation(OperationType::DEQUANTIZE, {networkInput}, real);
        b.operation(OperationType::QUANTIZE, {real}, input);
    }
    const uint32_t size = c.firstConv ? 3 : 1, step = c.firstConv ? 2 : 1;
    const uint32_t convFilter = filter(b, c, {c.channels, size, size, c.depth}, 0, random);
    const uint32_t convBias = b.constant(OperandType::TENSOR_INT32, {c.channels}, randomBias(c.channels, random),
                                         c.perChannel ? 0.0f : 0.05f * 0.01f);
    // The 3x3 one pads right and bottom by 2.
    const uint32_t height = (c.height + size - 1 - size) / step + 1, width = (c.width + size - 1 - size) / step + 1;
    const uint32_t value = b.tensor(activations, {1, height, width, c.channels}, c.valueScale, zero + 2);
    b.operation(OperationType::CONV_2D,
                {input, convFilter, convBias, b.scalar(0), b.scalar(int32_t(size) - 1), b.scalar(0),
                 b.scalar(int32_t(size) - 1), b.scalar(int32_t(step)), b.scalar(int32_t(step)), b.scalar(3)},
                value);
    *outHeight = static_cast<uint32_t>((int32_t(height) + c.padTop + c.padBottom - 3) / c.stride + 1);
    *outWidth = static_cast<uint32_t>((int32_t(width) + c.padLeft + c.padRight - 3) / c.stride + 1);
    const uint32_t dwFilter = filter(b, c, {1, 3, 3, c.channels}, 3, random);
    const uint32_t dwBias = b.constant(OperandType::TENSOR_INT32, {c.channels}, randomBias(c.channels, random),
                                       c.perChannel ? 0.0f : c.valueScale * 0.01f);
    const uint32_t output = b.tensor(activations, {1, *outHeight, *outWidth, c.channels}, c.outputScale, zero - 1);
    b.operation(OperationType::DEPTHWISE_CONV_2D,
                {value, dwFilter, dwBias, b.scalar(c.padLeft), b.scalar(c.padRight), b.scalar(c.padTop),
                 b.scalar(c.padBottom), b.scalar(c.stride), b.scalar(c.stride), b.scalar(1), b.scalar(0)},
                output);
    if (c.projection == 0) return b.finish(networkInput, output);
    const uint32_t projectFilter = filter(b, c, {c.projection, 1, 1, c.channels}, 0, random);
    const uint32_t projectBias = b.constant(OperandType::TENSOR_INT32, {c.projection}, randomBias(c.projection, random),
                                            c.perChannel ? 0.0f : c.outputScale * 0.01f);
    const uint32_t projected = b.tensor(activations, {1, *outHeight, *outWidth, c.projection}, 0.07f, zero + 4);
    b.operation(OperationType::CONV_2D,
                {output, projectFilter, projectBias, b.scalar(0), b.scalar(0), b.scalar(0), b.scalar(0), b.scalar(1),
                 b.scalar(1), b.scalar(0)},
                projected);
    return b.finish(networkInput, projected);
}

std::shared_ptr<hal::IDevice> synapNpu() {
    for (const auto& device : hal::registeredDevices()) {
        if (device->getName() == "synap-npu") return device;
    }
    return nullptr;
}

struct Result {
    std::vector<uint8_t> output;
    size_t arenaBytes = 0;
    size_t workspaceBytes = 0;  // the largest stage's band buffers, in the arena
};

// Runs `model` on `input`: on synap-npu (compiled now, with NNEMU_NPU_BANDS and NNEMU_NPU_BAND_KIB
// as given) or on the reference kernels.
Result run(const hal::Model& model, const std::vector<uint8_t>& input, size_t outputBytes, const char* bands,
           bool reference, const char* bandKib = nullptr) {
    // The input alone in its pool, of its size: the core may read it in place, and a sanitizer
    // build sees any read past it.
    auto inputPool = std::make_shared<hal::HeapPool>(input.size());
    auto pool = std::make_shared<hal::HeapPool>(outputBytes);
    std::memcpy(inputPool->data(), input.data(), input.size());
    hal::Request request;
    request.pools = {inputPool, pool};
    request.inputs.push_back({false, {0, 0, static_cast<uint32_t>(input.size())}, {}});
    request.outputs.push_back({false, {1, 0, static_cast<uint32_t>(outputBytes)}, {}});
    Result result;
    if (reference) {
        EXPECT_EQ(std::get<0>(cpu::executeModel(model, request)), hal::ErrorStatus::NONE);
    } else {
        if (bands != nullptr) setenv("NNEMU_NPU_BANDS", bands, 1);  // read when the core loads
        if (bandKib != nullptr) setenv("NNEMU_NPU_BAND_KIB", bandKib, 1);
        auto [status, prepared] = synapNpu()->prepareModel(model, hal::ExecutionPreference::FAST_SINGLE_ANSWER, {}, {},
                                                           hal::CacheToken{});
        EXPECT_EQ(status, hal::ErrorStatus::NONE);
        if (prepared == nullptr) return result;
        EXPECT_EQ(std::get<0>(prepared->executeSynchronously(request, hal::MeasureTiming::NO)), hal::ErrorStatus::NONE);
        const auto networks = synap::livePreparedNetworks();
        if (!networks.empty() && networks.back()->core() != nullptr) {
            result.arenaBytes = networks.back()->core()->arenaBytes();
            result.workspaceBytes = networks.back()->core()->largestWorkspace();
        }
        unsetenv("NNEMU_NPU_BANDS");
        unsetenv("NNEMU_NPU_BAND_KIB");
    }
    result.output.assign(pool->data(), pool->data() + outputBytes);
    EXPECT_EQ(std::vector<uint8_t>(inputPool->data(), inputPool->data() + input.size()), input);  // left as it was
    return result;
}

// Threads the core may run a stage on: NNEMU_NPU_THREADS (CMake runs this suite with 2), or at
// most one per processor.
size_t threadsAtMost() {
    const char* fixed = std::getenv("NNEMU_NPU_THREADS");
    if (fixed != nullptr && std::atoi(fixed) > 0) return static_cast<size_t>(std::atoi(fixed));
    return std::max(1u, std::thread::hardware_concurrency());
}

class BandedPair : public ::testing::TestWithParam<PairCase> {};

TEST_P(BandedPair, MatchesTheReferenceAndTheLayersRunApart) {
    const PairCase& c = GetParam();
    uint32_t outHeight = 0, outWidth = 0;
    const hal::Model model = pairNetwork(c, &outHeight, &outWidth);
    ASSERT_TRUE(hal::validateModel(model).isOk()) << hal::validateModel(model);
    ASSERT_NE(synapNpu(), nullptr);
    std::mt19937 random(5);
    const std::vector<uint8_t> input = randomBytes(size_t{c.height} * c.width * c.depth, random, 0, 255);
    const size_t outputBytes = size_t{outHeight} * outWidth * c.outputChannels();
    const Result expected = run(model, input, outputBytes, nullptr, true);
    const Result apart = run(model, input, outputBytes, "0", false);
    const Result banded = run(model, input, outputBytes, nullptr, false);
    const Result small = run(model, input, outputBytes, nullptr, false, "32");
    ASSERT_EQ(apart.output.size(), outputBytes);
    ASSERT_EQ(banded.output.size(), outputBytes);
    ASSERT_EQ(small.output.size(), outputBytes);
    size_t differences = 0;
    for (size_t i = 0; i < outputBytes; ++i) {
        differences += expected.output[i] != apart.output[i] || expected.output[i] != banded.output[i] ||
                       expected.output[i] != small.output[i];
    }
    EXPECT_EQ(differences, 0u);
    // The arena holds the values between the layers, [H, W, channels] (and the depthwise's
    // output before a projection), when they run apart; the network's input and output (each
    // padded) and the bands' buffers when banded: per thread, about a band of rows (32 KiB, or
    // 256 KiB by default where the kernels run AVX-512 VNNI) and 3 rows more.
    const size_t between = size_t{c.channels} * (c.firstConv ? c.height * c.width / 4 : c.height * c.width);
    const size_t rowBytes = between / (c.firstConv ? c.height / 2 : c.height);
    EXPECT_GE(apart.arenaBytes, outputBytes + between);
    EXPECT_EQ(apart.workspaceBytes, 0u);
    for (const Result* r : {&banded, &small}) {
        const size_t bandBytes = (r == &small ? 32 : 256) * 1024;
        EXPECT_GT(r->workspaceBytes, 0u);
        EXPECT_LE(r->workspaceBytes, threadsAtMost() * 2 * (bandBytes + 4 * rowBytes + 512));
        EXPECT_LE(r->arenaBytes, input.size() + outputBytes + r->workspaceBytes + 3 * 128) << "apart: " << apart.arenaBytes;
        // A first convolution reading the network's uint8 input through a sign flip reads it where
        // the caller holds it, unflipping as it unfolds: neither the input nor its flip is in the arena.
        if (c.uint8Input && c.firstConv) {
            EXPECT_LE(r->arenaBytes, outputBytes + r->workspaceBytes + 2 * 128);
        }
    }
}

// Odd and even heights, several bands (wide rows of many channels) and one, stride 1 and 2,
// symmetric, asymmetric and no padding, channels not a multiple of 16, int8 per-channel and
// per-tensor, uint8 with a filter zero point; two with the 1x1 convolution's multipliers above 1;
// two after a 3x3 stride-2 convolution of 3 input channels (the first layer of MobileNets); five
// with a projection after the depthwise (MobileNet v2's blocks), one of them after that first layer;
// three whose int8 network takes a uint8 input (the generated int8 MobileNets' ports), two of them
// into that first layer; two small images of many channels, whose convolution rows cost enough
// that two threads run them side by side (BandedPair::sideBySidePays), not in runs of bands.
INSTANTIATE_TEST_SUITE_P(
        Shapes, BandedPair,
        ::testing::Values(PairCase{true, true, 45, 61, 16, 128, 2, 0, 1, 0, 1, 0.04f, 0.05f},
                          PairCase{true, true, 45, 61, 16, 128, 1, 1, 1, 1, 1, 0.04f, 0.05f},
                          PairCase{false, false, 44, 33, 20, 136, 2, 1, 1, 1, 1, 0.0004f, 0.05f},
                          PairCase{false, false, 31, 40, 8, 120, 1, 0, 0, 0, 0, 0.04f, 0.05f},
                          PairCase{true, false, 7, 9, 12, 24, 2, 0, 0, 0, 0, 0.04f, 0.05f},
                          PairCase{false, false, 29, 50, 32, 104, 1, 0, 2, 2, 0, 0.04f, 0.03f},
                          PairCase{true, true, 58, 37, 24, 200, 2, 1, 1, 1, 1, 0.0003f, 0.05f},
                          PairCase{true, true, 111, 96, 3, 32, 1, 1, 1, 1, 1, 0.04f, 0.05f, true},
                          PairCase{false, false, 90, 71, 3, 40, 2, 0, 1, 0, 1, 0.04f, 0.05f, true},
                          PairCase{true, true, 45, 61, 16, 96, 2, 0, 1, 0, 1, 0.04f, 0.05f, false, 24},
                          PairCase{true, true, 29, 30, 24, 144, 1, 1, 1, 1, 1, 0.0004f, 0.05f, false, 40},
                          PairCase{false, false, 33, 20, 20, 72, 1, 1, 1, 1, 1, 0.04f, 0.05f, false, 17},
                          PairCase{true, false, 7, 9, 12, 24, 2, 0, 0, 0, 0, 0.04f, 0.05f, false, 8},
                          PairCase{true, true, 111, 96, 3, 32, 1, 1, 1, 1, 1, 0.04f, 0.05f, true, 16},
                          PairCase{true, true, 95, 64, 3, 32, 1, 1, 1, 1, 1, 0.04f, 0.05f, true, 16, true},
                          PairCase{true, false, 37, 29, 5, 24, 2, 0, 1, 0, 1, 0.04f, 0.05f, true, 0, true},
                          PairCase{true, true, 20, 18, 8, 40, 1, 1, 1, 1, 1, 0.04f, 0.05f, false, 12, true},
                          PairCase{true, true, 10, 12, 320, 288, 1, 1, 1, 1, 1, 0.04f, 0.05f, false, 24},
                          PairCase{false, false, 9, 14, 384, 400, 2, 0, 1, 0, 1, 0.04f, 0.05f}),
        [](const ::testing::TestParamInfo<PairCase>& info) {
            const PairCase& c = info.param;
            return std::string(c.isSigned ? (c.perChannel ? "int8pc" : "int8") : "uint8") + "_" +
                   std::to_string(c.height) + "x" + std::to_string(c.width) + "x" + std::to_string(c.channels) +
                   "_s" + std::to_string(c.stride) + "_pad" + std::to_string(c.padTop) + std::to_string(c.padBottom) +
                   (c.firstConv ? "_conv3x3" : "") + (c.projection != 0 ? "_to" + std::to_string(c.projection) : "") +
                   (c.uint8Input ? "_from_uint8" : "");
        });

}  // namespace
}  // namespace nnemu
