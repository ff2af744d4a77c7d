// int8 tensors on a feature level 30+ runtime: TENSOR_QUANT8_ASYMM_SIGNED with the file's own
// values and zero points; per-channel filters and int32 biases as before. Below level 30 the
// same graphs shift to uint8 (+128).
#include <android/NeuralNetworks.h>

#include "LoweredGraph.h"
#include "RuntimeLevel.h"

namespace nnemu::tflite::test {
namespace {

// CONV_2D 1x1 of an int8 [1,2,2,2] input with a per-channel int8 filter and an int32 bias.
GraphBuilder int8Conv() {
    GraphBuilder g;
    const int32_t in = g.tensor({1, 2, 2, 2}, fb::TensorType_INT8, {}, {0.5f}, {-3});
    const int32_t filter = g.tensor({2, 1, 1, 2}, fb::TensorType_INT8, {1, 0xff, 2, 0xfe}, {0.25f, 0.125f}, {0, 0}, 0);
    const int32_t bias = g.tensor({2}, fb::TensorType_INT32, GraphBuilder::bytes(std::vector<int32_t>{4, -8}));
    const int32_t out = g.tensor({1, 2, 2, 2}, fb::TensorType_INT8, {}, {0.25f}, {5});
    g.op(fb::BuiltinOperator_CONV_2D, {in, filter, bias}, {out}, fb::BuiltinOptions_Conv2DOptions,
         [](flatbuffers::FlatBufferBuilder& b) {
             return fb::CreateConv2DOptions(b, fb::Padding_VALID, 1, 1, fb::ActivationFunctionType_RELU6).Union();
         });
    g.inputs = {in};
    g.outputs = {out};
    return g;
}

TEST(SignedInt8Lowering, ConvKeepsInt8Signed) {
    const LoweredGraph l = lowerGraph(int8Conv(), true);
    ASSERT_TRUE(l.ok) << l.error;
    ASSERT_EQ(l.operationTypes(), std::vector<int32_t>{ANEURALNETWORKS_CONV_2D});
    EXPECT_EQ(l.input(0, 0).type, ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED);
    EXPECT_EQ(l.input(0, 0).zeroPoint, -3);
    EXPECT_EQ(l.input(0, 1).type, ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL);
    const std::span<const float> scales = l.input(0, 1).channelScales;
    EXPECT_EQ(std::vector<float>(scales.begin(), scales.end()), (std::vector<float>{0.25f, 0.125f}));
    EXPECT_EQ(l.input(0, 2).type, ANEURALNETWORKS_TENSOR_INT32);
    EXPECT_EQ(l.output(0, 0).type, ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED);
    EXPECT_EQ(l.output(0, 0).zeroPoint, 5);
}

TEST(SignedInt8Lowering, BelowLevel30ShiftsToUint8) {
    const LoweredGraph l = lowerGraph(int8Conv(), false);
    ASSERT_TRUE(l.ok) << l.error;
    EXPECT_EQ(l.input(0, 0).type, ANEURALNETWORKS_TENSOR_QUANT8_ASYMM);
    EXPECT_EQ(l.input(0, 0).zeroPoint, 125);
    EXPECT_EQ(l.input(0, 1).type, ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL);
    EXPECT_EQ(l.output(0, 0).zeroPoint, 133);
}

TEST(SignedInt8Lowering, PerTensorConstantKeepsItsBytes) {
    GraphBuilder g;
    const int32_t a = g.tensor({1, 3}, fb::TensorType_INT8, {}, {0.5f}, {-1});
    const int32_t b = g.tensor({1, 3}, fb::TensorType_INT8, {0x80, 0x00, 0x7f}, {0.5f}, {-1});
    const int32_t out = g.tensor({1, 3}, fb::TensorType_INT8, {}, {1.0f}, {-128});
    g.op(fb::BuiltinOperator_ADD, {a, b}, {out}, fb::BuiltinOptions_AddOptions,
         [](flatbuffers::FlatBufferBuilder& fbb) { return fb::CreateAddOptions(fbb).Union(); });
    g.inputs = {a};
    g.outputs = {out};
    for (bool signedInt8 : {true, false}) {
        const LoweredGraph l = lowerGraph(g, signedInt8);
        ASSERT_TRUE(l.ok) << l.error;
        const NnOperand& constant = l.input(0, 1);
        ASSERT_EQ(constant.valueLength(), 3u);
        const uint8_t* bytes = constant.valueData();
        if (signedInt8) {
            EXPECT_EQ(constant.type, ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED);
            EXPECT_EQ(constant.zeroPoint, -1);
            EXPECT_EQ(std::vector<uint8_t>(bytes, bytes + 3), (std::vector<uint8_t>{0x80, 0x00, 0x7f}));
        } else {
            EXPECT_EQ(constant.type, ANEURALNETWORKS_TENSOR_QUANT8_ASYMM);
            EXPECT_EQ(constant.zeroPoint, 127);
            EXPECT_EQ(std::vector<uint8_t>(bytes, bytes + 3), (std::vector<uint8_t>{0x00, 0x80, 0xff}));
        }
    }
}

TEST(SignedInt8Lowering, PadValueAndRequantizingReluStaySigned) {
    GraphBuilder g;
    const int32_t in = g.tensor({1, 2}, fb::TensorType_INT8, {}, {0.5f}, {-10});
    const int32_t paddings = g.tensor({2, 2}, fb::TensorType_INT32, GraphBuilder::bytes(std::vector<int32_t>{0, 0, 1, 1}));
    const int32_t value = g.tensor({}, fb::TensorType_INT8, {0xfb}, {0.5f}, {-10});   // -5
    const int32_t padded = g.tensor({1, 4}, fb::TensorType_INT8, {}, {0.5f}, {-10});
    const int32_t out = g.tensor({1, 4}, fb::TensorType_INT8, {}, {0.25f}, {-128});
    g.op(fb::BuiltinOperator_PADV2, {in, paddings, value}, {padded});
    g.op(fb::BuiltinOperator_RELU, {padded}, {out});
    g.inputs = {in};
    g.outputs = {out};
    const LoweredGraph l = lowerGraph(g, true);
    ASSERT_TRUE(l.ok) << l.error;
    // A RELU that requantizes stays a RELU, as TFLite's delegate lowers it.
    ASSERT_EQ(l.operationTypes(), (std::vector<int32_t>{ANEURALNETWORKS_PAD_V2, ANEURALNETWORKS_RELU}));
    EXPECT_EQ(l.value<int32_t>(0, 2), -5);
    EXPECT_EQ(l.input(1, 0).type, ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED);
}

TEST(SignedInt8Lowering, LevelComesFromTheLinkedLibrary) {
    // This binary links libneuralnetworks.so, which exports ANeuralNetworks_getRuntimeFeatureLevel:
    // the level is what that function says.
    EXPECT_EQ(nnapiRuntimeFeatureLevel(), ANeuralNetworks_getRuntimeFeatureLevel());
    EXPECT_GE(nnapiRuntimeFeatureLevel(), 31);
    EXPECT_TRUE(nnapiHasSignedInt8());
}

}  // namespace
}  // namespace nnemu::tflite::test
