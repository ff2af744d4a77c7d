// The CPU kernels added for forms NNAPI refuses (SELECT_V2 broadcasting, integer TRANSPOSE,
// quantized LOG_SOFTMAX, integer POW, ...) refuse malformed nodes cleanly, in every interpreter
// mode, with a reason in the message. No real TFLite needed.
#include "RealTfliteOps.h"
#include "cpu/CpuKernel.h"

namespace nnemu::tflite::test {
namespace {

TEST(TfliteFormsRefusal, SelectV2ShapesThatDoNotBroadcast) {
    expectModelRefused(oneOp(fb::BuiltinOperator_SELECT_V2, {boolean({2, 3}), i32({2, 3}), i32({4})}, {i32({2, 3})}),
                       "do not broadcast");
}

TEST(TfliteFormsRefusal, TransposeWithARepeatedDimension) {
    expectModelRefused(oneOp(fb::BuiltinOperator_TRANSPOSE,
                             {i32({2, 3, 4}), constantOf<int32_t>({3}, fb::TensorType_INT32, {0, 0, 1})}, {i32({2, 2, 3})}),
                       "operator TRANSPOSE at node 0");   // NNAPI's refusal; the kernel refuses it too
}

TEST(TfliteFormsRefusal, QuantizedLogSoftmaxWithAnotherOutputScale) {
    expectModelRefused(oneOp(fb::BuiltinOperator_LOG_SOFTMAX, {u8({3, 10}, 0.1f, 128)}, {u8({3, 10}, 0.1f, 255)}),
                       "output must have scale 16/256");
}

// An integer POW with a negative exponent fails the invoke (TFLite refuses it too), cleanly.
TEST(TfliteFormsRefusal, IntegerPowWithANegativeExponentFailsTheInvoke) {
    const GraphBuilder g = oneOp(fb::BuiltinOperator_POW, {i32({4}), i32({4})}, {i32({4})});
    std::unique_ptr<Model> model = expectValue(Model::fromBuffer(g.buildBytes()));
    ASSERT_NE(model, nullptr);
    std::unique_ptr<Interpreter> interpreter = expectValue(Interpreter::create(*model, DelegateOptions{}));
    ASSERT_NE(interpreter, nullptr);
    const std::vector<int32_t> base = {1, 2, 3, 4}, exponent = {1, -1, 2, 0};
    std::memcpy(interpreter->inputData(0), base.data(), 16);
    std::memcpy(interpreter->inputData(1), exponent.data(), 16);
    const Status status = interpreter->invoke();
    EXPECT_FALSE(status.isOk());
    EXPECT_NE(status.message().find("negative exponent"), std::string::npos) << status.message();
}

// An int8 DEPTHWISE_CONV_2D over an input without channels (its depth multiplier would divide by
// zero in the tools' kernel): the kernel refuses it, and every mode refuses it or runs it cleanly.
TEST(TfliteFormsRefusal, Int8DepthwiseWithoutInputChannels) {
    const GraphBuilder g = oneOp(fb::BuiltinOperator_DEPTHWISE_CONV_2D,
                                 {i8({1, 4, 4, 0}, 0.05f, 0), constant(i8({1, 3, 3, 0}, 0.01f, 0), {}),
                                  constant(i32({0}), {})},
                                 {i8({1, 4, 4, 0}, 0.05f, 0)}, fb::BuiltinOptions_DepthwiseConv2DOptions,
                                 [](flatbuffers::FlatBufferBuilder& b) {
                                     return fb::CreateDepthwiseConv2DOptions(b, fb::Padding_SAME, 1, 1, 1).Union();
                                 });
    std::unique_ptr<Model> model = expectValue(Model::fromBuffer(g.buildBytes()));
    ASSERT_NE(model, nullptr);
    const std::string refused = failureOf(prepareCpuKernel(model->subgraphs()[0], model->nodes()[0]));
    EXPECT_NE(refused.find("no channels"), std::string::npos) << refused;
    for (const RunMode& mode : kernelRunModes()) {
        SCOPED_TRACE(mode.name);
        Result<std::unique_ptr<Interpreter>> interpreter = Interpreter::create(*model, mode.options);
        if (!interpreter.isOk()) {
            EXPECT_FALSE(interpreter.status().message().empty());
            continue;
        }
        const Status status = interpreter.value()->invoke();
        EXPECT_TRUE(status.isOk() || !status.message().empty());
    }
}

}  // namespace
}  // namespace nnemu::tflite::test
