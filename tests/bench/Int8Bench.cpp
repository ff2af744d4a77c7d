// Steady-state latency of a TF2-style int8 network (TENSOR_QUANT8_ASYMM_SIGNED activations,
// per-channel filters: a MobileNet v1 0.25 body at 128x128) on synap-npu, as a ratio to
// nnapi-reference, both through the HAL (the FL29 C API still refuses the signed type).
//
//   NNEMU_NPU_THREADS=1 build/bin/nnemu_bench_int8
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "HalNetworkBuilder.h"
#include "nnemu/hal/DeviceRegistry.h"

namespace nnemu {
namespace {

using hal::OperandType;
using hal::OperationType;
constexpr auto kInt8 = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
constexpr uint32_t kSize = 128;
constexpr uint32_t kClasses = 1000;

class MobileNetInt8 {
public:
    MobileNetInt8() {
        uint32_t x = b_.tensor(kInt8, {1, kSize, kSize, 3}, 0.0078f, 0);
        input_ = x;
        uint32_t size = kSize / 2, channels = 8;
        x = convolution(x, 3, channels, 3, 2, size, false);
        // (output channels, stride) of the separable blocks of MobileNet v1 at width 0.25.
        const std::pair<uint32_t, uint32_t> blocks[] = {{16, 1},  {32, 2},  {32, 1},  {64, 2},  {64, 1},
                                                        {128, 2}, {128, 1}, {128, 1}, {128, 1}, {128, 1},
                                                        {128, 1}, {256, 2}, {256, 1}};
        for (const auto& [out, stride] : blocks) {
            size = (size + stride - 1) / stride;
            x = convolution(x, channels, channels, 3, stride, size, true);
            x = convolution(x, channels, out, 1, 1, size, false);
            channels = out;
        }
        const uint32_t axes = b_.constant(OperandType::TENSOR_INT32, {2}, std::vector<int32_t>{1, 2});
        const uint32_t pooled = b_.tensor(kInt8, {1, channels}, 0.05f, -128);
        b_.operation(OperationType::MEAN, {x, axes, b_.scalar(0)}, pooled);
        const uint32_t weights = b_.constant(kInt8, {kClasses, channels}, random(kClasses * channels), 0.01f, 0);
        const uint32_t bias =
                b_.constant(OperandType::TENSOR_INT32, {kClasses}, std::vector<int32_t>(kClasses, 10), 0.05f * 0.01f);
        const uint32_t logits = b_.tensor(kInt8, {1, kClasses}, 0.1f, 0);
        b_.operation(OperationType::FULLY_CONNECTED, {pooled, weights, bias, b_.scalar(0)}, logits);
        const uint32_t beta = b_.constant(OperandType::FLOAT32, {}, std::vector<float>{1.0f});
        const uint32_t probabilities = b_.tensor(kInt8, {1, kClasses}, 1.0f / 256, -128);
        b_.operation(OperationType::SOFTMAX, {logits, beta}, probabilities);
        model_ = b_.finish(input_, probabilities);
    }

    const hal::Model& model() const { return model_; }

private:
    std::vector<int8_t> random(size_t count) {
        std::uniform_int_distribution<int> value(-127, 127);
        std::vector<int8_t> values(count);
        for (auto& v : values) v = static_cast<int8_t>(value(engine_));
        return values;
    }

    // SAME padding, RELU6, per-channel filter scales, output scale 0.05 (real range [0, 6]
    // after RELU6 stays within int8 at that scale's zero point -128).
    uint32_t convolution(uint32_t x, uint32_t in, uint32_t out, uint32_t kernel, uint32_t stride, uint32_t size,
                         bool depthwise) {
        const uint32_t channels = depthwise ? in : out;
        const std::vector<uint32_t> dims =
                depthwise ? std::vector<uint32_t>{1, kernel, kernel, in} : std::vector<uint32_t>{out, kernel, kernel, in};
        const uint32_t filter = b_.constant(OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL, dims,
                                            random(size_t{channels} * kernel * kernel * (depthwise ? 1 : in)));
        b_.operand(filter).channelQuant = hal::SymmPerChannelQuantParams{std::vector<float>(channels, 0.002f),
                                                                         depthwise ? 3u : 0u};
        const uint32_t bias = b_.constant(OperandType::TENSOR_INT32, {channels}, std::vector<int32_t>(channels, 0));
        const uint32_t y = b_.tensor(kInt8, {1, size, size, channels}, 0.05f, -128);
        std::vector<uint32_t> inputs = {x, filter, bias, b_.scalar(1), b_.scalar(static_cast<int32_t>(stride)),
                                        b_.scalar(static_cast<int32_t>(stride))};
        if (depthwise) inputs.push_back(b_.scalar(1));
        inputs.push_back(b_.scalar(3));
        b_.operation(depthwise ? OperationType::DEPTHWISE_CONV_2D : OperationType::CONV_2D, std::move(inputs), y);
        return y;
    }

    test::HalNetworkBuilder b_;
    std::mt19937 engine_{8};
    uint32_t input_ = 0;
    hal::Model model_;
};

// The network prepared on one device, with a request whose input is random int8.
struct Prepared {
    std::shared_ptr<hal::IPreparedModel> model;
    std::shared_ptr<hal::HeapPool> pool;
    hal::Request request;
    bool wholeOnDevice = false;
};

Prepared* prepared(const std::string& deviceName) {
    static const MobileNetInt8 network;
    static std::map<std::string, std::unique_ptr<Prepared>> cache;
    auto& slot = cache[deviceName];
    if (slot) return slot.get();
    for (const auto& device : hal::registeredDevices()) {
        if (device->getName() != deviceName) continue;
        auto result = std::make_unique<Prepared>();
        const auto [status, supported] = device->getSupportedOperations(network.model());
        result->wholeOnDevice = status == hal::ErrorStatus::NONE;
        for (bool claimed : supported) result->wholeOnDevice = result->wholeOnDevice && claimed;
        if (!result->wholeOnDevice) return nullptr;
        auto [prepareStatus, model] = device->prepareModel(network.model(), hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                                           {}, {}, hal::CacheToken{});
        if (prepareStatus != hal::ErrorStatus::NONE) return nullptr;
        result->model = model;
        constexpr uint32_t kInputBytes = kSize * kSize * 3;
        result->pool = std::make_shared<hal::HeapPool>(kInputBytes + kClasses);
        std::mt19937 engine(30);
        for (uint32_t i = 0; i < kInputBytes; ++i) result->pool->data()[i] = static_cast<uint8_t>(engine());
        result->request.pools.push_back(result->pool);
        result->request.inputs.push_back({false, {0, 0, kInputBytes}, {}});
        result->request.outputs.push_back({false, {0, kInputBytes, kClasses}, {}});
        slot = std::move(result);
        return slot.get();
    }
    return nullptr;
}

void Int8Network(benchmark::State& state, const char* deviceName) {
    Prepared* p = prepared(deviceName);
    if (p == nullptr) return state.SkipWithError("the network does not run whole on the device");
    for (auto _ : state) {
        if (std::get<0>(p->model->executeSynchronously(p->request, hal::MeasureTiming::NO)) != hal::ErrorStatus::NONE) {
            return state.SkipWithError("execution failed");
        }
    }
}

BENCHMARK_CAPTURE(Int8Network, SynapNpu, "synap-npu")->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK_CAPTURE(Int8Network, Reference, "nnapi-reference")->Unit(benchmark::kMillisecond)->MinTime(2.0);

// The ratio, from the mean times of this run.
class RatioReporter : public benchmark::ConsoleReporter {
public:
    void ReportRuns(const std::vector<Run>& runs) override {
        for (const auto& run : runs) {
            const std::string name = run.benchmark_name();
            (name.find("SynapNpu") != std::string::npos ? npu_ : reference_) = run.GetAdjustedRealTime();
        }
        ConsoleReporter::ReportRuns(runs);
    }
    void Finalize() override {
        ConsoleReporter::Finalize();
        if (npu_ > 0 && reference_ > 0) {
            std::printf("MobileNet v1 0.25 128 int8: synap-npu / nnapi-reference = %.4fx (%.2f ms / %.1f ms)\n",
                        npu_ / reference_, npu_, reference_);
        }
    }

private:
    double npu_ = 0, reference_ = 0;
};

}  // namespace
}  // namespace nnemu

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    nnemu::RatioReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::Shutdown();
    return 0;
}
