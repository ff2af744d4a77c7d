// Several threads sharing one compilation, as an application's worker threads do: they start
// together, so the first inferences race for synap-npu's JIT, then run by compute, by
// startCompute and event, and by burst. Every result must be the reference's, and the network
// must be compiled once. CI runs these under ThreadSanitizer (scripts/sanitize.sh).
#include <android/NeuralNetworks.h>
#include <gtest/gtest.h>

#include <cmath>
#include <deque>
#include <latch>
#include <string>
#include <thread>
#include <vector>

#include "NnapiDevices.h"
#include "nnemu/cache/CacheCounters.h"

namespace nnemu {
namespace {

constexpr uint32_t kSide = 24;
constexpr uint32_t kChannels = 8;
constexpr uint32_t kWide = 16;  // channels between the convolutions
constexpr int kThreads = 4;
constexpr int kRunsPerThread = 3;

// conv 3x3 (8 -> 16, relu) [-> RESIZE_NEAREST_NEIGHBOR to the same size, which only
// nnapi-reference runs] -> conv 3x3 (16 -> 8), float: enough multiply-accumulates for the NPU
// core to use its thread pool.
class SharedCompilation : public ::testing::Test {
protected:
    void TearDown() override {
        for (auto* compilation : compilations_) ANeuralNetworksCompilation_free(compilation);
        ANeuralNetworksModel_free(model_);
    }

    void build(bool withCpuStep) {
        ASSERT_EQ(ANeuralNetworksModel_create(&model_), 0);
        const uint32_t image[4] = {1, kSide, kSide, kChannels}, wide[4] = {1, kSide, kSide, kWide};
        const uint32_t filter1[4] = {kWide, 3, 3, kChannels}, filter2[4] = {kChannels, 3, 3, kWide};
        const uint32_t bias1[1] = {kWide}, bias2[1] = {kChannels};
        const int32_t same = ANEURALNETWORKS_PADDING_SAME, one = 1, relu = ANEURALNETWORKS_FUSED_RELU, none = 0;
        const int32_t side = kSide;
        const uint32_t input = tensor(image), weights1 = constant(filter1, 0.05f), b1 = constant(bias1, 0.1f);
        const uint32_t padding = scalar(same), stride = scalar(one), act1 = scalar(relu), act2 = scalar(none);
        const uint32_t middle = tensor(wide);
        operation(ANEURALNETWORKS_CONV_2D, {input, weights1, b1, padding, stride, stride, act1}, middle);
        uint32_t next = middle;
        if (withCpuStep) {
            const uint32_t size = scalar(side), nhwc = addOperand({ANEURALNETWORKS_BOOL, 0, nullptr, 0, 0});
            const bool no = false;
            ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model_, nhwc, &no, sizeof no), 0);
            next = tensor(wide);
            operation(ANEURALNETWORKS_RESIZE_NEAREST_NEIGHBOR, {middle, size, size, nhwc}, next);
        }
        const uint32_t weights2 = constant(filter2, -0.03f), b2 = constant(bias2, -0.2f), output = tensor(image);
        operation(ANEURALNETWORKS_CONV_2D, {next, weights2, b2, padding, stride, stride, act2}, output);
        ASSERT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model_, 1, &input, 1, &output), 0);
        ASSERT_EQ(ANeuralNetworksModel_finish(model_), 0);
    }

    ANeuralNetworksCompilation* compile(const std::vector<std::string>& devices) {
        std::vector<const ANeuralNetworksDevice*> handles;
        for (const auto& name : devices) handles.push_back(test::deviceNamed(name));
        ANeuralNetworksCompilation* compilation = nullptr;
        EXPECT_EQ(devices.empty() ? ANeuralNetworksCompilation_create(model_, &compilation)
                                  : ANeuralNetworksCompilation_createForDevices(
                                            model_, handles.data(), static_cast<uint32_t>(handles.size()),
                                            &compilation),
                  0);
        EXPECT_EQ(ANeuralNetworksCompilation_finish(compilation), 0);
        compilations_.push_back(compilation);
        return compilation;
    }

    // The input of run `run` of thread `thread`: every thread and run its own.
    static std::vector<float> inputOf(int thread, int run) {
        std::vector<float> input(kSide * kSide * kChannels);
        for (size_t i = 0; i < input.size(); ++i) {
            const size_t step = i * 7 + static_cast<size_t>(thread) * 13 + static_cast<size_t>(run) * 5;
            input[i] = static_cast<float>(step % 23) / 11.0f - 1.0f;
        }
        return input;
    }

    enum class Way { COMPUTE, EVENT, BURST };

    // One run on `execution` (freed here): the output, empty on failure.
    static std::vector<float> run(ANeuralNetworksExecution* execution, const std::vector<float>& input, Way way,
                                  ANeuralNetworksBurst* burst) {
        std::vector<float> output(input.size());
        int status = ANeuralNetworksExecution_setInput(execution, 0, nullptr, input.data(), input.size() * 4);
        if (status == 0) {
            status = ANeuralNetworksExecution_setOutput(execution, 0, nullptr, output.data(), output.size() * 4);
        }
        if (status == 0 && way == Way::COMPUTE) status = ANeuralNetworksExecution_compute(execution);
        if (status == 0 && way == Way::BURST) status = ANeuralNetworksExecution_burstCompute(execution, burst);
        if (status == 0 && way == Way::EVENT) {
            ANeuralNetworksEvent* event = nullptr;
            status = ANeuralNetworksExecution_startCompute(execution, &event);
            if (status == 0) status = ANeuralNetworksEvent_wait(event);
            ANeuralNetworksEvent_free(event);
        }
        ANeuralNetworksExecution_free(execution);
        return status == 0 ? output : std::vector<float>{};
    }

    // Every thread's every run on `compilation` at once, checked against nnapi-reference run
    // alone.
    void runConcurrently(ANeuralNetworksCompilation* compilation) {
        ANeuralNetworksCompilation* reference = compile({"nnapi-reference"});
        std::vector<std::vector<std::vector<float>>> expected(kThreads), actual(kThreads);
        for (int t = 0; t < kThreads; ++t) {
            for (int r = 0; r < kRunsPerThread; ++r) {
                ANeuralNetworksExecution* execution = nullptr;
                ASSERT_EQ(ANeuralNetworksExecution_create(reference, &execution), 0);
                expected[t].push_back(run(execution, inputOf(t, r), Way::COMPUTE, nullptr));
                ASSERT_FALSE(expected[t].back().empty());
            }
        }
        std::latch start(kThreads);
        std::vector<std::thread> threads;
        for (int t = 0; t < kThreads; ++t) {
            threads.emplace_back([&, t] {
                ANeuralNetworksBurst* burst = nullptr;
                if (ANeuralNetworksBurst_create(compilation, &burst) != 0) return;
                start.arrive_and_wait();
                for (int r = 0; r < kRunsPerThread; ++r) {
                    ANeuralNetworksExecution* execution = nullptr;
                    if (ANeuralNetworksExecution_create(compilation, &execution) != 0) break;
                    actual[t].push_back(run(execution, inputOf(t, r), static_cast<Way>((t + r) % 3), burst));
                }
                ANeuralNetworksBurst_free(burst);
            });
        }
        for (auto& thread : threads) thread.join();
        for (int t = 0; t < kThreads; ++t) {
            ASSERT_EQ(actual[t].size(), static_cast<size_t>(kRunsPerThread)) << "thread " << t;
            for (int r = 0; r < kRunsPerThread; ++r) expectClose(expected[t][r], actual[t][r], t, r);
        }
    }

    static void expectClose(const std::vector<float>& expected, const std::vector<float>& actual, int thread, int run) {
        ASSERT_EQ(actual.size(), expected.size()) << "thread " << thread << ", run " << run << " failed";
        size_t wrong = 0;
        float worst = 0.0f;
        for (size_t i = 0; i < expected.size(); ++i) {
            worst = std::max(worst, std::abs(actual[i] - expected[i]));
            if (std::abs(actual[i] - expected[i]) > 1e-4f + 1e-5f * std::abs(expected[i])) ++wrong;
        }
        EXPECT_EQ(wrong, 0u) << "thread " << thread << ", run " << run << " worst " << worst;
    }

    ANeuralNetworksModel* model_ = nullptr;
    std::vector<ANeuralNetworksCompilation*> compilations_;

private:
    uint32_t addOperand(const ANeuralNetworksOperandType& type) {
        EXPECT_EQ(ANeuralNetworksModel_addOperand(model_, &type), 0);
        return operands_++;
    }
    uint32_t tensor(const uint32_t (&dims)[4]) {
        return addOperand({ANEURALNETWORKS_TENSOR_FLOAT32, 4, dims, 0, 0});
    }
    // A constant tensor with values cycling through a few multiples of `step`.
    template <size_t kRank>
    uint32_t constant(const uint32_t (&dims)[kRank], float step) {
        const uint32_t index = addOperand({ANEURALNETWORKS_TENSOR_FLOAT32, kRank, dims, 0, 0});
        size_t count = 1;
        for (uint32_t d : dims) count *= d;
        // Values over 128 bytes are referenced, not copied: they must outlive the model.
        std::vector<float>& values = constants_.emplace_back(count);
        for (size_t i = 0; i < count; ++i) values[i] = step * static_cast<float>(static_cast<int>(i % 9) - 4);
        EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model_, index, values.data(), count * 4), 0);
        return index;
    }
    uint32_t scalar(int32_t value) {
        const uint32_t index = addOperand({ANEURALNETWORKS_INT32, 0, nullptr, 0, 0});
        EXPECT_EQ(ANeuralNetworksModel_setOperandValue(model_, index, &value, sizeof value), 0);
        return index;
    }
    void operation(int32_t type, const std::vector<uint32_t>& inputs, uint32_t output) {
        EXPECT_EQ(ANeuralNetworksModel_addOperation(model_, type, static_cast<uint32_t>(inputs.size()), inputs.data(),
                                                    1, &output),
                  0);
    }

    uint32_t operands_ = 0;
    std::deque<std::vector<float>> constants_;
};

uint64_t jitCount() {
    const auto& counters = cache::cacheCounters();
    return counters.compiles.load() + counters.synapHits.load();
}

TEST_F(SharedCompilation, ThreadsRacingForTheNpuJitCompileOnceAndAgreeWithTheReference) {
    build(false);
    ANeuralNetworksCompilation* npu = compile({"synap-npu"});
    const uint64_t before = jitCount();
    runConcurrently(npu);
    EXPECT_EQ(jitCount() - before, 1u) << "one first-inference JIT for the compilation";
}

TEST_F(SharedCompilation, ThreadsRunningAPartitionedCompilationAgreeWithTheReference) {
    build(true);
    runConcurrently(compile({}));
}

TEST_F(SharedCompilation, ThreadsSharingAReferenceCompilationAgreeWithItAlone) {
    build(false);
    runConcurrently(compile({"nnapi-reference"}));
}

}  // namespace
}  // namespace nnemu
