// The front end's second reader (nnemu/tflite/ContextReader.h): a TfLiteContext as a delegate's
// host shows it, read in place. The model's views must be the host's own memory (nothing is
// serialized and parsed again), nodes it cannot carry stay out, and the mapping lowers straight
// from the host's builtin_data.
#include <gtest/gtest.h>

#include <android/NeuralNetworks.h>

#include <cstring>

// Only the host part of the delegate tests' header is used here; its dlopen fixture is not.
#define VX_DELEGATE_PATH "libvx_delegate.so"
#include "VxTestHost.h"
#include "nnemu/tflite/ContextReader.h"
#include "nnemu/tflite/Lowering.h"
#include "ResultCheck.h"

namespace nnemu::tflite {
namespace {

using vxtest::Host;
using vxtest::NodeSpec;
using vxtest::TensorSpec;

std::vector<uint8_t> floatBytes(std::vector<float> values) {
    std::vector<uint8_t> out(values.size() * sizeof(float));
    std::memcpy(out.data(), values.data(), out.size());
    return out;
}

// t0 (input) + t1 (constant) -> t2 with ADD (RELU6); t2 -> t3 a custom operator; t4 (a string
// tensor) -> t5 with a builtin the view cannot carry.
struct ThreeNodeHost : Host {
    TfLiteAddParams add{kTfLiteActRelu6, false};
    ThreeNodeHost()
        : Host({TensorSpec{kTfLiteFloat32, {1, 4}, {}}, TensorSpec{kTfLiteFloat32, {1, 4}, floatBytes({1, 2, 3, 4})},
                TensorSpec{kTfLiteFloat32, {1, 4}, {}}, TensorSpec{kTfLiteFloat32, {1, 4}, {}},
                TensorSpec{kTfLiteString, {1}, {}}, TensorSpec{kTfLiteFloat32, {1}, {}}},
               {NodeSpec{0, &add, {0, 1}, {2}}, NodeSpec{32, nullptr, {2}, {3}, "MyCustomOp"},
                NodeSpec{14, nullptr, {4}, {5}}}) {}
};

TEST(ContextReader, ViewsAreTheHostsMemory) {
    ThreeNodeHost host;
    std::unique_ptr<ContextGraph> graph = tflite::test::expectValue(readContext(&host.context));
    ASSERT_NE(graph, nullptr);
    const Model& model = *graph->model;
    EXPECT_EQ(model.fileDescriptor(), -1);
    EXPECT_TRUE(model.bytes().empty());
    ASSERT_EQ(model.nodes().size(), 1u);
    const Node& add = model.nodes()[0];
    EXPECT_EQ(add.opName, "ADD");
    EXPECT_EQ(add.builtinData, &host.add);   // the host's struct itself, not a copy
    EXPECT_EQ(add.inputs, (std::vector<int32_t>{0, 1}));
    const Tensor& constant = model.tensors()[1];
    EXPECT_TRUE(constant.isConstant);
    EXPECT_EQ(constant.data, host.data[1].data());   // read where the host keeps it
    EXPECT_EQ(graph->planNodes, std::vector<int>{0});
    EXPECT_EQ(graph->modelNodeOfPlan, (std::vector<int>{0, -1, -1}));
    EXPECT_EQ(graph->builtinCodes, (std::vector<int32_t>{0, 32, 14}));
    // Graph inputs: the activations no readable node produces (not the string tensor).
    EXPECT_EQ(model.inputs(), (std::vector<int32_t>{0, 3, 5}));
}

TEST(ContextReader, LowersFromTheHostsBuiltinData) {
    ThreeNodeHost host;
    std::unique_ptr<ContextGraph> graph = tflite::test::expectValue(readContext(&host.context));
    ASSERT_NE(graph, nullptr);
    for (TfLiteFusedActivation activation : {kTfLiteActRelu6, kTfLiteActNone}) {
        host.add.activation = activation;   // read at lowering time, from the host's struct
        NnapiGraph lowered;
        const std::vector<bool> mapped = lowerMappableNodes(*graph->model, lowered, nullptr);
        ASSERT_EQ(mapped, std::vector<bool>{true});
        ASSERT_EQ(lowered.operations.size(), 1u);
        const NnOperation& op = lowered.operations[0];
        EXPECT_EQ(op.type, ANEURALNETWORKS_ADD);
        ASSERT_EQ(op.inputs.size(), 3u);
        const NnOperand& fuse = lowered.operands[op.inputs[2]];
        int32_t code = -1;
        ASSERT_EQ(fuse.valueLength(), sizeof(code));
        std::memcpy(&code, fuse.valueData(), sizeof(code));
        EXPECT_EQ(code, activation == kTfLiteActRelu6 ? ANEURALNETWORKS_FUSED_RELU6 : ANEURALNETWORKS_FUSED_NONE);
    }
    // An activation NNAPI cannot fuse leaves the node with the host, with the reason.
    host.add.activation = kTfLiteActSigmoid;
    NnapiGraph lowered;
    std::vector<std::string> reasons;
    EXPECT_EQ(lowerMappableNodes(*graph->model, lowered, &reasons), std::vector<bool>{false});
    ASSERT_EQ(reasons.size(), 1u);
    EXPECT_NE(reasons[0].find("fused activation SIGMOID is not supported by NNAPI"), std::string::npos) << reasons[0];
}

TEST(ContextReader, PerChannelQuantizationIsReadOrTheNodeStaysWithTheHost) {
    // A constant int8 filter [2, 1, 1, 1] with two scales on dimension 0.
    Host host({TensorSpec{kTfLiteInt8, {2, 1, 1, 1}, {1, 2}}, TensorSpec{kTfLiteInt8, {1}, {}}},
              {NodeSpec{22, nullptr, {0}, {1}}});   // RESHAPE: a node that reads the filter
    TfLiteFloatArray* scales = static_cast<TfLiteFloatArray*>(std::malloc(sizeof(TfLiteFloatArray) + 2 * sizeof(float)));
    scales->size = 2;
    scales->data[0] = 0.5f;
    scales->data[1] = 0.25f;
    TfLiteIntArray* zeroPoints = vxtest::intArray({3, -4});
    TfLiteAffineQuantization affine{scales, zeroPoints, 0};
    host.tensors[0].quantization = {kTfLiteAffineQuantization, &affine};
    std::unique_ptr<ContextGraph> graph = tflite::test::expectValue(readContext(&host.context));
    ASSERT_NE(graph, nullptr);
    const Tensor& filter = graph->model->tensors()[0];
    ASSERT_TRUE(filter.isPerChannel());
    EXPECT_EQ(filter.channelScales.data(), scales->data);
    EXPECT_EQ(filter.channelZeroPoint(0), 3);
    EXPECT_EQ(filter.channelZeroPoint(1), -4);
    EXPECT_EQ(graph->modelNodeOfPlan, std::vector<int>{0});
    // Scales that do not match the quantized dimension: the node is left out.
    affine.quantized_dimension = 1;
    graph = tflite::test::expectValue(readContext(&host.context));
    ASSERT_NE(graph, nullptr);
    EXPECT_EQ(graph->modelNodeOfPlan, std::vector<int>{-1});
    std::free(scales);
    std::free(zeroPoints);
}

}  // namespace
}  // namespace nnemu::tflite
