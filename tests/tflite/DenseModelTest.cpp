// The catalog's detector and segmenter on the library path (TFLite's CPU path, the delegate on
// nnapi-reference, the delegate on synap-npu when listed): each device's post-processed
// detections and labels equal an independent computation from that device's outputs of the
// variant without the last operation, and the devices agree with each other.
#include <cmath>
#include <cstring>

#include "DenseReference.h"
#include "GeneratedModels.h"
#include "TestSupport.h"
#include "nnemu/modelgen/ModelCatalog.h"
#include "ResultCheck.h"

namespace nnemu::tflite::test {
namespace {

struct RunResult {
    std::vector<std::vector<float>> outputs;   // real values
    std::vector<Partition> partitions;
};

// expectRefused: the execution must fail, as Android's fails it (nothing else is checked).
RunResult run(const Model& model, const DelegateOptions& options, bool expectRefused = false) {
    RunResult result;
    std::unique_ptr<Interpreter> interpreter = makeInterpreter(model, options);
    if (interpreter == nullptr) return result;
    const std::vector<uint8_t> input = picture(interpreter->inputTensor(0));
    EXPECT_EQ(input.size(), interpreter->inputTensor(0).byteSize());
    std::memcpy(interpreter->inputData(0), input.data(), std::min(input.size(), interpreter->inputTensor(0).byteSize()));
    const bool ok = isOk(interpreter->invoke());
    EXPECT_EQ(ok, !expectRefused);
    if (!ok) return result;
    for (size_t o = 0; o < interpreter->outputCount(); ++o) {
        result.outputs.push_back(realValues(interpreter->outputTensor(o), interpreter->outputData(o)));
    }
    result.partitions = interpreter->partitions();
    return result;
}

class DenseModel : public testing::TestWithParam<std::string> {};   // the flavor: quant or float

TEST_P(DenseModel, DetectorMatchesIndependentPostProcessing) {
    std::unique_ptr<Model> full = generatedModel("ssd_detector_" + GetParam());
    std::unique_ptr<Model> raw = generatedModel("ssd_detector_raw_" + GetParam());
    ASSERT_TRUE(full != nullptr && raw != nullptr);
    const std::vector<float> anchors = constantValues(*full, "anchors");
    ASSERT_EQ(anchors.size(), 240u * 4);
    const bool quantized = GetParam() == "quant";
    const float boxStep = quantized ? raw->tensors()[raw->outputs()[0]].scale : 0.0f;
    const float scoreStep = quantized ? raw->tensors()[raw->outputs()[1]].scale : 0.0f;
    std::vector<std::vector<float>> cpuRaw;
    std::vector<Detection> cpuDetections;
    for (const RunMode& mode : runModesWithNpu(*full)) {
        const RunResult before = run(*raw, mode.options);
        const RunResult after = run(*full, mode.options);
        ASSERT_EQ(before.outputs.size(), 2u) << mode.name;
        ASSERT_EQ(after.outputs.size(), 4u) << mode.name;
        // This device's post-processing equals the independent one on this device's raw outputs.
        const std::vector<Detection> expected = referencePostProcess(before.outputs[0], before.outputs[1], anchors, SsdOptions{});
        ASSERT_GE(expected.size(), 3u) << mode.name << ": too few detections to compare";
        const std::vector<Detection> got = detectionsOf(after.outputs[0], after.outputs[1], after.outputs[2], after.outputs[3][0]);
        expectSameDetections(got, expected, mode.name);
        // The custom operator runs on the CPU, after everything the delegate took.
        ASSERT_FALSE(after.partitions.empty());
        EXPECT_FALSE(after.partitions.back().delegated) << mode.name;
        if (mode.options.useNnapi) {
            EXPECT_EQ(after.partitions.back().nodes, std::vector<uint32_t>{static_cast<uint32_t>(full->nodes().size() - 1)});
        }
        // And the devices agree with the CPU path.
        if (cpuRaw.empty()) {
            cpuRaw = before.outputs;
            cpuDetections = got;
            continue;
        }
        expectClose(before.outputs[0], cpuRaw[0], boxStep, std::string(mode.name) + " box encodings");
        expectClose(before.outputs[1], cpuRaw[1], scoreStep, std::string(mode.name) + " class scores");
        if (quantized) {
            expectAgreeingDetections(got, cpuDetections, 8 * scoreStep, mode.name);
        } else {
            expectSameDetections(got, cpuDetections, mode.name);
        }
    }
}

TEST_P(DenseModel, SegmenterMatchesIndependentArgMax) {
    std::unique_ptr<Model> full = generatedModel("segmenter_" + GetParam());
    std::unique_ptr<Model> logitsModel = generatedModel("segmenter_logits_" + GetParam());
    ASSERT_TRUE(full != nullptr && logitsModel != nullptr);
    const float step = GetParam() == "quant" ? logitsModel->tensors()[logitsModel->outputs()[0]].scale : 0.0f;
    std::vector<float> cpuLabels, cpuLogits;
    for (const RunMode& mode : runModesWithNpu(*full)) {
        // The quantized segmenter's RELU rescales: delegated to nnapi-reference its temporary
        // output keeps the input's quantization (Android's executor) and the TRANSPOSE_CONV after
        // it fails its bias-scale check, as with real TFLite's delegate (RealTfliteModelsByPath).
        if (GetParam() == "quant" && mode.options.useNnapi && mode.options.acceleratorName == "nnapi-reference") {
            run(*logitsModel, mode.options, true);
            run(*full, mode.options, true);
            continue;
        }
        const RunResult logits = run(*logitsModel, mode.options);
        const RunResult labels = run(*full, mode.options);
        ASSERT_EQ(logits.outputs.size(), 1u) << mode.name;
        ASSERT_EQ(labels.outputs.size(), 1u) << mode.name;
        // This device's ARG_MAX equals the argmax of this device's logits.
        const std::vector<int32_t> expected = referenceArgMax(logits.outputs[0], 5);
        ASSERT_EQ(labels.outputs[0].size(), 64u * 64) << mode.name;
        ASSERT_EQ(expected.size(), labels.outputs[0].size()) << mode.name;
        std::vector<size_t> histogram(5, 0);
        for (size_t p = 0; p < expected.size(); ++p) {
            ASSERT_EQ(labels.outputs[0][p], static_cast<float>(expected[p])) << mode.name << " pixel " << p;
            ++histogram[static_cast<size_t>(expected[p])];
        }
        // Generated weights segment nothing in particular, but more than one class shows up.
        EXPECT_LT(*std::max_element(histogram.begin(), histogram.end()), expected.size()) << mode.name;
        if (cpuLabels.empty()) {
            cpuLabels = labels.outputs[0];
            cpuLogits = logits.outputs[0];
            continue;
        }
        // The devices agree: logits close, labels equal but for near ties.
        expectClose(logits.outputs[0], cpuLogits, step, std::string(mode.name) + " logits");
        expectLabelsAgree(labels.outputs[0], cpuLabels, cpuLogits, 5, step > 0 ? 3 * step : 1e-4f, mode.name);
    }
}

INSTANTIATE_TEST_SUITE_P(Flavors, DenseModel, testing::Values("quant", "float"));

}  // namespace
}  // namespace nnemu::tflite::test
