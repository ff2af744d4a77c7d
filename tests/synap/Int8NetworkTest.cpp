// A small TF2-style int8 network (TENSOR_QUANT8_ASYMM_SIGNED activations; per-channel, symmetric
// per-tensor and zero-pointed per-tensor filters) runs whole on synap-npu and matches
// nnapi-reference within one quantization step. Built as a HAL model, below the runtime.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <random>
#include <vector>

#include "nnemu/cpu/Executor.h"
#include "nnemu/hal/DeviceRegistry.h"
#include "nnemu/hal/Validation.h"

#include "HalNetworkBuilder.h"

namespace nnemu {
namespace {

using hal::OperandType;
using hal::OperationType;

constexpr auto kInt8 = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;

std::vector<int8_t> randomInt8(size_t count, std::mt19937& random, int low = -128, int high = 127) {
    return test::randomValues<int8_t>(count, random, low, high);
}

std::vector<int32_t> randomBias(size_t count, std::mt19937& random) {
    return test::randomValues<int32_t>(count, random, -300, 300);
}

// Input [1, 10, 10, 3] -> CONV_2D 3x3 per-channel (8 channels, SAME, RELU6) -> DEPTHWISE_CONV_2D
// 3x3 symmetric per-tensor, stride 2 (VALID) -> CONV_2D 1x1 with a filter zero point of 7 ->
// ADD (itself, RELU) -> MAX_POOL_2D 2x2 -> RESHAPE to [1, 24] -> FULLY_CONNECTED to 5 -> SOFTMAX;
// only the first `layers` of them, the last one's result the output, so that each one's result
// is compared. (The core's requantization may round a tie the other way: one step. A layer of
// high gain after such a step, e.g. a FULLY_CONNECTED after an averaging MEAN, amplifies it, so
// the chain keeps MEAN out; conformance covers it alone.)
constexpr int kLayers = 8;

hal::Model int8Network(int layers) {
    std::mt19937 random(30);
    test::HalNetworkBuilder b;
    const uint32_t input = b.tensor(kInt8, {1, 10, 10, 3}, 0.05f, -10);

    const std::vector<float> channelScales = {0.010f, 0.012f, 0.008f, 0.015f, 0.011f, 0.009f, 0.013f, 0.010f};
    const uint32_t filter1 = b.constant(OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL, {8, 3, 3, 3},
                                        randomInt8(8 * 27, random, -127, 127), 0.0f, 0);
    b.operand(filter1).channelQuant = hal::SymmPerChannelQuantParams{channelScales, 0};
    const uint32_t bias1 = b.constant(OperandType::TENSOR_INT32, {8}, randomBias(8, random), 0.0f);
    const uint32_t conv1 = b.tensor(kInt8, {1, 10, 10, 8}, 0.03f, -128);
    b.operation(OperationType::CONV_2D,
                {input, filter1, bias1, b.scalar(1), b.scalar(1), b.scalar(1), b.scalar(3)}, conv1);
    if (layers == 1) return b.finish(input, conv1);

    const uint32_t filter2 = b.constant(kInt8, {1, 3, 3, 8}, randomInt8(72, random, -127, 127), 0.02f, 0);
    const uint32_t bias2 = b.constant(OperandType::TENSOR_INT32, {8}, randomBias(8, random), 0.03f * 0.02f);
    const uint32_t depthwise = b.tensor(kInt8, {1, 4, 4, 8}, 0.06f, 3);
    b.operation(OperationType::DEPTHWISE_CONV_2D,
                {conv1, filter2, bias2, b.scalar(2), b.scalar(2), b.scalar(2), b.scalar(1), b.scalar(0)}, depthwise);
    if (layers == 2) return b.finish(input, depthwise);

    const uint32_t filter3 = b.constant(kInt8, {6, 1, 1, 8}, randomInt8(48, random, -100, 100), 0.025f, 7);
    const uint32_t bias3 = b.constant(OperandType::TENSOR_INT32, {6}, randomBias(6, random), 0.06f * 0.025f);
    const uint32_t pointwise = b.tensor(kInt8, {1, 4, 4, 6}, 0.08f, -5);
    b.operation(OperationType::CONV_2D,
                {depthwise, filter3, bias3, b.scalar(1), b.scalar(1), b.scalar(1), b.scalar(0)}, pointwise);
    if (layers == 3) return b.finish(input, pointwise);

    const uint32_t sum = b.tensor(kInt8, {1, 4, 4, 6}, 0.1f, -128);
    b.operation(OperationType::ADD, {pointwise, pointwise, b.scalar(1)}, sum);
    if (layers == 4) return b.finish(input, sum);

    const uint32_t pooled = b.tensor(kInt8, {1, 2, 2, 6}, 0.1f, -128);
    b.operation(OperationType::MAX_POOL_2D,
                {sum, b.scalar(2), b.scalar(2), b.scalar(2), b.scalar(2), b.scalar(2), b.scalar(0)},
                pooled);
    if (layers == 5) return b.finish(input, pooled);

    const uint32_t shape = b.constant(OperandType::TENSOR_INT32, {2}, std::vector<int32_t>{1, 24});
    const uint32_t flat = b.tensor(kInt8, {1, 24}, 0.1f, -128);
    b.operation(OperationType::RESHAPE, {pooled, shape}, flat);
    if (layers == 6) return b.finish(input, flat);

    const uint32_t weights = b.constant(kInt8, {5, 24}, randomInt8(120, random, -127, 127), 0.02f, 0);
    const uint32_t bias4 = b.constant(OperandType::TENSOR_INT32, {5}, randomBias(5, random), 0.1f * 0.02f);
    const uint32_t logits = b.tensor(kInt8, {1, 5}, 0.1f, 0);
    b.operation(OperationType::FULLY_CONNECTED, {flat, weights, bias4, b.scalar(0)}, logits);
    if (layers == 7) return b.finish(input, logits);

    const uint32_t beta = b.constant(OperandType::FLOAT32, {}, std::vector<float>{1.0f});
    const uint32_t probabilities = b.tensor(kInt8, {1, 5}, 1.0f / 256, -128);
    b.operation(OperationType::SOFTMAX, {logits, beta}, probabilities);
    return b.finish(input, probabilities);
}

std::shared_ptr<hal::IDevice> synapNpu() {
    for (const auto& device : hal::registeredDevices()) {
        if (device->getName() == "synap-npu") return device;
    }
    return nullptr;
}

// The request's single input and output in one pool: input bytes first.
struct PooledRequest {
    std::shared_ptr<hal::HeapPool> pool;
    hal::Request request;
};

PooledRequest requestFor(const std::vector<int8_t>& input, size_t outputBytes) {
    PooledRequest run{std::make_shared<hal::HeapPool>(input.size() + outputBytes), {}};
    std::memcpy(run.pool->data(), input.data(), input.size());
    run.request.pools.push_back(run.pool);
    run.request.inputs.push_back({false, {0, 0, static_cast<uint32_t>(input.size())}, {}});
    run.request.outputs.push_back(
            {false, {0, static_cast<uint32_t>(input.size()), static_cast<uint32_t>(outputBytes)}, {}});
    return run;
}

class Int8Network : public ::testing::TestWithParam<int> {};

TEST_P(Int8Network, RunsWholeOnTheNpuWithinOneStepOfTheReference) {
    const hal::Model model = int8Network(GetParam());
    ASSERT_TRUE(hal::validateModel(model).isOk()) << hal::validateModel(model);
    const auto device = synapNpu();
    ASSERT_NE(device, nullptr);
    const auto [status, supported] = device->getSupportedOperations(model);
    ASSERT_EQ(status, hal::ErrorStatus::NONE);
    for (size_t i = 0; i < supported.size(); ++i) EXPECT_TRUE(supported[i]) << "operation " << i << " not claimed";

    auto [prepared, preparedModel] =
            device->prepareModel(model, hal::ExecutionPreference::FAST_SINGLE_ANSWER, {}, {}, hal::CacheToken{});
    ASSERT_EQ(prepared, hal::ErrorStatus::NONE);
    std::mt19937 random(8);
    size_t outputs = 1;
    for (uint32_t d : model.operands[model.outputIndexes[0]].dimensions) outputs *= d;
    for (int example = 0; example < 4; ++example) {
        const std::vector<int8_t> input = randomInt8(300, random);
        PooledRequest npu = requestFor(input, outputs);
        PooledRequest reference = requestFor(input, outputs);
        ASSERT_EQ(std::get<0>(preparedModel->executeSynchronously(npu.request, hal::MeasureTiming::NO)),
                  hal::ErrorStatus::NONE);
        ASSERT_EQ(std::get<0>(cpu::executeModel(model, reference.request)), hal::ErrorStatus::NONE);
        const auto* actual = reinterpret_cast<const int8_t*>(npu.pool->data() + input.size());
        const auto* expected = reinterpret_cast<const int8_t*>(reference.pool->data() + input.size());
        for (size_t i = 0; i < outputs; ++i) {
            EXPECT_LE(std::abs(actual[i] - expected[i]), 1) << "example " << example << " output " << i;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(EveryPrefix, Int8Network, ::testing::Range(1, kLayers + 1));

}  // namespace
}  // namespace nnemu
