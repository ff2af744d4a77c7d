// TENSOR_QUANT8_ASYMM_SIGNED where the quantization coupling test does not reach: operations
// without a single-operation quant8 vector (EMBEDDING_LOOKUP, PAD_V2, CAST), the signature rules
// that differ from the unsigned type (fixed output zero points, conv filter combinations, mixed
// types), and the extremes of the int8 range in the kernels.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "nnemu/cpu/Kernels.h"
#include "nnemu/hal/Operations.h"
#include "nnemu/hal/TypeShorthands.h"

namespace nnemu {
namespace {

using hal::OperandType;
using hal::OperandView;
using hal::OperationType;
using namespace hal::types;

constexpr OperandType kPerChannel = OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;

// One operation with known data, run as the CPU executor runs it: validate, prepare, allocate,
// kernel.
class SignedRun {
public:
    explicit SignedRun(OperationType type) { context_.type = type; }

    template <typename T>
    SignedRun& input(OperandType type, std::vector<uint32_t> dims, const std::vector<T>& values,
                     float scale = 0.0f, int32_t zeroPoint = 0) {
        context_.inputs.push_back(view(type, std::move(dims), scale, zeroPoint));
        context_.inputs.back().length = values.size() * sizeof(T);
        context_.inputs.back().data = keep(values.data(), values.size() * sizeof(T));
        return *this;
    }
    SignedRun& scalar(int32_t value) { return input(OperandType::INT32, {}, std::vector<int32_t>{value}); }
    SignedRun& output(OperandType type, size_t rank, float scale = 0.0f, int32_t zeroPoint = 0) {
        context_.outputs.push_back(view(type, std::vector<uint32_t>(rank, 0), scale, zeroPoint));
        return *this;
    }
    SignedRun& channelScales(uint32_t input, std::vector<float> scales, uint32_t channelDim) {
        channelQuant_ = {std::move(scales), channelDim};
        context_.inputs[input].channelQuant = &channelQuant_;
        return *this;
    }

    bool validate() const { return signature().validate(context_); }
    bool prepare() { return hal::prepareOperation(signature(), context_); }  // the execution stage
    bool execute() {
        if (!validate() || !prepare()) return false;
        for (OperandView& out : context_.outputs) {
            out.length = hal::byteSize(out.type, out.dims);
            out.data = keep(nullptr, out.length);
        }
        return cpu::findKernel(context_.type)(context_);
    }
    std::vector<int8_t> values(size_t output = 0) const {
        const OperandView& out = context_.outputs[output];
        return std::vector<int8_t>(out.as<int8_t>(), out.as<int8_t>() + out.elements());
    }
    std::vector<uint32_t> dims(size_t output = 0) const { return context_.outputs[output].dims; }
    const OperandView& outputView(size_t output = 0) const { return context_.outputs[output]; }

private:
    static OperandView view(OperandType type, std::vector<uint32_t> dims, float scale, int32_t zeroPoint) {
        OperandView v;
        v.type = type;
        v.dims = std::move(dims);
        v.scale = scale;
        v.zeroPoint = zeroPoint;
        return v;
    }
    const hal::OperationSignature& signature() const { return *hal::findSignature(context_.type); }
    uint8_t* keep(const void* bytes, size_t length) {
        storage_.emplace_back(length + 1, 0);  // never empty, so data is never null
        if (bytes != nullptr && length > 0) std::memcpy(storage_.back().data(), bytes, length);
        return storage_.back().data();
    }

    hal::OperationContext context_;
    hal::SymmPerChannelQuantParams channelQuant_;
    std::vector<std::vector<uint8_t>> storage_;
};

using Bytes = std::vector<int8_t>;

TEST(SignedQuant8, EmbeddingLookupCopiesSignedRows) {
    SignedRun run(OperationType::EMBEDDING_LOOKUP);
    run.input(kI32, {2}, std::vector<int32_t>{2, 0});
    run.input(kQ8S, {3, 2}, Bytes{-128, -1, 0, 1, 126, 127}, 0.5f, -3).output(kQ8S, 2, 0.5f, -3);
    ASSERT_TRUE(run.execute());
    EXPECT_EQ(run.dims(), (std::vector<uint32_t>{2, 2}));
    EXPECT_EQ(run.values(), (Bytes{126, 127, -128, -1}));
}

SignedRun padV2(int32_t padValue) {
    SignedRun run(OperationType::PAD_V2);
    run.input(kQ8S, {1, 2}, Bytes{-5, 7}, 0.25f, -10).input(kI32, {2, 2}, std::vector<int32_t>{0, 0, 1, 1});
    run.scalar(padValue).output(kQ8S, 2, 0.25f, -10);
    return run;
}

TEST(SignedQuant8, PadV2TakesAPadValueInTheSignedRange) {
    SignedRun low = padV2(-128);
    ASSERT_TRUE(low.execute());
    EXPECT_EQ(low.values(), (Bytes{-128, -5, 7, -128}));
    SignedRun high = padV2(127);
    ASSERT_TRUE(high.execute());
    EXPECT_EQ(high.values(), (Bytes{127, -5, 7, 127}));
    EXPECT_FALSE(padV2(128).prepare());
    EXPECT_FALSE(padV2(-129).prepare());
}

TEST(SignedQuant8, PadFillsWithTheSignedZeroPoint) {
    SignedRun run(OperationType::PAD);
    run.input(kQ8S, {2}, Bytes{1, 2}, 0.5f, -7).input(kI32, {1, 2}, std::vector<int32_t>{1, 2});
    run.output(kQ8S, 1, 0.5f, -7);
    ASSERT_TRUE(run.execute());
    EXPECT_EQ(run.values(), (Bytes{-7, 1, 2, -7, -7}));
}

TEST(SignedQuant8, CastIsIdentityOnly) {
    SignedRun identity(OperationType::CAST);
    identity.input(kQ8S, {3}, Bytes{-128, 0, 127}, 0.5f, 1).output(kQ8S, 1, 0.5f, 1);
    ASSERT_TRUE(identity.execute());
    EXPECT_EQ(identity.values(), (Bytes{-128, 0, 127}));
    SignedRun toFloat(OperationType::CAST);
    toFloat.input(kQ8S, {1}, Bytes{1}, 0.5f, 0).output(kF32, 1);
    EXPECT_FALSE(toFloat.validate());
    SignedRun fromFloat(OperationType::CAST);
    fromFloat.input(kF32, {1}, std::vector<float>{1.0f}).output(kQ8S, 1, 0.5f, 0);
    EXPECT_FALSE(fromFloat.validate());
    SignedRun toUnsigned(OperationType::CAST);
    toUnsigned.input(kQ8S, {1}, Bytes{1}, 0.5f, 0).output(kQ8, 1, 0.5f, 128);
    EXPECT_FALSE(toUnsigned.validate());
}

// SOFTMAX: (1/256, -128); L2_NORMALIZATION: (1/128, 0). The output's quantization against the
// fixed one is an execution-stage check: the model validates either way. LOGISTIC and TANH, as
// Android's prepare: the execution gives the output (1/256, -128) and (1/128, 0) whatever was
// declared (a temporary takes it; the executor refuses a model output declared otherwise).
bool fixedOutputAccepted(OperationType op, float scale, int32_t zeroPoint) {
    SignedRun run(op);
    run.input(kQ8S, {1, 2}, Bytes{0, 1}, 0.1f, 0);
    if (op == OperationType::SOFTMAX) run.input(OperandType::FLOAT32, {}, std::vector<float>{1.0f});
    run.output(kQ8S, 2, scale, zeroPoint);
    EXPECT_TRUE(run.validate());
    return run.prepare();
}

TEST(SignedQuant8, FixedOutputQuantizationIsShiftedBy128) {
    EXPECT_TRUE(fixedOutputAccepted(OperationType::SOFTMAX, 1.0f / 256, -128));
    EXPECT_FALSE(fixedOutputAccepted(OperationType::SOFTMAX, 1.0f / 256, 0));
    EXPECT_TRUE(fixedOutputAccepted(OperationType::L2_NORMALIZATION, 1.0f / 128, 0));
    EXPECT_FALSE(fixedOutputAccepted(OperationType::L2_NORMALIZATION, 1.0f / 128, 128));
    const std::pair<OperationType, std::pair<float, int32_t>> fixed[] = {{OperationType::LOGISTIC, {1.0f / 256, -128}},
                                                                         {OperationType::TANH, {1.0f / 128, 0}}};
    for (const auto& [op, quantization] : fixed) {
        SignedRun run(op);
        run.input(kQ8S, {1, 2}, Bytes{0, 1}, 0.1f, 0).output(kQ8S, 2, 0.5f, 7);
        ASSERT_TRUE(run.validate());
        ASSERT_TRUE(run.prepare());
        EXPECT_EQ(run.outputView().scale, quantization.first);
        EXPECT_EQ(run.outputView().zeroPoint, quantization.second);
    }
}

TEST(SignedQuant8, LogisticSaturatesAtTheSignedRange) {
    SignedRun run(OperationType::LOGISTIC);
    run.input(kQ8S, {3}, Bytes{-128, 0, 127}, 1.0f, 0).output(kQ8S, 1, 1.0f / 256, -128);
    ASSERT_TRUE(run.execute());
    EXPECT_EQ(run.values(), (Bytes{-128, 0, 127}));  // sigmoid -128, 0, 127 -> 0, 1/2, ~1
}

// A 1x1 CONV_2D with one input and one output channel, filter and bias as given.
SignedRun conv(OperandType filterType, float biasScale) {
    SignedRun run(OperationType::CONV_2D);
    run.input(kQ8S, {1, 1, 1, 1}, Bytes{-100}, 0.5f, -128);
    run.input(filterType, {1, 1, 1, 1}, Bytes{4}, filterType == kPerChannel ? 0.0f : 0.25f, 0);
    run.input(kI32, {1}, std::vector<int32_t>{8}, biasScale, 0);
    for (int32_t v : {0, 0, 0, 0, 1, 1, 0}) run.scalar(v);  // padding, strides, no activation
    run.output(kQ8S, 4, 0.5f, -128);
    return run;
}

TEST(SignedQuant8, ConvolutionCombinations) {
    SignedRun perTensor = conv(kQ8S, 0.125f);  // (a): bias scale = 0.5 * 0.25
    ASSERT_TRUE(perTensor.execute());
    // real: (28 * 0.5) * (4 * 0.25) + 8 * 0.125 = 15 -> q = 15 / 0.5 - 128 = -98
    EXPECT_EQ(perTensor.values(), (Bytes{-98}));
    SignedRun biasScaleOff = conv(kQ8S, 0.25f);  // refused at execution, not when the model is built
    EXPECT_TRUE(biasScaleOff.validate());
    EXPECT_FALSE(biasScaleOff.prepare());
    EXPECT_FALSE(conv(kQ8, 0.125f).validate());   // unsigned filter with a signed input

    SignedRun perChannel = conv(kPerChannel, 0.0f);  // (b)
    perChannel.channelScales(1, {0.25f}, 0);
    ASSERT_TRUE(perChannel.execute());
    EXPECT_EQ(perChannel.values(), (Bytes{-98}));
}

TEST(SignedQuant8, AddRefusesMixedQuant8Types) {
    SignedRun run(OperationType::ADD);
    run.input(kQ8S, {1}, Bytes{1}, 0.5f, 0).input(kQ8, {1}, std::vector<uint8_t>{1}, 0.5f, 128);
    run.scalar(0).output(kQ8S, 1, 0.5f, 0);
    EXPECT_FALSE(run.validate());
}

TEST(SignedQuant8, AveragePoolRoundsHalfAwayFromZero) {
    SignedRun run(OperationType::AVERAGE_POOL_2D);
    run.input(kQ8S, {1, 1, 2, 2}, Bytes{-1, -2, 1, 2}, 0.5f, 0);
    for (int32_t v : {0, 0, 0, 0, 1, 1, 2, 1, 0}) run.scalar(v);  // a 2x1 window per channel
    run.output(kQ8S, 4, 0.5f, 0);
    ASSERT_TRUE(run.execute());
    EXPECT_EQ(run.dims(), (std::vector<uint32_t>{1, 1, 1, 2}));
    EXPECT_EQ(run.values(), (Bytes{0, 0}));  // (-1 + 1) / 2, (-2 + 2) / 2

    SignedRun negative(OperationType::AVERAGE_POOL_2D);
    negative.input(kQ8S, {1, 1, 2, 1}, Bytes{-1, -2}, 0.5f, 0);
    for (int32_t v : {0, 0, 0, 0, 1, 1, 2, 1, 0}) negative.scalar(v);
    negative.output(kQ8S, 4, 0.5f, 0);
    ASSERT_TRUE(negative.execute());
    EXPECT_EQ(negative.values(), (Bytes{-2}));  // -1.5 rounds to -2
}

TEST(SignedQuant8, MaxPoolAndReduceMaxSeeTheLowestValue) {
    SignedRun pool(OperationType::MAX_POOL_2D);
    pool.input(kQ8S, {1, 2, 1, 1}, Bytes{-128, -128}, 0.5f, 0);
    for (int32_t v : {0, 0, 0, 0, 1, 1, 1, 2, 0}) pool.scalar(v);
    pool.output(kQ8S, 4, 0.5f, 0);
    ASSERT_TRUE(pool.execute());
    EXPECT_EQ(pool.values(), (Bytes{-128}));

    SignedRun reduce(OperationType::REDUCE_MAX);
    reduce.input(kQ8S, {2}, Bytes{-128, -128}, 0.5f, 0).input(kI32, {1}, std::vector<int32_t>{0});
    reduce.input(OperandType::BOOL, {}, std::vector<uint8_t>{0}).output(kQ8S, 1, 0.5f, 0);
    ASSERT_TRUE(reduce.execute());
    EXPECT_EQ(reduce.values(), (Bytes{-128}));
}

}  // namespace
}  // namespace nnemu
