// The CPU-kernel unit on interpreter buffers: below feature level 30 int8 buffers hold
// value + 128 (NNAPI's uint8 form); the kernel must still see, and write, TFLite's int8 values.
#include "CpuKernelHarness.h"
#include "cpu/CpuKernelUnit.h"
#include "ResultCheck.h"

namespace nnemu::tflite::test {
namespace {

using GB = GraphBuilder;

std::unique_ptr<Model> castModel(fb::TensorType from, fb::TensorType to) {
    GB g;
    const int32_t in = g.tensor({4}, from, {}, from == fb::TensorType_INT8 ? std::vector<float>{0.5f} : std::vector<float>{});
    const int32_t out = g.tensor({4}, to, {}, to == fb::TensorType_INT8 ? std::vector<float>{0.5f} : std::vector<float>{});
    g.op(fb::BuiltinOperator_CAST, {in}, {out});
    g.inputs = {in};
    g.outputs = {out};
    return g.build();
}

std::vector<TensorBuffer> buffersFor(const Model& model) {
    std::vector<TensorBuffer> buffers;
    for (const Tensor& tensor : model.tensors()) buffers.emplace_back(tensor.byteSize());
    return buffers;
}

TEST(CpuKernelUnit, ShiftedInt8InputsAndOutputs) {
    const std::vector<int8_t> values = {-128, -1, 0, 127};
    for (bool shifted : {false, true}) {
        SCOPED_TRACE(shifted);
        std::unique_ptr<Model> toInt = castModel(fb::TensorType_INT8, fb::TensorType_INT32);
        ASSERT_NE(toInt, nullptr);
        std::unique_ptr<CpuKernelUnit> unit =
                expectValue(CpuKernelUnit::create(toInt->subgraphs()[0], toInt->nodes()[0], shifted));
        ASSERT_NE(unit, nullptr);
        std::vector<TensorBuffer> buffers = buffersFor(*toInt);
        for (size_t i = 0; i < values.size(); ++i) {
            buffers[0].data()[i] = static_cast<uint8_t>(values[i]) ^ (shifted ? 0x80u : 0u);
        }
        ASSERT_TRUE(isOk(unit->run(buffers)));
        EXPECT_EQ(valuesOf<int32_t>(buffers[1].data(), 4), (std::vector<int32_t>{-128, -1, 0, 127}));
        EXPECT_EQ(buffers[0].data()[0], shifted ? 0x00u : 0x80u);   // the input buffer is left as it was

        std::unique_ptr<Model> toInt8 = castModel(fb::TensorType_INT32, fb::TensorType_INT8);
        ASSERT_NE(toInt8, nullptr);
        unit = expectValue(CpuKernelUnit::create(toInt8->subgraphs()[0], toInt8->nodes()[0], shifted));
        ASSERT_NE(unit, nullptr);
        buffers = buffersFor(*toInt8);
        const std::vector<int32_t> ints = {-128, -1, 0, 127};
        std::memcpy(buffers[0].data(), ints.data(), 16);
        ASSERT_TRUE(isOk(unit->run(buffers)));
        for (size_t i = 0; i < values.size(); ++i) {
            EXPECT_EQ(buffers[1].data()[i], static_cast<uint8_t>(values[i]) ^ (shifted ? 0x80u : 0u)) << i;
        }
    }
}

}  // namespace
}  // namespace nnemu::tflite::test
