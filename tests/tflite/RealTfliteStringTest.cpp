// Differential tests against real TensorFlow Lite 2.21 (issue 24): STRING tensors, static
// hashtables (HASHTABLE, HASHTABLE_IMPORT, HASHTABLE_FIND, HASHTABLE_SIZE), int64 -> string and
// string -> int64, and SKIP_GRAM, on the tools' CPU kernels in every interpreter mode (RealTfliteOps.h), against
// `tflite_run --xnnpack=0`: string outputs compare as TFLite's packed buffers, byte for byte.
// Strings reach the models as constants (string model inputs are refused). Malformed string
// buffers and nodes are refused cleanly.
#include <string_view>

#include "StringTensor.h"
#include "RealTfliteOps.h"

namespace nnemu::tflite::test {
namespace {

#define REQUIRE() NNEMU_REQUIRE_REAL_TFLITE()

GraphBuilder::Options hashtable(int32_t id, fb::TensorType key, fb::TensorType value) {
    return [id, key, value](flatbuffers::FlatBufferBuilder& b) { return fb::CreateHashtableOptions(b, id, key, value).Union(); };
}

int32_t stringConstant(GraphBuilder& g, const std::vector<std::string_view>& strings, std::vector<int32_t> shape) {
    return g.tensor(std::move(shape), fb::TensorType_STRING, packStrings(strings));
}

// table = HASHTABLE(id); HASHTABLE_IMPORT(table, keys, values); found = HASHTABLE_FIND(table,
// lookups, fallback); size = HASHTABLE_SIZE(table); outputs found and size.
GraphBuilder tableModel(fb::TensorType key, fb::TensorType value, int32_t keys, int32_t values, int32_t lookups,
                        int32_t fallback, std::vector<int32_t> lookupShape, GraphBuilder g) {
    const int32_t table = g.tensor({1}, fb::TensorType_RESOURCE);
    const int32_t found = g.tensor(std::move(lookupShape), value);
    const int32_t size = g.tensor({1}, fb::TensorType_INT64);
    g.op(fb::BuiltinOperator_HASHTABLE, {}, {table}, fb::BuiltinOptions_HashtableOptions, hashtable(7, key, value));
    g.op(fb::BuiltinOperator_HASHTABLE_IMPORT, {table, keys, values}, {});
    g.op(fb::BuiltinOperator_HASHTABLE_FIND, {table, lookups, fallback}, {found});
    g.op(fb::BuiltinOperator_HASHTABLE_SIZE, {table}, {size});
    g.outputs = {found, size};
    return g;
}

// int64 -> string: keys looked up from a model input (with misses and a duplicate key imported).
GraphBuilder intToString(std::vector<int32_t> lookupShape) {
    GraphBuilder g;
    const int32_t keys = g.tensor({5}, fb::TensorType_INT64, GraphBuilder::bytes(std::vector<int64_t>{3, -1, 40, 3, 0}));
    const int32_t values = stringConstant(g, {"three", "minus one", "", "again", "zero \xe2\x82\xac"}, {5});
    const int32_t lookups = g.tensor(lookupShape, fb::TensorType_INT64);
    const int32_t fallback = stringConstant(g, {"<unk>", "ignored"}, {2});
    g.inputs = {lookups};
    return tableModel(fb::TensorType_INT64, fb::TensorType_STRING, keys, values, lookups, fallback, std::move(lookupShape),
                      std::move(g));
}

TEST(RealTfliteHashtable, Int64ToString) {
    REQUIRE();
    const GraphBuilder g = intToString({2, 4});
    EXPECT_EQ(delegatedNodes(g), 0u);
    expectSameAsRealTflite(g, {GraphBuilder::bytes(std::vector<int64_t>{3, 7, -1, 40, 0, 0, 5, -1})});
}

// Over three invokes: the later imports are ignored, the table keeps its entries.
TEST(RealTfliteHashtable, Int64ToStringInvokedAgain) {
    REQUIRE();
    expectSameAsRealTflite(intToString({3}), {GraphBuilder::bytes(std::vector<int64_t>{40, 41, 3})}, 4, 3);
}

// string -> int64: the keys constant, the default value a model input.
TEST(RealTfliteHashtable, StringToInt64) {
    REQUIRE();
    GraphBuilder g;
    const int32_t keys = stringConstant(g, {"cat", "dog", "", "cat", "bird"}, {5});
    const int32_t values = g.tensor({5}, fb::TensorType_INT64, GraphBuilder::bytes(std::vector<int64_t>{1, 2, 3, 4, 5}));
    const int32_t lookups = stringConstant(g, {"dog", "cow", "", "cat", "Cat", "bird"}, {3, 2});
    const int32_t fallback = g.tensor({1}, fb::TensorType_INT64);
    g.inputs = {fallback};
    g = tableModel(fb::TensorType_STRING, fb::TensorType_INT64, keys, values, lookups, fallback, {3, 2}, std::move(g));
    EXPECT_EQ(delegatedNodes(g), 0u);
    expectSameAsRealTflite(g, {GraphBuilder::bytes(std::vector<int64_t>{-99})});
}

// A constant string tensor as a model output: its buffer as it is.
TEST(RealTfliteHashtable, StringToStringThroughTwoTables) {
    REQUIRE();
    // ids -> words -> ids again.
    GraphBuilder g;
    const int32_t ids = g.tensor({4}, fb::TensorType_INT64);
    const int32_t words = g.tensor({4}, fb::TensorType_STRING);
    const int32_t back = g.tensor({4}, fb::TensorType_INT64);
    const int32_t forward = g.tensor({1}, fb::TensorType_RESOURCE), reverse = g.tensor({1}, fb::TensorType_RESOURCE);
    const int32_t keys = g.tensor({3}, fb::TensorType_INT64, GraphBuilder::bytes(std::vector<int64_t>{10, 20, 30}));
    const int32_t names = stringConstant(g, {"ten", "twenty", "thirty"}, {3});
    const int32_t values = g.tensor({3}, fb::TensorType_INT64, GraphBuilder::bytes(std::vector<int64_t>{1, 2, 3}));
    const int32_t unknownWord = stringConstant(g, {"none"}, {1});
    const int32_t unknownId = g.tensor({1}, fb::TensorType_INT64, GraphBuilder::bytes(std::vector<int64_t>{0}));
    g.op(fb::BuiltinOperator_HASHTABLE, {}, {forward}, fb::BuiltinOptions_HashtableOptions,
         hashtable(1, fb::TensorType_INT64, fb::TensorType_STRING));
    g.op(fb::BuiltinOperator_HASHTABLE, {}, {reverse}, fb::BuiltinOptions_HashtableOptions,
         hashtable(2, fb::TensorType_STRING, fb::TensorType_INT64));
    g.op(fb::BuiltinOperator_HASHTABLE_IMPORT, {forward, keys, names}, {});
    g.op(fb::BuiltinOperator_HASHTABLE_IMPORT, {reverse, names, values}, {});
    g.op(fb::BuiltinOperator_HASHTABLE_FIND, {forward, ids, unknownWord}, {words});
    g.op(fb::BuiltinOperator_HASHTABLE_FIND, {reverse, words, unknownId}, {back});
    g.inputs = {ids};
    g.outputs = {words, back};
    expectSameAsRealTflite(g, {GraphBuilder::bytes(std::vector<int64_t>{30, 11, 10, 20})});
}

// ---- SKIP_GRAM
GraphBuilder::Options skipGram(int32_t ngram, int32_t maxSkip, bool all) {
    return [=](flatbuffers::FlatBufferBuilder& b) { return fb::CreateSkipGramOptions(b, ngram, maxSkip, all).Union(); };
}

struct SkipGramCase {
    const char* name;
    const char* sentence;
    int32_t ngram, maxSkip;
    bool all;
};

class RealTfliteSkipGram : public testing::TestWithParam<SkipGramCase> {};

// The sentence a constant (a second string after it is ignored, as TFLite reads the first only).
TEST_P(RealTfliteSkipGram, SameAsRealTflite) {
    REQUIRE();
    const SkipGramCase& c = GetParam();
    GraphBuilder g;
    const int32_t in = stringConstant(g, {c.sentence, "not read"}, {2});
    const int32_t out = g.tensor({1}, fb::TensorType_STRING);
    g.op(fb::BuiltinOperator_SKIP_GRAM, {in}, {out}, fb::BuiltinOptions_SkipGramOptions, skipGram(c.ngram, c.maxSkip, c.all));
    g.outputs = {out};
    EXPECT_EQ(delegatedNodes(g), 0u);
    expectSameAsRealTflite(g, {});
}

INSTANTIATE_TEST_SUITE_P(
    Options, RealTfliteSkipGram,
    testing::Values(SkipGramCase{"Bigrams", "the quick brown fox jumps", 2, 0, false},
                    SkipGramCase{"TrigramsSkipOne", "the quick brown fox jumps over", 3, 1, false},
                    SkipGramCase{"AllUpToThreeSkipTwo", "a b c d e f", 3, 2, true},
                    SkipGramCase{"Unigrams", "one  two\tthree\n", 1, 0, false},
                    SkipGramCase{"LeadingAndTrailingSpaces", "  lead  mid trail  ", 2, 1, true},
                    SkipGramCase{"FewerWordsThanNgram", "only two", 3, 1, true},
                    SkipGramCase{"EmptySentence", "", 2, 0, false},
                    SkipGramCase{"NgramZero", "a b c", 0, 0, true},
                    SkipGramCase{"NegativeNgram", "a b c", -1, 0, true},
                    SkipGramCase{"LargeSkip", "w1 w2 w3 w4 w5 w6 w7 w8", 4, 10, true}),
    [](const testing::TestParamInfo<SkipGramCase>& info) { return std::string(info.param.name); });

// The sentences come from HASHTABLE_FIND on a model input: SKIP_GRAM on a string computed at invoke.
TEST(RealTfliteSkipGram, OnAStringComputedAtInvoke) {
    REQUIRE();
    GraphBuilder g;
    const int32_t ids = g.tensor({2}, fb::TensorType_INT64);
    const int32_t table = g.tensor({1}, fb::TensorType_RESOURCE);
    const int32_t keys = g.tensor({2}, fb::TensorType_INT64, GraphBuilder::bytes(std::vector<int64_t>{1, 2}));
    const int32_t sentences = stringConstant(g, {"red green blue", "north east south west"}, {2});
    const int32_t fallback = stringConstant(g, {"nothing here at all"}, {1});
    const int32_t found = g.tensor({2}, fb::TensorType_STRING);
    const int32_t grams = g.tensor({1}, fb::TensorType_STRING);
    g.op(fb::BuiltinOperator_HASHTABLE, {}, {table}, fb::BuiltinOptions_HashtableOptions,
         hashtable(5, fb::TensorType_INT64, fb::TensorType_STRING));
    g.op(fb::BuiltinOperator_HASHTABLE_IMPORT, {table, keys, sentences}, {});
    g.op(fb::BuiltinOperator_HASHTABLE_FIND, {table, ids, fallback}, {found});
    g.op(fb::BuiltinOperator_SKIP_GRAM, {found}, {grams}, fb::BuiltinOptions_SkipGramOptions, skipGram(2, 1, true));
    g.inputs = {ids};
    g.outputs = {grams, found};
    for (const std::vector<int64_t>& input : {std::vector<int64_t>{2, 1}, {1, 2}, {9, 2}}) {
        expectSameAsRealTflite(g, {GraphBuilder::bytes(input)});
    }
}

// ---- malformed
std::vector<uint8_t> words(std::vector<int32_t> header, std::string_view text) {
    std::vector<uint8_t> bytes = GraphBuilder::bytes(header);
    bytes.insert(bytes.end(), text.begin(), text.end());
    return bytes;
}

void expectLoadRefused(std::vector<uint8_t> buffer, int32_t count, const std::string& reason) {
    GraphBuilder g;
    const int32_t in = g.tensor({count}, fb::TensorType_STRING, std::move(buffer));
    const int32_t table = g.tensor({1}, fb::TensorType_RESOURCE);
    const int32_t values = g.tensor({count}, fb::TensorType_INT64, GraphBuilder::bytes(std::vector<int64_t>(count, 1)));
    g.op(fb::BuiltinOperator_HASHTABLE, {}, {table}, fb::BuiltinOptions_HashtableOptions,
         hashtable(1, fb::TensorType_STRING, fb::TensorType_INT64));
    g.op(fb::BuiltinOperator_HASHTABLE_IMPORT, {table, in, values}, {});
    const std::string error = failureOf(Model::fromBuffer(g.buildBytes()));
    EXPECT_NE(error.find(reason), std::string::npos) << error;
}

TEST(StringTensors, MalformedBuffersRefusedAtLoad) {
    expectLoadRefused(words({2, 16, 14, 17}, "abc"), 2, "out of range or decreasing");   // decreasing
    expectLoadRefused(words({2, 16, 18, 40}, "abc"), 2, "out of range or decreasing");   // past the end
    expectLoadRefused(words({2, 12, 14, 19}, "abc"), 2, "not the header's end");
    expectLoadRefused(words({9, 16, 17, 19}, "abc"), 2, "cannot hold");
    expectLoadRefused(words({3, 20, 21, 22, 23}, "abc"), 2, "holds 3 strings");
    expectLoadRefused(words({2, 16, 17, 18}, "abc"), 2, "ends its strings at 18");
    expectLoadRefused({1, 0}, 1, "has no count");
}

TEST(StringTensors, PackAndReadAgain) {
    const std::vector<std::string_view> strings = {"a", "", std::string_view("bc\0d", 4)};
    const std::vector<uint8_t> packed = packStrings(strings);
    EXPECT_EQ(packed.size(), 5 * 4 + 5u);
    const Result<std::vector<std::string_view>> read = readStrings(packed.data(), packed.size(), 3);
    ASSERT_TRUE(read.isOk());
    EXPECT_EQ(*read, strings);
}

TEST(RealTfliteHashtable, MalformedNodesRefused) {
    GraphBuilder wrongPair;
    const int32_t table = wrongPair.tensor({1}, fb::TensorType_RESOURCE);
    wrongPair.op(fb::BuiltinOperator_HASHTABLE, {}, {table}, fb::BuiltinOptions_HashtableOptions,
                 hashtable(1, fb::TensorType_INT64, fb::TensorType_INT64));
    wrongPair.outputs = {table};
    expectModelRefused(wrongPair, "are not supported (int64 -> string or string -> int64)");

    GraphBuilder noOptions;
    const int32_t handle = noOptions.tensor({1}, fb::TensorType_RESOURCE);
    noOptions.op(fb::BuiltinOperator_HASHTABLE, {}, {handle});
    noOptions.outputs = {handle};
    // Without options the types read as none, as in TFLite.
    expectModelRefused(noOptions, "keys of type OTHER and values of type OTHER are not supported");

    GraphBuilder stringInput;
    const int32_t in = stringInput.tensor({2}, fb::TensorType_STRING);
    const int32_t ids = stringInput.tensor({1}, fb::TensorType_RESOURCE);
    const int32_t out = stringInput.tensor({2}, fb::TensorType_INT64);
    const int32_t fallback = stringInput.tensor({1}, fb::TensorType_INT64, GraphBuilder::bytes(std::vector<int64_t>{0}));
    stringInput.op(fb::BuiltinOperator_HASHTABLE, {}, {ids}, fb::BuiltinOptions_HashtableOptions,
                   hashtable(1, fb::TensorType_STRING, fb::TensorType_INT64));
    stringInput.op(fb::BuiltinOperator_HASHTABLE_FIND, {ids, in, fallback}, {out});
    stringInput.inputs = {in};
    stringInput.outputs = {out};
    expectModelRefused(stringInput, "string inputs are not supported");

    GraphBuilder numbers;
    const int32_t x = numbers.tensor({2}, fb::TensorType_INT32, GraphBuilder::bytes(std::vector<int32_t>{1, 2}));
    const int32_t grams = numbers.tensor({1}, fb::TensorType_STRING);
    numbers.op(fb::BuiltinOperator_SKIP_GRAM, {x}, {grams}, fb::BuiltinOptions_SkipGramOptions, skipGram(2, 0, false));
    numbers.outputs = {grams};
    expectModelRefused(numbers, "input of type INT32 is not supported");

    // Other builtins on strings are refused cleanly (TFLite's GATHER takes them: not here yet).
    GraphBuilder gather;
    const int32_t params = stringConstant(gather, {"a", "b"}, {2});
    const int32_t indices = gather.tensor({1}, fb::TensorType_INT32);
    const int32_t picked = gather.tensor({1}, fb::TensorType_STRING);
    gather.op(fb::BuiltinOperator_GATHER, {params, indices}, {picked}, fb::BuiltinOptions_GatherOptions,
              [](flatbuffers::FlatBufferBuilder& b) { return fb::CreateGatherOptions(b, 0).Union(); });
    gather.inputs = {indices};
    gather.outputs = {picked};
    expectModelRefused(gather, "element type STRING is not supported");
}

// FIND before any IMPORT: TFLite's error, cleanly.
TEST(RealTfliteHashtable, FindBeforeImportFails) {
    GraphBuilder g;
    const int32_t table = g.tensor({1}, fb::TensorType_RESOURCE);
    const int32_t lookups = g.tensor({2}, fb::TensorType_INT64);
    const int32_t fallback = stringConstant(g, {"x"}, {1});
    const int32_t found = g.tensor({2}, fb::TensorType_STRING);
    g.op(fb::BuiltinOperator_HASHTABLE, {}, {table}, fb::BuiltinOptions_HashtableOptions,
         hashtable(3, fb::TensorType_INT64, fb::TensorType_STRING));
    g.op(fb::BuiltinOperator_HASHTABLE_FIND, {table, lookups, fallback}, {found});
    g.inputs = {lookups};
    g.outputs = {found};
    forEachKernelRunMode(g.buildBytes(), [](Interpreter& interpreter) {
        const Status ran = interpreter.invoke();
        EXPECT_NE(ran.message().find("must be initialized"), std::string::npos) << ran.message();
    });
}

}  // namespace
}  // namespace nnemu::tflite::test
