// The NNAPI graph each feature-level-29 mapping produces (operation, operand order, scalars),
// which forms stay on the CPU because TFLite's delegate would not take them, and the refusals.
#include <android/NeuralNetworks.h>

#include "LoweredGraph.h"

namespace nnemu::tflite::test {
namespace {

constexpr fb::TensorType F32 = fb::TensorType_FLOAT32;
constexpr fb::TensorType I32 = fb::TensorType_INT32;
constexpr fb::TensorType I64 = fb::TensorType_INT64;
constexpr fb::TensorType U8 = fb::TensorType_UINT8;
constexpr fb::TensorType I8 = fb::TensorType_INT8;
constexpr fb::TensorType BOOL = fb::TensorType_BOOL;

std::vector<uint8_t> ints(std::vector<int32_t> values) { return GraphBuilder::bytes(values); }

// One node, its tensors made by `make`, inputs/outputs as listed.
template <typename Make>
LoweredGraph lowerOne(Make make) {
    GraphBuilder g;
    make(g);
    return lowerGraph(g);
}

void expectRefused(const LoweredGraph& lowered, const std::string& text) {
    EXPECT_FALSE(lowered.ok);
    EXPECT_NE(lowered.error.find(text), std::string::npos) << lowered.error;
}

TEST(OpLowering, ComparisonsWriteBool) {
    const std::pair<fb::BuiltinOperator, int32_t> cases[] = {
            {fb::BuiltinOperator_EQUAL, ANEURALNETWORKS_EQUAL},     {fb::BuiltinOperator_NOT_EQUAL, ANEURALNETWORKS_NOT_EQUAL},
            {fb::BuiltinOperator_GREATER, ANEURALNETWORKS_GREATER}, {fb::BuiltinOperator_GREATER_EQUAL, ANEURALNETWORKS_GREATER_EQUAL},
            {fb::BuiltinOperator_LESS, ANEURALNETWORKS_LESS},       {fb::BuiltinOperator_LESS_EQUAL, ANEURALNETWORKS_LESS_EQUAL}};
    for (const auto& [code, nnapi] : cases) {
        // int8 against a uint8 constant of another scale: both become QUANT8_ASYMM, real values kept.
        const LoweredGraph l = lowerOne([code = code](GraphBuilder& g) {
            const int32_t a = g.tensor({1, 4}, I8, {}, {0.5f}, {-3});
            const int32_t b = g.tensor({1, 1}, U8, {200}, {0.25f}, {100});
            const int32_t out = g.tensor({1, 4}, BOOL);
            g.op(code, {a, b}, {out});
            g.inputs = {a};
            g.outputs = {out};
        });
        ASSERT_TRUE(l.ok) << l.error;
        ASSERT_EQ(l.operationTypes(), std::vector<int32_t>{nnapi});
        EXPECT_EQ(l.input(0, 0).type, ANEURALNETWORKS_TENSOR_QUANT8_ASYMM);
        EXPECT_EQ(l.input(0, 0).zeroPoint, 125);
        EXPECT_EQ(l.input(0, 1).zeroPoint, 100);
        EXPECT_EQ(l.output(0, 0).type, ANEURALNETWORKS_TENSOR_BOOL8);
        EXPECT_FALSE(l.cpuOnly(0));
    }
    expectRefused(lowerOne([](GraphBuilder& g) {
                      const int32_t a = g.tensor({4}, F32);
                      const int32_t b = g.tensor({4}, I32);
                      const int32_t out = g.tensor({4}, BOOL);
                      g.op(fb::BuiltinOperator_LESS, {a, b}, {out});
                      g.inputs = {a, b};
                      g.outputs = {out};
                  }),
                  "operator LESS at node 0: input types differ (TENSOR_FLOAT32, TENSOR_INT32)");
}

TEST(OpLowering, LogicalOperators) {
    const std::tuple<fb::BuiltinOperator, int32_t, int> cases[] = {
            {fb::BuiltinOperator_LOGICAL_AND, ANEURALNETWORKS_LOGICAL_AND, 2},
            {fb::BuiltinOperator_LOGICAL_OR, ANEURALNETWORKS_LOGICAL_OR, 2},
            {fb::BuiltinOperator_LOGICAL_NOT, ANEURALNETWORKS_LOGICAL_NOT, 1}};
    for (const auto& [code, nnapi, arity] : cases) {
        const LoweredGraph l = lowerOne([code = code, arity = arity](GraphBuilder& g) {
            std::vector<int32_t> in;
            for (int i = 0; i < arity; ++i) in.push_back(g.tensor({2, 3}, BOOL));
            const int32_t out = g.tensor({2, 3}, BOOL);
            g.op(code, in, {out});
            g.inputs = in;
            g.outputs = {out};
        });
        ASSERT_TRUE(l.ok) << l.error;
        ASSERT_EQ(l.operationTypes(), std::vector<int32_t>{nnapi});
        EXPECT_EQ(l.graph.operations[0].inputs.size(), static_cast<size_t>(arity));
    }
    expectRefused(lowerOne([](GraphBuilder& g) {
                      const int32_t a = g.tensor({2}, F32);
                      const int32_t out = g.tensor({2}, BOOL);
                      g.op(fb::BuiltinOperator_LOGICAL_NOT, {a}, {out});
                      g.inputs = {a};
                      g.outputs = {out};
                  }),
                  "inputs must be bool tensors");
}

LoweredGraph select(fb::BuiltinOperator code, std::vector<int32_t> conditionShape) {
    return lowerOne([&](GraphBuilder& g) {
        const int32_t c = g.tensor(conditionShape, BOOL);
        const int32_t a = g.tensor({2, 3}, F32);
        const int32_t b = g.tensor({2, 3}, F32);
        const int32_t out = g.tensor({2, 3}, F32);
        g.op(code, {c, a, b}, {out});
        g.inputs = {c, a, b};
        g.outputs = {out};
    });
}

TEST(OpLowering, SelectOfEqualShapes) {
    const LoweredGraph l = select(fb::BuiltinOperator_SELECT, {2, 3});
    ASSERT_TRUE(l.ok) << l.error;
    ASSERT_EQ(l.operationTypes(), std::vector<int32_t>{ANEURALNETWORKS_SELECT});
    EXPECT_EQ(l.input(0, 0).type, ANEURALNETWORKS_TENSOR_BOOL8);
    EXPECT_FALSE(l.cpuOnly(0));
    // SELECT_V2 without broadcasting is the same operation, but the delegate leaves it to TFLite.
    const LoweredGraph v2 = select(fb::BuiltinOperator_SELECT_V2, {2, 3});
    ASSERT_TRUE(v2.ok) << v2.error;
    EXPECT_EQ(v2.operationTypes(), std::vector<int32_t>{ANEURALNETWORKS_SELECT});
    EXPECT_TRUE(v2.cpuOnly(0));
    expectRefused(select(fb::BuiltinOperator_SELECT, {2}), "operator SELECT at node 0: condition and values of different shapes");
    expectRefused(select(fb::BuiltinOperator_SELECT_V2, {1, 3}), "(broadcasting) have no NNAPI SELECT form");
}

LoweredGraph gather(fb::TensorType valueType, int32_t axis, int32_t batchDims, std::vector<int32_t> indexShape,
                    fb::TensorType indexType = I32) {
    return lowerOne([&](GraphBuilder& g) {
        const std::vector<float> scales = valueType == F32 ? std::vector<float>{} : std::vector<float>{0.1f};
        const int32_t params = g.tensor({4, 5}, valueType, {}, scales);
        size_t count = 1;
        for (int32_t d : indexShape) count *= static_cast<size_t>(d);
        std::vector<uint8_t> data;
        if (indexType == I64) {
            data = GraphBuilder::bytes(std::vector<int64_t>(count, 1));
        } else {
            data = ints(std::vector<int32_t>(count, 1));
        }
        const int32_t indices = g.tensor(indexShape, indexType, data);
        std::vector<int32_t> outShape = {4, 5};
        const int32_t at = axis < 0 ? axis + 2 : axis;
        if (at >= 0 && at < 2) {  // an out-of-range axis (to be refused) keeps the input's shape
            outShape.erase(outShape.begin() + at);
            outShape.insert(outShape.begin() + at, indexShape.begin(), indexShape.end());
        }
        const int32_t out = g.tensor(outShape, valueType, {}, scales);
        g.op(fb::BuiltinOperator_GATHER, {params, indices}, {out}, fb::BuiltinOptions_GatherOptions,
             [axis, batchDims](flatbuffers::FlatBufferBuilder& b) { return fb::CreateGatherOptions(b, axis, batchDims).Union(); });
        g.inputs = {params};
        g.outputs = {out};
    });
}

TEST(OpLowering, Gather) {
    const LoweredGraph l = gather(F32, -1, 0, {3});
    ASSERT_TRUE(l.ok) << l.error;
    ASSERT_EQ(l.operationTypes(), std::vector<int32_t>{ANEURALNETWORKS_GATHER});
    EXPECT_EQ(l.value<int32_t>(0, 1), 1);   // axis -1 of rank 2
    EXPECT_EQ(l.input(0, 2).type, ANEURALNETWORKS_TENSOR_INT32);
    EXPECT_EQ(l.intVector(0, 2), (std::vector<int32_t>{1, 1, 1}));
    EXPECT_FALSE(l.cpuOnly(0));
    // What the delegate does not map at API level 29, with the same NNAPI meaning: on the CPU.
    const LoweredGraph int8Values = gather(I8, 0, 0, {2});
    ASSERT_TRUE(int8Values.ok) << int8Values.error;
    EXPECT_TRUE(int8Values.cpuOnly(0));
    const LoweredGraph int64Indices = gather(U8, 0, 0, {2}, I64);
    ASSERT_TRUE(int64Indices.ok) << int64Indices.error;
    EXPECT_EQ(int64Indices.input(0, 2).type, ANEURALNETWORKS_TENSOR_INT32);
    EXPECT_TRUE(int64Indices.cpuOnly(0));
    expectRefused(gather(F32, 1, 1, {4, 2}), "batch_dims is not supported by NNAPI GATHER");
    expectRefused(gather(F32, 0, 0, {}), "a scalar index (0-dimensional positions) is not supported by NNAPI");
    expectRefused(gather(F32, 2, 0, {1}), "axis 2 out of range for rank 2");
}

LoweredGraph topK(bool constantK, int32_t k) {
    return lowerOne([&](GraphBuilder& g) {
        const int32_t in = g.tensor({2, 6}, F32);
        const int32_t kTensor = constantK ? g.tensor({}, I32, ints({k})) : g.tensor({}, I32);
        const int32_t values = g.tensor({2, k}, F32);
        const int32_t indices = g.tensor({2, k}, I32);
        g.op(fb::BuiltinOperator_TOPK_V2, {in, kTensor}, {values, indices});
        g.inputs = constantK ? std::vector<int32_t>{in} : std::vector<int32_t>{in, kTensor};
        g.outputs = {values, indices};
    });
}

TEST(OpLowering, TopK) {
    const LoweredGraph l = topK(true, 3);
    ASSERT_TRUE(l.ok) << l.error;
    ASSERT_EQ(l.operationTypes(), std::vector<int32_t>{ANEURALNETWORKS_TOPK_V2});
    EXPECT_EQ(l.input(0, 1).type, ANEURALNETWORKS_INT32);
    EXPECT_EQ(l.value<int32_t>(0, 1), 3);
    EXPECT_EQ(l.output(0, 1).type, ANEURALNETWORKS_TENSOR_INT32);
    expectRefused(topK(false, 3), "input 1 (t) must be a constant for NNAPI");
    expectRefused(topK(true, 7), "k = 7 is outside [1, 6]");
}

LoweredGraph argMinMax(fb::BuiltinOperator code, fb::TensorType outputType, int32_t axis, fb::TensorType axisType = I32) {
    return lowerOne([&](GraphBuilder& g) {
        const int32_t in = g.tensor({1, 4, 4, 3}, U8, {}, {0.5f}, {10});
        const int32_t axisTensor = g.tensor({1}, axisType,
                                            axisType == I64 ? GraphBuilder::bytes(std::vector<int64_t>{axis}) : ints({axis}));
        const int32_t out = g.tensor({1, 4, 4}, outputType);
        if (code == fb::BuiltinOperator_ARG_MAX) {
            g.op(code, {in, axisTensor}, {out}, fb::BuiltinOptions_ArgMaxOptions,
                 [outputType](flatbuffers::FlatBufferBuilder& b) { return fb::CreateArgMaxOptions(b, outputType).Union(); });
        } else {
            g.op(code, {in, axisTensor}, {out}, fb::BuiltinOptions_ArgMinOptions,
                 [outputType](flatbuffers::FlatBufferBuilder& b) { return fb::CreateArgMinOptions(b, outputType).Union(); });
        }
        g.inputs = {in};
        g.outputs = {out};
    });
}

TEST(OpLowering, ArgMaxAndArgMinWriteInt32) {
    const LoweredGraph max = argMinMax(fb::BuiltinOperator_ARG_MAX, I32, -1);
    ASSERT_TRUE(max.ok) << max.error;
    ASSERT_EQ(max.operationTypes(), std::vector<int32_t>{ANEURALNETWORKS_ARGMAX});
    EXPECT_EQ(max.input(0, 1).type, ANEURALNETWORKS_INT32);
    EXPECT_EQ(max.value<int32_t>(0, 1), 3);
    EXPECT_EQ(max.output(0, 0).type, ANEURALNETWORKS_TENSOR_INT32);
    const LoweredGraph min = argMinMax(fb::BuiltinOperator_ARG_MIN, I32, 2, I64);   // a constant int64 axis narrows
    ASSERT_TRUE(min.ok) << min.error;
    ASSERT_EQ(min.operationTypes(), std::vector<int32_t>{ANEURALNETWORKS_ARGMIN});
    EXPECT_EQ(min.value<int32_t>(0, 1), 2);
}

TEST(OpLowering, ArgMaxRefusesInt64Output) {
    for (fb::BuiltinOperator code : {fb::BuiltinOperator_ARG_MAX, fb::BuiltinOperator_ARG_MIN}) {
        const LoweredGraph l = argMinMax(code, I64, 3);
        expectRefused(l, std::string("operator ") + fb::EnumNameBuiltinOperator(code) +
                                 " at node 0: int64 output is not expressible in NNAPI at feature level 29");
    }
}

LoweredGraph binary(fb::BuiltinOperator code, fb::TensorType type, std::vector<int32_t> bShape = {2, 3}) {
    return lowerOne([&](GraphBuilder& g) {
        const std::vector<float> scales = type == U8 || type == I8 ? std::vector<float>{0.1f} : std::vector<float>{};
        const int32_t a = g.tensor({2, 3}, type, {}, scales);
        const int32_t b = g.tensor(bShape, type, {}, scales);
        const int32_t out = g.tensor({2, 3}, type, {}, scales);
        g.op(code, {a, b}, {out});
        g.inputs = {a, b};
        g.outputs = {out};
    });
}

TEST(OpLowering, MaximumMinimumPowPrelu) {
    const std::tuple<fb::BuiltinOperator, fb::TensorType, int32_t> cases[] = {
            {fb::BuiltinOperator_MAXIMUM, U8, ANEURALNETWORKS_MAXIMUM},
            {fb::BuiltinOperator_MAXIMUM, I32, ANEURALNETWORKS_MAXIMUM},
            {fb::BuiltinOperator_MINIMUM, F32, ANEURALNETWORKS_MINIMUM},
            {fb::BuiltinOperator_POW, F32, ANEURALNETWORKS_POW},
            {fb::BuiltinOperator_PRELU, U8, ANEURALNETWORKS_PRELU}};
    for (const auto& [code, type, nnapi] : cases) {
        const LoweredGraph l = binary(code, type);
        ASSERT_TRUE(l.ok) << l.error;
        EXPECT_EQ(l.operationTypes(), std::vector<int32_t>{nnapi});
        EXPECT_FALSE(l.cpuOnly(0));
    }
    const LoweredGraph prelu = binary(fb::BuiltinOperator_PRELU, F32, {1, 3});   // alpha broadcasts
    ASSERT_TRUE(prelu.ok) << prelu.error;
    const LoweredGraph int8Prelu = binary(fb::BuiltinOperator_PRELU, I8);
    ASSERT_TRUE(int8Prelu.ok) << int8Prelu.error;
    EXPECT_TRUE(int8Prelu.cpuOnly(0));   // the delegate maps float and uint8 PRELU only
    expectRefused(binary(fb::BuiltinOperator_POW, U8), "operator POW at node 0: input type TENSOR_QUANT8_ASYMM is not supported");
}

TEST(OpLowering, LogSoftmaxIsBetaOneOverTheLastAxis) {
    const LoweredGraph l = lowerOne([](GraphBuilder& g) {
        const int32_t in = g.tensor({2, 5}, F32);
        const int32_t out = g.tensor({2, 5}, F32);
        g.op(fb::BuiltinOperator_LOG_SOFTMAX, {in}, {out});
        g.inputs = {in};
        g.outputs = {out};
    });
    ASSERT_TRUE(l.ok) << l.error;
    ASSERT_EQ(l.operationTypes(), std::vector<int32_t>{ANEURALNETWORKS_LOG_SOFTMAX});
    EXPECT_EQ(l.value<float>(0, 1), 1.0f);
    EXPECT_EQ(l.value<int32_t>(0, 2), -1);
}

LoweredGraph cast(fb::TensorType from, fb::TensorType to) {
    return lowerOne([&](GraphBuilder& g) {
        const int32_t in = g.tensor({3}, from);
        const int32_t out = g.tensor({3}, to);
        g.op(fb::BuiltinOperator_CAST, {in}, {out});
        g.inputs = {in};
        g.outputs = {out};
    });
}

TEST(OpLowering, Cast) {
    const LoweredGraph l = cast(F32, I32);
    ASSERT_TRUE(l.ok) << l.error;
    ASSERT_EQ(l.operationTypes(), std::vector<int32_t>{ANEURALNETWORKS_CAST});
    EXPECT_EQ(l.output(0, 0).type, ANEURALNETWORKS_TENSOR_INT32);
    // A uint8 tensor without quantization parameters holds plain integers: scale 1, zero point 0.
    const LoweredGraph bytes = cast(U8, F32);
    ASSERT_TRUE(bytes.ok) << bytes.error;
    EXPECT_EQ(bytes.input(0, 0).type, ANEURALNETWORKS_TENSOR_QUANT8_ASYMM);
    EXPECT_EQ(bytes.input(0, 0).scale, 1.0f);
    EXPECT_EQ(bytes.input(0, 0).zeroPoint, 0);
    expectRefused(cast(I8, F32), "operator CAST at node 0: int8 input is not supported by NNAPI CAST at feature level 29");
    expectRefused(cast(F32, BOOL), "output type BOOL is not supported by NNAPI CAST at feature level 29");
}

LoweredGraph expandDims(bool constantAxis, fb::TensorType axisType = I32) {
    return lowerOne([&](GraphBuilder& g) {
        const int32_t in = g.tensor({2, 3}, F32);
        const int32_t axis = constantAxis ? g.tensor({1}, axisType,
                                                     axisType == I64 ? GraphBuilder::bytes(std::vector<int64_t>{-1}) : ints({-1}))
                                          : g.tensor({1}, I32);
        const int32_t out = g.tensor({2, 3, 1}, F32);
        g.op(fb::BuiltinOperator_EXPAND_DIMS, {in, axis}, {out});
        g.inputs = constantAxis ? std::vector<int32_t>{in} : std::vector<int32_t>{in, axis};
        g.outputs = {out};
    });
}

TEST(OpLowering, ExpandDims) {
    const LoweredGraph l = expandDims(true);
    ASSERT_TRUE(l.ok) << l.error;
    ASSERT_EQ(l.operationTypes(), std::vector<int32_t>{ANEURALNETWORKS_EXPAND_DIMS});
    EXPECT_EQ(l.value<int32_t>(0, 1), 2);   // -1 of an output of rank 3
    EXPECT_FALSE(l.cpuOnly(0));
    EXPECT_TRUE(expandDims(true, I64).cpuOnly(0));
    // A computed axis: TFLite's file still says the output shape, so a RESHAPE, on the CPU.
    const LoweredGraph computed = expandDims(false);
    ASSERT_TRUE(computed.ok) << computed.error;
    ASSERT_EQ(computed.operationTypes(), std::vector<int32_t>{ANEURALNETWORKS_RESHAPE});
    EXPECT_EQ(computed.intVector(0, 1), (std::vector<int32_t>{2, 3, 1}));
    EXPECT_TRUE(computed.cpuOnly(0));
}

TEST(OpLowering, Tile) {
    const auto tile = [](std::vector<int32_t> multiples) {
        return lowerOne([&](GraphBuilder& g) {
            const int32_t in = g.tensor({2, 3}, U8, {}, {0.5f}, {4});
            const int32_t m = g.tensor({static_cast<int32_t>(multiples.size())}, I32, ints(multiples));
            const int32_t out = g.tensor({4, 3}, U8, {}, {0.5f}, {4});
            g.op(fb::BuiltinOperator_TILE, {in, m}, {out});
            g.inputs = {in};
            g.outputs = {out};
        });
    };
    const LoweredGraph l = tile({2, 1});
    ASSERT_TRUE(l.ok) << l.error;
    ASSERT_EQ(l.operationTypes(), std::vector<int32_t>{ANEURALNETWORKS_TILE});
    EXPECT_EQ(l.intVector(0, 1), (std::vector<int32_t>{2, 1}));
    expectRefused(tile({2, 1, 1}), "multiples must hold one value per input dimension");
}

// TFLite (output_shape, weights, input, bias) -> NNAPI (input, filter, bias, output shape,
// padding, strides, fuse, layout).
LoweredGraph transposeConv(bool int8, bool withBias, std::vector<int32_t> outputShape) {
    return lowerOne([&](GraphBuilder& g) {
        const fb::TensorType type = int8 ? I8 : F32;
        const std::vector<float> scale = int8 ? std::vector<float>{0.05f} : std::vector<float>{};
        const int32_t shape = g.tensor({4}, I32, ints(outputShape));
        const int32_t weights = int8 ? g.tensor({2, 3, 3, 4}, I8, std::vector<uint8_t>(72, 3), {0.01f, 0.02f}, {0, 0}, 0)
                                     : g.tensor({2, 3, 3, 4}, F32, GraphBuilder::bytes(std::vector<float>(72, 0.5f)));
        const int32_t in = g.tensor({1, 4, 4, 4}, type, {}, scale);
        std::vector<int32_t> inputs = {shape, weights, in};
        if (withBias) inputs.push_back(int8 ? g.tensor({2}, I32, ints({5, -5}), {0.0005f, 0.001f}, {0, 0})
                                            : g.tensor({2}, F32, GraphBuilder::bytes(std::vector<float>{0.5f, -0.5f})));
        const int32_t out = g.tensor({1, 8, 8, 2}, type, {}, int8 ? std::vector<float>{0.1f} : std::vector<float>{});
        g.op(fb::BuiltinOperator_TRANSPOSE_CONV, inputs, {out}, fb::BuiltinOptions_TransposeConvOptions,
             [](flatbuffers::FlatBufferBuilder& b) {
                 return fb::CreateTransposeConvOptions(b, fb::Padding_SAME, 2, 2, fb::ActivationFunctionType_RELU).Union();
             });
        g.inputs = {in};
        g.outputs = {out};
    });
}

TEST(OpLowering, TransposeConvImplicitPadding) {
    const LoweredGraph l = transposeConv(false, true, {1, 8, 8, 2});
    ASSERT_TRUE(l.ok) << l.error;
    ASSERT_EQ(l.operationTypes(), std::vector<int32_t>{ANEURALNETWORKS_TRANSPOSE_CONV_2D});
    ASSERT_EQ(l.graph.operations[0].inputs.size(), 9u);
    EXPECT_EQ(l.input(0, 0).dims, (std::vector<uint32_t>{1, 4, 4, 4}));
    EXPECT_EQ(l.input(0, 1).dims, (std::vector<uint32_t>{2, 3, 3, 4}));
    EXPECT_EQ(l.input(0, 2).type, ANEURALNETWORKS_TENSOR_FLOAT32);
    EXPECT_EQ(l.intVector(0, 3), (std::vector<int32_t>{1, 8, 8, 2}));
    EXPECT_EQ(l.value<int32_t>(0, 4), ANEURALNETWORKS_PADDING_SAME);
    EXPECT_EQ(l.value<int32_t>(0, 5), 2);
    EXPECT_EQ(l.value<int32_t>(0, 6), 2);
    EXPECT_EQ(l.value<int32_t>(0, 7), ANEURALNETWORKS_FUSED_RELU);
    EXPECT_EQ(l.value<uint8_t>(0, 8), 0);   // NHWC
    EXPECT_FALSE(l.cpuOnly(0));
}

TEST(OpLowering, TransposeConvInt8PerChannelWithoutBias) {
    const LoweredGraph l = transposeConv(true, false, {1, 8, 8, 2});
    ASSERT_TRUE(l.ok) << l.error;
    EXPECT_EQ(l.input(0, 0).type, ANEURALNETWORKS_TENSOR_QUANT8_ASYMM);
    EXPECT_EQ(l.input(0, 1).type, ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL);
    EXPECT_EQ(l.input(0, 1).channelDim, 0u);
    EXPECT_EQ(l.input(0, 2).type, ANEURALNETWORKS_TENSOR_INT32);   // zero bias, scale 0 for per-channel
    EXPECT_EQ(l.input(0, 2).dims, (std::vector<uint32_t>{2}));
    EXPECT_EQ(l.intVector(0, 2), (std::vector<int32_t>{0, 0}));
    expectRefused(transposeConv(false, true, {1, 9, 9, 2}), "output_shape does not match the output tensor's shape");
}

// A float sequence node; states are variable tensors nobody writes.
LoweredGraph unidirectionalRnn(fb::ActivationFunctionType activation) {
    return lowerOne([activation](GraphBuilder& g) {
        const int32_t in = g.tensor({2, 5, 3}, F32);
        const int32_t w = g.tensor({4, 3}, F32, GraphBuilder::bytes(std::vector<float>(12, 0.1f)));
        const int32_t r = g.tensor({4, 4}, F32, GraphBuilder::bytes(std::vector<float>(16, 0.1f)));
        const int32_t b = g.tensor({4}, F32, GraphBuilder::bytes(std::vector<float>(4, 0.0f)));
        const int32_t state = g.variable({2, 4}, F32);
        const int32_t out = g.tensor({2, 5, 4}, F32);
        g.op(fb::BuiltinOperator_UNIDIRECTIONAL_SEQUENCE_RNN, {in, w, r, b, state}, {out},
             fb::BuiltinOptions_SequenceRNNOptions, [activation](flatbuffers::FlatBufferBuilder& fbb) {
                 return fb::CreateSequenceRNNOptions(fbb, false, activation).Union();
             });
        g.inputs = {in};
        g.outputs = {out};
    });
}

TEST(OpLowering, UnidirectionalSequenceRnn) {
    const LoweredGraph l = unidirectionalRnn(fb::ActivationFunctionType_RELU6);
    ASSERT_TRUE(l.ok) << l.error;
    ASSERT_EQ(l.operationTypes(), std::vector<int32_t>{ANEURALNETWORKS_UNIDIRECTIONAL_SEQUENCE_RNN});
    ASSERT_EQ(l.graph.operations[0].inputs.size(), 7u);
    EXPECT_FALSE(l.input(0, 4).isConstant);          // the state: a zero-filled partition input
    EXPECT_EQ(l.value<int32_t>(0, 5), ANEURALNETWORKS_FUSED_RELU6);
    EXPECT_EQ(l.value<int32_t>(0, 6), 0);            // batch major
    EXPECT_FALSE(l.cpuOnly(0));
    expectRefused(unidirectionalRnn(fb::ActivationFunctionType_TANH),
                  "operator UNIDIRECTIONAL_SEQUENCE_RNN at node 0: activation TANH is not supported by NNAPI RNN operators");
}

// LSTM inputs 0-19 one to one (absent ones omitted), then activation, clips, time_major and
// the four layer-norm operands.
GraphBuilder unidirectionalLstm(int inputs, fb::TensorType weightType) {
    GraphBuilder g;
    const int32_t in = g.tensor({1, 3, 2}, F32);
    std::vector<int32_t> operands = {in};
    for (int i = 1; i < inputs; ++i) {
        const bool absent = i == 1 || i == 5 || (i >= 9 && i <= 12) || i == 16 || i == 17 || i >= 20;  // CIFG, no peephole/projection
        if (absent) {
            operands.push_back(-1);
        } else if (i == 18 || i == 19) {
            operands.push_back(g.variable({1, 4}, F32));
        } else if (i >= 13) {
            operands.push_back(g.tensor({4}, F32, GraphBuilder::bytes(std::vector<float>(4, 0.0f))));
        } else {
            const int32_t columns = i <= 4 ? 2 : 4;
            operands.push_back(weightType == F32
                                       ? g.tensor({4, columns}, F32, GraphBuilder::bytes(std::vector<float>(4 * columns, 0.1f)))
                                       : g.tensor({4, columns}, I8, std::vector<uint8_t>(4 * columns, 3), {0.01f}));
        }
    }
    const int32_t out = g.tensor({1, 3, 4}, F32);
    g.op(fb::BuiltinOperator_UNIDIRECTIONAL_SEQUENCE_LSTM, operands, {out}, fb::BuiltinOptions_UnidirectionalSequenceLSTMOptions,
         [](flatbuffers::FlatBufferBuilder& b) {
             return fb::CreateUnidirectionalSequenceLSTMOptions(b, fb::ActivationFunctionType_TANH, 10.0f, 0.0f, false).Union();
         });
    g.inputs = {in};
    g.outputs = {out};
    return g;
}

TEST(OpLowering, UnidirectionalSequenceLstm) {
    for (int inputs : {20, 24}) {
        const LoweredGraph l = lowerGraph(unidirectionalLstm(inputs, F32));
        ASSERT_TRUE(l.ok) << l.error;
        ASSERT_EQ(l.operationTypes(), std::vector<int32_t>{ANEURALNETWORKS_UNIDIRECTIONAL_SEQUENCE_LSTM});
        ASSERT_EQ(l.graph.operations[0].inputs.size(), 28u);
        EXPECT_TRUE(l.omitted(0, 1));
        EXPECT_FALSE(l.omitted(0, 2));
        EXPECT_TRUE(l.omitted(0, 9));
        EXPECT_TRUE(l.omitted(0, 16));
        EXPECT_EQ(l.value<int32_t>(0, 20), 4);
        EXPECT_EQ(l.value<float>(0, 21), 10.0f);
        EXPECT_EQ(l.value<float>(0, 22), 0.0f);
        EXPECT_EQ(l.value<uint8_t>(0, 23), 0);
        for (size_t i = 24; i < 28; ++i) EXPECT_TRUE(l.omitted(0, i)) << i;
    }
    expectRefused(lowerGraph(unidirectionalLstm(20, I8)), "quantized and hybrid sequence operators are not supported by NNAPI");
}

TEST(OpLowering, BidirectionalSequenceLstmAndRnn) {
    const LoweredGraph lstm = lowerOne([](GraphBuilder& g) {
        const int32_t in = g.tensor({3, 1, 2}, F32);
        std::vector<int32_t> operands(48, -1);
        operands[0] = in;
        for (int direction = 0; direction < 2; ++direction) {
            const int base = 1 + 17 * direction;
            for (int i = 1; i <= 3; ++i) operands[base + i] = g.tensor({4, 2}, F32, GraphBuilder::bytes(std::vector<float>(8, 0.1f)));
            for (int i = 5; i <= 7; ++i) operands[base + i] = g.tensor({4, 4}, F32, GraphBuilder::bytes(std::vector<float>(16, 0.1f)));
            for (int i = 12; i <= 14; ++i) operands[base + i] = g.tensor({4}, F32, GraphBuilder::bytes(std::vector<float>(4, 0.0f)));
        }
        for (int i = 35; i <= 38; ++i) operands[i] = g.variable({1, 4}, F32);
        const int32_t out = g.tensor({3, 1, 8}, F32);
        g.op(fb::BuiltinOperator_BIDIRECTIONAL_SEQUENCE_LSTM, operands, {out}, fb::BuiltinOptions_BidirectionalSequenceLSTMOptions,
             [](flatbuffers::FlatBufferBuilder& b) {
                 return fb::CreateBidirectionalSequenceLSTMOptions(b, fb::ActivationFunctionType_TANH, 0.0f, 0.0f, true).Union();
             });
        g.inputs = {in};
        g.outputs = {out};
    });
    ASSERT_TRUE(lstm.ok) << lstm.error;
    ASSERT_EQ(lstm.operationTypes(), std::vector<int32_t>{ANEURALNETWORKS_BIDIRECTIONAL_SEQUENCE_LSTM});
    ASSERT_EQ(lstm.graph.operations[0].inputs.size(), 61u);
    EXPECT_EQ(lstm.value<uint8_t>(0, 51), 1);   // merge_outputs
    EXPECT_EQ(lstm.value<uint8_t>(0, 52), 1);   // time_major
    for (size_t i = 53; i < 61; ++i) EXPECT_TRUE(lstm.omitted(0, i)) << i;
    EXPECT_FALSE(lstm.cpuOnly(0));

    const LoweredGraph rnn = lowerOne([](GraphBuilder& g) {
        const int32_t in = g.tensor({1, 3, 2}, F32);
        std::vector<int32_t> operands(12, -1);
        operands[0] = in;
        for (int base : {1, 5}) {
            operands[base] = g.tensor({4, 2}, F32, GraphBuilder::bytes(std::vector<float>(8, 0.1f)));
            operands[base + 1] = g.tensor({4, 4}, F32, GraphBuilder::bytes(std::vector<float>(16, 0.1f)));
            operands[base + 2] = g.tensor({4}, F32, GraphBuilder::bytes(std::vector<float>(4, 0.0f)));
            operands[base + 3] = g.variable({1, 4}, F32);
        }
        const int32_t fw = g.tensor({1, 3, 4}, F32);
        const int32_t bw = g.tensor({1, 3, 4}, F32);
        g.op(fb::BuiltinOperator_BIDIRECTIONAL_SEQUENCE_RNN, operands, {fw, bw}, fb::BuiltinOptions_BidirectionalSequenceRNNOptions,
             [](flatbuffers::FlatBufferBuilder& b) {
                 return fb::CreateBidirectionalSequenceRNNOptions(b, false, fb::ActivationFunctionType_RELU, false).Union();
             });
        g.inputs = {in};
        g.outputs = {fw, bw};
    });
    ASSERT_TRUE(rnn.ok) << rnn.error;
    ASSERT_EQ(rnn.operationTypes(), std::vector<int32_t>{ANEURALNETWORKS_BIDIRECTIONAL_SEQUENCE_RNN});
    ASSERT_EQ(rnn.graph.operations[0].inputs.size(), 15u);
    // Both outputs, then both final states (fed back into the variable tensors on the CPU path).
    EXPECT_EQ(rnn.graph.operations[0].outputs.size(), 4u);
    ASSERT_EQ(rnn.graph.stateFeedback.size(), 2u);
    EXPECT_TRUE(rnn.graph.stateFeedback[0].cpuPathOnly && rnn.graph.stateFeedback[1].cpuPathOnly);
    EXPECT_TRUE(rnn.omitted(0, 9));
    EXPECT_EQ(rnn.value<int32_t>(0, 12), 1);
    EXPECT_EQ(rnn.value<uint8_t>(0, 13), 0);
    EXPECT_EQ(rnn.value<uint8_t>(0, 14), 0);
    EXPECT_TRUE(rnn.cpuOnly(0));   // the delegate does not map it
}

}  // namespace
}  // namespace nnemu::tflite::test
