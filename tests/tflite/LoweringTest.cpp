// TFLite -> NNAPI mapping details, on models built by hand: the options and parameters NNAPI
// cannot take are refused by name and node, and the less direct mappings compute what TFLite does.
#include <cmath>
#include <cstring>
#include <functional>

#include "GraphBuilder.h"
#include "TestSupport.h"
#include "nnemu/modelgen/ModelCatalog.h"
#include "nnemu/tflite/tflite_generated.h"
#include "ResultCheck.h"

namespace nnemu::tflite::test {
namespace {

std::string createError(const Model& model) { return failureOf(Interpreter::create(model, DelegateOptions{})); }

GraphBuilder::Options addOptions(fb::ActivationFunctionType activation) {
    return [activation](flatbuffers::FlatBufferBuilder& b) { return fb::CreateAddOptions(b, activation).Union(); };
}

TEST(Lowering, RefusesFusedTanh) {
    GraphBuilder g;
    const int32_t a = g.tensor({1, 4}, fb::TensorType_FLOAT32);
    const int32_t out = g.tensor({1, 4}, fb::TensorType_FLOAT32);
    g.op(fb::BuiltinOperator_ADD, {a, a}, {out}, fb::BuiltinOptions_AddOptions, addOptions(fb::ActivationFunctionType_TANH));
    g.inputs = {a};
    g.outputs = {out};
    std::unique_ptr<Model> model = g.build();
    ASSERT_NE(model, nullptr);
    // The CPU kernel (frontends/tflite/src/cpu/Add.cpp) takes quantized ADDs only, so both refuse.
    EXPECT_EQ(createError(*model), "operator ADD at node 0: fused activation TANH is not supported by NNAPI "
                                   "(CPU kernel: input of type FLOAT32 is not supported)");
}

// NNAPI's fixed point cannot take these scales; TFLite can: the node runs on the tools' CPU kernel.
TEST(Lowering, ScalesTooFarApartRunOnTheCpuKernel) {
    GraphBuilder g;
    const int32_t a = g.tensor({1, 4}, fb::TensorType_UINT8, {}, {1e-11f}, {0});
    const int32_t out = g.tensor({1, 4}, fb::TensorType_UINT8, {}, {10.0f}, {0});
    g.op(fb::BuiltinOperator_ADD, {a, a}, {out}, fb::BuiltinOptions_AddOptions, addOptions(fb::ActivationFunctionType_NONE));
    g.inputs = {a};
    g.outputs = {out};
    std::unique_ptr<Model> model = g.build();
    ASSERT_NE(model, nullptr);
    std::unique_ptr<Interpreter> interpreter = expectValue(Interpreter::create(*model, nnapiReferenceOptions()));
    ASSERT_NE(interpreter, nullptr);
    EXPECT_EQ(interpreter->delegatedNodeCount(), 0u);
    for (size_t i = 0; i < 4; ++i) interpreter->inputData(0)[i] = static_cast<uint8_t>(50 * i);
    ASSERT_TRUE(isOk(interpreter->invoke()));
    for (size_t i = 0; i < 4; ++i) EXPECT_EQ(interpreter->outputData(0)[i], 0) << i;   // 1e-9 at scale 10
}

// FULLY_CONNECTED [1,4] x [2,4] with uint8 scales in 0.5, weights 0.25 and the given output scale.
std::unique_ptr<Model> fullyConnectedWithOutputScale(float outputScale) {
    GraphBuilder g;
    const int32_t in = g.tensor({1, 4}, fb::TensorType_UINT8, {}, {0.5f}, {128});
    const int32_t weights = g.tensor({2, 4}, fb::TensorType_UINT8, {129, 130, 127, 128, 126, 128, 128, 131}, {0.25f}, {128});
    const int32_t out = g.tensor({1, 2}, fb::TensorType_UINT8, {}, {outputScale}, {100});
    g.op(fb::BuiltinOperator_FULLY_CONNECTED, {in, weights, -1}, {out}, fb::BuiltinOptions_FullyConnectedOptions,
         [](flatbuffers::FlatBufferBuilder& b) { return fb::CreateFullyConnectedOptions(b).Union(); });
    g.inputs = {in};
    g.outputs = {out};
    return g.build();
}

TEST(Lowering, TakesOutputScaleBelowInputTimesFilter) {
    // 0.5 x 0.25 / 0.01 = 12.5: a multiplier above 1, allowed since NNAPI feature level 29.
    std::unique_ptr<Model> model = fullyConnectedWithOutputScale(0.01f);
    ASSERT_NE(model, nullptr);
    for (const RunMode& mode : runModes()) {
        std::unique_ptr<Interpreter> interpreter = makeInterpreter(*model, mode.options);
        ASSERT_NE(interpreter, nullptr) << mode.name;
        const uint8_t input[4] = {130, 126, 129, 128};   // real 1, -1, 0.5, 0
        std::memcpy(interpreter->inputData(0), input, 4);
        ASSERT_TRUE(isOk(interpreter->invoke()));
        // Unit 0: 1 x 0.25 + -1 x 0.5 + 0.5 x -0.25 = -0.375 -> 100 - 37.5 -> 62 (half away from 0).
        // Unit 1: 1 x -0.5 = -0.5 -> 50.
        EXPECT_EQ(interpreter->outputData(0)[0], 62) << mode.name;
        EXPECT_EQ(interpreter->outputData(0)[1], 50) << mode.name;
    }
}

TEST(Lowering, RefusesMultiplierBeyondFixedPoint) {
    std::unique_ptr<Model> model = fullyConnectedWithOutputScale(1e-10f);   // 1.25e9 >= 2^30
    ASSERT_NE(model, nullptr);
    EXPECT_NE(createError(*model).find("operator FULLY_CONNECTED at node 0: requantization multiplier input x filter / "
                                       "output = 1.25e+09 is outside 32-bit fixed point [2^-31, 2^30)"),
              std::string::npos)
            << createError(*model);
}

TEST(Lowering, RefusesBiasNearTheInt32Limits) {
    GraphBuilder g;
    const int32_t in = g.tensor({1, 4}, fb::TensorType_UINT8, {}, {0.5f}, {128});
    const int32_t weights = g.tensor({2, 4}, fb::TensorType_UINT8, std::vector<uint8_t>(8, 130), {0.25f}, {128});
    const int32_t bias = g.tensor({2}, fb::TensorType_INT32, GraphBuilder::bytes(std::vector<int32_t>{5, 2147483000}),
                                  {0.125f});
    const int32_t out = g.tensor({1, 2}, fb::TensorType_UINT8, {}, {1.0f}, {128});
    g.op(fb::BuiltinOperator_FULLY_CONNECTED, {in, weights, bias}, {out}, fb::BuiltinOptions_FullyConnectedOptions,
         [](flatbuffers::FlatBufferBuilder& b) { return fb::CreateFullyConnectedOptions(b).Union(); });
    g.inputs = {in};
    g.outputs = {out};
    std::unique_ptr<Model> model = g.build();
    ASSERT_NE(model, nullptr);
    EXPECT_NE(createError(*model).find("bias value 2147483000 out of range"), std::string::npos);
}

// A per-channel int8 FULLY_CONNECTED has no NNAPI form: it runs on the tools' int8 kernel
// (HybridFullyConnected.cpp), never delegated. The hybrid one (float input, int8 weights) runs
// there off the delegate and is delegated as TFLite's delegate lowers it
// (RealTfliteHybridTest.cpp, RealTfliteDiffRoundingTest.cpp).
TEST(Lowering, PerChannelAndHybridFullyConnectedRunOnTheCpuKernel) {
    for (bool perChannel : {false, true}) {
        GraphBuilder g;
        const int32_t in = g.tensor({1, 4}, perChannel ? fb::TensorType_INT8 : fb::TensorType_FLOAT32, {},
                                    perChannel ? std::vector<float>{0.5f} : std::vector<float>{});
        const int32_t weights = g.tensor({2, 4}, fb::TensorType_INT8, std::vector<uint8_t>(8, 3),
                                         perChannel ? std::vector<float>{0.25f, 0.5f} : std::vector<float>{0.25f});
        const int32_t out = g.tensor({1, 2}, perChannel ? fb::TensorType_INT8 : fb::TensorType_FLOAT32, {},
                                     perChannel ? std::vector<float>{1.0f} : std::vector<float>{});
        g.op(fb::BuiltinOperator_FULLY_CONNECTED, {in, weights, -1}, {out}, fb::BuiltinOptions_FullyConnectedOptions,
             [](flatbuffers::FlatBufferBuilder& b) { return fb::CreateFullyConnectedOptions(b).Union(); });
        g.inputs = {in};
        g.outputs = {out};
        std::unique_ptr<Model> model = g.build();
        ASSERT_NE(model, nullptr);
        for (const RunMode& mode : runModes()) {
            Result<std::unique_ptr<Interpreter>> interpreter = Interpreter::create(*model, mode.options);
            ASSERT_TRUE(interpreter.isOk()) << mode.name << ": " << interpreter.message();
            // The hybrid form is lowered as TFLite's delegate lowers it (DEQUANTIZE of the
            // weights, then the float FULLY_CONNECTED): a delegate takes it.
            const size_t delegated = !perChannel && mode.options.useNnapi ? 1 : 0;
            EXPECT_EQ((*interpreter)->delegatedNodeCount(), delegated) << mode.name;
        }
    }
}

// A node both the lowering and the tools' CPU kernel refuse (here a size input that is not the
// output's shape) gets both reasons.
TEST(Lowering, GivesBothReasonsWhenTheCpuKernelRefusesToo) {
    GraphBuilder g;
    const int32_t in = g.tensor({1, 2, 2, 1}, fb::TensorType_FLOAT32);
    const int32_t size = g.tensor({2}, fb::TensorType_INT32, GraphBuilder::bytes(std::vector<int32_t>{4, 5}));
    const int32_t out = g.tensor({1, 4, 4, 1}, fb::TensorType_FLOAT32);
    g.op(fb::BuiltinOperator_RESIZE_BILINEAR, {in, size}, {out}, fb::BuiltinOptions_ResizeBilinearOptions,
         [](flatbuffers::FlatBufferBuilder& b) { return fb::CreateResizeBilinearOptions(b, true).Union(); });
    g.inputs = {in};
    g.outputs = {out};
    std::unique_ptr<Model> model = g.build();
    ASSERT_NE(model, nullptr);
    EXPECT_EQ(createError(*model),
              "operator RESIZE_BILINEAR at node 0: the size input does not match the output shape "
              "(CPU kernel: the size input does not match the output shape)");
}

// FULLY_CONNECTED with keep_num_dims: NNAPI's [batch, units] output reshaped to TFLite's.
TEST(Lowering, FullyConnectedKeepsDimensions) {
    GraphBuilder g;
    const int32_t in = g.tensor({2, 3, 2}, fb::TensorType_FLOAT32);
    const int32_t weights = g.tensor({1, 2}, fb::TensorType_FLOAT32, GraphBuilder::bytes(std::vector<float>{2.0f, -1.0f}));
    const int32_t bias = g.tensor({1}, fb::TensorType_FLOAT32, GraphBuilder::bytes(std::vector<float>{0.5f}));
    const int32_t out = g.tensor({2, 3, 1}, fb::TensorType_FLOAT32);
    g.op(fb::BuiltinOperator_FULLY_CONNECTED, {in, weights, bias}, {out}, fb::BuiltinOptions_FullyConnectedOptions,
         [](flatbuffers::FlatBufferBuilder& b) {
             return fb::CreateFullyConnectedOptions(b, fb::ActivationFunctionType_NONE,
                                                    fb::FullyConnectedOptionsWeightsFormat_DEFAULT, true)
                     .Union();
         });
    g.inputs = {in};
    g.outputs = {out};
    std::unique_ptr<Model> model = g.build();
    ASSERT_NE(model, nullptr);
    std::unique_ptr<Interpreter> interpreter = makeInterpreter(*model, DelegateOptions{});
    ASSERT_NE(interpreter, nullptr);
    const float input[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    std::memcpy(interpreter->inputData(0), input, sizeof input);
    ASSERT_TRUE(isOk(interpreter->invoke()));
    float output[6];
    std::memcpy(output, interpreter->outputData(0), sizeof output);
    for (int i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(output[i], 2 * input[2 * i] - input[2 * i + 1] + 0.5f) << i;
}

// Quantized RELU6 whose output scale differs from its input's: lowered to RELU6 as TFLite's
// delegate lowers it. Off the delegate it runs on the tools' kernel with TFLite's
// requantization; delegated to nnapi-reference, whose RELU6 gives the input's quantization, the
// model output declared otherwise fails the execution, as on Android.
TEST(Lowering, QuantizedRelu6Requantizes) {
    GraphBuilder g;
    const int32_t in = g.tensor({1, 8}, fb::TensorType_INT8, {}, {0.1f}, {-10});
    const int32_t out = g.tensor({1, 8}, fb::TensorType_INT8, {}, {6.0f / 255}, {-128});
    g.op(fb::BuiltinOperator_RELU6, {in}, {out});
    g.inputs = {in};
    g.outputs = {out};
    std::unique_ptr<Model> model = g.build();
    ASSERT_NE(model, nullptr);
    for (const RunMode& mode : runModes()) {
        std::unique_ptr<Interpreter> interpreter = makeInterpreter(*model, mode.options);
        ASSERT_NE(interpreter, nullptr);
        const int8_t input[8] = {-128, -20, -10, 0, 20, 50, 70, 127};
        std::memcpy(interpreter->inputData(0), input, sizeof input);
        const Status status = interpreter->invoke();
        if (mode.options.useNnapi) {
            EXPECT_FALSE(status.isOk()) << mode.name;
            continue;
        }
        ASSERT_TRUE(status.isOk()) << status.message();
        for (int i = 0; i < 8; ++i) {
            const float real = std::clamp(0.1f * static_cast<float>(input[i] + 10), 0.0f, 6.0f);
            const float expected = std::round(real / (6.0f / 255)) - 128;
            EXPECT_NEAR(static_cast<int8_t>(interpreter->outputData(0)[i]), expected, 1) << mode.name << " " << i;
        }
    }
}

// PADV2 on int8: the pad value travels shifted like the tensor.
TEST(Lowering, PadV2Int8PadsWithTheGivenValue) {
    GraphBuilder g;
    const int32_t in = g.tensor({1, 2}, fb::TensorType_INT8, {}, {0.5f}, {3});
    const int32_t paddings = g.tensor({2, 2}, fb::TensorType_INT32, GraphBuilder::bytes(std::vector<int32_t>{0, 0, 1, 2}));
    const int32_t value = g.tensor({}, fb::TensorType_INT8, {static_cast<uint8_t>(-7)}, {0.5f}, {3});
    const int32_t out = g.tensor({1, 5}, fb::TensorType_INT8, {}, {0.5f}, {3});
    g.op(fb::BuiltinOperator_PADV2, {in, paddings, value}, {out});
    g.inputs = {in};
    g.outputs = {out};
    std::unique_ptr<Model> model = g.build();
    ASSERT_NE(model, nullptr);
    std::unique_ptr<Interpreter> interpreter = makeInterpreter(*model, DelegateOptions{});
    ASSERT_NE(interpreter, nullptr);
    const int8_t input[2] = {-100, 100};
    std::memcpy(interpreter->inputData(0), input, 2);
    ASSERT_TRUE(isOk(interpreter->invoke()));
    const int8_t expected[5] = {-7, -100, 100, -7, -7};
    for (int i = 0; i < 5; ++i) EXPECT_EQ(static_cast<int8_t>(interpreter->outputData(0)[i]), expected[i]) << i;
}

// QUANTIZE uint8 -> int8 with equal scales (TF2's input edge) is exact: q - 128.
TEST(Lowering, RequantizeUint8ToInt8IsExact) {
    std::vector<uint8_t> bytes;
    ASSERT_EQ(modelgen::generateModel("requantize_int8", &bytes), nnemu::StatusCode::OK);
    std::unique_ptr<Model> model = expectValue(Model::fromBuffer(bytes));
    ASSERT_NE(model, nullptr);
    std::unique_ptr<Interpreter> interpreter = makeInterpreter(*model, DelegateOptions{});
    ASSERT_NE(interpreter, nullptr);
    ASSERT_EQ(interpreter->inputTensor(0).type, ElementType::UINT8);
    ASSERT_EQ(interpreter->outputTensor(0).type, ElementType::INT8);
    ASSERT_EQ(interpreter->inputTensor(0).zeroPoint - 128, interpreter->outputTensor(0).zeroPoint);
    for (size_t k = 0; k < interpreter->inputTensor(0).byteSize(); ++k) interpreter->inputData(0)[k] = static_cast<uint8_t>(k);
    ASSERT_TRUE(isOk(interpreter->invoke()));
    for (size_t k = 0; k < interpreter->outputTensor(0).byteSize(); ++k) {
        ASSERT_EQ(static_cast<int8_t>(interpreter->outputData(0)[k]), static_cast<int>(k) - 128) << k;
    }
}

}  // namespace
}  // namespace nnemu::tflite::test
