// nnemu_modelgen's CPU-path models through the tools as processes: benchmark_model delegating
// to synap-npu, to nnapi-reference and without NNAPI writes the same outputs, matching a plain
// C++ computation (tests/tflite/CpuPathReference.h): the delegated layers within quantization
// steps, the CPU nodes (align-corners resize, int64 ARG_MAX, CAST, FLOOR_DIV/MOD, GATHER_ND,
// MUL/ADD with scales NNAPI refuses) exactly from the delegated layers' outputs. label_image
// prints the same results with and without NNAPI. A model with an unknown custom operator fails
// in both tools with TensorFlow Lite's message.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "../tflite/CpuPathReference.h"
#include "ToolProcess.h"
#include "ToolTestSupport.h"
#include "nnemu/modelgen/GraphSpec.h"
#include "nnemu/tflite/Model.h"
#include "../tflite/ResultCheck.h"

namespace nnemu::tooltest {
namespace {

using tflite::test::Image;

#ifdef NNEMU_MODELGEN_PATH
const std::string kModelgen = NNEMU_MODELGEN_PATH;
#else
const std::string kModelgen;
#endif

// "" is TFLite's CPU path (no delegate).
const char* const kModes[] = {"synap-npu", "nnapi-reference", ""};

class CpuPathRun : public testing::TestWithParam<std::string> {
protected:
    void SetUp() override {
        if (kModelgen.empty()) GTEST_SKIP() << "nnemu_modelgen is not part of this build";
        for (const char* device : {"synap-npu", "nnapi-reference"}) {
            if (!hasNnapiDevice(device)) GTEST_SKIP() << device << " is not listed";
        }
        dir_ = makeTempDir("cpupath");
        graph_ = dir_ + "/" + GetParam() + ".tflite";
        const ToolRun run = runTool(kModelgen, {GetParam(), graph_});
        ASSERT_EQ(run.exitCode, 0) << run.err;
        model_ = tflite::test::expectValue(tflite::Model::load(graph_));
        ASSERT_NE(model_, nullptr);
    }

    const tflite::Tensor& outputTensor(size_t o) const { return model_->tensors()[model_->outputs()[o]]; }

    // benchmark_model in each mode on the test pattern: per mode, every output's bytes.
    std::vector<std::vector<std::vector<uint8_t>>> runEverywhere() {
        const tflite::Tensor& input = model_->tensors()[model_->inputs()[0]];
        const std::vector<uint8_t> pattern = tflite::test::patternBytes(input);
        writeBytes(dir_ + "/input.bin", pattern);
        input_ = tflite::test::numbersOf(input, pattern.data());
        std::vector<std::vector<std::vector<uint8_t>>> perMode;
        for (const char* mode : kModes) {
            std::string outputList;
            for (size_t o = 0; o < model_->outputs().size(); ++o) {
                outputList += (o ? "," : "") + dir_ + "/out" + std::to_string(o) + ".bin";
            }
            std::vector<std::string> args = {"--graph=" + graph_, "--input_file=" + dir_ + "/input.bin",
                                             "--output_file=" + outputList, "--num_runs=2", "--min_secs=0",
                                             "--warmup_min_secs=0"};
            for (const std::string& flag : deviceFlags(mode)) args.push_back(flag);
            const ToolRun run = runTool(BENCHMARK_MODEL_PATH, args, makeTempDir("root"));
            EXPECT_EQ(run.exitCode, 0) << "'" << mode << "': " << run.err;
            if (run.exitCode != 0) return {};
            if (*mode != '\0') {
                EXPECT_NE(run.err.find("INFO: Explicitly applied NNAPI delegate, and the model graph will be partially "
                                       "executed by the delegate w/ "),
                          std::string::npos)
                        << mode << ": " << run.err;
            }
            std::vector<std::vector<uint8_t>> outputs;
            for (size_t o = 0; o < model_->outputs().size(); ++o) {
                outputs.push_back(readBytes(dir_ + "/out" + std::to_string(o) + ".bin"));
                EXPECT_EQ(outputs.back().size(), outputTensor(o).byteSize()) << mode << " output " << o;
                if (outputs.back().size() != outputTensor(o).byteSize()) return {};
            }
            perMode.push_back(outputs);
        }
        return perMode;
    }

    Image inputImage() const {
        const std::vector<int32_t>& shape = model_->tensors()[model_->inputs()[0]].shape;
        return {shape[1], shape[2], shape[3], input_};
    }
    Image outputImage(size_t o, const std::vector<double>& values) const {
        const std::vector<int32_t>& shape = outputTensor(o).shape;
        return {shape[1], shape[2], shape[3], values};
    }
    void checkOutputs(const std::vector<std::vector<double>>& out, const std::string& mode) const;
    // The logits of the segmenter and the heatmaps of the pose model (and the scores gathered
    // from them).
    bool isConvolutionOutput(size_t o) const {
        return (GetParam().rfind("deeplab", 0) == 0 && o == 0) || (GetParam().rfind("pose", 0) == 0 && o != 1);
    }
    // A quantization step of output o (a small float tolerance for float outputs).
    double step(size_t o) const { return outputTensor(o).scale > 0 ? outputTensor(o).scale : 1e-5; }

    std::string dir_, graph_;
    std::unique_ptr<tflite::Model> model_;
    std::vector<double> input_;
};

void expectNear(const std::vector<double>& actual, const std::vector<double>& expected, double tolerance,
                const std::string& what) {
    ASSERT_EQ(actual.size(), expected.size()) << what;
    size_t bad = 0;
    for (size_t i = 0; i < actual.size() && bad < 5; ++i) {
        if (std::fabs(actual[i] - expected[i]) > tolerance) {
            ++bad;
            ADD_FAILURE() << what << "[" << i << "] = " << actual[i] << ", expected " << expected[i] << " +- " << tolerance;
        }
    }
}

// Checks one mode's outputs: the delegated layers against the plain computation, the CPU nodes
// exactly (or within a rounding step) from the delegated layers' outputs of the same run.
void CpuPathRun::checkOutputs(const std::vector<std::vector<double>>& out, const std::string& mode) const {
    const std::string& name = GetParam();
    if (name.rfind("deeplab_segmenter", 0) == 0) {
        const Image features = tflite::test::conv(*model_, "encoder/conv0", inputImage(), 8, 3, 2, true, true);
        const Image logits = tflite::test::conv(*model_, "logits", features, 4, 1, 1, true, false);
        expectNear(out[0], logits.values, name.ends_with("_quant") ? 4 * step(0) : 1e-4, mode + " logits");
        // Resize with align_corners, then the int64 argmax.
        const Image resized = tflite::test::resizeAlignCorners(outputImage(0, out[0]), 16, 16);
        ASSERT_EQ(out[1].size(), 16u * 16u);
        for (size_t p = 0; p < out[1].size(); ++p) {
            EXPECT_TRUE(tflite::test::isArgMax(resized.values, p * 4, 1, 4, static_cast<int64_t>(out[1][p]), step(0)))
                    << mode << " pixel " << p << " label " << out[1][p];
        }
    } else if (name == "pose_keypoints_float") {
        const Image heatmaps = tflite::test::conv(*model_, "heatmaps", inputImage(), 4, 3, 2, true, false);
        expectNear(out[2], heatmaps.values, 1e-4, mode + " heatmaps");
        // Peak per keypoint over the 8x8 cells (the first maximum), its row and column, its score.
        for (size_t k = 0; k < 4; ++k) {
            size_t peak = 0;
            for (size_t cell = 1; cell < 64; ++cell) {
                if (out[2][cell * 4 + k] > out[2][peak * 4 + k]) peak = cell;
            }
            EXPECT_EQ(out[0][k], out[2][peak * 4 + k]) << mode << " keypoint " << k << " score";
            EXPECT_EQ(out[1][2 * k], static_cast<double>(peak / 8) / 8.0) << mode << " keypoint " << k << " row";
            EXPECT_EQ(out[1][2 * k + 1], static_cast<double>(peak % 8) / 8.0) << mode << " keypoint " << k << " column";
        }
    } else {
        // h = 2x2 max pool of the image, tiny = h x gain requantized to scale 8e-14; the ADD of a
        // term so far below h's step gives h again, and the scores are its 4x4 max pool.
        const Image image = inputImage();
        std::vector<double> h, tiny, scores(3, -1e9);
        const std::vector<double> gain = tflite::test::constantNumbers(*model_, "gain");
        for (int y = 0; y < 4; ++y) {
            for (int x = 0; x < 4; ++x) {
                for (int c = 0; c < 3; ++c) {
                    double m = -1e9;
                    for (int k = 0; k < 4; ++k) m = std::max(m, image.at(2 * y + k / 2, 2 * x + k % 2, c));
                    h.push_back(m);
                    tiny.push_back(m * gain[c]);
                    scores[c] = std::max(scores[c], m);
                }
            }
        }
        expectNear(out[1], h, 1e-6 * step(1), mode + " h");
        expectNear(out[2], tiny, 1.01 * step(2), mode + " tiny");
        expectNear(out[0], scores, 1e-6 * step(0), mode + " scores");
    }
}

TEST_P(CpuPathRun, BenchmarkModelAgreesEverywhereAndWithThePlainComputation) {
    const std::vector<std::vector<std::vector<uint8_t>>> perMode = runEverywhere();
    ASSERT_EQ(perMode.size(), std::size(kModes));
    std::vector<std::vector<std::vector<double>>> numbers(perMode.size());
    for (size_t m = 0; m < perMode.size(); ++m) {
        for (size_t o = 0; o < perMode[m].size(); ++o) {
            numbers[m].push_back(tflite::test::numbersOf(outputTensor(o), perMode[m][o].data()));
        }
        checkOutputs(numbers[m], std::string("'") + kModes[m] + "'");
    }
    // The model's results are identical in every mode. Convolution outputs (logits, heatmaps)
    // may differ by rounding: synap-npu sums and requantizes in its own order. On nnapi-reference
    // the segmenter's align-corners resize is delegated too (as TFLite's delegate lowers it at
    // feature level 30) and rounds as NNAPI's operation does, so its labels are only checked
    // against the plain computation above (an argmax within a step).
    for (size_t m = 1; m < perMode.size(); ++m) {
        for (size_t o = 0; o < perMode[0].size(); ++o) {
            const std::string where = "output " + std::to_string(o) + ": '" + kModes[m] + "' and synap-npu";
            if (GetParam().rfind("deeplab", 0) == 0 && o == 1 && std::string(kModes[m]) == "nnapi-reference") continue;
            if (isConvolutionOutput(o)) {
                expectNear(numbers[m][o], numbers[0][o], step(o), where);
            } else {
                EXPECT_EQ(perMode[m][o], perMode[0][o]) << where << " differ";
            }
        }
    }
}

TEST_P(CpuPathRun, LabelImageGivesTheSameResultsWithAndWithoutNnapi) {
    SKIP_WITHOUT_SHARED_MODELS();
    const std::string labels = dir_ + "/labels.txt";
    std::ofstream(labels) << "zero\none\ntwo\nthree\nfour\nfive\n";
    std::vector<std::string> printed;
    for (const char* mode : kModes) {
        std::vector<std::string> args = {"-m", graph_, "-i", kModelsDir + "/images/cat.bmp", "-l", labels, "-c", "1", "-w", "0"};
        if (*mode != '\0') args.push_back(std::string("--accelerator_name=") + mode);
        const ToolRun run = runTool(LABEL_IMAGE_PATH, args, makeTempDir("root"));
        ASSERT_EQ(run.exitCode, 0) << "'" << mode << "': " << run.err;
        if (*mode != '\0') {
            EXPECT_NE(run.err.find("INFO: Applied NNAPI delegate.\n"), std::string::npos) << run.err;
        }
        std::string results;
        for (const std::string& line : run.errLines()) {
            for (const char* label : {" zero", " one", " two", " three", " four", " five"}) {
                if (line.ends_with(label)) results += line + "\n";
            }
        }
        EXPECT_FALSE(results.empty()) << run.err;
        printed.push_back(results);
    }
    EXPECT_EQ(printed[1], printed[0]);
    EXPECT_EQ(printed[2], printed[0]);
}

INSTANTIATE_TEST_SUITE_P(Catalog, CpuPathRun,
                         testing::Values("deeplab_segmenter_float", "deeplab_segmenter_quant", "pose_keypoints_float",
                                         "extreme_scales_quant"));

#ifdef NNEMU_MODELGEN_PATH   // the model is written with the catalog library's GraphSpec
// An operator TFLite has no kernel for: both tools stop with TFLite's message naming it.
TEST(UnknownCustomOperator, BothToolsNameIt) {
    SKIP_WITHOUT_SHARED_MODELS();   // for label_image's picture
    modelgen::GraphSpec g;
    g.name = "main";
    const int32_t image = g.add(modelgen::tensorSpec("image", {1, 8, 8, 3}));
    const int32_t relu = g.add(modelgen::tensorSpec("relu", {1, 8, 8, 3}));
    const int32_t out = g.add(modelgen::tensorSpec("out", {1, 8, 8, 3}));
    g.ops.push_back(modelgen::opSpec(tflite::fb::BuiltinOperator_RELU, {image}, {relu}));
    modelgen::OpSpec custom = modelgen::opSpec(tflite::fb::BuiltinOperator_CUSTOM, {relu}, {out});
    custom.customName = "MyVendorOp";
    g.ops.push_back(custom);
    g.inputs = {image};
    g.outputs = {out};
    const std::string dir = makeTempDir("customop");
    writeBytes(dir + "/custom.tflite", modelgen::writeGraphs({g}, "unknown custom op"));
    const std::string expected = "Encountered unresolved custom op: MyVendorOp.\n";
    const std::string node = "Node number 1 (MyVendorOp) failed to prepare.\n";
    for (const char* mode : kModes) {
        std::vector<std::string> args = {"--graph=" + dir + "/custom.tflite", "--num_runs=1", "--min_secs=0"};
        for (const std::string& flag : deviceFlags(mode)) args.push_back(flag);
        const ToolRun bench = runTool(BENCHMARK_MODEL_PATH, args, makeTempDir("root"));
        EXPECT_NE(bench.exitCode, 0) << mode;
        EXPECT_NE(bench.err.find("ERROR: " + expected), std::string::npos) << mode << ": " << bench.err;
        EXPECT_NE(bench.err.find(node), std::string::npos) << mode << ": " << bench.err;
        std::vector<std::string> labelArgs = {"-m", dir + "/custom.tflite", "-i", kModelsDir + "/images/cat.bmp"};
        if (*mode != '\0') labelArgs.push_back(std::string("--accelerator_name=") + mode);
        const ToolRun label = runTool(LABEL_IMAGE_PATH, labelArgs, makeTempDir("root"));
        EXPECT_NE(label.exitCode, 0) << mode;
        EXPECT_NE(label.err.find("ERROR: " + expected), std::string::npos) << mode << ": " << label.err;
        EXPECT_NE(label.err.find(node), std::string::npos) << mode << ": " << label.err;
    }
}
#endif

}  // namespace
}  // namespace nnemu::tooltest
