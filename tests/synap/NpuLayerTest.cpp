// The NPU core's layers for PRELU, MAXIMUM, MINIMUM, CHANNEL_SHUFFLE, ARGMAX, ARGMIN,
// TRANSPOSE_CONV_2D, RESHAPE, SOFTMAX, QUANTIZE and DEQUANTIZE: each operation compiled for synap-npu alone (so the NPU must run all of it)
// gives what nnapi-reference gives on the same random operands: the same bytes where the core
// runs the layer itself, the CTS tolerances (float, uint8 within 1) where XNNPACK computes it.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "compiler/Compiler.h"
#include "ModelBuilder.h"
#include "core/NpuCore.h"
#include "OneOperationModel.h"

namespace nnemu {
namespace {

using test::bytesOf;
using test::int32Scalar;
using test::OneOperationModel;
using test::TestOperand;

constexpr int32_t kF32 = ANEURALNETWORKS_TENSOR_FLOAT32;
constexpr int32_t kF16 = ANEURALNETWORKS_TENSOR_FLOAT16;
constexpr int32_t kQ8 = ANEURALNETWORKS_TENSOR_QUANT8_ASYMM;
constexpr int32_t kI32 = ANEURALNETWORKS_TENSOR_INT32;

void expectFloatsClose(const std::vector<uint8_t>& expected, const std::vector<uint8_t>& actual) {
    ASSERT_EQ(expected.size(), actual.size());
    std::vector<float> e(expected.size() / 4), a(actual.size() / 4);
    std::memcpy(e.data(), expected.data(), expected.size());
    std::memcpy(a.data(), actual.data(), actual.size());
    for (size_t i = 0; i < e.size(); ++i) EXPECT_NEAR(a[i], e[i], 1e-5 + 5.96e-7 * std::abs(e[i])) << i;
}

void expectQuant8WithinOne(const std::vector<uint8_t>& expected, const std::vector<uint8_t>& actual) {
    ASSERT_EQ(expected.size(), actual.size());
    for (size_t i = 0; i < expected.size(); ++i) EXPECT_LE(std::abs(expected[i] - actual[i]), 1) << i;
}

enum class Match { kExact, kFloatTolerance, kQuant8WithinOne };

void expectSameAsReference(const OneOperationModel& model, Match match) {
    ASSERT_TRUE(model.claimedBy("synap-npu"));
    for (uint32_t seed : {1u, 2u, 3u}) {
        const auto inputs = model.randomInputs(seed);
        const auto expected = model.run("nnapi-reference", inputs);
        const auto actual = model.run("synap-npu", inputs);
        ASSERT_FALSE(expected.empty());
        ASSERT_FALSE(actual.empty()) << "synap-npu failed to compile or run it";
        if (match == Match::kExact) {
            EXPECT_EQ(actual, expected) << "seed " << seed;
        } else if (match == Match::kQuant8WithinOne) {
            expectQuant8WithinOne(expected, actual);
        } else {
            expectFloatsClose(expected, actual);
        }
    }
}

std::vector<uint8_t> randomConstant(const TestOperand& operand, uint32_t seed) {
    std::mt19937 random(seed);
    return test::randomData(operand, random);
}

TestOperand constant(TestOperand operand, uint32_t seed = 7) {
    operand.value = randomConstant(operand, seed);
    return operand;
}

TEST(NpuNativeLayers, QuantizedMaximumAndMinimumBroadcastAcrossScales) {
    for (int32_t op : {ANEURALNETWORKS_MAXIMUM, ANEURALNETWORKS_MINIMUM}) {
        OneOperationModel model(op, {{kQ8, {2, 3, 4}, 0.5f, 127}, {kQ8, {4}, 1.0f, 100}}, {kQ8, {2, 3, 4}, 0.75f, 90});
        expectSameAsReference(model, Match::kExact);
        OneOperationModel constantFirst(op, {constant({kQ8, {3, 1}, 0.25f, 3}), {kQ8, {2, 1, 5}, 2.0f, 200}},
                                        {kQ8, {2, 3, 5}, 1.5f, 0});
        expectSameAsReference(constantFirst, Match::kExact);
    }
}

TEST(NpuNativeLayers, QuantizedPreluWithBroadcastingOrVariableSlopes) {
    OneOperationModel broadcast(ANEURALNETWORKS_PRELU,
                                {{kQ8, {1, 3, 4, 5}, 0.25f, 128}, constant({kQ8, {4, 1}, 0.5f, 50})},
                                {kQ8, {1, 3, 4, 5}, 0.125f, 120});
    expectSameAsReference(broadcast, Match::kExact);
    OneOperationModel variable(ANEURALNETWORKS_PRELU, {{kQ8, {2, 2, 3}, 0.5f, 100}, {kQ8, {3}, 0.25f, 40}},
                               {kQ8, {2, 2, 3}, 0.1f, 130});
    expectSameAsReference(variable, Match::kExact);
}

TEST(NpuNativeLayers, FloatPreluWithSlopesTheXnnpackPreluCannotTake) {
    // Varying along a leading axis, and an input rather than a constant.
    OneOperationModel leading(ANEURALNETWORKS_PRELU, {{kF32, {2, 3, 4}}, constant({kF32, {3, 1}})}, {kF32, {2, 3, 4}});
    expectSameAsReference(leading, Match::kExact);
    OneOperationModel variable(ANEURALNETWORKS_PRELU, {{kF32, {2, 3, 4}}, {kF32, {4}}}, {kF32, {2, 3, 4}});
    expectSameAsReference(variable, Match::kExact);
    // The slope broadcasts the output beyond the input's shape.
    OneOperationModel wider(ANEURALNETWORKS_PRELU, {{kF32, {3, 1}}, constant({kF32, {2, 1, 4}})}, {kF32, {2, 3, 4}});
    expectSameAsReference(wider, Match::kExact);
}

TEST(NpuXnnpackLayers, FloatPreluWithOneSlopePerChannelOrOneForAll) {
    OneOperationModel perChannel(ANEURALNETWORKS_PRELU, {{kF32, {1, 2, 3, 5}}, constant({kF32, {1, 1, 5}})},
                                 {kF32, {1, 2, 3, 5}});
    expectSameAsReference(perChannel, Match::kFloatTolerance);
    OneOperationModel single(ANEURALNETWORKS_PRELU, {{kF32, {2, 3, 5}}, constant({kF32, {1}})}, {kF32, {2, 3, 5}});
    expectSameAsReference(single, Match::kFloatTolerance);
}

TEST(NpuXnnpackLayers, FloatMaximumAndMinimumBroadcast) {
    for (int32_t op : {ANEURALNETWORKS_MAXIMUM, ANEURALNETWORKS_MINIMUM}) {
        OneOperationModel both(op, {{kF32, {3, 1, 4}}, {kF32, {2, 1}}}, {kF32, {3, 2, 4}});
        expectSameAsReference(both, Match::kFloatTolerance);
        OneOperationModel constantFirst(op, {constant({kF32, {4}}), {kF32, {2, 3, 4}}}, {kF32, {2, 3, 4}});
        expectSameAsReference(constantFirst, Match::kFloatTolerance);
    }
}

TEST(NpuNativeLayers, ChannelShuffleMovesEveryType) {
    for (int32_t type : {kF32, kQ8, kF16}) {
        const float scale = type == kQ8 ? 0.5f : 0.0f;
        const int32_t zeroPoint = type == kQ8 ? 3 : 0;
        OneOperationModel inner(ANEURALNETWORKS_CHANNEL_SHUFFLE,
                                {{type, {2, 6, 3, 4}, scale, zeroPoint}, int32Scalar(3), int32Scalar(1)},
                                {type, {2, 6, 3, 4}, scale, zeroPoint});
        expectSameAsReference(inner, Match::kExact);
        OneOperationModel last(ANEURALNETWORKS_CHANNEL_SHUFFLE,
                               {{type, {2, 3, 12}, scale, zeroPoint}, int32Scalar(4), int32Scalar(-1)},
                               {type, {2, 3, 12}, scale, zeroPoint});
        expectSameAsReference(last, Match::kExact);
    }
}

TEST(NpuNativeLayers, ArgMaxAndArgMinOfEveryInputType) {
    for (int32_t op : {ANEURALNETWORKS_ARGMAX, ANEURALNETWORKS_ARGMIN}) {
        for (int32_t type : {kF32, kF16, kQ8, kI32}) {
            const float scale = type == kQ8 ? 0.5f : 0.0f;
            OneOperationModel first(op, {{type, {3, 4, 5}, scale, 0}, int32Scalar(0)}, {kI32, {4, 5}});
            expectSameAsReference(first, Match::kExact);
            OneOperationModel middle(op, {{type, {3, 40, 5}, scale, 0}, int32Scalar(-2)}, {kI32, {3, 5}});
            expectSameAsReference(middle, Match::kExact);
            OneOperationModel vector(op, {{type, {7}, scale, 0}, int32Scalar(0)}, {kI32, {1}});
            expectSameAsReference(vector, Match::kExact);
        }
        // Int32 operands with a scale (which NNAPI allows) are plain int32 values too.
        OneOperationModel scaled(op, {{kI32, {3, 4}, 0.5f, 0}, int32Scalar(1)}, {kI32, {3}, 2.0f, 0});
        expectSameAsReference(scaled, Match::kExact);
    }
}

TestOperand boolScalar(bool value) { return {ANEURALNETWORKS_BOOL, {}, 0.0f, 0, {static_cast<uint8_t>(value)}}; }

// TRANSPOSE_CONV_2D of `type` (float, or uint8 with a per-tensor filter) with random constant
// weights; `window` are the operands after the bias.
OneOperationModel transposeConvolution(int32_t type, std::vector<uint32_t> in, std::vector<uint32_t> filter,
                                       std::vector<uint32_t> out, std::vector<TestOperand> window) {
    const bool quantized = type == kQ8;
    const uint32_t outChannels = filter[0];
    std::vector<TestOperand> inputs{{type, std::move(in), quantized ? 0.5f : 0.0f, quantized ? 100 : 0},
                                    constant({type, std::move(filter), quantized ? 0.25f : 0.0f, quantized ? 128 : 0}),
                                    constant({quantized ? kI32 : kF32, {outChannels}, quantized ? 0.125f : 0.0f})};
    for (auto& operand : window) inputs.push_back(std::move(operand));
    return OneOperationModel(ANEURALNETWORKS_TRANSPOSE_CONV_2D, std::move(inputs),
                             {type, std::move(out), quantized ? 1.5f : 0.0f, quantized ? 120 : 0});
}

TEST(NpuXnnpackLayers, TransposeConvolutionWithAdjustmentOrExplicitPadding) {
    for (int32_t type : {kF32, kQ8}) {
        const Match match = type == kF32 ? Match::kFloatTolerance : Match::kQuant8WithinOne;
        // SAME on 9 x 12 from 3 x 4 with stride 3 and a 2 x 2 filter: tails of -1, the core's
        // adjustment of one row and one column.
        const OneOperationModel same = transposeConvolution(
                type, {2, 3, 4, 2}, {3, 2, 2, 2}, {2, 9, 12, 3},
                {{kI32, {4}, 0.0f, 0, bytesOf<int32_t>({2, 9, 12, 3})}, int32Scalar(ANEURALNETWORKS_PADDING_SAME),
                 int32Scalar(3), int32Scalar(3), int32Scalar(ANEURALNETWORKS_FUSED_RELU), boolScalar(false)});
        expectSameAsReference(same, match);
        // Explicit left 1, right 0, top 2, bottom 1 with stride 2.
        const OneOperationModel explicitPadding = transposeConvolution(
                type, {1, 3, 3, 2}, {2, 3, 3, 2}, {1, 4, 6, 2},
                {int32Scalar(1), int32Scalar(0), int32Scalar(2), int32Scalar(1), int32Scalar(2), int32Scalar(2),
                 int32Scalar(ANEURALNETWORKS_FUSED_NONE), boolScalar(false)});
        expectSameAsReference(explicitPadding, match);
    }
}

TEST(NpuClaims, TransposeConvolutionTheCoreCannotPlace) {
    // A tail of -2 with stride 2: the core's adjustment must stay below the stride.
    const OneOperationModel longTail = transposeConvolution(
            kF32, {1, 3, 3, 1}, {1, 3, 3, 1}, {1, 9, 9, 1},
            {int32Scalar(0), int32Scalar(-2), int32Scalar(0), int32Scalar(-2), int32Scalar(2), int32Scalar(2),
             int32Scalar(ANEURALNETWORKS_FUSED_NONE), boolScalar(false)});
    EXPECT_FALSE(longTail.claimedBy("synap-npu"));
    const OneOperationModel nchw = transposeConvolution(
            kF32, {1, 1, 3, 3}, {1, 3, 3, 1}, {1, 1, 7, 7},
            {int32Scalar(0), int32Scalar(0), int32Scalar(0), int32Scalar(0), int32Scalar(2), int32Scalar(2),
             int32Scalar(ANEURALNETWORKS_FUSED_NONE), boolScalar(true)});
    EXPECT_FALSE(nchw.claimedBy("synap-npu"));
    OneOperationModel variableFilter(
            ANEURALNETWORKS_TRANSPOSE_CONV_2D,
            {{kF32, {1, 3, 3, 1}}, {kF32, {1, 3, 3, 1}}, constant({kF32, {1}}), int32Scalar(0), int32Scalar(0),
             int32Scalar(0), int32Scalar(0), int32Scalar(2), int32Scalar(2), int32Scalar(ANEURALNETWORKS_FUSED_NONE),
             boolScalar(false)},
            {kF32, {1, 7, 7, 1}});
    EXPECT_FALSE(variableFilter.claimedBy("synap-npu"));
    EXPECT_TRUE(longTail.claimedBy("nnapi-reference"));
}

TEST(NpuClaims, WhatTheCoreDoesNotComputeStaysWithTheReference) {
    OneOperationModel intMaximum(ANEURALNETWORKS_MAXIMUM, {{kI32, {4}}, {kI32, {4}}}, {kI32, {4}});
    EXPECT_FALSE(intMaximum.claimedBy("synap-npu"));
    OneOperationModel halfMinimum(ANEURALNETWORKS_MINIMUM, {{kF16, {4}}, {kF16, {4}}}, {kF16, {4}});
    EXPECT_FALSE(halfMinimum.claimedBy("synap-npu"));
    OneOperationModel halfPrelu(ANEURALNETWORKS_PRELU, {{kF16, {2, 4}}, {kF16, {4}}}, {kF16, {2, 4}});
    EXPECT_FALSE(halfPrelu.claimedBy("synap-npu"));
    OneOperationModel variableAxis(ANEURALNETWORKS_ARGMAX, {{kF32, {2, 4}}, {ANEURALNETWORKS_INT32, {}}}, {kI32, {2}});
    EXPECT_FALSE(variableAxis.claimedBy("synap-npu"));
}

// The model's NPU program, compiled for the shapes its operands declare, loaded into a core.
std::unique_ptr<synap::NpuCore> loadCore(const OneOperationModel& model, bool profiling) {
    const hal::Model& halModel = reinterpret_cast<runtime::ModelBuilder*>(model.handle())->model();
    std::vector<std::vector<uint32_t>> inputDims;
    for (uint32_t index : halModel.inputIndexes) inputDims.push_back(halModel.operands[index].dimensions);
    nnemu::Result<std::vector<uint8_t>> program = synap::compileProgram(halModel, inputDims);
    EXPECT_TRUE(program.isOk()) << program.message();
    if (!program.isOk()) return nullptr;
    auto core = synap::NpuCore::load(std::move(program).value(), profiling);
    EXPECT_TRUE(core.isOk()) << core.message();
    return core.isOk() ? std::move(core).value() : nullptr;
}

std::vector<npu::LayerParams> layerKindsOf(const OneOperationModel& model) {
    const auto core = loadCore(model, false);
    std::vector<npu::LayerParams> kinds;
    if (core == nullptr) return kinds;
    for (const auto* layer : *npu::GetProgram(core->programBytes().data())->layers()) {
        kinds.push_back(layer->params_type());
    }
    return kinds;
}

TEST(NpuLowering, FloatPreluTakesTheXnnpackPreluWhereItApplies) {
    using npu::LayerParams;
    const OneOperationModel perChannel(ANEURALNETWORKS_PRELU, {{kF32, {2, 3, 5}}, constant({kF32, {1, 5}})},
                                       {kF32, {2, 3, 5}});
    EXPECT_EQ(layerKindsOf(perChannel), std::vector{LayerParams::Prelu});
    const OneOperationModel single(ANEURALNETWORKS_PRELU, {{kF32, {2, 3, 5}}, constant({kF32, {1}})},
                                   {kF32, {2, 3, 5}});
    EXPECT_EQ(layerKindsOf(single), std::vector{LayerParams::Prelu});
    const OneOperationModel variable(ANEURALNETWORKS_PRELU, {{kF32, {2, 3, 5}}, {kF32, {5}}}, {kF32, {2, 3, 5}});
    EXPECT_EQ(layerKindsOf(variable), std::vector{LayerParams::BroadcastPrelu});
    const OneOperationModel leading(ANEURALNETWORKS_PRELU, {{kF32, {2, 3, 5}}, constant({kF32, {3, 1}})},
                                    {kF32, {2, 3, 5}});
    EXPECT_EQ(layerKindsOf(leading), std::vector{LayerParams::BroadcastPrelu});
}

// Whether the core computes every layer of the model itself: no XNNPACK stage.
bool runsWithoutXnnpack(const OneOperationModel& model) {
    const auto core = loadCore(model, true);  // profiling: a stage per layer
    if (core == nullptr) return false;
    for (size_t stage = 0; stage < core->layerCount(); ++stage) {
        if (core->stageName(stage).rfind("xnnpack:", 0) == 0) return false;
    }
    return true;
}

// An 8-bit classifier's tail (RESHAPE, then SOFTMAX through float and back) and the converts of
// DEQUANTIZE and QUANTIZE (up to 16384 elements) run on the core itself, so that an 8-bit MobileNet starts no XNNPACK:
// the reshape and the converts give the reference's bytes, softmax its tolerances.
TEST(NpuNativeLayers, ReshapeConvertsAndSoftmaxNeedNoXnnpack) {
    const TestOperand beta{ANEURALNETWORKS_FLOAT32, {}, 0.0f, 0, bytesOf<float>({1.0f})};
    const OneOperationModel reshape(ANEURALNETWORKS_RESHAPE,
                                    {{kQ8, {1, 1, 1, 12}, 0.5f, 3}, {kI32, {2}, 0.0f, 0, bytesOf<int32_t>({1, 12})}},
                                    {kQ8, {1, 12}, 0.5f, 3});
    const OneOperationModel dequantize(ANEURALNETWORKS_DEQUANTIZE, {{kQ8, {2, 3, 4}, 0.25f, 100}}, {kF32, {2, 3, 4}});
    const OneOperationModel quantize(ANEURALNETWORKS_QUANTIZE, {{kF32, {2, 3, 4}}}, {kQ8, {2, 3, 4}, 0.0625f, 120});
    const OneOperationModel softmax8(ANEURALNETWORKS_SOFTMAX, {{kQ8, {2, 11}, 0.125f, 128}, beta},
                                     {kQ8, {2, 11}, 1.0f / 256, 0});
    const OneOperationModel softmax(ANEURALNETWORKS_SOFTMAX, {{kF32, {3, 7}}, beta}, {kF32, {3, 7}});
    const std::pair<const OneOperationModel*, Match> expected[] = {{&reshape, Match::kExact},
                                                                   {&dequantize, Match::kExact},
                                                                   {&quantize, Match::kExact},
                                                                   {&softmax8, Match::kQuant8WithinOne},
                                                                   {&softmax, Match::kFloatTolerance}};
    for (const auto& [model, match] : expected) {
        EXPECT_TRUE(runsWithoutXnnpack(*model));
        expectSameAsReference(*model, match);
    }
    // Larger tensors stay with XNNPACK's vector kernels.
    const OneOperationModel large(ANEURALNETWORKS_SOFTMAX, {{kF32, {2, 10000}}, beta}, {kF32, {2, 10000}});
    EXPECT_FALSE(runsWithoutXnnpack(large));
    expectSameAsReference(large, Match::kFloatTolerance);
}

// QUANTIZE on the core (16 values at a time, then one by one) gives the reference's bytes for
// the values where rounding and saturation decide: halves, NaN, infinities, huge and tiny values,
// with a power-of-two scale (multiplied by its inverse) and another one (divided), unsigned and
// signed, the clamp's bounds above and below the zero point.
TEST(NpuNativeLayers, QuantizeMatchesTheReferenceOnEdgeValues) {
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    struct Output {
        int32_t type;
        float scale;
        int32_t zeroPoint;
    };
    for (const Output& o : {Output{kQ8, 0.0625f, 120}, Output{kQ8, 0.1f, 3}, Output{kQ8, 1.0f / 256, 0},
                            Output{ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED, 0.0625f, -5},
                            Output{ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED, 0.3f, 100}}) {
        std::vector<float> values;
        for (float k : {-9.5f, -2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 7.5f, 100.5f, -130.5f, 127.5f, 255.5f}) {
            values.push_back(k * o.scale);  // a half exactly, where the product is exact
            values.push_back(std::nextafter(k * o.scale, 0.0f));
            values.push_back(std::nextafter(k * o.scale, inf));
        }
        for (float v : {nan, -nan, inf, -inf, 3e38f, -3e38f, 1e-40f, -1e-40f, 0.0f, -0.0f, 1e9f, -1e9f, 2147483648.0f}) {
            values.push_back(v);
        }
        values.resize(61, 0.75f);  // three runs of 16 and 13 one by one
        const uint32_t count = static_cast<uint32_t>(values.size());
        const OneOperationModel quantize(ANEURALNETWORKS_QUANTIZE, {{kF32, {count}}},
                                         {o.type, {count}, o.scale, o.zeroPoint});
        EXPECT_TRUE(runsWithoutXnnpack(quantize));
        const std::vector<std::vector<uint8_t>> inputs{bytesOf<float>(values)};
        const auto expected = quantize.run("nnapi-reference", inputs);
        ASSERT_FALSE(expected.empty());
        EXPECT_EQ(quantize.run("synap-npu", inputs), expected) << "scale " << o.scale << " zero point " << o.zeroPoint;
        // The core itself, loaded from the program (the runtime may take a network input's
        // QUANTIZE another way).
        const auto core = loadCore(quantize, false);
        ASSERT_NE(core, nullptr);
        std::vector<uint8_t> output(core->outputBytes(0));
        std::vector<const uint8_t*> in{inputs[0].data()};
        std::vector<uint8_t*> out{output.data()};
        ASSERT_TRUE(core->run(in, out).isOk());
        EXPECT_EQ(output, expected) << "core, scale " << o.scale << " zero point " << o.zeroPoint;
    }
}

// With profiling on, a run leaves one profile row per layer, on the unit its kind stands for.
std::vector<synap::LayerProfile> profileOf(const OneOperationModel& model) {
    const auto core = loadCore(model, true);
    if (core == nullptr) return {};
    const auto inputs = model.randomInputs(1);
    std::vector<const uint8_t*> in;
    for (const auto& data : inputs) in.push_back(data.data());
    std::vector<uint8_t> output(core->outputBytes(0));
    std::vector<uint8_t*> out{output.data()};
    const nnemu::Status ran = core->run(in, out);
    EXPECT_TRUE(ran.isOk()) << ran.message();
    EXPECT_EQ(core->lastProfile().size(), core->layerCount());
    return core->lastProfile();
}

TEST(NpuProfile, EveryNewLayerHasARowOnItsUnit) {
    const OneOperationModel prelu(ANEURALNETWORKS_PRELU, {{kQ8, {2, 3}, 0.5f, 9}, {kQ8, {3}, 0.5f, 9}},
                                  {kQ8, {2, 3}, 0.5f, 9});
    const OneOperationModel shuffle(ANEURALNETWORKS_CHANNEL_SHUFFLE, {{kF32, {2, 4}}, int32Scalar(2), int32Scalar(1)},
                                    {kF32, {2, 4}});
    const OneOperationModel argMin(ANEURALNETWORKS_ARGMIN, {{kQ8, {2, 4}, 0.5f, 0}, int32Scalar(1)}, {kI32, {2}});
    const OneOperationModel maximum(ANEURALNETWORKS_MAXIMUM, {{kF32, {2, 4}}, {kF32, {4}}}, {kF32, {2, 4}});
    const OneOperationModel transposed = transposeConvolution(
            kF32, {1, 2, 2, 1}, {1, 3, 3, 1}, {1, 5, 5, 1},
            {int32Scalar(0), int32Scalar(0), int32Scalar(0), int32Scalar(0), int32Scalar(2), int32Scalar(2),
             int32Scalar(ANEURALNETWORKS_FUSED_NONE), boolScalar(false)});
    const std::pair<const OneOperationModel*, const char*> expected[] = {
            {&prelu, "SH"}, {&shuffle, "TP"}, {&argMin, "SH"}, {&maximum, "SH"}, {&transposed, "NN"}};
    for (const auto& [model, unit] : expected) {
        const auto profile = profileOf(*model);
        ASSERT_EQ(profile.size(), 1u);
        EXPECT_STREQ(profile[0].opType, unit) << profile[0].name;
        EXPECT_GT(profile[0].bytesWritten, 0u);
    }
}

}  // namespace
}  // namespace nnemu
