// label_image end to end: every classification oracle of the shared models README (label and
// score threshold) on the CPU path, on each NNAPI device and through libvx_delegate.so (the
// board's vx path: fully delegated), plus clean failures.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "ToolProcess.h"
#include "ToolTestSupport.h"

namespace nnemu::tooltest {
namespace {

const std::string kLabelImage = LABEL_IMAGE_PATH;

struct Result {
    float score;
    int index;
    std::string label;
};

std::vector<Result> parseResults(const std::string& err) {
    std::vector<Result> results;
    static const std::regex line(R"(INFO: ([0-9.e+-]+): ([0-9]+) (.*))");
    std::smatch match;
    std::istringstream in(err);
    std::string text;
    while (std::getline(in, text)) {
        if (std::regex_match(text, match, line)) results.push_back({std::stof(match[1]), std::stoi(match[2]), match[3]});
    }
    return results;
}

struct Oracle {
    std::string model;
    std::string image;
    int label;
    std::string labelText;
    size_t withinTop;   // the label must be among the first N results
    float minScore;
};

// From ../shared/models/README.md (libcoral's classification test cases; bird: the Arm NN cross-check).
const std::vector<Oracle> kOracles = {
    {"mobilenet_v1_0.25_128_quant", "cat", 283, "tiger cat", 3, 0.25f},
    {"mobilenet_v1_0.5_160_quant", "cat", 286, "Egyptian cat", 1, 0.51f},
    {"mobilenet_v2_1.0_224_quant", "cat", 286, "Egyptian cat", 1, 0.7f},
    // Arm NN scores 153/256, one step below libcoral's 0.6: allow two steps.
    {"tf2_mobilenet_v2_1.0_224_ptq", "cat", 286, "Egyptian cat", 1, 0.6f - 2.0f / 255.0f},
    {"mobilenet_v1_0.25_128_quant", "bird", 20, "chickadee", 1, 0.3f},
    {"mobilenet_v1_0.5_160_quant", "bird", 20, "chickadee", 1, 0.9f},
    {"mobilenet_v2_1.0_224_quant", "bird", 20, "chickadee", 1, 0.9f},
    {"tf2_mobilenet_v2_1.0_224_ptq", "bird", 20, "chickadee", 1, 0.85f},
};

class LabelImageOnDevice : public testing::TestWithParam<std::string> {};

TEST_P(LabelImageOnDevice, ClassificationOracles) {
    SKIP_WITHOUT_SHARED_MODELS();
    const std::string& device = GetParam();
    const bool vx = device == "vx";
    if (!device.empty() && !vx && !hasNnapiDevice(device)) {
        GTEST_SKIP() << "NNAPI device " << device << " is not listed (devices: " << joinedNnapiDevices() << ")";
    }
    for (const Oracle& oracle : kOracles) {
        SCOPED_TRACE(oracle.model + " on " + oracle.image + ".bmp");
        std::vector<std::string> args = {"-m", kModelsDir + "/models/" + oracle.model + ".tflite",
                                         "-i", kModelsDir + "/images/" + oracle.image + ".bmp",
                                         "-l", kModelsDir + "/labels/imagenet_labels.txt",
                                         "-w", "0", "-c", "1"};
        if (vx) {
            args.push_back("--external_delegate_path=libvx_delegate.so");
        } else if (!device.empty()) {
            args.push_back("--accelerator_name=" + device);
        }
        const ToolRun run = runTool(kLabelImage, args, makeTempDir("root"));
        ASSERT_EQ(run.exitCode, 0) << run.err;
        EXPECT_NE(run.err.find("INFO: Loaded model "), std::string::npos);
        EXPECT_NE(run.err.find("INFO: invoked\n"), std::string::npos);
        EXPECT_TRUE(std::regex_search(run.err, std::regex("INFO: average time: [0-9.e+-]+ ms\n"))) << run.err;
        // TFLite's label_image creates its default delegate for a graph on the CPU, never for one
        // the vx delegate takes whole.
        const bool xnnpackLine = run.err.find("INFO: Created TensorFlow Lite XNNPACK delegate for CPU.\n") != std::string::npos;
        if (device.empty()) {
            EXPECT_TRUE(xnnpackLine) << run.err;
        } else if (vx) {
            EXPECT_FALSE(xnnpackLine) << run.err;
        }
        if (vx) {
            EXPECT_TRUE(std::regex_search(run.err, std::regex("VERBOSE: Replacing ([0-9]+) out of \\1 node\\(s\\) with "
                                                              "delegate \\(Vx Delegate\\) node, yielding 1 partitions")))
                    << run.err;
            EXPECT_NE(run.err.find("INFO: Applied EXTERNAL delegate.\n"), std::string::npos);
        } else if (!device.empty()) {
            EXPECT_NE(run.err.find("INFO: Applied NNAPI delegate.\n"), std::string::npos);
        }
        const std::vector<Result> results = parseResults(run.err);
        ASSERT_FALSE(results.empty()) << run.err;
        EXPECT_LE(results.size(), 5u);
        bool found = false;
        for (size_t i = 0; i < results.size() && i < oracle.withinTop; ++i) {
            if (results[i].index != oracle.label) continue;
            found = true;
            EXPECT_GE(results[i].score, oracle.minScore) << run.err;
            EXPECT_EQ(results[i].label, oracle.labelText);
        }
        EXPECT_TRUE(found) << "label " << oracle.label << " not in the top " << oracle.withinTop << ":\n" << run.err;
    }
}

INSTANTIATE_TEST_SUITE_P(Devices, LabelImageOnDevice, testing::Values("", "nnapi-reference", "synap-npu", "vx"),
                         [](const testing::TestParamInfo<std::string>& info) {
                             return info.param.empty() ? std::string("cpu")
                                                       : std::regex_replace(info.param, std::regex("-"), "_");
                         });

TEST(LabelImageRun, FailuresAreClean) {
    SKIP_WITHOUT_SHARED_MODELS();
    const std::string model = kModelsDir + "/models/mobilenet_v1_0.25_128_quant.tflite";
    const std::string image = kModelsDir + "/images/cat.bmp";
    const std::string labels = kModelsDir + "/labels/imagenet_labels.txt";
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"-m", model, "-i", image, "-l", labels, "-c", "zero"}, "ERROR: invalid value 'zero' for --count/-c"},
        {{"--bogus=1"}, "ERROR: unknown option --bogus=1"},
        {{"-m", "/nonexistent.tflite", "-i", image, "-l", labels}, "ERROR: "},
        {{"-m", model, "-i", "/nonexistent.bmp", "-l", labels}, "/nonexistent.bmp"},
        {{"-m", model, "-i", image, "-l", "/nonexistent.txt"}, "ERROR: Labels file /nonexistent.txt not found"},
        {{"-m", kModelsDir + "/models/negative/model_invoking_error.tflite", "-i", image, "-l", labels}, "fake-op-double"},
        {{"-m", kModelsDir + "/models/hello_world_float.tflite", "-i", image, "-l", labels}, "label_image needs [1, height, width"},
        {{"-m", model, "-i", image, "-l", labels, "--accelerator_name=no-such-device"}, "no-such-device"},
    };
    for (const auto& [args, message] : cases) {
        const ToolRun run = runTool(kLabelImage, args, makeTempDir("root"));
        EXPECT_EQ(run.signal, 0) << message;
        EXPECT_EQ(run.exitCode, 1) << message << "\n" << run.err;
        EXPECT_NE(run.err.find(message), std::string::npos) << message << "\n" << run.err;
    }
}

TEST(LabelImageRun, Help) {
    const ToolRun run = runTool(kLabelImage, {"--help"});
    EXPECT_EQ(run.exitCode, 0);
    EXPECT_NE(run.out.find("--tflite_model, -m"), std::string::npos) << run.out;
}

}  // namespace
}  // namespace nnemu::tooltest
