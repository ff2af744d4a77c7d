// Differential tests against real TensorFlow Lite 2.21: EMBEDDING_LOOKUP, HASHTABLE_LOOKUP and
// LSH_PROJECTION, every form TFLite runs (lowered to NNAPI, run on nnapi-reference, or on the
// tools' CPU kernels), in every interpreter mode (RealTfliteOps.h). Malformed nodes at the end run
// everywhere.
#include "RealTfliteOps.h"
#include "ResultCheck.h"

namespace nnemu::tflite::test {
namespace {

#define REAL_TFLITE_TEST(name) TEST(RealTfliteLookup, name)
#define REQUIRE() NNEMU_REQUIRE_REAL_TFLITE()

// The outputs against real TFLite, and how many nodes TFLite's delegate rules hand to NNAPI (0: the
// node runs on nnapi-reference or the CPU kernels, as TFLite runs it on its own kernels).
void expectLookup(size_t delegated, fb::BuiltinOperator code, const std::vector<Spec>& ins,
                  const std::vector<Spec>& outs, fb::BuiltinOptions optionsType = fb::BuiltinOptions_NONE,
                  const GraphBuilder::Options& options = nullptr) {
    expectOp(code, ins, outs, optionsType, options);
    EXPECT_EQ(delegatedNodes(oneOp(code, ins, outs, optionsType, options)), delegated);
}

// Lookups over [-1, 6] hit every row of a 6-row table, and miss on both sides for hash tables.
Spec lookups(int32_t count, double low = 0, double high = 5) { return range(i32({count}), low, high); }

// ---- EMBEDDING_LOOKUP
REAL_TFLITE_TEST(EmbeddingLookupFloat) {
    REQUIRE();
    expectLookup(1, fb::BuiltinOperator_EMBEDDING_LOOKUP, {lookups(4), f32({6, 2, 3})}, {f32({4, 2, 3})});
}
REAL_TFLITE_TEST(EmbeddingLookupFloatConstantTable) {
    REQUIRE();
    const Spec table = constant(f32({6, 5}), rampBytes<float>(30, -3, 3));
    expectLookup(1, fb::BuiltinOperator_EMBEDDING_LOOKUP, {lookups(7), table}, {f32({7, 5})});
}
REAL_TFLITE_TEST(EmbeddingLookupUint8Rows) {
    REQUIRE();
    expectLookup(0, fb::BuiltinOperator_EMBEDDING_LOOKUP, {lookups(5), u8({6, 4}, 0.1f, 3)}, {u8({5, 4}, 0.1f, 3)});
}
REAL_TFLITE_TEST(EmbeddingLookupInt8Rows) {
    REQUIRE();
    expectLookup(0, fb::BuiltinOperator_EMBEDDING_LOOKUP, {lookups(5), i8({6, 4}, 0.1f, -3)}, {i8({5, 4}, 0.1f, -3)});
}
// Dequantizing ("hybrid") lookups: the stored bytes read as int8, times the scale.
REAL_TFLITE_TEST(EmbeddingLookupHybridUint8) {
    REQUIRE();
    const Spec table = constant(u8({6, 4}, 0.37f, 0), rampBytes<uint8_t>(24, 0, 255));
    expectLookup(0, fb::BuiltinOperator_EMBEDDING_LOOKUP, {lookups(5), table}, {f32({5, 4})});
}
REAL_TFLITE_TEST(EmbeddingLookupHybridInt8) {
    REQUIRE();
    const Spec table = constant(i8({6, 4}, 0.013f, 0), rampBytes<int8_t>(24, -128, 127));
    expectLookup(0, fb::BuiltinOperator_EMBEDDING_LOOKUP, {lookups(5), table}, {f32({5, 4})});
}
REAL_TFLITE_TEST(EmbeddingLookupHybridInt8PerRow) {
    REQUIRE();
    GraphBuilder g;
    const int32_t lookup = g.tensor({5}, fb::TensorType_INT32);
    const int32_t table = g.tensor({6, 4}, fb::TensorType_INT8, rampBytes<int8_t>(24, -128, 127),
                                   {0.5f, 0.25f, 0.125f, 1.5f, 0.01f, 3.0f}, {0, 0, 0, 0, 0, 0}, 0);
    const int32_t out = g.tensor({5, 4}, fb::TensorType_FLOAT32);
    g.op(fb::BuiltinOperator_EMBEDDING_LOOKUP, {lookup, table}, {out});
    g.inputs = {lookup};
    g.outputs = {out};
    expectSameAsRealTflite(g, {inputBytes(lookups(5))});
}

// ---- HASHTABLE_LOOKUP: sorted keys; lookups over [-2, 12] hit some and miss others.
Spec keys() { return constantOf<int32_t>({5}, fb::TensorType_INT32, {0, 3, 4, 8, 11}); }
Spec hits(int32_t count) { return {{count}, fb::TensorType_UINT8}; }

REAL_TFLITE_TEST(HashtableLookupFloat) {
    REQUIRE();
    expectLookup(1, fb::BuiltinOperator_HASHTABLE_LOOKUP, {lookups(9, -2, 12), keys(), f32({5, 3})}, {f32({9, 3}), hits(9)});
}
REAL_TFLITE_TEST(HashtableLookupInt32) {
    REQUIRE();
    expectLookup(0, fb::BuiltinOperator_HASHTABLE_LOOKUP, {lookups(9, -2, 12), keys(), i32({5, 2})}, {i32({9, 2}), hits(9)});
}
REAL_TFLITE_TEST(HashtableLookupUint8) {
    REQUIRE();
    expectLookup(0, fb::BuiltinOperator_HASHTABLE_LOOKUP, {lookups(9, -2, 12), keys(), u8({5}, 0.5f, 7)},
             {u8({9}, 0.5f, 7), hits(9)});
}
REAL_TFLITE_TEST(HashtableLookupInt8) {
    REQUIRE();
    expectLookup(0, fb::BuiltinOperator_HASHTABLE_LOOKUP, {lookups(9, -2, 12), keys(), i8({5, 2}, 0.5f, -7)},
             {i8({9, 2}, 0.5f, -7), hits(9)});
}
// Unsorted keys: whatever the binary search finds, as in TFLite.
REAL_TFLITE_TEST(HashtableLookupUnsortedKeys) {
    REQUIRE();
    const Spec unsorted = constantOf<int32_t>({5}, fb::TensorType_INT32, {8, 0, 11, 3, 4});
    expectLookup(0, fb::BuiltinOperator_HASHTABLE_LOOKUP, {lookups(9, -2, 12), unsorted, i8({5, 2}, 0.5f, -7)},
             {i8({9, 2}, 0.5f, -7), hits(9)});
}

// ---- LSH_PROJECTION
GraphBuilder::Options lsh(fb::LSHProjectionType type) {
    return [type](auto& b) { return fb::CreateLSHProjectionOptions(b, type).Union(); };
}
Spec hashSeeds() { return constant(f32({4, 3}), rampBytes<float>(12, -2.5, 3.5)); }
Spec weights() { return constant(f32({5}), rampBytes<float>(5, -1, 2)); }

REAL_TFLITE_TEST(LshProjectionDenseFloat) {
    REQUIRE();
    expectLookup(1, fb::BuiltinOperator_LSH_PROJECTION, {hashSeeds(), f32({5, 2}), weights()}, {i32({12})},
             fb::BuiltinOptions_LSHProjectionOptions, lsh(fb::LSHProjectionType_DENSE));
}
REAL_TFLITE_TEST(LshProjectionDenseInt32NoWeights) {
    REQUIRE();
    // TFLite's delegate takes it but leaves the absent weights out, and NNAPI refuses the operation
    // (BAD_DATA with real TFLite on nnemu's library): nnemu runs it on nnapi-reference instead.
    expectLookup(0, fb::BuiltinOperator_LSH_PROJECTION, {hashSeeds(), i32({5, 3})}, {i32({12})},
             fb::BuiltinOptions_LSHProjectionOptions, lsh(fb::LSHProjectionType_DENSE));
}
REAL_TFLITE_TEST(LshProjectionSparseFloat) {
    REQUIRE();
    expectLookup(1, fb::BuiltinOperator_LSH_PROJECTION, {hashSeeds(), f32({5, 2})}, {i32({4})},
             fb::BuiltinOptions_LSHProjectionOptions, lsh(fb::LSHProjectionType_SPARSE));
}
REAL_TFLITE_TEST(LshProjectionSparseWeightedUint8) {
    REQUIRE();
    expectLookup(0, fb::BuiltinOperator_LSH_PROJECTION, {hashSeeds(), u8({5, 2}, 0.5f, 3), weights()}, {i32({4})},
             fb::BuiltinOptions_LSHProjectionOptions, lsh(fb::LSHProjectionType_SPARSE));
}

// ---- malformed nodes: refused cleanly when the model is prepared, in every mode.
TEST(LookupMalformed, EmbeddingTableOfOneDimension) {
    expectModelRefused(oneOp(fb::BuiltinOperator_EMBEDDING_LOOKUP, {lookups(2), f32({6})}, {f32({2})}),
                  "at least 2 dimensions");
}
TEST(LookupMalformed, EmbeddingInt32Table) {
    expectModelRefused(oneOp(fb::BuiltinOperator_EMBEDDING_LOOKUP, {lookups(2), i32({6, 2})}, {i32({2, 2})}), "value");
}
TEST(LookupMalformed, HashtableKeysAndValuesDisagree) {
    expectModelRefused(oneOp(fb::BuiltinOperator_HASHTABLE_LOOKUP, {lookups(2), keys(), i8({4, 2}, 0.5f, 0)},
                        {i8({2, 2}, 0.5f, 0), hits(2)}),
                  "differ in count");
}
TEST(LookupMalformed, LshProjectionUnknownType) {
    expectModelRefused(oneOp(fb::BuiltinOperator_LSH_PROJECTION, {hashSeeds(), f32({5, 2})}, {i32({4})},
                        fb::BuiltinOptions_LSHProjectionOptions, lsh(fb::LSHProjectionType_UNKNOWN)),
                  "SPARSE or DENSE");
}

}  // namespace
}  // namespace nnemu::tflite::test
