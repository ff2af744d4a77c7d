// STRIDED_SLICE forms NNAPI's mapping refuses (ellipsis, new axis, offset) on the tools' CPU
// kernel, and negative strides, each against index lists written out by hand.
#include "CpuKernelHarness.h"

namespace nnemu::tflite::test {
namespace {

using GB = GraphBuilder;

struct Spec {
    std::vector<int32_t> begin, end, strides;
    int32_t beginMask = 0, endMask = 0, ellipsisMask = 0, newAxisMask = 0, shrinkMask = 0;
    bool offset = false;
};

// x is [2,3,4]; the expected output lists x[i][j][k] for the given index ranges, in order.
void checkSlice(const Spec& s, std::vector<int32_t> outShape, const std::vector<int>& is, const std::vector<int>& js,
                const std::vector<int>& ks, bool cpuKernel) {
    const std::vector<float> x = randomValues<float>(24, -1, 1, 51);
    GB g;
    const int32_t in = g.tensor({2, 3, 4}, fb::TensorType_FLOAT32);
    const auto n = static_cast<int32_t>(s.begin.size());
    const int32_t b = g.tensor({n}, fb::TensorType_INT32, GB::bytes(s.begin));
    const int32_t e = g.tensor({n}, fb::TensorType_INT32, GB::bytes(s.end));
    const int32_t st = g.tensor({n}, fb::TensorType_INT32, GB::bytes(s.strides));
    const int32_t out = g.tensor(outShape, fb::TensorType_FLOAT32);
    g.op(fb::BuiltinOperator_STRIDED_SLICE, {in, b, e, st}, {out}, fb::BuiltinOptions_StridedSliceOptions,
         [s](flatbuffers::FlatBufferBuilder& fbb) {
             return fb::CreateStridedSliceOptions(fbb, s.beginMask, s.endMask, s.ellipsisMask, s.newAxisMask,
                                                  s.shrinkMask, s.offset)
                     .Union();
         });
    g.inputs = {in};
    g.outputs = {out};
    std::unique_ptr<Model> model = g.build();
    ASSERT_NE(model, nullptr);
    std::vector<float> want;
    for (int i : is) {
        for (int j : js) {
            for (int k : ks) want.push_back(x[(i * 3 + j) * 4 + k]);
        }
    }
    expectOutputs(*model, {GB::bytes(x)}, {GB::bytes(want)}, cpuKernel);
}

TEST(StridedSliceKernel, Ellipsis) {
    Spec s{{0, 1}, {0, 3}, {1, 1}};
    s.ellipsisMask = 1;   // [..., 1:3]
    checkSlice(s, {2, 3, 2}, {0, 1}, {0, 1, 2}, {1, 2}, true);
}

TEST(StridedSliceKernel, NewAxisAndShrink) {
    Spec s{{0, 1, 0}, {0, 2, 0}, {1, 1, 1}};
    s.newAxisMask = 1;    // [newaxis, 1, :, (:)]
    s.shrinkMask = 2;
    s.endMask = 4;
    checkSlice(s, {1, 3, 4}, {1}, {0, 1, 2}, {0, 1, 2, 3}, true);
}

TEST(StridedSliceKernel, NegativeStrides) {
    // [-1:-3:-1, 0:3:2, 3:0:-2]
    checkSlice(Spec{{-1, 0, 3}, {-3, 3, 0}, {-1, 2, -2}}, {2, 2, 2}, {1, 0}, {0, 2}, {3, 1}, false);
    // [::-1] on the first dimension through masks, the rest implicit
    Spec s{{0}, {0}, {-1}};
    s.beginMask = 1;
    s.endMask = 1;
    checkSlice(s, {2, 3, 4}, {1, 0}, {0, 1, 2}, {0, 1, 2, 3}, false);
}

TEST(StridedSliceKernel, OffsetCountsEndFromBegin) {
    Spec s{{0, 1, 1}, {2, 2, 2}, {1, 1, 1}};
    s.offset = true;
    checkSlice(s, {2, 2, 2}, {0, 1}, {1, 2}, {1, 2}, true);
}

TEST(StridedSliceKernel, ShrinkOutOfRangeIsRefused) {
    GB g;
    const int32_t in = g.tensor({2, 3}, fb::TensorType_FLOAT32);
    const int32_t v = g.tensor({1}, fb::TensorType_INT32, GB::bytes(std::vector<int32_t>{5}));
    const int32_t one = g.tensor({1}, fb::TensorType_INT32, GB::bytes(std::vector<int32_t>{1}));
    const int32_t out = g.tensor({3, 1}, fb::TensorType_FLOAT32);
    g.op(fb::BuiltinOperator_STRIDED_SLICE, {in, v, v, one}, {out}, fb::BuiltinOptions_StridedSliceOptions,
         [](flatbuffers::FlatBufferBuilder& fbb) { return fb::CreateStridedSliceOptions(fbb, 0, 0, 0, 2, 1).Union(); });
    g.inputs = {in};
    g.outputs = {out};
    std::unique_ptr<Model> model = g.build();
    ASSERT_NE(model, nullptr);
    const std::string error = createError(*model);
    EXPECT_NE(error.find("operator STRIDED_SLICE at node 0: "), std::string::npos) << error;
    EXPECT_NE(error.find("CPU kernel: shrunk index 5 out of range"), std::string::npos) << error;
}

}  // namespace
}  // namespace nnemu::tflite::test
