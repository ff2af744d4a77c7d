// The program passes of driver/synap/compiler/SignedAdds.h: a feature level 29 (uint8) network whose
// per-channel convolutions run on int8 gets its ADD and pooling layers on int8 too, without the
// sign flips around them; a DEQUANTIZE + QUANTIZE pair that only changes the signedness becomes
// one flip; both still compute what nnapi-reference does.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <random>

#include "compiler/Compiler.h"
#include "HalNetworkBuilder.h"
#include "npu_program_generated.h"
#include "nnemu/cpu/Executor.h"
#include "nnemu/hal/DeviceRegistry.h"

namespace nnemu {
namespace {

using hal::OperandType;
using hal::OperationType;

constexpr auto kUint8 = OperandType::TENSOR_QUANT8_ASYMM;

// Input [1, 8, 8, 4] -> per-channel 1x1 CONV_2D a -> per-channel 1x1 CONV_2D b -> ADD(a, b)
// (RELU) -> MAX_POOL_2D 2x2 -> per-channel 1x1 CONV_2D -> MEAN over H and W (other
// quantization), all activations uint8.
hal::Model uint8Network() {
    std::mt19937 random(3);
    std::uniform_int_distribution<int> weight(-127, 127), bias(-500, 500);
    test::HalNetworkBuilder b;
    const uint32_t input = b.tensor(kUint8, {1, 8, 8, 4}, 0.05f, 120);
    auto conv = [&](uint32_t from, uint32_t channels, float outScale, int32_t outZero, std::vector<uint32_t> dims) {
        const uint32_t depth = b.operand(from).dimensions[3];
        std::vector<int8_t> weights(channels * depth);
        for (auto& w : weights) w = static_cast<int8_t>(weight(random));
        const uint32_t filter = b.constant(OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL, {channels, 1, 1, depth}, weights);
        std::vector<float> scales(channels);
        for (uint32_t c = 0; c < channels; ++c) scales[c] = 0.004f + 0.001f * c;
        b.operand(filter).channelQuant = hal::SymmPerChannelQuantParams{scales, 0};
        std::vector<int32_t> biases(channels);
        for (auto& v : biases) v = bias(random);
        const uint32_t biasTensor = b.constant(OperandType::TENSOR_INT32, {channels}, biases);
        const uint32_t out = b.tensor(kUint8, std::move(dims), outScale, outZero);
        b.operation(OperationType::CONV_2D, {from, filter, biasTensor, b.scalar(1), b.scalar(1), b.scalar(1), b.scalar(0)},
                    out);
        return out;
    };
    const uint32_t a = conv(input, 6, 0.04f, 128, {1, 8, 8, 6});
    const uint32_t c = conv(a, 6, 0.03f, 100, {1, 8, 8, 6});
    const uint32_t sum = b.tensor(kUint8, {1, 8, 8, 6}, 0.05f, 20);
    b.operation(OperationType::ADD, {a, c, b.scalar(1)}, sum);
    const uint32_t pooled = b.tensor(kUint8, {1, 4, 4, 6}, 0.05f, 20);
    b.operation(OperationType::MAX_POOL_2D, {sum, b.scalar(2), b.scalar(2), b.scalar(2), b.scalar(2), b.scalar(2), b.scalar(0)},
                pooled);
    const uint32_t last = conv(pooled, 5, 0.06f, 130, {1, 4, 4, 5});
    const uint32_t axes = b.constant(OperandType::TENSOR_INT32, {2}, std::vector<int32_t>{1, 2});
    const uint32_t mean = b.tensor(kUint8, {1, 1, 1, 5}, 0.02f, 110);
    b.operation(OperationType::MEAN, {last, axes, b.scalar(1)}, mean);
    return b.finish(input, mean);
}

constexpr size_t kInputBytes = 256, kOutputBytes = 5;

// The network's output for one random input, on the synap-npu model or the reference.
std::vector<uint8_t> run(const hal::Model& model, hal::IPreparedModel* prepared, int example) {
    auto pool = std::make_shared<hal::HeapPool>(kInputBytes + kOutputBytes);
    std::mt19937 same(example);
    for (size_t i = 0; i < kInputBytes; ++i) pool->data()[i] = static_cast<uint8_t>(same());
    hal::Request request;
    request.pools.push_back(pool);
    request.inputs.push_back({false, {0, 0, kInputBytes}, {}});
    request.outputs.push_back({false, {0, kInputBytes, kOutputBytes}, {}});
    const auto result = prepared != nullptr ? std::get<0>(prepared->executeSynchronously(request, hal::MeasureTiming::NO))
                                            : std::get<0>(cpu::executeModel(model, request));
    EXPECT_EQ(result, hal::ErrorStatus::NONE);
    return {pool->data() + kInputBytes, pool->data() + kInputBytes + kOutputBytes};
}

std::shared_ptr<hal::IPreparedModel> prepareOnNpu(const hal::Model& model) {
    for (const auto& device : hal::registeredDevices()) {
        if (device->getName() != "synap-npu") continue;
        auto [status, prepared] =
                device->prepareModel(model, hal::ExecutionPreference::FAST_SINGLE_ANSWER, {}, {}, hal::CacheToken{});
        EXPECT_EQ(status, hal::ErrorStatus::NONE);
        return prepared;
    }
    return nullptr;
}

TEST(SignedAdds, AddAndPoolBetweenInt8ConvolutionsRunOnInt8WithoutFlips) {
    const hal::Model model = uint8Network();
    nnemu::Result<std::vector<uint8_t>> compiled = synap::compileProgram(model, {{1, 8, 8, 4}});
    ASSERT_TRUE(compiled.isOk()) << compiled.message();
    const std::vector<uint8_t> bytes = std::move(compiled).value();
    const npu::Program* program = npu::GetProgram(bytes.data());
    int flips = 0;
    for (const npu::Layer* layer : *program->layers()) {
        const auto kind = layer->params_type();
        if (kind == npu::LayerParams::FlipSign) ++flips;
        if (kind == npu::LayerParams::Add || kind == npu::LayerParams::MaxPool2D) {
            for (uint32_t t : *layer->inputs()) EXPECT_EQ(program->tensors()->Get(t)->type(), npu::DataType::QINT8);
            EXPECT_EQ(program->tensors()->Get(layer->outputs()->Get(0))->type(), npu::DataType::QINT8);
        }
    }
    EXPECT_EQ(flips, 2);  // the network's input into int8, the last convolution's output back

    const auto prepared = prepareOnNpu(model);
    ASSERT_NE(prepared, nullptr);
    for (int example = 0; example < 3; ++example) {
        // By default the ADD and MEAN run on the own kernels too: the reference's bits.
        EXPECT_EQ(run(model, prepared.get(), example), run(model, nullptr, example)) << "example " << example;
    }
}

// With every own kernel (also the max pool), synap-npu computes the reference's bits.
TEST(SignedAdds, OwnKernelsAgreeWithTheReferenceToTheBit) {
    setenv("NNEMU_NPU_KERNELS", "all", 1);  // read when the core loads, at the first execution
    const hal::Model model = uint8Network();
    const auto prepared = prepareOnNpu(model);
    ASSERT_NE(prepared, nullptr);
    for (int example = 0; example < 3; ++example) {
        EXPECT_EQ(run(model, prepared.get(), example), run(model, nullptr, example)) << "example " << example;
    }
    unsetenv("NNEMU_NPU_KERNELS");
}

constexpr auto kInt8 = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;

// DEQUANTIZE then QUANTIZE from `from` into a new tensor of `type`, `scale`, `zeroPoint`.
uint32_t requantize(test::HalNetworkBuilder& b, uint32_t from, OperandType type, float scale, int32_t zeroPoint) {
    const std::vector<uint32_t> dims = b.operand(from).dimensions;
    const uint32_t real = b.tensor(OperandType::TENSOR_FLOAT32, dims);
    b.operation(OperationType::DEQUANTIZE, {from}, real);
    const uint32_t to = b.tensor(type, dims, scale, zeroPoint);
    b.operation(OperationType::QUANTIZE, {real}, to);
    return to;
}

// uint8 input [1, 16, 16, 1] (every value) -> int8 (`scale`, zero point moved by 128) -> a
// per-channel 1x1 CONV_2D on int8 -> uint8 output the same way, or the round trip alone.
hal::Model requantizedNetwork(float scale, int32_t zeroPoint, bool withConvolution) {
    test::HalNetworkBuilder b;
    const uint32_t input = b.tensor(kUint8, {1, 16, 16, 1}, scale, zeroPoint);
    uint32_t value = requantize(b, input, kInt8, scale, zeroPoint - 128);
    float outScale = scale;
    int32_t outZero = zeroPoint - 128;
    if (withConvolution) {
        const uint32_t filter = b.constant(OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL, {1, 1, 1, 1}, std::vector<int8_t>{-90});
        b.operand(filter).channelQuant = hal::SymmPerChannelQuantParams{{0.011f}, 0};
        const uint32_t bias = b.constant(OperandType::TENSOR_INT32, {1}, std::vector<int32_t>{37});
        outScale = 0.7f * scale;
        outZero = 5;
        const uint32_t out = b.tensor(kInt8, {1, 16, 16, 1}, outScale, outZero);
        b.operation(OperationType::CONV_2D, {value, filter, bias, b.scalar(1), b.scalar(1), b.scalar(1), b.scalar(0)}, out);
        value = out;
    }
    return b.finish(input, requantize(b, value, kUint8, outScale, outZero + 128));
}

struct LayerCounts {
    int converts = 0, flips = 0;
};
LayerCounts countLayers(const hal::Model& model) {
    nnemu::Result<std::vector<uint8_t>> compiled = synap::compileProgram(model, {{1, 16, 16, 1}});
    EXPECT_TRUE(compiled.isOk()) << compiled.message();
    const std::vector<uint8_t> bytes = compiled.isOk() ? std::move(compiled).value() : std::vector<uint8_t>();
    LayerCounts counts;
    if (bytes.empty()) return counts;
    for (const npu::Layer* layer : *npu::GetProgram(bytes.data())->layers()) {
        counts.converts += layer->params_type() == npu::LayerParams::Convert;
        counts.flips += layer->params_type() == npu::LayerParams::FlipSign;
    }
    return counts;
}

// Every uint8 input value through the network, on synap-npu or (null) the reference.
std::vector<uint8_t> runEveryValue(const hal::Model& model, hal::IPreparedModel* prepared) {
    auto pool = std::make_shared<hal::HeapPool>(512);
    for (size_t i = 0; i < 256; ++i) pool->data()[i] = static_cast<uint8_t>(i);
    hal::Request request;
    request.pools.push_back(pool);
    request.inputs.push_back({false, {0, 0, 256}, {}});
    request.outputs.push_back({false, {0, 256, 256}, {}});
    const auto status = prepared != nullptr ? std::get<0>(prepared->executeSynchronously(request, hal::MeasureTiming::NO))
                                            : std::get<0>(cpu::executeModel(model, request));
    EXPECT_EQ(status, hal::ErrorStatus::NONE);
    return {pool->data() + 256, pool->data() + 512};
}

void expectTheReferenceBits(const hal::Model& model) {
    const auto prepared = prepareOnNpu(model);
    ASSERT_NE(prepared, nullptr);
    EXPECT_EQ(runEveryValue(model, prepared.get()), runEveryValue(model, nullptr));
}

TEST(SignedAdds, ARequantizationThatOnlyMovesTheSignIsOneFlip) {
    for (const auto& [scale, zeroPoint] : {std::pair{0.0078125f, 128}, std::pair{0.02f, 3}, std::pair{1e-30f, 255}}) {
        SCOPED_TRACE(testing::Message() << "scale " << scale << " zero point " << zeroPoint);
        const hal::Model model = requantizedNetwork(scale, zeroPoint, true);
        const LayerCounts counts = countLayers(model);
        EXPECT_EQ(counts.converts, 0);  // no float value between them
        EXPECT_EQ(counts.flips, 2);
        expectTheReferenceBits(model);
    }
}

// uint8 -> int8 -> uint8 of the network's output: the flips cancel, but the output keeps a writer.
TEST(SignedAdds, ARoundTripToTheOutputKeepsItsWriter) {
    const hal::Model model = requantizedNetwork(0.05f, 100, false);
    EXPECT_EQ(countLayers(model).converts, 0);
    expectTheReferenceBits(model);
}

// Scales whose product with a quantized value overflows (the reference saturates) keep the
// float conversions; so does a QUANTIZE to another scale.
TEST(SignedAdds, RequantizationsThatAreNotFlipsStay) {
    EXPECT_EQ(countLayers(requantizedNetwork(3e37f, 128, false)).flips, 0);
    test::HalNetworkBuilder b;
    const uint32_t input = b.tensor(kUint8, {1, 16, 16, 1}, 0.05f, 128);
    const hal::Model model = b.finish(input, requantize(b, input, kInt8, 0.1f, 0));
    EXPECT_EQ(countLayers(model).flips, 0);
    EXPECT_EQ(countLayers(model).converts, 2);
}

}  // namespace
}  // namespace nnemu
