// The front end's second reader (nnemu/tflite/ContextReader.h): a TfLiteContext as a delegate's
// host shows it, read in place. The model's views must be the host's own memory (nothing is
// serialized and parsed again), nodes it cannot carry stay out, and the mapping lowers straight
// from the host's builtin_data.
#include <gtest/gtest.h>

#include <android/NeuralNetworks.h>

#include <cstring>
#include <limits>

// Only the host part of the delegate tests' header is used here; its dlopen fixture is not.
#define VX_DELEGATE_PATH "libvx_delegate.so"
#include "VxTestHost.h"
#include "nnemu/tflite/ContextReader.h"
#include "nnemu/tflite/Lowering.h"
#include "RandomSparseAbi.h"
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

// t0 (input) + t1 (constant) -> t2 with ADD (RELU6); t2 -> t3 a custom operator; t4 (a float16
// tensor) -> t5 with a builtin the view cannot carry.
struct ThreeNodeHost : Host {
    TfLiteAddParams add{kTfLiteActRelu6, false};
    ThreeNodeHost()
        : Host({TensorSpec{kTfLiteFloat32, {1, 4}, {}}, TensorSpec{kTfLiteFloat32, {1, 4}, floatBytes({1, 2, 3, 4})},
                TensorSpec{kTfLiteFloat32, {1, 4}, {}}, TensorSpec{kTfLiteFloat32, {1, 4}, {}},
                TensorSpec{kTfLiteFloat16, {1}, {}}, TensorSpec{kTfLiteFloat32, {1}, {}}},
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
    // Graph inputs: the activations no readable node produces (not the float16 tensor).
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

// A sparse constant (t0, [2, 3] CSR, 3 values): DENSIFY reads it into t1; ADD reading it as
// it is stays with the host. Malformed metadata leaves DENSIFY with the host too.
TEST(ContextReader, SparseConstantsAreReadForDensifyOnly) {
    TfLiteAddParams add{kTfLiteActNone, false};
    Host host({TensorSpec{kTfLiteFloat32, {2, 3}, floatBytes({1, 2, 3})}, TensorSpec{kTfLiteFloat32, {2, 3}, {}},
               TensorSpec{kTfLiteFloat32, {2, 3}, {}}, TensorSpec{kTfLiteFloat32, {2, 3}, {}}},
              {NodeSpec{124, nullptr, {0}, {1}}, NodeSpec{0, &add, {2, 0}, {3}}});
    TfLiteIntArray* order = vxtest::intArray({0, 1});
    TfLiteIntArray* segments = vxtest::intArray({0, 2, 3});
    TfLiteIntArray* indices = vxtest::intArray({0, 2, 1});
    TfLiteDimensionMetadata dims[2] = {{kTfLiteDimDense, 2, nullptr, nullptr},
                                       {kTfLiteDimSparseCSR, 0, segments, indices}};
    TfLiteSparsity sparsity{order, nullptr, dims, 2};
    host.tensors[0].sparsity = &sparsity;
    std::unique_ptr<ContextGraph> graph = tflite::test::expectValue(readContext(&host.context));
    ASSERT_NE(graph, nullptr);
    const Tensor& sparse = graph->model->tensors()[0];
    ASSERT_NE(sparse.sparsity, nullptr);
    EXPECT_EQ(sparse.sparsity->traversalOrder, (std::vector<int32_t>{0, 1}));
    ASSERT_EQ(sparse.sparsity->dimensions.size(), 2u);
    EXPECT_EQ(sparse.sparsity->dimensions[1].indices, (std::vector<int32_t>{0, 2, 1}));
    EXPECT_EQ(sparse.dataSize, 12u);   // the stored values, not the dense size
    EXPECT_EQ(graph->modelNodeOfPlan, (std::vector<int>{0, -1}));
    sparsity.dim_metadata_size = -1;
    graph = tflite::test::expectValue(readContext(&host.context));
    ASSERT_NE(graph, nullptr);
    EXPECT_EQ(graph->modelNodeOfPlan, (std::vector<int>{-1, -1}));
    for (TfLiteIntArray* array : {order, segments, indices}) std::free(array);
}

// A RESHAPE host node reading tensor 0 (of `type`, scale `scale`) into tensor 1: what the reader
// makes of tensor 0's quantization.
struct ScaleCase {
    TfLiteType type;
    float scale;
    bool readable;
};

TEST(ContextReader, QuantizationScalesMustBeFiniteAndPositiveWhereNnapiNeedsThem) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    const ScaleCase cases[] = {
            {kTfLiteInt8, 0.5f, true},   {kTfLiteUInt8, 0.0f, true},    // 0: no quantization, the lowering decides
            {kTfLiteInt8, nan, false},   {kTfLiteUInt8, inf, false},    {kTfLiteInt8, -0.5f, false},
            {kTfLiteInt16, -inf, false}, {kTfLiteFloat32, -1.0f, false}, {kTfLiteInt32, nan, false},
    };
    for (const ScaleCase& c : cases) {
        SCOPED_TRACE(testing::Message() << "type " << c.type << ", scale " << c.scale);
        Host host({TensorSpec{c.type, {1, 4}, {}, c.scale, 0}, TensorSpec{c.type, {4}, {}, c.scale, 0}},
                  {NodeSpec{22, nullptr, {0}, {1}}});
        std::unique_ptr<ContextGraph> graph = tflite::test::expectValue(readContext(&host.context));
        ASSERT_NE(graph, nullptr);
        EXPECT_EQ(graph->modelNodeOfPlan, std::vector<int>{c.readable ? 0 : -1});   // else the host keeps it
        ASSERT_EQ(graph->tensorProblems.size(), 2u);
        if (c.readable) {
            EXPECT_EQ(graph->tensorProblems[0], "");
        } else {
            EXPECT_NE(graph->tensorProblems[0].find("tensor 0 (t0): invalid quantization scale"), std::string::npos)
                    << graph->tensorProblems[0];
        }
    }
}

TEST(ContextReader, PerChannelScalesMustBePositive) {
    Host host({TensorSpec{kTfLiteInt8, {2, 1, 1, 1}, {1, 2}}, TensorSpec{kTfLiteInt8, {2}, {}}},
              {NodeSpec{22, nullptr, {0}, {1}}});
    TfLiteFloatArray* scales = static_cast<TfLiteFloatArray*>(std::malloc(sizeof(TfLiteFloatArray) + 2 * sizeof(float)));
    scales->size = 2;
    scales->data[0] = 0.5f;
    TfLiteAffineQuantization affine{scales, nullptr, 0};
    host.tensors[0].quantization = {kTfLiteAffineQuantization, &affine};
    for (float second : {0.0f, -0.25f, std::numeric_limits<float>::quiet_NaN(), 0.25f}) {
        SCOPED_TRACE(second);
        scales->data[1] = second;
        std::unique_ptr<ContextGraph> graph = tflite::test::expectValue(readContext(&host.context));
        ASSERT_NE(graph, nullptr);
        const bool readable = second > 0;
        EXPECT_EQ(graph->modelNodeOfPlan, std::vector<int>{readable ? 0 : -1});
        EXPECT_EQ(graph->tensorProblems[0].empty(), readable) << graph->tensorProblems[0];
    }
    std::free(scales);
}

// Shapes whose element count or byte size overflows (or passes the 2 GB the file reader allows)
// leave their nodes with the host, with a reason; nothing multiplies them unchecked.
TEST(ContextReader, OverflowingShapesAreRefused) {
    const std::vector<std::vector<int>> shapes = {
            {65536, 65536, 65536},                     // 2^48 elements
            {1 << 30, 4},                              // 2^32 elements
            {1 << 29, 2},                              // 2^30 floats: 4 GB
            {2147483647, 2147483647, 2147483647, 2147483647, 2147483647, 2147483647, 2147483647, 2147483647},
    };
    for (const std::vector<int>& shape : shapes) {
        Host host({TensorSpec{kTfLiteFloat32, {1}, {}}, TensorSpec{kTfLiteFloat32, {1}, {}}},
                  {NodeSpec{22, nullptr, {0}, {1}}});
        host.tensors[0].dims = host.keep(vxtest::intArray(shape));   // declared only: the host allocated nothing
        std::unique_ptr<ContextGraph> graph = tflite::test::expectValue(readContext(&host.context));
        ASSERT_NE(graph, nullptr);
        EXPECT_EQ(graph->modelNodeOfPlan, std::vector<int>{-1});
        EXPECT_EQ(graph->tensorProblems[0], "tensor 0 (t0): shape too large");
        EXPECT_EQ(graph->tensorProblems[1], "");
    }
    // A negative dimension and a rank above 8 too.
    Host host({TensorSpec{kTfLiteFloat32, {1}, {}}, TensorSpec{kTfLiteFloat32, {1}, {}}}, {NodeSpec{22, nullptr, {0}, {1}}});
    host.tensors[0].dims = host.keep(vxtest::intArray({2, -3}));
    std::unique_ptr<ContextGraph> graph = tflite::test::expectValue(readContext(&host.context));
    ASSERT_NE(graph, nullptr);
    EXPECT_EQ(graph->tensorProblems[0], "tensor 0 (t0): negative dimension -3");
    host.tensors[0].dims = host.keep(vxtest::intArray(std::vector<int>(9, 1)));
    graph = tflite::test::expectValue(readContext(&host.context));
    ASSERT_NE(graph, nullptr);
    EXPECT_EQ(graph->tensorProblems[0], "tensor 0 (t0): rank 9 is outside [0, 8]");
}

TEST(ContextReader, AHostWithoutAPlanIsAnError) {
    ThreeNodeHost host;
    host.context.GetExecutionPlan = nullptr;
    EXPECT_EQ(tflite::test::failureOf(readContext(&host.context)), "the host gave no execution plan");
}

}  // namespace
}  // namespace nnemu::tflite
