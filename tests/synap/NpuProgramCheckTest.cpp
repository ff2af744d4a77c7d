// Programs whose layers do not fit their tensors (a corrupt or foreign cache entry) are refused
// when the core loads them, before any layer touches a buffer.
#include <gtest/gtest.h>

#include <functional>

#include "compiler/Compiler.h"
#include "core/NpuCore.h"

namespace nnemu {
namespace {

using npu::DataType;

struct TensorSpec {
    DataType type;
    std::vector<uint32_t> dims;
    int32_t input = -1;   // network input position
    int32_t output = -1;  // network output position
    std::vector<uint8_t> data = {};
};

// One layer reading tensors 0..n-2 and writing tensor n-1; `adjust` may change it before packing.
std::vector<uint8_t> oneLayerProgram(const std::vector<TensorSpec>& specs, npu::LayerParamsUnion params,
                                     const std::function<void(npu::ProgramT&)>& adjust = {}) {
    npu::ProgramT program;
    program.compiler_version = synap::kCompilerVersion;
    auto layer = std::make_unique<npu::LayerT>();
    layer->name = "TestLayer0";
    layer->params = std::move(params);
    for (size_t t = 0; t < specs.size(); ++t) {
        auto tensor = std::make_unique<npu::TensorT>();
        tensor->type = specs[t].type;
        tensor->dims = specs[t].dims;
        tensor->scale = 0.5f;
        tensor->input_index = specs[t].input;
        tensor->output_index = specs[t].output;
        tensor->data = specs[t].data;
        if (specs[t].input >= 0) ++program.input_count;
        if (specs[t].output >= 0) ++program.output_count;
        program.tensors.push_back(std::move(tensor));
        (t + 1 < specs.size() ? layer->inputs : layer->outputs).push_back(static_cast<uint32_t>(t));
    }
    program.layers.push_back(std::move(layer));
    if (adjust) adjust(program);
    flatbuffers::FlatBufferBuilder fbb;
    fbb.Finish(npu::Program::Pack(fbb, &program), npu::ProgramIdentifier());
    return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

template <typename Params>
npu::LayerParamsUnion paramsOf(Params params) {
    npu::LayerParamsUnion u;
    u.Set(std::move(params));
    return u;
}

npu::ChannelShuffleT shuffle(uint32_t groups, uint32_t axis) {
    npu::ChannelShuffleT params;
    params.groups = groups;
    params.axis = axis;
    return params;
}

npu::ArgMaxT argMax(uint32_t axis) {
    npu::ArgMaxT params;
    params.axis = axis;
    return params;
}

bool loads(const std::vector<uint8_t>& program) {
    const auto core = synap::NpuCore::load(program);
    if (!core.isOk()) {
        EXPECT_NE(core.message().find("malformed"), std::string::npos) << core.message();
    }
    return core.isOk();
}

TEST(NpuProgramCheck, ChannelShuffleNeedsGroupsDividingTheAxisAndOneShape) {
    const std::vector<TensorSpec> fits{{DataType::FLOAT32, {2, 6}, 0}, {DataType::FLOAT32, {2, 6}, -1, 0}};
    EXPECT_TRUE(loads(oneLayerProgram(fits, paramsOf(shuffle(3, 1)))));
    EXPECT_FALSE(loads(oneLayerProgram(fits, paramsOf(shuffle(4, 1)))));
    EXPECT_FALSE(loads(oneLayerProgram(fits, paramsOf(shuffle(0, 1)))));
    EXPECT_FALSE(loads(oneLayerProgram(fits, paramsOf(shuffle(3, 2)))));
    const std::vector<TensorSpec> larger{{DataType::FLOAT32, {2, 6}, 0}, {DataType::FLOAT32, {3, 6}, -1, 0}};
    EXPECT_FALSE(loads(oneLayerProgram(larger, paramsOf(shuffle(3, 1)))));
    const std::vector<TensorSpec> mixed{{DataType::QUINT8, {2, 6}, 0}, {DataType::FLOAT32, {2, 6}, -1, 0}};
    EXPECT_FALSE(loads(oneLayerProgram(mixed, paramsOf(shuffle(3, 1)))));
}

TEST(NpuProgramCheck, ArgMaxNeedsAnInt32OutputWithoutTheAxis) {
    EXPECT_TRUE(loads(oneLayerProgram({{DataType::FLOAT32, {3, 4}, 0}, {DataType::INT32, {4}, -1, 0}},
                                      paramsOf(argMax(0)))));
    EXPECT_FALSE(loads(oneLayerProgram({{DataType::FLOAT32, {3, 4}, 0}, {DataType::INT32, {12}, -1, 0}},
                                       paramsOf(argMax(0)))));
    EXPECT_FALSE(loads(oneLayerProgram({{DataType::FLOAT32, {3, 4}, 0}, {DataType::FLOAT32, {4}, -1, 0}},
                                       paramsOf(argMax(0)))));
    EXPECT_FALSE(loads(oneLayerProgram({{DataType::FLOAT32, {3, 4}, 0}, {DataType::INT32, {4}, -1, 0}},
                                       paramsOf(argMax(2)))));
}

TEST(NpuProgramCheck, BroadcastingLayersNeedTheBroadcastShapeAndOneType) {
    auto binary = [](DataType a, std::vector<uint32_t> aDims, DataType b, std::vector<uint32_t> bDims, DataType out,
                     std::vector<uint32_t> outDims) {
        return std::vector<TensorSpec>{{a, std::move(aDims), 0}, {b, std::move(bDims), 1}, {out, std::move(outDims), -1, 0}};
    };
    const auto q = DataType::QUINT8, f = DataType::FLOAT32;
    EXPECT_TRUE(loads(oneLayerProgram(binary(q, {2, 3}, q, {3}, q, {2, 3}), paramsOf(npu::QuantizedMaximumT{}))));
    EXPECT_FALSE(loads(oneLayerProgram(binary(q, {2, 3}, q, {2}, q, {2, 3}), paramsOf(npu::QuantizedMaximumT{}))));
    EXPECT_FALSE(loads(oneLayerProgram(binary(q, {2, 3}, q, {3}, q, {2, 4}), paramsOf(npu::QuantizedMinimumT{}))));
    EXPECT_FALSE(loads(oneLayerProgram(binary(f, {2, 3}, f, {3}, f, {2, 3}), paramsOf(npu::QuantizedMinimumT{}))));
    EXPECT_TRUE(loads(oneLayerProgram(binary(f, {2, 3}, f, {2, 1}, f, {2, 3}), paramsOf(npu::BroadcastPreluT{}))));
    EXPECT_FALSE(loads(oneLayerProgram(binary(f, {2, 3}, q, {3}, f, {2, 3}), paramsOf(npu::BroadcastPreluT{}))));
}

// XNNPACK's PReLU would read its slope from a null pointer or past the end of the constant.
TEST(NpuProgramCheck, TheXnnpackPreluNeedsAConstantSlopePerChannel) {
    std::vector<uint8_t> threeSlopes(3 * sizeof(float)), twoSlopes(2 * sizeof(float));
    const auto f = DataType::FLOAT32;
    EXPECT_TRUE(loads(oneLayerProgram({{f, {2, 3}, 0}, {f, {3}, -1, -1, threeSlopes}, {f, {2, 3}, -1, 0}},
                                      paramsOf(npu::PreluT{}))));
    EXPECT_FALSE(loads(oneLayerProgram({{f, {2, 3}, 0}, {f, {2}, -1, -1, twoSlopes}, {f, {2, 3}, -1, 0}},
                                       paramsOf(npu::PreluT{}))));
    EXPECT_FALSE(loads(oneLayerProgram({{f, {2, 3}, 0}, {f, {3}, 1}, {f, {2, 3}, -1, 0}}, paramsOf(npu::PreluT{}))));
}

// XNNPACK sizes what it writes from the input and the parameters, not from the declared output
// (a fuzzed program wrote 256 times past an output buffer this way), and reads weights by the
// parameters: every XNNPACK layer's tensors must be what its parameters make them.
TEST(NpuProgramCheck, XnnpackLayersNeedTheShapesTheirParametersMake) {
    const auto f = DataType::FLOAT32, q = DataType::QUINT8;
    EXPECT_TRUE(loads(oneLayerProgram({{f, {1, 4, 4, 2}, 0}, {q, {1, 4, 4, 2}, -1, 0}}, paramsOf(npu::ConvertT{}))));
    EXPECT_FALSE(loads(oneLayerProgram({{f, {1, 4, 4, 2}, 0}, {q, {4, 4, 4, 2}, -1, 0}}, paramsOf(npu::ConvertT{}))));
    npu::AveragePool2DT pool;
    pool.padding = std::make_unique<npu::PaddingT>();
    pool.pool_height = pool.pool_width = pool.stride_height = pool.stride_width = 2;
    EXPECT_TRUE(loads(oneLayerProgram({{f, {1, 4, 4, 2}, 0}, {f, {1, 2, 2, 2}, -1, 0}}, paramsOf(pool))));
    EXPECT_FALSE(loads(oneLayerProgram({{f, {1, 4, 4, 2}, 0}, {f, {2, 2, 2, 2}, -1, 0}}, paramsOf(pool))));
    const std::vector<uint8_t> filter(4 * 3 * sizeof(float)), bias(4 * sizeof(float));
    auto fullyConnected = [&](std::vector<uint32_t> filterDims, std::vector<uint32_t> outDims) {
        return oneLayerProgram({{f, {2, 3}, 0}, {f, std::move(filterDims), -1, -1, filter}, {f, {4}, -1, -1, bias},
                                {f, std::move(outDims), -1, 0}},
                               paramsOf(npu::FullyConnectedT{}));
    };
    EXPECT_TRUE(loads(fullyConnected({4, 3}, {2, 4})));
    EXPECT_FALSE(loads(fullyConnected({4, 3}, {4, 4})));
    EXPECT_FALSE(loads(fullyConnected({3, 4}, {2, 3})));
}

TEST(NpuProgramCheck, TensorsTooLargeOrMorePortsThanTensorsAreRefused) {
    const auto f = DataType::FLOAT32;
    EXPECT_FALSE(loads(oneLayerProgram({{f, {65536, 65536, 2}, 0}, {f, {65536, 65536, 2}, -1, 0}},
                                       paramsOf(npu::ClampT{}))));
    const std::vector<TensorSpec> clamp{{f, {2, 3}, 0}, {f, {2, 3}, -1, 0}};
    EXPECT_TRUE(loads(oneLayerProgram(clamp, paramsOf(npu::ClampT{}))));
    EXPECT_FALSE(loads(oneLayerProgram(clamp, paramsOf(npu::ClampT{}),
                                       [](npu::ProgramT& program) { program.output_count = 300'000'000; })));
}

// Layers run in order: each reads what is there (a network input, a constant, an earlier
// output), writes what nothing else writes, and every network output gets written.
TEST(NpuProgramCheck, LayersReadWhatIsWrittenAndWriteEachTensorOnce) {
    const auto f = DataType::FLOAT32;
    const auto clamp = paramsOf(npu::ClampT{});
    EXPECT_FALSE(loads(oneLayerProgram({{f, {2, 3}}, {f, {2, 3}, -1, 0}}, clamp)));        // reads nothing
    EXPECT_FALSE(loads(oneLayerProgram({{f, {2, 3}, 0}, {f, {2, 3}, 1}}, clamp,          // writes an input
                                       [](npu::ProgramT& program) { ++program.output_count; })));
    EXPECT_FALSE(loads(oneLayerProgram({{f, {2, 3}, 0}, {f, {2, 3}, -1, 0}}, clamp, [](npu::ProgramT& program) {
        auto unwritten = std::make_unique<npu::TensorT>();  // a second network output
        unwritten->dims = {2, 3};
        unwritten->output_index = 1;
        program.tensors.push_back(std::move(unwritten));
        ++program.output_count;
    })));
    EXPECT_FALSE(loads(oneLayerProgram({{f, {2, 3}, 0}, {f, {2, 3}, -1, 3}}, clamp)));  // output 3 of 1
}

// A layer whose output nothing reads (XNNPACK would give it no memory) still runs.
TEST(NpuProgramCheck, ALayerNothingReadsStillRuns) {
    const auto f = DataType::FLOAT32;
    const auto program = oneLayerProgram({{f, {2, 3}, 0}, {f, {2, 3}, -1, 0}}, paramsOf(npu::ClampT{}),
                                         [](npu::ProgramT& program) {
                                             auto unread = std::make_unique<npu::TensorT>();
                                             unread->dims = {2, 3};
                                             program.tensors.push_back(std::move(unread));
                                             auto layer = std::make_unique<npu::LayerT>();
                                             layer->params.Set(npu::SigmoidT{});
                                             layer->inputs = {0};
                                             layer->outputs = {2};
                                             program.layers.push_back(std::move(layer));
                                         });
    const auto loaded = synap::NpuCore::load(program);
    ASSERT_TRUE(loaded.isOk()) << loaded.message();
    const auto& core = *loaded;
    const std::vector<float> in{-2, -1, 0, 1, 2, 3};
    std::vector<float> out(6);
    const std::vector<const uint8_t*> inputs{reinterpret_cast<const uint8_t*>(in.data())};
    const nnemu::Status ran = core->run(inputs, {reinterpret_cast<uint8_t*>(out.data())});
    ASSERT_TRUE(ran.isOk()) << ran.message();
    EXPECT_EQ(out, in);
}

// Dims from a damaged or hostile program whose byte size a plain product would wrap to a few
// bytes (or to 0), or that pass 4 GiB, are refused before the core sizes a buffer from them.
TEST(NpuProgramCheck, TensorsWhoseSizeDoesNotFitAreRefused) {
    const auto f = DataType::FLOAT32, q = DataType::QUINT8;
    const std::vector<std::vector<uint32_t>> tooLarge{{17362, 27905, 49477, 384773},  // 4 * product = 2^65 + 8
                                                      {65536, 65536, 65536, 65536},
                                                      {65536, 65536, 2}};
    EXPECT_TRUE(loads(oneLayerProgram({{f, {2, 3}, 0}, {f, {2, 3}, -1, 0}}, paramsOf(npu::ClampT{}))));
    for (const auto& dims : tooLarge) {
        EXPECT_FALSE(loads(oneLayerProgram({{f, dims, 0}, {f, dims, -1, 0}}, paramsOf(npu::ClampT{}))));
        // Two byte sizes that would wrap to the same count would pass FlipSign's check.
        EXPECT_FALSE(loads(oneLayerProgram({{q, dims, 0}, {q, dims, -1, 0}}, paramsOf(npu::FlipSignT{}))));
        EXPECT_FALSE(loads(oneLayerProgram({{f, {2, 3}, 0}, {f, dims, -1, -1}, {f, {2, 3}, -1, 0}},
                                           paramsOf(npu::AddT{}))));
    }
}

}  // namespace
}  // namespace nnemu
