// Differential tests against real TensorFlow Lite 2.21: DENSIFY of sparse constants in several
// encodings (CSR rows, transposed traversal, 1x4 and 2x2 blocks, several sparse levels; int32,
// uint16 and uint8 index vectors; float32 and int8 values), alone and feeding FULLY_CONNECTED and
// CONV_2D, in every interpreter mode; malformed encodings give a clean error when the model loads.
#include <type_traits>

#include "RealTfliteOps.h"
#include "SparseEncoding.h"

namespace nnemu::tflite::test {
namespace {

#define REAL_TFLITE_TEST(name) TEST(RealTfliteDensify, name)
#define REQUIRE() NNEMU_REQUIRE_REAL_TFLITE()

// Pruned weights: about two thirds zero, the rest spread over [-2, 2] (or int8 values).
template <typename T>
std::vector<T> prunedWeights(size_t count, uint32_t salt) {
    std::vector<T> values(count);
    for (size_t i = 0; i < count; ++i) {
        const uint32_t h = static_cast<uint32_t>(i * 2654435761u + salt * 40503u);
        if ((h >> 7) % 3 != 0) continue;
        if constexpr (std::is_same_v<T, float>) {
            values[i] = static_cast<float>(static_cast<int>((h >> 12) % 401) - 200) / 100.0f;
        } else {
            values[i] = static_cast<T>(static_cast<int>((h >> 12) % 255) - 127);
        }
    }
    return values;
}

SparseFormat csr(fb::SparseIndexVector type = fb::SparseIndexVector_Int32Vector) {
    return {{0, 1}, {}, {}, {false, true}, type};
}

// A conv filter [O, H, W, I]: rows and input channels stored sparse.
SparseFormat csr4() { return {{0, 1, 2, 3}, {}, {}, {false, true, false, true}}; }

// Adds the sparse constant of `dense` to g (its quantization as given), returns its tensor.
template <typename T>
int32_t addSparse(GraphBuilder& g, const std::vector<int32_t>& shape, fb::TensorType type, const std::vector<T>& dense,
                  const SparseFormat& format, std::vector<float> scales = {}, int32_t axis = 0) {
    SparseEncoder encoder(shape, format, sizeof(T), reinterpret_cast<const uint8_t*>(dense.data()));
    const std::vector<int64_t> zeros(scales.size(), 0);
    const int32_t t = g.tensor(shape, type, encoder.encoded().values, scales, zeros, axis);
    g.setSparsity(t, encoder.parameters());
    return t;
}

// DENSIFY alone: its output is the model's.
template <typename T>
void expectDensify(const std::vector<int32_t>& shape, fb::TensorType type, const SparseFormat& format) {
    GraphBuilder g;
    const std::vector<float> scales = type == fb::TensorType_INT8 ? std::vector<float>{0.05f} : std::vector<float>{};
    const int32_t in = addSparse(g, shape, type, prunedWeights<T>(elementCount(shape), 3), format, scales);
    const int32_t out = g.tensor(shape, type, {}, scales, std::vector<int64_t>(scales.size(), 0));
    g.outputs.push_back(out);
    g.op(fb::BuiltinOperator_DENSIFY, {in}, {out});
    expectSameAsRealTflite(g, {}, 0);
}

REAL_TFLITE_TEST(CsrRowsInt32Indices) {
    REQUIRE();
    expectDensify<float>({6, 10}, fb::TensorType_FLOAT32, csr());
}
REAL_TFLITE_TEST(CsrRowsUint16Indices) {
    REQUIRE();
    expectDensify<float>({5, 300}, fb::TensorType_FLOAT32, csr(fb::SparseIndexVector_Uint16Vector));
}
REAL_TFLITE_TEST(CsrRowsUint8IndicesInt8) {
    REQUIRE();
    expectDensify<int8_t>({7, 12}, fb::TensorType_INT8, csr(fb::SparseIndexVector_Uint8Vector));
}
REAL_TFLITE_TEST(TransposedTraversal) {
    REQUIRE();
    expectDensify<float>({4, 9}, fb::TensorType_FLOAT32, {{1, 0}, {}, {}, {false, true}});
}
REAL_TFLITE_TEST(BothLevelsSparse) {
    REQUIRE();
    expectDensify<float>({8, 6}, fb::TensorType_FLOAT32, {{0, 1}, {}, {}, {true, true}});
}
REAL_TFLITE_TEST(OneByFourBlocks) {
    REQUIRE();
    expectDensify<float>({3, 16}, fb::TensorType_FLOAT32, {{0, 1, 2}, {1}, {4}, {false, true, false}});
}
REAL_TFLITE_TEST(TwoByTwoBlocksInt8) {
    REQUIRE();
    expectDensify<int8_t>({4, 6}, fb::TensorType_INT8, {{0, 1, 2, 3}, {0, 1}, {2, 2}, {false, true, false, false}});
}
REAL_TFLITE_TEST(ConvFilterLastLevelSparse) {
    REQUIRE();
    expectDensify<float>({4, 3, 3, 5}, fb::TensorType_FLOAT32,
                         {{0, 1, 2, 3}, {}, {}, {false, false, false, true}, fb::SparseIndexVector_Uint8Vector});
}

// ---- DENSIFY feeding the consumer of pruned weights
GraphBuilder::Options fullyConnected() {
    return [](auto& b) { return fb::CreateFullyConnectedOptions(b).Union(); };
}
GraphBuilder::Options conv() {
    return [](auto& b) { return fb::CreateConv2DOptions(b, fb::Padding_SAME, 1, 1).Union(); };
}

// A float FULLY_CONNECTED fed by DENSIFY: the CPU path gives TFLite's builtin kernels' bits (the
// tools' kernel sums in TFLite's order); each delegated mode, whose FULLY_CONNECTED computes NNAPI's
// sums, within `ulps` of them. The usual oracle of a delegated form, real TFLite's own delegate
// on nnemu's library, has none here: it claims DENSIFY too and gives NNAPI no weights (see
// DensifyKernel.ConsumerDelegatedDensifyOnCpuKernel), so its benchmark_model fails to prepare.
void expectDensifiedFullyConnected(const GraphBuilder& g, const std::vector<std::vector<uint8_t>>& inputs, int ulps) {
    const std::vector<uint8_t> bytes = g.buildBytes();
    expectCpuPathAsRealTflite(bytes, inputs, 0);
    const RealTfliteResult real = runRealTflite(bytes, inputs);
    ASSERT_TRUE(real.ok) << real.log;
    forEachKernelRunMode(bytes, [&](Interpreter& interpreter, const RunMode& mode) {
        if (mode.options.acceleratorName.empty()) return;   // the CPU path: exact, above
        for (size_t i = 0; i < inputs.size(); ++i) std::memcpy(interpreter.inputData(i), inputs[i].data(), inputs[i].size());
        ASSERT_TRUE(isOk(interpreter.invoke()));
        expectSameBytes(interpreter.outputTensor(0), interpreter.outputData(0), real.outputs[0], ulps);
    });
}

REAL_TFLITE_TEST(FullyConnectedOnCsrWeights) {
    REQUIRE();
    GraphBuilder g;
    const int32_t x = g.tensor({2, 16}, fb::TensorType_FLOAT32);
    const int32_t sparse = addSparse(g, {8, 16}, fb::TensorType_FLOAT32, prunedWeights<float>(128, 5), csr());
    const int32_t w = g.tensor({8, 16}, fb::TensorType_FLOAT32);
    const int32_t bias = g.tensor({8}, fb::TensorType_FLOAT32, GraphBuilder::bytes(prunedWeights<float>(8, 9)));
    const int32_t y = g.tensor({2, 8}, fb::TensorType_FLOAT32);
    g.inputs = {x};
    g.outputs = {y};
    g.op(fb::BuiltinOperator_DENSIFY, {sparse}, {w});
    g.op(fb::BuiltinOperator_FULLY_CONNECTED, {x, w, bias}, {y}, fb::BuiltinOptions_FullyConnectedOptions, fullyConnected());
    expectDensifiedFullyConnected(g, {inputBytes(f32({2, 16}))}, 4);
}
// nnemu's delegate takes the consumer and leaves DENSIFY on its CPU kernel (the weights reach
// the partition at run time). Real TFLite 2.21's delegate claims both nodes but gives NNAPI no
// value for the weights operand, so nnemu's runtime refuses that model at finish and TFLite
// falls back to its CPU kernels (docs/tflite.md).
TEST(DensifyKernel, ConsumerDelegatedDensifyOnCpuKernel) {
    GraphBuilder g;
    const int32_t x = g.tensor({2, 16}, fb::TensorType_FLOAT32);
    const int32_t sparse = addSparse(g, {8, 16}, fb::TensorType_FLOAT32, prunedWeights<float>(128, 5), csr());
    const int32_t w = g.tensor({8, 16}, fb::TensorType_FLOAT32), y = g.tensor({2, 8}, fb::TensorType_FLOAT32);
    g.inputs = {x};
    g.outputs = {y};
    g.op(fb::BuiltinOperator_DENSIFY, {sparse}, {w});
    g.op(fb::BuiltinOperator_FULLY_CONNECTED, {x, w, -1}, {y}, fb::BuiltinOptions_FullyConnectedOptions, fullyConnected());
    EXPECT_EQ(delegatedNodes(g), 1u);
}
REAL_TFLITE_TEST(FullyConnectedOnBlockWeights) {
    REQUIRE();
    GraphBuilder g;
    const int32_t x = g.tensor({3, 32}, fb::TensorType_FLOAT32);
    const int32_t sparse = addSparse(g, {4, 32}, fb::TensorType_FLOAT32, prunedWeights<float>(128, 8),
                                     {{0, 1, 2}, {1}, {4}, {false, true, false}, fb::SparseIndexVector_Uint8Vector});
    const int32_t w = g.tensor({4, 32}, fb::TensorType_FLOAT32);
    const int32_t y = g.tensor({3, 4}, fb::TensorType_FLOAT32);
    g.inputs = {x};
    g.outputs = {y};
    g.op(fb::BuiltinOperator_DENSIFY, {sparse}, {w});
    g.op(fb::BuiltinOperator_FULLY_CONNECTED, {x, w, -1}, {y}, fb::BuiltinOptions_FullyConnectedOptions, fullyConnected());
    expectDensifiedFullyConnected(g, {inputBytes(f32({3, 32}))}, 4);
}
REAL_TFLITE_TEST(ConvOnSparseFilter) {
    REQUIRE();
    GraphBuilder g;
    const int32_t x = g.tensor({1, 6, 6, 5}, fb::TensorType_FLOAT32);
    const int32_t sparse = addSparse(g, {4, 3, 3, 5}, fb::TensorType_FLOAT32, prunedWeights<float>(180, 2),
                                     {{0, 1, 2, 3}, {}, {}, {false, false, true, true}, fb::SparseIndexVector_Uint16Vector});
    const int32_t w = g.tensor({4, 3, 3, 5}, fb::TensorType_FLOAT32);
    const int32_t bias = g.tensor({4}, fb::TensorType_FLOAT32, GraphBuilder::bytes(std::vector<float>{0.5f, -1, 0, 2}));
    const int32_t y = g.tensor({1, 6, 6, 4}, fb::TensorType_FLOAT32);
    g.inputs = {x};
    g.outputs = {y};
    g.op(fb::BuiltinOperator_DENSIFY, {sparse}, {w});
    g.op(fb::BuiltinOperator_CONV_2D, {x, w, bias}, {y}, fb::BuiltinOptions_Conv2DOptions, conv());
    // The filter reaches CONV_2D at run time (DENSIFY runs on the CPU kernel), where NNAPI's
    // convolution sums in another order than TFLite's: up to 32 ULP on values near 0.
    expectSameAsRealTflite(g, {inputBytes(f32({1, 6, 6, 5}))}, 64);
}
// An int8 filter: per tensor, it runs; per channel, CONV_2D has no form for a filter that is no
// constant (NNAPI wants per-channel filters constant): refused cleanly, by name.
GraphBuilder int8ConvModel(const std::vector<float>& scales) {
    GraphBuilder g;
    const int32_t x = g.tensor({1, 5, 5, 3}, fb::TensorType_INT8, {}, {0.1f}, {-3});
    const std::vector<int64_t> zeros(scales.size(), 0);
    const int32_t sparse = addSparse(g, {3, 3, 3, 3}, fb::TensorType_INT8, prunedWeights<int8_t>(81, 4), csr4(), scales, 0);
    const int32_t w = g.tensor({3, 3, 3, 3}, fb::TensorType_INT8, {}, scales, zeros, 0);
    std::vector<float> biasScales;
    for (float s : scales) biasScales.push_back(0.1f * s);
    const int32_t bias = g.tensor({3}, fb::TensorType_INT32, GraphBuilder::bytes(std::vector<int32_t>{100, -50, 7}),
                                  biasScales, zeros, 0);
    const int32_t y = g.tensor({1, 5, 5, 3}, fb::TensorType_INT8, {}, {0.2f}, {5});
    g.inputs = {x};
    g.outputs = {y};
    g.op(fb::BuiltinOperator_DENSIFY, {sparse}, {w});
    g.op(fb::BuiltinOperator_CONV_2D, {x, w, bias}, {y}, fb::BuiltinOptions_Conv2DOptions, conv());
    return g;
}
REAL_TFLITE_TEST(Int8ConvOnSparseFilter) {
    REQUIRE();
    expectSameAsRealTflite(int8ConvModel({0.02f}), {inputBytes(i8({1, 5, 5, 3}, 0.1f, -3))}, 0);
}
TEST(DensifyMalformed, Int8PerChannelFilterRefused) {
    expectModelRefused(int8ConvModel({0.02f, 0.03f, 0.015f}), "per-channel quantized activations are not supported");
}

// ---- malformed encodings: refused when the model loads, never read out of bounds
GraphBuilder densifyOf(const std::vector<int32_t>& shape, std::vector<uint8_t> values, GraphBuilder::Sparsity sparsity) {
    GraphBuilder g;
    const int32_t in = g.tensor(shape, fb::TensorType_FLOAT32, std::move(values));
    g.setSparsity(in, std::move(sparsity));
    const int32_t out = g.tensor(shape, fb::TensorType_FLOAT32);
    g.outputs = {out};
    g.op(fb::BuiltinOperator_DENSIFY, {in}, {out});
    return g;
}
// A 2x3 CSR encoding with the given segments and indices and `count` stored values.
GraphBuilder csrModel(std::vector<int32_t> segments, std::vector<int32_t> indices, size_t count,
                      std::vector<int32_t> order = {0, 1}) {
    return densifyOf({2, 3}, GraphBuilder::bytes(std::vector<float>(count, 1.5f)), [=](auto& b) {
        std::vector<flatbuffers::Offset<fb::DimensionMetadata>> dims = {
                fb::CreateDimensionMetadata(b, fb::DimensionType_DENSE, 2),
                fb::CreateDimensionMetadata(b, fb::DimensionType_SPARSE_CSR, 0, fb::SparseIndexVector_Int32Vector,
                                            fb::CreateInt32VectorDirect(b, &segments).Union(),
                                            fb::SparseIndexVector_Int32Vector,
                                            fb::CreateInt32VectorDirect(b, &indices).Union())};
        return fb::CreateSparsityParametersDirect(b, &order, nullptr, &dims);
    });
}
// Without real TFLite: every encoding of the suite gives back the dense weights (these models
// also seed the loader fuzzer's corpus, tests/fuzz/make_corpus.sh).
TEST(DensifyKernel, EncodingsRoundTrip) {
    const std::vector<std::pair<std::vector<int32_t>, SparseFormat>> cases = {
            {{6, 10}, csr()},
            {{5, 300}, csr(fb::SparseIndexVector_Uint16Vector)},
            {{4, 9}, {{1, 0}, {}, {}, {false, true}, fb::SparseIndexVector_Uint8Vector}},
            {{8, 6}, {{0, 1}, {}, {}, {true, true}}},
            {{3, 16}, {{0, 1, 2}, {1}, {4}, {false, true, false}}},
            {{4, 6}, {{0, 1, 2, 3}, {0, 1}, {2, 2}, {false, true, false, false}}},
            {{3, 3, 3, 3}, csr4()}};
    for (const auto& [shape, format] : cases) {
        SCOPED_TRACE(::testing::PrintToString(shape));
        const std::vector<float> dense = prunedWeights<float>(elementCount(shape), 6);
        GraphBuilder g;
        const int32_t in = addSparse(g, shape, fb::TensorType_FLOAT32, dense, format);
        const int32_t out = g.tensor(shape, fb::TensorType_FLOAT32);
        g.outputs = {out};
        g.op(fb::BuiltinOperator_DENSIFY, {in}, {out});
        std::unique_ptr<Model> model = g.build();
        ASSERT_NE(model, nullptr);
        std::unique_ptr<Interpreter> interpreter = expectValue(Interpreter::create(*model, {}));
        ASSERT_NE(interpreter, nullptr);
        ASSERT_TRUE(isOk(interpreter->invoke()));
        EXPECT_EQ(valuesOf<float>(interpreter->outputData(0), dense.size()), dense);
    }
}
TEST(DensifyKernel, CsrReference) {
    std::unique_ptr<Model> model = csrModel({0, 2, 3}, {0, 2, 1}, 3).build();
    ASSERT_NE(model, nullptr);
    std::unique_ptr<Interpreter> interpreter = expectValue(Interpreter::create(*model, {}));
    ASSERT_NE(interpreter, nullptr);
    ASSERT_TRUE(isOk(interpreter->invoke()));
    EXPECT_EQ(valuesOf<float>(interpreter->outputData(0), 6), (std::vector<float>{1.5f, 0, 1.5f, 0, 1.5f, 0}));
}
TEST(DensifyMalformed, IndexOutsideDimension) {
    expectModelRefused(csrModel({0, 2, 3}, {0, 3, 1}, 3), "outside its dimension");
}
TEST(DensifyMalformed, NegativeIndex) { expectModelRefused(csrModel({0, 1, 2}, {-1, 1}, 2), "outside its dimension"); }
TEST(DensifyMalformed, TooFewValues) { expectModelRefused(csrModel({0, 2, 3}, {0, 2, 1}, 2), "more than its 2 values"); }
TEST(DensifyMalformed, DecreasingSegments) { expectModelRefused(csrModel({0, 3, 1}, {0, 1, 2}, 3), "decrease"); }
TEST(DensifyMalformed, SegmentsPastIndicesAreSkipped) {
    // TFLite skips positions past the indices array: no read beyond it.
    std::unique_ptr<Model> model = csrModel({0, 2, 90}, {0, 2, 1}, 3).build();
    std::unique_ptr<Interpreter> interpreter = expectValue(Interpreter::create(*model, {}));
    ASSERT_NE(interpreter, nullptr);
    EXPECT_TRUE(isOk(interpreter->invoke()));
}
TEST(DensifyMalformed, TraversalNotPermutation) {
    expectModelRefused(csrModel({0, 2, 3}, {0, 2, 1}, 3, {0, 0}), "permutation");
}
TEST(DensifyMalformed, MetadataCountDiffersFromRank) {
    expectModelRefused(csrModel({0, 2, 3}, {0, 2, 1}, 3, {0, 1, 2}), "dimension metadata");
}
TEST(DensifyMalformed, NoMetadata) {
    expectModelRefused(densifyOf({2, 3}, GraphBuilder::bytes(std::vector<float>(6, 1.0f)),
                                 [](auto& b) { return fb::CreateSparsityParameters(b); }),
                       "dimension metadata");
}
TEST(DensifyMalformed, BlockSizeNotDividing) {
    expectModelRefused(densifyOf({2, 6}, GraphBuilder::bytes(std::vector<float>(12, 1.0f)), [](auto& b) {
                           const std::vector<int32_t> order = {0, 1, 2}, map = {1};
                           std::vector<flatbuffers::Offset<fb::DimensionMetadata>> dims = {
                                   fb::CreateDimensionMetadata(b, fb::DimensionType_DENSE, 2),
                                   fb::CreateDimensionMetadata(b, fb::DimensionType_DENSE, 1),
                                   fb::CreateDimensionMetadata(b, fb::DimensionType_DENSE, 4)};
                           return fb::CreateSparsityParametersDirect(b, &order, &map, &dims);
                       }),
                       "does not divide");
}
TEST(DensifyMalformed, SparseTensorReadByAnotherOperator) {
    GraphBuilder g;
    SparseEncoder encoder({2, 4}, csr(), 4, GraphBuilder::bytes(prunedWeights<float>(8, 1)).data());
    const int32_t in = g.tensor({2, 4}, fb::TensorType_FLOAT32, encoder.encoded().values);
    g.setSparsity(in, encoder.parameters());
    const int32_t x = g.tensor({2, 4}, fb::TensorType_FLOAT32), out = g.tensor({2, 4}, fb::TensorType_FLOAT32);
    g.inputs = {x};
    g.outputs = {out};
    g.op(fb::BuiltinOperator_ADD, {x, in}, {out}, fb::BuiltinOptions_AddOptions,
         [](auto& b) { return fb::CreateAddOptions(b).Union(); });
    const std::string error = failureOf(Model::fromBuffer(g.buildBytes()));
    EXPECT_NE(error.find("only DENSIFY reads sparse tensors"), std::string::npos) << error;
}
TEST(DensifyMalformed, NonConstantInput) {
    GraphBuilder g;
    const int32_t in = g.tensor({2, 3}, fb::TensorType_FLOAT32), out = g.tensor({2, 3}, fb::TensorType_FLOAT32);
    g.inputs = {in};
    g.outputs = {out};
    g.op(fb::BuiltinOperator_DENSIFY, {in}, {out});
    expectModelRefused(g, "constant sparse tensor");
}

}  // namespace
}  // namespace nnemu::tflite::test
