// The catalog's detector and segmenter on the library path (TFLite's CPU path, the delegate on
// nnapi-reference, the delegate on synap-npu when listed): each device's post-processed
// detections and labels equal an independent computation from that device's outputs of the
// variant without the last operation, and the devices agree with each other.
#include <cmath>
#include <cstring>

#include "DenseReference.h"
#include "TestSupport.h"
#include "nnemu/modelgen/ModelCatalog.h"

namespace nnemu::tflite::test {
namespace {

std::unique_ptr<Model> generated(const std::string& name) {
    std::vector<uint8_t> bytes;
    std::string error;
    EXPECT_TRUE(modelgen::generateModel(name, &bytes, &error)) << error;
    std::unique_ptr<Model> model = Model::fromBuffer(std::move(bytes), &error);
    EXPECT_NE(model, nullptr) << error;
    return model;
}

// The run modes, plus the delegate on synap-npu when the runtime lists it.
std::vector<RunMode> devicesUnderTest(const Model& model) {
    std::vector<RunMode> modes = runModes();
    std::unique_ptr<Interpreter> probe = makeInterpreter(model, DelegateOptions{});
    const std::vector<std::string> devices = probe != nullptr ? probe->deviceNames() : std::vector<std::string>{};
    if (std::find(devices.begin(), devices.end(), "synap-npu") != devices.end()) {
        DelegateOptions npu;
        npu.useNnapi = true;
        npu.acceleratorName = "synap-npu";
        modes.push_back({"synap_npu", npu});
    }
    return modes;
}

// A 64x64 picture with smooth gradients and a few bright and dark rectangles, as uint8 pixels
// read with scale 1/128 and zero point 128 (the input range [-1, 1) of the generated models).
std::vector<uint8_t> picture(const Tensor& input) {
    const int32_t h = input.shape[1], w = input.shape[2], c = input.shape[3];
    std::vector<uint8_t> pixels(static_cast<size_t>(h * w * c));
    for (int32_t y = 0; y < h; ++y) {
        for (int32_t x = 0; x < w; ++x) {
            for (int32_t k = 0; k < c; ++k) {
                int value = 40 + (3 * x + 2 * y + 50 * k) % 120;
                if (x >= 8 && x < 28 && y >= 10 && y < 40) value = 230 - 20 * k;
                if (x >= 36 && x < 60 && y >= 30 && y < 44) value = 10 + 30 * k;
                pixels[static_cast<size_t>((y * w + x) * c + k)] = static_cast<uint8_t>(value);
            }
        }
    }
    if (input.type == ElementType::UINT8) return pixels;
    std::vector<uint8_t> bytes(pixels.size() * 4);
    for (size_t i = 0; i < pixels.size(); ++i) {
        const float real = (static_cast<float>(pixels[i]) - 128.0f) / 128.0f;
        std::memcpy(bytes.data() + 4 * i, &real, 4);
    }
    return bytes;
}

struct RunResult {
    std::vector<std::vector<float>> outputs;   // real values
    std::vector<Partition> partitions;
};

RunResult run(const Model& model, const DelegateOptions& options) {
    RunResult result;
    std::unique_ptr<Interpreter> interpreter = makeInterpreter(model, options);
    if (interpreter == nullptr) return result;
    const std::vector<uint8_t> input = picture(interpreter->inputTensor(0));
    EXPECT_EQ(input.size(), interpreter->inputTensor(0).byteSize());
    std::memcpy(interpreter->inputData(0), input.data(), std::min(input.size(), interpreter->inputTensor(0).byteSize()));
    std::string error;
    EXPECT_TRUE(interpreter->invoke(&error)) << error;
    for (size_t o = 0; o < interpreter->outputCount(); ++o) {
        result.outputs.push_back(realValues(interpreter->outputTensor(o), interpreter->outputData(o)));
    }
    result.partitions = interpreter->partitions();
    return result;
}

// Same detections up to the order of equal scores: labels and scores exact, boxes to 1e-4.
void expectSameDetections(std::vector<Detection> got, std::vector<Detection> expected, const std::string& where) {
    const auto order = [](const Detection& a, const Detection& b) {
        if (a.score != b.score) return a.score > b.score;
        if (a.label != b.label) return a.label < b.label;
        return std::lexicographical_compare(a.box, a.box + 4, b.box, b.box + 4);
    };
    std::sort(got.begin(), got.end(), order);
    std::sort(expected.begin(), expected.end(), order);
    ASSERT_EQ(got.size(), expected.size()) << where;
    for (size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(got[i].label, expected[i].label) << where << " detection " << i;
        EXPECT_NEAR(got[i].score, expected[i].score, 1e-6) << where << " detection " << i;
        for (int k = 0; k < 4; ++k) EXPECT_NEAR(got[i].box[k], expected[i].box[k], 1e-4) << where << " detection " << i;
    }
}

class DenseModel : public testing::TestWithParam<std::string> {};   // the flavor: quant or float

TEST_P(DenseModel, DetectorMatchesIndependentPostProcessing) {
    std::unique_ptr<Model> full = generated("ssd_detector_" + GetParam());
    std::unique_ptr<Model> raw = generated("ssd_detector_raw_" + GetParam());
    ASSERT_TRUE(full != nullptr && raw != nullptr);
    const std::vector<float> anchors = constantValues(*full, "anchors");
    ASSERT_EQ(anchors.size(), 240u * 4);
    std::vector<std::vector<Detection>> perDevice;
    std::vector<float> cpuScores;
    for (const RunMode& mode : devicesUnderTest(*full)) {
        const RunResult before = run(*raw, mode.options);
        const RunResult after = run(*full, mode.options);
        ASSERT_EQ(before.outputs.size(), 2u) << mode.name;
        ASSERT_EQ(after.outputs.size(), 4u) << mode.name;
        const std::vector<Detection> expected = referencePostProcess(before.outputs[0], before.outputs[1], anchors, SsdOptions{});
        ASSERT_GE(expected.size(), 3u) << mode.name << ": too few detections to compare";
        const std::vector<Detection> got = detectionsOf(after.outputs[0], after.outputs[1], after.outputs[2], after.outputs[3][0]);
        expectSameDetections(got, expected, mode.name);
        // The custom operator always runs on the CPU, after everything the delegate took.
        ASSERT_FALSE(after.partitions.empty());
        EXPECT_FALSE(after.partitions.back().delegated) << mode.name;
        EXPECT_EQ(after.partitions.back().nodes, std::vector<uint32_t>{static_cast<uint32_t>(full->nodes().size() - 1)});
        if (cpuScores.empty()) cpuScores = before.outputs[1];
        // Class scores on every device within one quantization step (or float rounding) of the CPU's.
        for (size_t i = 0; i < cpuScores.size(); ++i) {
            ASSERT_NEAR(before.outputs[1][i], cpuScores[i], GetParam() == "quant" ? 1.0f / 256 + 1e-6f : 1e-4f)
                    << mode.name << " score " << i;
        }
        perDevice.push_back(got);
    }
    for (size_t d = 1; d < perDevice.size(); ++d) expectSameDetections(perDevice[d], perDevice[0], "device " + std::to_string(d));
}

TEST_P(DenseModel, SegmenterMatchesIndependentArgMax) {
    std::unique_ptr<Model> full = generated("segmenter_" + GetParam());
    std::unique_ptr<Model> logitsModel = generated("segmenter_logits_" + GetParam());
    ASSERT_TRUE(full != nullptr && logitsModel != nullptr);
    std::vector<float> cpuLabels;
    for (const RunMode& mode : devicesUnderTest(*full)) {
        const RunResult logits = run(*logitsModel, mode.options);
        const RunResult labels = run(*full, mode.options);
        ASSERT_EQ(logits.outputs.size(), 1u) << mode.name;
        ASSERT_EQ(labels.outputs.size(), 1u) << mode.name;
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
        if (cpuLabels.empty()) cpuLabels = labels.outputs[0];
        size_t differing = 0;
        for (size_t p = 0; p < cpuLabels.size(); ++p) differing += labels.outputs[0][p] != cpuLabels[p] ? 1 : 0;
        // Devices may round a near tie the other way; a few pixels at most.
        EXPECT_LE(differing, cpuLabels.size() / 100) << mode.name;
    }
}

INSTANTIATE_TEST_SUITE_P(Flavors, DenseModel, testing::Values("quant", "float"));

}  // namespace
}  // namespace nnemu::tflite::test
