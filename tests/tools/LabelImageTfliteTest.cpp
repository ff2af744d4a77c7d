// nnemu's label_image against real TensorFlow Lite 2.21 (../shared/tflite) on every shared
// classifier and a generated float MobileNet, on the shared pictures: the top-5 lines
// ("<score>: <index> <label>") must be the same as TFLite's on the same route.
//  - the vx delegate: TFLite's label_image with --external_delegate_path=libvx_delegate.so.
//  - the CPU path: TFLite's label_image itself, line for line (float scores too). It always applies
//    XNNPACK (this build ignores --use_xnnpack=false and has no NNAPI provider for -a 1), and so
//    does nnemu's on the nodes XNNPACK claims (XnnpackForms.h: its arithmetic on the tools' CPU
//    kernels, 8-bit and float).
//  - nnapi-reference: the oracle is TFLite's builtin kernels (tflite_run --xnnpack=0) on the
//    picture as TFLite's label_image prepares it (LabelImagePreprocessTest.cpp: bit for bit),
//    scored as label_image scores.
// Skipped without ../shared/tflite.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "GeneratedModelTest.h"
#include "ImageFile.h"
#include "Labels.h"
#include "ModelInput.h"
#include "ToolProcess.h"
#include "ToolTestSupport.h"
#include "TopResults.h"
#include "nnemu/tflite/Model.h"
#include "../tflite/ResultCheck.h"

namespace nnemu::tooltest {
namespace {

const std::string kRealBin = std::string(NNEMU_SHARED_DIR) + "/tflite/bin";
const std::string kLabels = kModelsDir + "/labels/imagenet_labels.txt";

#define SKIP_WITHOUT_REAL_TFLITE()                                                                       \
    if (access((kRealBin + "/label_image").c_str(), X_OK) != 0 || access((kRealBin + "/tflite_run").c_str(), X_OK) != 0) { \
        GTEST_SKIP() << "real TensorFlow Lite not found in " << kRealBin                                \
                     << " (../shared/tflite; set the NNEMU_SHARED_DIR CMake cache variable)";          \
    }

// The result lines, "<score>: <index> <label>", in order.
std::vector<std::string> resultLines(const std::string& err) {
    std::vector<std::string> lines;
    static const std::regex line(R"(INFO: ([0-9.e+-]+: [0-9]+ .*))");
    std::smatch match;
    std::istringstream in(err);
    for (std::string text; std::getline(in, text);) {
        if (std::regex_match(text, match, line)) lines.push_back(match[1]);
    }
    return lines;
}

std::string joined(const std::vector<std::string>& lines) {
    std::string text;
    for (const std::string& line : lines) text += "  " + line + "\n";
    return text;
}

// TFLite's builtin kernels on the picture as label_image prepares it, scored as label_image does.
std::vector<std::string> builtinKernelLines(const std::string& model, const std::string& picture, const std::string& dir) {
    const std::unique_ptr<tflite::Model> loaded = tflite::test::expectValue(tflite::Model::load(model));
    EXPECT_NE(loaded, nullptr);
    if (loaded == nullptr) return {};
    const tflite::Tensor& input = loaded->tensors()[loaded->inputs()[0]];
    const tflite::Tensor& output = loaded->tensors()[loaded->outputs()[0]];
    labelimage::Image image;
    EXPECT_EQ(labelimage::loadImageFile(picture, &image), nnemu::StatusCode::OK);
    const labelimage::InputType inputType = input.type == tflite::ElementType::FLOAT32 ? labelimage::InputType::FLOAT32
                                            : input.type == tflite::ElementType::INT8  ? labelimage::InputType::INT8
                                                                                       : labelimage::InputType::UINT8;
    writeBytes(dir + "/in.raw", labelimage::makeModelInput(image, input.shape[1], input.shape[2], input.shape[3],
                                                           inputType, 127.5f, 127.5f));
    const ToolRun run = runTool(kRealBin + "/tflite_run", {"--model=" + model, "--xnnpack=0", "--input=" + dir + "/in.raw",
                                                           "--output=" + dir + "/out.raw"});
    EXPECT_EQ(run.exitCode, 0) << run.out << run.err;
    const std::vector<uint8_t> scores = readBytes(dir + "/out.raw");
    const labelimage::ScoreType scoreType = output.type == tflite::ElementType::FLOAT32 ? labelimage::ScoreType::FLOAT32
                                            : output.type == tflite::ElementType::INT8  ? labelimage::ScoreType::INT8
                                                                                        : labelimage::ScoreType::UINT8;
    const size_t classes = static_cast<size_t>(output.shape.back());
    EXPECT_EQ(scores.size(), classes * tflite::elementSize(output.type));
    if (scores.size() != classes * tflite::elementSize(output.type)) return {};
    std::vector<std::string> labels;
    EXPECT_EQ(labelimage::readLabelsFile(kLabels, &labels), nnemu::StatusCode::OK);
    std::vector<std::string> lines;
    for (const labelimage::ClassScore& s : labelimage::topResults(scores.data(), classes, scoreType, 5)) {
        std::ostringstream line;
        line << s.score << ": " << s.index << " " << (static_cast<size_t>(s.index) < labels.size() ? labels[s.index] : "");
        lines.push_back(line.str());
    }
    return lines;
}

// How far a line's score may be from TFLite's. kExact: quantized scores are exact steps, and the
// CPU path's float scores are XNNPACK's bits where it reproduces XNNPACK's order on this CPU
// (ResultCheck.h). kFloat: float kernels whose last bits may differ by a few ULP: two units of the
// sixth significant digit label_image prints. kReordered: the CPU path where XNNPACK sums in an
// order it does not reproduce: kReorderedFloatUlps ULP of the largest probability, 1, plus the two
// printed units. The labels must be equal in every case.
enum class Scores { kExact, kFloat, kReordered };

Scores cpuPathScores(bool floatScores) {
    return floatScores && !tflite::test::xnnpackFloatOrderReproduced() ? Scores::kReordered : Scores::kExact;
}

bool sameLine(const std::string& got, const std::string& want, Scores scores) {
    if (scores == Scores::kExact || got == want) return got == want;
    const size_t a = got.find(':'), b = want.find(':');
    if (a == std::string::npos || b == std::string::npos || got.substr(a) != want.substr(b)) return false;
    const double x = std::stod(got.substr(0, a)), y = std::stod(want.substr(0, b));
    const double unit = std::pow(10.0, std::floor(std::log10(std::max(std::fabs(y), 1e-30))) - 5);
    const double reordered = scores == Scores::kReordered
                                 ? tflite::test::kReorderedFloatUlps * tflite::test::ulpOf<float>(1.0)
                                 : 0.0;
    return std::fabs(x - y) <= 2 * unit + reordered;
}

void expectSameLines(const std::vector<std::string>& got, const std::vector<std::string>& want, const std::string& what,
                     Scores scores) {
    EXPECT_FALSE(want.empty()) << what;
    bool same = got.size() == want.size();
    for (size_t i = 0; same && i < got.size(); ++i) same = sameLine(got[i], want[i], scores);
    EXPECT_TRUE(same) << what << "\nTFLite's:\n" << joined(want) << "nnemu's:\n" << joined(got);
}

// One model and picture on every route. delegatedAsBuiltin false: the model holds a node that
// computes NNAPI's semantics when delegated (TfliteKernelForms.h, as with TFLite's own delegate), so
// the nnapi-reference route is not held to TFLite's builtin kernels.
void expectSameTop5(const std::string& model, const std::string& image, bool floatScores = false,
                    bool delegatedAsBuiltin = true) {
    const std::string picture = kModelsDir + "/images/" + image + ".bmp";
    const std::vector<std::string> common = {"-m", model, "-i", picture, "-l", kLabels};
    const std::string dir = makeTempDir("label_image_tflite");
    const auto nnemu = [&](const std::vector<std::string>& flags) {
        std::vector<std::string> args = common;
        args.insert(args.end(), flags.begin(), flags.end());
        const ToolRun run = runTool(LABEL_IMAGE_PATH, args, makeTempDir("root"));
        EXPECT_EQ(run.exitCode, 0) << run.err;
        return resultLines(run.err);
    };
    const auto real = [&](const std::vector<std::string>& flags, const std::vector<std::string>& environment) {
        std::vector<std::string> args = common;
        args.insert(args.end(), flags.begin(), flags.end());
        const ToolRun run = runTool(kRealBin + "/label_image", args, makeTempDir("root"), environment);
        EXPECT_EQ(run.exitCode, 0) << run.err;
        return resultLines(run.err);
    };
    const std::string where = model + " on " + image + ".bmp";
    const Scores delegated = floatScores ? Scores::kFloat : Scores::kExact;

    const std::vector<std::string> builtin = builtinKernelLines(model, picture, dir);
    expectSameLines(nnemu({}), real({}, {}), where + ", CPU path (TFLite's label_image: XNNPACK)", cpuPathScores(floatScores));
    if (delegatedAsBuiltin && hasNnapiDevice("nnapi-reference")) {
        expectSameLines(nnemu({"--accelerator_name=nnapi-reference"}), builtin, where + ", nnapi-reference", delegated);
    }
    expectSameLines(nnemu({"--external_delegate_path=" + std::string(VX_DELEGATE_PATH)}),
                    real({"--external_delegate_path=" + std::string(VX_DELEGATE_PATH)}, {}), where + ", vx delegate", delegated);
}

class LabelImageAsTflite : public testing::TestWithParam<std::string> {};

TEST_P(LabelImageAsTflite, SameTop5OnSharedModels) {
    SKIP_WITHOUT_SHARED_MODELS();
    SKIP_WITHOUT_REAL_TFLITE();
    for (const std::string image : {"cat", "bird"}) expectSameTop5(kModelsDir + "/models/" + GetParam() + ".tflite", image);
}

// The TF2 int8 MobileNet: its int8 CONV_2D, DEPTHWISE_CONV_2D and MEAN compute NNAPI's values
// when delegated, XNNPACK's on the CPU path as in TFLite's label_image (0.658824: 286 Egyptian cat
// on cat.bmp; TFLite's builtin kernels give 0.662745, nnapi-reference delegated 0.682353).
TEST(LabelImageAsTfliteInt8, SameTop5OnSharedTf2MobileNetCpuPath) {
    SKIP_WITHOUT_SHARED_MODELS();
    SKIP_WITHOUT_REAL_TFLITE();
    for (const std::string image : {"cat", "bird"}) {
        expectSameTop5(kModelsDir + "/models/tf2_mobilenet_v2_1.0_224_ptq.tflite", image, false, false);
    }
}

INSTANTIATE_TEST_SUITE_P(Shared, LabelImageAsTflite,
                         testing::Values("mobilenet_v1_0.25_128_quant", "mobilenet_v1_0.5_160_quant",
                                         "mobilenet_v2_1.0_224_quant"),
                         [](const testing::TestParamInfo<std::string>& info) {
                             return std::regex_replace(info.param, std::regex("[.]"), "_");
                         });

class LabelImageAsTfliteGenerated : public GeneratedModelTest {
protected:
    LabelImageAsTfliteGenerated() : GeneratedModelTest("label_image_tflite") {}
};

// A float model: (v - 127.5) / 127.5 inputs, float scores.
TEST_F(LabelImageAsTfliteGenerated, SameTop5OnFloatMobileNet) {
    SKIP_WITHOUT_SHARED_MODELS();
    SKIP_WITHOUT_REAL_TFLITE();
    const std::string model = generate("mobilenet_v1_0.25_128_float");
    for (const std::string image : {"cat", "bird"}) expectSameTop5(model, image, true);
}

// The full-size float MobileNets on the CPU path only: every float node XNNPACK claims computes
// XNNPACK's bits (XnnpackFloatConv.cpp, XnnpackFloatPool.cpp, XnnpackFloatMean.cpp,
// XnnpackFloatSoftmax.cpp), so the lines equal TFLite's label_image's, last digit included
// (before: 0.37117 against TFLite's 0.371169 for v2 on cat.bmp), on a CPU where XNNPACK takes its
// AVX-512 kernels; elsewhere within kReorderedFloatUlps (cpuPathScores).
TEST_F(LabelImageAsTfliteGenerated, SameLinesOnFullFloatMobileNetsCpuPath) {
    SKIP_WITHOUT_SHARED_MODELS();
    SKIP_WITHOUT_REAL_TFLITE();
    for (const std::string name : {"mobilenet_v1_1.0_224_float", "mobilenet_v2_1.0_224_float"}) {
        const std::string model = generate(name);
        for (const std::string image : {"cat", "bird"}) {
            const std::vector<std::string> args = {"-m", model, "-i", kModelsDir + "/images/" + image + ".bmp", "-l", kLabels};
            const ToolRun ours = runTool(LABEL_IMAGE_PATH, args, makeTempDir("root"));
            const ToolRun theirs = runTool(kRealBin + "/label_image", args, makeTempDir("root"));
            ASSERT_EQ(ours.exitCode, 0) << ours.err;
            ASSERT_EQ(theirs.exitCode, 0) << theirs.err;
            expectSameLines(resultLines(ours.err), resultLines(theirs.err), name + " on " + image + ".bmp, CPU path",
                            cpuPathScores(true));
        }
    }
}

}  // namespace
}  // namespace nnemu::tooltest
