// TFLite_Detection_PostProcess outputs without a shape in the file: sized at load as TFLite's
// kernel sizes them at prepare (N = max_detections * max_classes_per_detection: boxes [1, N, 4],
// classes [1, N], scores [1, N], count [1]), then run and compared with real TFLite 2.21.
#include <cstring>

#include "RealTflite.h"
#include "UnsizedDetection.h"
#include "ResultCheck.h"

namespace nnemu::tflite::test {
namespace {

std::vector<std::vector<int32_t>> outputShapes(const Model& model) {
    std::vector<std::vector<int32_t>> shapes;
    for (int32_t t : model.outputs()) shapes.push_back(model.tensors()[t].shape);
    return shapes;
}

TEST(DetectionShapes, EmptyOutputShapesAreSizedFromTheOptions) {
    for (const auto& [detections, classes] : std::vector<std::pair<int, int>>{{5, 1}, {10, 1}, {4, 3}}) {
        UnsizedDetectionParams p;
        p.maxDetections = detections;
        p.maxClassesPerDetection = classes;
        const std::unique_ptr<Model> model = unsizedDetectionGraph(p).build();
        ASSERT_NE(model, nullptr);
        const int32_t n = detections * classes;
        EXPECT_EQ(outputShapes(*model), (std::vector<std::vector<int32_t>>{{1, n, 4}, {1, n}, {1, n}, {1}}))
                << detections << " x " << classes;
    }
}

// Shapes the file does give are kept (and checked by the lowering as before).
TEST(DetectionShapes, GivenShapesAreKept) {
    UnsizedDetectionParams p;
    p.emptyShapes = false;
    const std::unique_ptr<Model> model = unsizedDetectionGraph(p).build();
    ASSERT_NE(model, nullptr);
    EXPECT_EQ(outputShapes(*model), (std::vector<std::vector<int32_t>>{{1, 5, 4}, {1, 5}, {1, 5}, {1}}));
}

// Options that cannot be read leave the outputs unsized; the lowering says why, nothing crashes.
TEST(DetectionShapes, UnreadableOptionsAreRefusedByTheLowering) {
    GraphBuilder broken;
    const int32_t boxes = broken.tensor({1, kUnsizedAnchors, 4}, fb::TensorType_FLOAT32);
    const int32_t scores = broken.tensor({1, kUnsizedAnchors, kUnsizedClasses + 1}, fb::TensorType_FLOAT32);
    const int32_t anchors = broken.tensor({kUnsizedAnchors, 4}, fb::TensorType_FLOAT32,
                                          GraphBuilder::bytes(std::vector<float>(kUnsizedAnchors * 4, 0.5f)));
    std::vector<int32_t> outs;
    for (int i = 0; i < 4; ++i) outs.push_back(broken.tensor({}, fb::TensorType_FLOAT32));
    broken.customOp("TFLite_Detection_PostProcess", {boxes, scores, anchors}, outs, {1, 2, 3, 4, 5, 6, 7});
    broken.inputs = {boxes, scores};
    broken.outputs = outs;
    const std::unique_ptr<Model> model = broken.build();
    ASSERT_NE(model, nullptr);
    EXPECT_TRUE(model->tensors()[outs[0]].shape.empty());
    const std::string error = failureOf(Interpreter::create(*model, DelegateOptions{}));
    EXPECT_NE(error.find("malformed custom options"), std::string::npos) << error;
}

// Every output row is written (count = max_detections), so the comparison covers all bytes.
void expectAllRowsFilled(const UnsizedDetectionParams& p) {
    const std::unique_ptr<Model> model = unsizedDetectionGraph(p).build();
    ASSERT_NE(model, nullptr);
    std::unique_ptr<Interpreter> interpreter = expectValue(Interpreter::create(*model, DelegateOptions{}));
    ASSERT_NE(interpreter, nullptr);
    const std::vector<std::vector<uint8_t>> inputs = unsizedDetectionInputs(p.quantized);
    for (size_t i = 0; i < inputs.size(); ++i) std::memcpy(interpreter->inputData(i), inputs[i].data(), inputs[i].size());
    ASSERT_TRUE(isOk(interpreter->invoke()));
    float count = 0;
    std::memcpy(&count, interpreter->outputData(3), sizeof count);
    EXPECT_EQ(count, static_cast<float>(p.maxDetections));
}

TEST(DetectionShapes, FastNmsFloatAsRealTflite) {
    NNEMU_REQUIRE_REAL_TFLITE();
    const UnsizedDetectionParams p;
    expectAllRowsFilled(p);
    expectSameAsRealTflite(unsizedDetectionGraph(p), unsizedDetectionInputs(false));
}

TEST(DetectionShapes, RegularNmsFloatAsRealTflite) {
    NNEMU_REQUIRE_REAL_TFLITE();
    UnsizedDetectionParams p;
    p.useRegularNms = true;
    p.maxDetections = 6;
    expectAllRowsFilled(p);
    expectSameAsRealTflite(unsizedDetectionGraph(p), unsizedDetectionInputs(false));
}

TEST(DetectionShapes, FastNmsUint8AsRealTflite) {
    NNEMU_REQUIRE_REAL_TFLITE();
    UnsizedDetectionParams p;
    p.quantized = true;
    expectAllRowsFilled(p);
    expectSameAsRealTflite(unsizedDetectionGraph(p), unsizedDetectionInputs(true));
}

}  // namespace
}  // namespace nnemu::tflite::test
