// The feature-level-29 tensor operations (GATHER, TOPK_V2, CHANNEL_SHUFFLE, RANDOM_MULTINOMIAL,
// ARGMAX, EXPAND_DIMS, ...) where the conformance vectors do not reach: malformed operands must be
// rejected cleanly, ties must resolve as specified, and multinomial samples must follow
// softmax(logits).
#include <android/NeuralNetworks.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "nnemu/cpu/Kernels.h"
#include "nnemu/hal/Operations.h"

namespace nnemu {
namespace {

using hal::OperandType;
using hal::OperandView;
using hal::OperationType;

// One operation run the way the CPU executor runs it: validate, prepare, allocate, kernel.
class OperationRun {
public:
    explicit OperationRun(OperationType type) { context_.type = type; }

    template <typename T>
    OperationRun& input(OperandType type, std::vector<uint32_t> dims, std::vector<T> values) {
        OperandView view;
        view.type = type;
        view.dims = std::move(dims);
        view.length = values.size() * sizeof(T);
        view.data = keep(values.data(), view.length);
        context_.inputs.push_back(view);
        return *this;
    }
    OperationRun& scalar(int32_t value) { return input(OperandType::INT32, {}, std::vector<int32_t>{value}); }
    OperationRun& output(OperandType type, size_t rank) {
        OperandView view;
        view.type = type;
        view.dims.assign(rank, 0);  // unknown: prepare() infers it
        context_.outputs.push_back(view);
        return *this;
    }

    const hal::OperationSignature& signature() const { return *hal::findSignature(context_.type); }
    bool validate() const { return signature().validate(context_); }
    bool prepare() { return hal::prepareOperation(signature(), context_); }  // the execution stage
    // prepare() then the reference kernel on freshly allocated outputs.
    bool execute() {
        if (!prepare()) return false;
        for (OperandView& out : context_.outputs) {
            out.length = hal::byteSize(out.type, out.dims);
            out.data = keep(nullptr, out.length);
        }
        return cpu::findKernel(context_.type)(context_);
    }
    const std::vector<uint32_t>& outputDims(size_t i) const { return context_.outputs[i].dims; }
    template <typename T>
    std::vector<T> outputValues(size_t i) const {
        const OperandView& out = context_.outputs[i];
        std::vector<T> values(out.length / sizeof(T));
        std::memcpy(values.data(), out.data, out.length);
        return values;
    }

private:
    uint8_t* keep(const void* bytes, size_t length) {
        storage_.emplace_back(length + 1, 0);  // never empty, so data is never null
        if (bytes != nullptr && length > 0) std::memcpy(storage_.back().data(), bytes, length);
        return storage_.back().data();
    }

    hal::OperationContext context_;
    std::vector<std::vector<uint8_t>> storage_;
};

constexpr OperandType kF32 = OperandType::TENSOR_FLOAT32;
constexpr OperandType kI32 = OperandType::TENSOR_INT32;

// ---- GATHER ----

OperationRun gatherRun(std::vector<int32_t> indices) {
    OperationRun run(OperationType::GATHER);
    const auto count = static_cast<uint32_t>(indices.size());
    run.input(kF32, {3, 2}, std::vector<float>{1, 2, 3, 4, 5, 6}).scalar(0).input(kI32, {count}, indices);
    run.output(kF32, 2);
    return run;
}

TEST(Gather, CopiesTheIndexedSlices) {
    OperationRun run = gatherRun({2, 0, 2});
    ASSERT_TRUE(run.execute());
    EXPECT_EQ(run.outputDims(0), (std::vector<uint32_t>{3, 2}));
    EXPECT_EQ(run.outputValues<float>(0), (std::vector<float>{5, 6, 1, 2, 5, 6}));
}

TEST(Gather, AnIndexOutsideTheAxisFailsTheKernel) {
    EXPECT_FALSE(gatherRun({0, 3}).execute());
    EXPECT_FALSE(gatherRun({-1}).execute());
}

// Through the C API: the execution fails with OP_FAILED and the runtime stays usable.
TEST(Gather, AnOutOfRangeIndexFailsTheExecutionCleanly) {
    ANeuralNetworksModel* model = nullptr;
    ASSERT_EQ(ANeuralNetworksModel_create(&model), ANEURALNETWORKS_NO_ERROR);
    const uint32_t inputDims[2] = {3, 2}, indexDims[1] = {2}, outputDims[2] = {2, 2};
    const ANeuralNetworksOperandType input{ANEURALNETWORKS_TENSOR_FLOAT32, 2, inputDims, 0.0f, 0};
    const ANeuralNetworksOperandType axis{ANEURALNETWORKS_INT32, 0, nullptr, 0.0f, 0};
    const ANeuralNetworksOperandType indices{ANEURALNETWORKS_TENSOR_INT32, 1, indexDims, 0.0f, 0};
    const ANeuralNetworksOperandType output{ANEURALNETWORKS_TENSOR_FLOAT32, 2, outputDims, 0.0f, 0};
    ASSERT_EQ(ANeuralNetworksModel_addOperand(model, &input), 0);
    ASSERT_EQ(ANeuralNetworksModel_addOperand(model, &axis), 0);
    ASSERT_EQ(ANeuralNetworksModel_addOperand(model, &indices), 0);
    ASSERT_EQ(ANeuralNetworksModel_addOperand(model, &output), 0);
    const int32_t zero = 0;
    ASSERT_EQ(ANeuralNetworksModel_setOperandValue(model, 1, &zero, sizeof zero), 0);
    const uint32_t opInputs[3] = {0, 1, 2}, opOutputs[1] = {3}, modelInputs[2] = {0, 2};
    ASSERT_EQ(ANeuralNetworksModel_addOperation(model, ANEURALNETWORKS_GATHER, 3, opInputs, 1, opOutputs), 0);
    ASSERT_EQ(ANeuralNetworksModel_identifyInputsAndOutputs(model, 2, modelInputs, 1, opOutputs), 0);
    ASSERT_EQ(ANeuralNetworksModel_finish(model), 0);
    ANeuralNetworksCompilation* compilation = nullptr;
    ASSERT_EQ(ANeuralNetworksCompilation_create(model, &compilation), 0);
    ASSERT_EQ(ANeuralNetworksCompilation_finish(compilation), 0);

    const float data[6] = {1, 2, 3, 4, 5, 6};
    auto run = [&](const int32_t (&index)[2], float (&out)[4]) {
        ANeuralNetworksExecution* execution = nullptr;
        EXPECT_EQ(ANeuralNetworksExecution_create(compilation, &execution), 0);
        ANeuralNetworksExecution_setInput(execution, 0, nullptr, data, sizeof data);
        ANeuralNetworksExecution_setInput(execution, 1, nullptr, index, sizeof index);
        ANeuralNetworksExecution_setOutput(execution, 0, nullptr, out, sizeof out);
        const int status = ANeuralNetworksExecution_compute(execution);
        ANeuralNetworksExecution_free(execution);
        return status;
    };
    float out[4] = {};
    EXPECT_EQ(run({1, 3}, out), ANEURALNETWORKS_OP_FAILED);
    EXPECT_EQ(run({-2, 0}, out), ANEURALNETWORKS_OP_FAILED);
    ASSERT_EQ(run({1, 0}, out), ANEURALNETWORKS_NO_ERROR);
    EXPECT_EQ(std::vector<float>(out, out + 4), (std::vector<float>{3, 4, 1, 2}));
    ANeuralNetworksCompilation_free(compilation);
    ANeuralNetworksModel_free(model);
}

// ---- TOPK_V2 ----

OperationRun topKRun(int32_t k) {
    OperationRun run(OperationType::TOPK_V2);
    run.input(kF32, {2, 3}, std::vector<float>{1, 7, 7, -1, -3, -2}).scalar(k);
    run.output(kF32, 2).output(kI32, 2);
    return run;
}

TEST(TopK, SortsDescendingWithEqualValuesInIndexOrder) {
    OperationRun run = topKRun(2);
    ASSERT_TRUE(run.execute());
    EXPECT_EQ(run.outputDims(0), (std::vector<uint32_t>{2, 2}));
    EXPECT_EQ(run.outputDims(1), (std::vector<uint32_t>{2, 2}));
    EXPECT_EQ(run.outputValues<float>(0), (std::vector<float>{7, 7, -1, -2}));
    EXPECT_EQ(run.outputValues<int32_t>(1), (std::vector<int32_t>{1, 2, 0, 2}));
}

TEST(TopK, RejectsKAboveTheLastDimensionOrBelowOne) {
    EXPECT_FALSE(topKRun(4).prepare());
    EXPECT_FALSE(topKRun(0).prepare());
    // Even a constant k meets the shape only at execution (Android's prepare stage).
    EXPECT_TRUE(topKRun(4).validate());
    EXPECT_TRUE(topKRun(3).validate());
}

// ---- CHANNEL_SHUFFLE ----

OperationRun channelShuffleRun(uint32_t channels, int32_t groups, int32_t axis) {
    std::vector<float> values(2 * channels);
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
    OperationRun run(OperationType::CHANNEL_SHUFFLE);
    run.input(kF32, {2, channels}, values).scalar(groups).scalar(axis).output(kF32, 2);
    return run;
}

TEST(ChannelShuffle, InterleavesTheGroups) {
    OperationRun run = channelShuffleRun(6, 2, -1);
    ASSERT_TRUE(run.execute());
    EXPECT_EQ(run.outputValues<float>(0), (std::vector<float>{0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11}));
}

TEST(ChannelShuffle, RejectsGroupsThatDoNotDivideTheAxis) {
    EXPECT_FALSE(channelShuffleRun(6, 4, 1).prepare());
    EXPECT_TRUE(channelShuffleRun(6, 4, 1).validate());  // a value against a dim: the execution's
    EXPECT_FALSE(channelShuffleRun(6, 0, 1).prepare());
    EXPECT_FALSE(channelShuffleRun(6, 3, 2).prepare());  // axis out of range
    EXPECT_TRUE(channelShuffleRun(6, 3, 1).prepare());
}

// ---- ARGMAX / EXPAND_DIMS / TILE ----

TEST(ArgMax, TiesPickTheSmallestIndex) {
    OperationRun run(OperationType::ARGMAX);
    run.input(kI32, {2, 3}, std::vector<int32_t>{4, 9, 9, 2, 2, 1}).scalar(-1).output(kI32, 1);
    ASSERT_TRUE(run.execute());
    EXPECT_EQ(run.outputValues<int32_t>(0), (std::vector<int32_t>{1, 0}));
    OperationRun badAxis(OperationType::ARGMIN);
    badAxis.input(kI32, {2, 3}, std::vector<int32_t>(6)).scalar(2).output(kI32, 1);
    EXPECT_FALSE(badAxis.prepare());
}

TEST(ExpandDims, AcceptsAxesFromMinusRankMinusOneToRank) {
    for (int32_t axis : {-3, -1, 0, 2}) {
        OperationRun run(OperationType::EXPAND_DIMS);
        run.input(kF32, {2, 3}, std::vector<float>(6)).scalar(axis).output(kF32, 3);
        EXPECT_TRUE(run.prepare()) << axis;
    }
    OperationRun last(OperationType::EXPAND_DIMS);
    last.input(kF32, {2, 3}, std::vector<float>(6)).scalar(-1).output(kF32, 3);
    ASSERT_TRUE(last.prepare());
    EXPECT_EQ(last.outputDims(0), (std::vector<uint32_t>{2, 3, 1}));
    for (int32_t axis : {-4, 3}) {
        OperationRun run(OperationType::EXPAND_DIMS);
        run.input(kF32, {2, 3}, std::vector<float>(6)).scalar(axis).output(kF32, 3);
        EXPECT_FALSE(run.prepare()) << axis;
    }
}

TEST(Tile, RejectsMultiplesOfTheWrongLengthOrSign) {
    OperationRun wrongLength(OperationType::TILE);
    wrongLength.input(kF32, {2, 3}, std::vector<float>(6)).input(kI32, {1}, std::vector<int32_t>{2});
    EXPECT_FALSE(wrongLength.output(kF32, 2).prepare());
    OperationRun negative(OperationType::TILE);
    negative.input(kF32, {2, 3}, std::vector<float>(6)).input(kI32, {2}, std::vector<int32_t>{2, -1});
    EXPECT_FALSE(negative.output(kF32, 2).prepare());
}

// ---- RANDOM_MULTINOMIAL ----

OperationRun multinomialRun(const std::vector<float>& logits, uint32_t batches, int32_t samples,
                            std::vector<int32_t> seeds) {
    OperationRun run(OperationType::RANDOM_MULTINOMIAL);
    const auto classes = static_cast<uint32_t>(logits.size() / batches);
    run.input(kF32, {batches, classes}, logits).scalar(samples).input(kI32, {2}, seeds);
    run.output(kI32, 2);
    return run;
}

// Every class frequency lies within 5 standard deviations of softmax(logits), and the
// chi-square statistic stays below a bound a correct sampler exceeds with probability < 1e-6.
TEST(RandomMultinomial, SamplesFollowSoftmaxOfTheLogits) {
    const std::vector<float> logits = {0.0f, 1.0f, 2.0f, -1.0f, std::log(0.5f), 3.0f,   // batch 0
                                       5.0f, 5.0f, 5.0f, 5.0f, -INFINITY,   4.0f};  // batch 1
    constexpr uint32_t kClasses = 6;
    constexpr int32_t kSamples = 200000;
    OperationRun run = multinomialRun(logits, 2, kSamples, {37, 42});
    ASSERT_TRUE(run.execute());
    ASSERT_EQ(run.outputDims(0), (std::vector<uint32_t>{2, kSamples}));
    const std::vector<int32_t> samples = run.outputValues<int32_t>(0);
    for (uint32_t b = 0; b < 2; ++b) {
        double total = 0.0;
        for (uint32_t c = 0; c < kClasses; ++c) total += std::exp(logits[b * kClasses + c]);
        std::vector<int> counts(kClasses, 0);
        for (int32_t s = 0; s < kSamples; ++s) {
            const int32_t sample = samples[b * kSamples + s];
            ASSERT_GE(sample, 0);
            ASSERT_LT(sample, static_cast<int32_t>(kClasses));
            ++counts[sample];
        }
        double chiSquare = 0.0;
        for (uint32_t c = 0; c < kClasses; ++c) {
            const double p = std::exp(logits[b * kClasses + c]) / total;
            const double expected = p * kSamples;
            if (p == 0.0) {
                EXPECT_EQ(counts[c], 0) << "class of probability 0 sampled, batch " << b;
                continue;
            }
            EXPECT_NEAR(counts[c], expected, 5.0 * std::sqrt(expected * (1.0 - p))) << b << "/" << c;
            chiSquare += (counts[c] - expected) * (counts[c] - expected) / expected;
        }
        EXPECT_LT(chiSquare, 40.0) << "batch " << b;  // 5 or 4 degrees of freedom
    }
}

TEST(RandomMultinomial, TheSeedsDetermineTheSamples) {
    const std::vector<float> logits(16, 0.0f);
    auto draw = [&](std::vector<int32_t> seeds) {
        OperationRun run = multinomialRun(logits, 1, 64, std::move(seeds));
        EXPECT_TRUE(run.execute());
        return run.outputValues<int32_t>(0);
    };
    EXPECT_EQ(draw({1, 2}), draw({1, 2}));
    EXPECT_NE(draw({1, 2}), draw({2, 1}));
}

TEST(RandomMultinomial, RejectsMalformedOperands) {
    EXPECT_FALSE(multinomialRun({0.0f, 1.0f}, 1, -1, {1, 2}).prepare());
    OperationRun threeSeeds(OperationType::RANDOM_MULTINOMIAL);
    threeSeeds.input(kF32, {1, 2}, std::vector<float>{0, 1}).scalar(4);
    threeSeeds.input(kI32, {3}, std::vector<int32_t>{1, 2, 3}).output(kI32, 2);
    EXPECT_FALSE(threeSeeds.prepare());
    // Logits that are not a distribution fail the kernel instead of sampling garbage.
    EXPECT_FALSE(multinomialRun({NAN, 1.0f}, 1, 4, {1, 2}).execute());
    EXPECT_FALSE(multinomialRun({-INFINITY, -INFINITY}, 1, 4, {1, 2}).execute());
}

}  // namespace
}  // namespace nnemu
