// Differential tests against real TensorFlow Lite 2.21: EMBEDDING_LOOKUP_SPARSE with each
// combiner (SUM, MEAN, SQRTN), 2- and 3-column indices, sorted and unsorted, params of rank 2 and
// 3, in every interpreter mode; out-of-range ids and indices give a clean error.
#include "RealTfliteOps.h"

namespace nnemu::tflite::test {
namespace {

#define REAL_TFLITE_TEST(name) TEST(RealTfliteLookupSparse, name)
#define REQUIRE() NNEMU_REQUIRE_REAL_TFLITE()

GraphBuilder::Options combiner(fb::CombinerType type) {
    return [=](auto& b) { return fb::CreateEmbeddingLookupSparseOptions(b, type).Union(); };
}

struct Lookup {
    std::vector<int32_t> ids;
    std::vector<int32_t> indices;   // ids.size() rows of denseShape.size() columns
    std::vector<int32_t> denseShape;
};

GraphBuilder lookupModel(const Lookup& l, std::vector<int32_t> paramsShape, std::vector<int32_t> outShape,
                         fb::CombinerType type) {
    const auto n = static_cast<int32_t>(l.ids.size()), rank = static_cast<int32_t>(l.denseShape.size());
    return oneOp(fb::BuiltinOperator_EMBEDDING_LOOKUP_SPARSE,
                 {constantOf<int32_t>({n}, fb::TensorType_INT32, l.ids),
                  constantOf<int32_t>({n, rank}, fb::TensorType_INT32, l.indices),
                  constantOf<int32_t>({rank}, fb::TensorType_INT32, l.denseShape), f32({n}, -2, 3),
                  f32(std::move(paramsShape))},
                 {f32(std::move(outShape))}, fb::BuiltinOptions_EmbeddingLookupSparseOptions, combiner(type));
}

void expectLookup(const Lookup& l, const std::vector<int32_t>& paramsShape, const std::vector<int32_t>& outShape) {
    const auto n = static_cast<int32_t>(l.ids.size());
    for (fb::CombinerType type : {fb::CombinerType_SUM, fb::CombinerType_MEAN, fb::CombinerType_SQRTN}) {
        SCOPED_TRACE(fb::EnumNameCombinerType(type));
        expectSameAsRealTflite(lookupModel(l, paramsShape, outShape, type),
                               {inputBytes(f32({n}, -2, 3)), inputBytes(f32(paramsShape))}, 0);
    }
}

const Lookup kSorted = {{1, 3, 0, 1, 5, 2}, {0, 0, 0, 1, 1, 0, 2, 3, 2, 5, 3, 1}, {4, 6}};

REAL_TFLITE_TEST(TwoColumns) {
    REQUIRE();
    expectLookup(kSorted, {7, 5}, {4, 5});
}
REAL_TFLITE_TEST(ParamsOfRankThree) {
    REQUIRE();
    expectLookup(kSorted, {6, 2, 3}, {4, 2, 3});
}
REAL_TFLITE_TEST(ThreeColumnsUnsorted) {
    REQUIRE();
    const Lookup unsorted = {{4, 0, 2, 2, 1}, {1, 2, 0, 0, 0, 1, 1, 2, 3, 0, 1, 0, 1, 0, 2}, {2, 3, 4}};
    expectLookup(unsorted, {5, 4}, {2, 3, 4});
}
REAL_TFLITE_TEST(OneColumn) {
    REQUIRE();
    expectLookup({{2, 0, 1}, {0, 3, 7}, {9}}, {3, 6}, {6});
}

// ---- malformed nodes: refused at prepare, or cleanly at invoke (ids are values)
void expectFails(const GraphBuilder& g, const std::string& reason) {
    std::unique_ptr<Model> model = g.build();
    ASSERT_NE(model, nullptr);
    Result<std::unique_ptr<Interpreter>> created = Interpreter::create(*model, {});
    std::string error = created ? "" : created.message();
    if (created) error = failureOf((*created)->invoke());
    EXPECT_NE(error.find(reason), std::string::npos) << error;
}
TEST(LookupSparseMalformed, IdOutOfRange) {
    expectFails(lookupModel({{1, 7}, {0, 0, 1, 0}, {2, 1}}, {7, 3}, {2, 3}, fb::CombinerType_SUM), "out of bounds");
}
TEST(LookupSparseMalformed, IndexOutsideDenseShape) {
    expectFails(lookupModel({{1, 2}, {0, 0, 2, 0}, {2, 1}}, {7, 3}, {2, 3}, fb::CombinerType_MEAN), "out of bounds");
}
TEST(LookupSparseMalformed, RowCountsDiffer) {
    GraphBuilder g = oneOp(fb::BuiltinOperator_EMBEDDING_LOOKUP_SPARSE,
                           {i32({3}), i32({2, 2}), constantOf<int32_t>({2}, fb::TensorType_INT32, {2, 2}), f32({3}),
                            f32({4, 2})},
                           {f32({2, 2})});
    expectFails(g, "as many rows");
}
TEST(LookupSparseMalformed, DenseShapeLengthDiffers) {
    GraphBuilder g = oneOp(fb::BuiltinOperator_EMBEDDING_LOOKUP_SPARSE,
                           {i32({1}), constantOf<int32_t>({1, 2}, fb::TensorType_INT32, {0, 0}),
                            constantOf<int32_t>({3}, fb::TensorType_INT32, {2, 1, 1}), f32({1}), f32({4, 2})},
                           {f32({2, 2})});
    expectFails(g, "one value per index column");
}

}  // namespace
}  // namespace nnemu::tflite::test
