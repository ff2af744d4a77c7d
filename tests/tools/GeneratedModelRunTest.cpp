// The board documentation's commands on models from nnemu_modelgen, so they work without the
// shared corpus: benchmark_model on a fully delegated MobileNet and on a model whose middle
// operation the NPU lacks (delegate / CPU / delegate, reported and profiled as on the board),
// label_image on generated classifiers, and the detector and segmenter on both NNAPI devices
// with their results checked against an independent computation of their last operation.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "../tflite/DenseReference.h"
#include "GeneratedModelTest.h"
#include "ToolProcess.h"
#include "ToolTestSupport.h"
#include "nnemu/tflite/Model.h"
#include "../tflite/ResultCheck.h"

namespace nnemu::tooltest {
namespace {

class GeneratedModelRun : public GeneratedModelTest {
protected:
    GeneratedModelRun() : GeneratedModelTest("generated") {}

    // benchmark_model on the device with the test picture as input; the outputs as real values
    // (empty when the run failed) and what the tool printed.
    std::vector<std::vector<float>> runOnDevice(const std::string& graph, const std::string& device, std::string* log) {
        const std::unique_ptr<tflite::Model> model = tflite::test::expectValue(tflite::Model::load(graph));
        EXPECT_NE(model, nullptr);
        if (model == nullptr) return {};
        const std::string input = dir_ + "/input.bin";
        writeBytes(input, tflite::test::picture(model->tensors()[model->inputs()[0]]));
        std::string outputList;
        for (size_t o = 0; o < model->outputs().size(); ++o) outputList += (o ? "," : "") + dir_ + "/out" + std::to_string(o) + ".bin";
        std::vector<std::string> args = {"--graph=" + graph, "--input_file=" + input, "--output_file=" + outputList,
                                         "--num_runs=2", "--min_secs=0", "--warmup_min_secs=0"};
        for (const std::string& flag : deviceFlags(device)) args.push_back(flag);
        const ToolRun run = runTool(BENCHMARK_MODEL_PATH, args, makeTempDir("root"));
        EXPECT_EQ(run.exitCode, 0) << run.err;
        *log = run.err;
        if (run.exitCode != 0) return {};
        std::vector<std::vector<float>> outputs;
        for (size_t o = 0; o < model->outputs().size(); ++o) {
            const tflite::Tensor& tensor = model->tensors()[model->outputs()[o]];
            const std::vector<uint8_t> bytes = readBytes(dir_ + "/out" + std::to_string(o) + ".bin");
            EXPECT_EQ(bytes.size(), tensor.byteSize()) << graph << " output " << o;
            if (bytes.size() != tensor.byteSize()) return {};
            outputs.push_back(tflite::test::realValues(tensor, bytes.data()));
        }
        return outputs;
    }

};

const char* const kDevices[] = {"synap-npu", "nnapi-reference"};

TEST_F(GeneratedModelRun, FullyDelegatedMobileNet) {
    if (!hasNnapiDevice("synap-npu")) GTEST_SKIP() << "synap-npu is not listed";
    const std::string graph = generate("mobilenet_v1_0.25_224_quant");
    const ToolRun run = runTool(BENCHMARK_MODEL_PATH,
                                {"--graph=" + graph, "--use_nnapi=true", "--nnapi_accelerator_name=synap-npu",
                                 "--num_runs=3", "--min_secs=0"},
                                makeTempDir("root"));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_NE(run.err.find("INFO: NNAPI accelerators available: [" + joinedNnapiDevices() + "]\n"), std::string::npos);
    EXPECT_NE(run.err.find("VERBOSE: Replacing 31 out of 31 node(s) with delegate (TfLiteNnapiDelegate) node, yielding 1 "
                           "partitions for the whole graph.\n"),
              std::string::npos)
        << run.err;
    EXPECT_NE(run.err.find("INFO: Explicitly applied NNAPI delegate, and the model graph will be completely executed by "
                           "the delegate.\n"),
              std::string::npos);
    // A fully delegated graph never creates TFLite's default delegate (the board's log).
    EXPECT_EQ(run.err.find("XNNPACK"), std::string::npos) << run.err;
    EXPECT_TRUE(std::regex_search(run.err, std::regex("INFO: Running benchmark for at least 1 iterations and at least 0.5 "
                                                      "seconds but terminate if exceeding 150 seconds.\nINFO: count=")))
            << run.err;
}

TEST_F(GeneratedModelRun, CpuOperationInTheMiddle) {
    if (!hasNnapiDevice("synap-npu")) GTEST_SKIP() << "synap-npu is not listed";
    const std::string graph = generate("mixed_resize_nearest");
    const ToolRun run = runTool(BENCHMARK_MODEL_PATH,
                                {"--graph=" + graph, "--use_nnapi=true", "--nnapi_accelerator_name=synap-npu",
                                 "--enable_op_profiling=true", "--num_runs=3", "--min_secs=0", "--warmup_min_secs=0"},
                                makeTempDir("root"));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_NE(run.err.find("VERBOSE: Replacing 2 out of 3 node(s) with delegate (TfLiteNnapiDelegate) node, yielding 3 "
                           "partitions for the whole graph.\n"),
              std::string::npos)
        << run.err;
    // TFLite 2.21 creates its default delegate for the nodes left, right after the NNAPI lines.
    EXPECT_NE(run.err.find("INFO: Explicitly applied NNAPI delegate, and the model graph will be partially executed by the "
                           "delegate w/ 2 delegate kernels.\nINFO: Created TensorFlow Lite XNNPACK delegate for CPU.\n"),
              std::string::npos);
    // Run order: delegate kernel 3, the CPU node 1 by its op name, delegate kernel 4.
    const std::string rows = run.err.substr(run.err.find("Operator-wise Profiling Info for Regular Benchmark Runs:"));
    const std::string field = "\t *[0-9]+\\.[0-9]{3}\t *[0-9]+\\.[0-9]{3}\t *[0-9]+\\.[0-9]{3}%\t *[0-9]+\\.[0-9]{3}%\t +0\\.000\t +1\t";
    EXPECT_TRUE(std::regex_search(rows, std::regex("\\[Name\\]\n\t {21}TfLiteNnapiDelegate" + field + "\\[[^\n]*\\]:3\n"
                                                   "\t {17}RESIZE_NEAREST_NEIGHBOR" + field + "\\[[^\n]*\\]:1\n"
                                                   "\t {21}TfLiteNnapiDelegate" + field + "\\[[^\n]*\\]:4\n")))
        << rows;
    const ToolRun strict = runTool(BENCHMARK_MODEL_PATH,
                                   {"--graph=" + graph, "--use_nnapi=true", "--nnapi_accelerator_name=synap-npu",
                                    "--require_full_delegation=true"},
                                   makeTempDir("root"));
    EXPECT_EQ(strict.exitCode, 1);
    EXPECT_NE(strict.err.find("ERROR: Disallowed CPU fallback detected.\n"), std::string::npos) << strict.err;
}

TEST_F(GeneratedModelRun, WithoutADelegateEveryNodeIsItsOwnProfileRow) {
    const std::string graph = generate("mixed_resize_nearest");
    const ToolRun run = runTool(BENCHMARK_MODEL_PATH,
                                {"--graph=" + graph, "--enable_op_profiling=true", "--num_runs=3", "--min_secs=0",
                                 "--warmup_min_secs=0"},
                                makeTempDir("root"));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    // Run order: nodes 0, 1 and 2, each by its op name and index, none joined with another.
    const std::string rows = run.err.substr(run.err.find("Operator-wise Profiling Info for Regular Benchmark Runs:"));
    const std::string field = "\t *[0-9]+\\.[0-9]{3}\t *[0-9]+\\.[0-9]{3}\t *[0-9]+\\.[0-9]{3}%\t *[0-9]+\\.[0-9]{3}%\t +0\\.000\t +1\t";
    EXPECT_TRUE(std::regex_search(rows, std::regex("\\[Name\\]\n\t *[A-Z_0-9]+" + field + "\\[[^\n]*\\]:0\n"
                                                   "\t *RESIZE_NEAREST_NEIGHBOR" + field + "\\[[^\n]*\\]:1\n"
                                                   "\t *[A-Z_0-9]+" + field + "\\[[^\n]*\\]:2\n")))
        << rows;
    EXPECT_FALSE(std::regex_search(rows, std::regex("[A-Z_]\\+[A-Z_]"))) << rows;   // no joined op names
}

TEST_F(GeneratedModelRun, LabelImageOnGeneratedClassifiers) {
    SKIP_WITHOUT_SHARED_MODELS();   // for a picture and the labels
    for (const std::string name : {"mobilenet_v1_0.25_128_quant", "mobilenet_v1_0.25_128_float"}) {
        const std::string graph = generate(name);
        const ToolRun run = runTool(LABEL_IMAGE_PATH,
                                    {"-m", graph, "-i", kModelsDir + "/images/cat.bmp", "-l",
                                     kModelsDir + "/labels/imagenet_labels.txt", "-a", "1", "-w", "0"},
                                    makeTempDir("root"));
        ASSERT_EQ(run.exitCode, 0) << name << "\n" << run.err;
        // Generated weights classify nothing in particular: the tool must still print scored labels.
        EXPECT_TRUE(std::regex_search(run.err, std::regex("\nINFO: [0-9.e+-]+: [0-9]+ [^\n]*\n"))) << run.err;
    }
}

// docs/tflite.md's command: the detector through benchmark_model on each NNAPI device. The custom
// post-processing operator stays on the CPU (TFLite's delegate never takes custom operators);
// each device's detections equal an independent decoding and NMS of the raw model's outputs on
// that device, and the devices agree.
TEST_F(GeneratedModelRun, DetectorOnBothDevices) {
    if (!hasNnapiDevice("synap-npu")) GTEST_SKIP() << "synap-npu is not listed";
    for (const std::string flavor : {"quant", "float"}) {
        const std::string full = generate("ssd_detector_" + flavor);
        const std::string raw = generate("ssd_detector_raw_" + flavor);
        const std::unique_ptr<tflite::Model> fullModel = tflite::test::expectValue(tflite::Model::load(full));
        const std::unique_ptr<tflite::Model> rawModel = tflite::test::expectValue(tflite::Model::load(raw));
        ASSERT_TRUE(fullModel != nullptr && rawModel != nullptr);
        const std::vector<float> anchors = tflite::test::constantValues(*fullModel, "anchors");
        const float scoreStep = flavor == "quant" ? rawModel->tensors()[rawModel->outputs()[1]].scale : 0.0f;
        std::vector<std::vector<tflite::test::Detection>> perDevice;
        for (const std::string device : kDevices) {
            const std::string where = flavor + " on " + device;
            std::string log;
            const auto before = runOnDevice(raw, device, &log);
            EXPECT_NE(log.find("VERBOSE: Replacing 15 out of 15 node(s) with delegate (TfLiteNnapiDelegate) node, yielding 1 "
                               "partitions for the whole graph.\n"),
                      std::string::npos)
                    << where << "\n" << log;
            const auto after = runOnDevice(full, device, &log);
            EXPECT_NE(log.find("VERBOSE: Replacing 15 out of 16 node(s) with delegate (TfLiteNnapiDelegate) node, yielding 2 "
                               "partitions for the whole graph.\n"),
                      std::string::npos)
                    << where << "\n" << log;
            ASSERT_EQ(before.size(), 2u) << where;
            ASSERT_EQ(after.size(), 4u) << where;
            const auto expected = tflite::test::referencePostProcess(before[0], before[1], anchors, tflite::test::SsdOptions{});
            ASSERT_GE(expected.size(), 3u) << where;
            perDevice.push_back(tflite::test::detectionsOf(after[0], after[1], after[2], after[3][0]));
            tflite::test::expectSameDetections(perDevice.back(), expected, where);
        }
        if (flavor == "quant") {
            tflite::test::expectAgreeingDetections(perDevice[0], perDevice[1], 8 * scoreStep, "quant, synap-npu");
        } else {
            tflite::test::expectSameDetections(perDevice[0], perDevice[1], "float, synap-npu");
        }
    }
}

// The segmenter on each NNAPI device: its int32 labels equal the argmax of the logits model's
// output on that device, and the devices agree but for near ties.
TEST_F(GeneratedModelRun, SegmenterOnBothDevices) {
    if (!hasNnapiDevice("synap-npu")) GTEST_SKIP() << "synap-npu is not listed";
    for (const std::string flavor : {"quant", "float"}) {
        const std::string full = generate("segmenter_" + flavor);
        const std::string logitsModel = generate("segmenter_logits_" + flavor);
        const std::unique_ptr<tflite::Model> model = tflite::test::expectValue(tflite::Model::load(logitsModel));
        ASSERT_NE(model, nullptr);
        const float step = flavor == "quant" ? model->tensors()[model->outputs()[0]].scale : 0.0f;
        std::vector<std::vector<float>> labelsPerDevice, logitsPerDevice;
        for (const std::string device : kDevices) {
            const std::string where = flavor + " on " + device;
            // The quantized segmenter's RELU rescales. Delegated to nnapi-reference, its temporary
            // output keeps the input's quantization (as Android's executor gives it) and the
            // TRANSPOSE_CONV after it fails its bias-scale check: the run fails, as real TFLite's
            // delegate fails there. synap-npu declines that RELU: it runs between two partitions.
            const bool quant = flavor == "quant";
            if (quant && device == "nnapi-reference") {
                std::vector<std::string> args = {"--graph=" + full, "--num_runs=1", "--min_secs=0", "--warmup_min_secs=0"};
                for (const std::string& flag : deviceFlags(device)) args.push_back(flag);
                EXPECT_NE(runTool(BENCHMARK_MODEL_PATH, args, makeTempDir("root")).exitCode, 0) << where;
                continue;
            }
            std::string log;
            const auto logits = runOnDevice(logitsModel, device, &log);
            const auto labels = runOnDevice(full, device, &log);
            const std::string replacing = quant ? "VERBOSE: Replacing 6 out of 7 node(s) with delegate (TfLiteNnapiDelegate) "
                                                  "node, yielding 3 partitions for the whole graph.\n"
                                                : "VERBOSE: Replacing 7 out of 7 node(s) with delegate (TfLiteNnapiDelegate) "
                                                  "node, yielding 1 partitions for the whole graph.\n";
            EXPECT_NE(log.find(replacing), std::string::npos) << where << "\n" << log;
            ASSERT_EQ(logits.size(), 1u) << where;
            ASSERT_EQ(labels.size(), 1u) << where;
            const std::vector<int32_t> expected = tflite::test::referenceArgMax(logits[0], 5);
            ASSERT_EQ(expected.size(), labels[0].size()) << where;
            for (size_t p = 0; p < expected.size(); ++p) {
                ASSERT_EQ(labels[0][p], static_cast<float>(expected[p])) << where << " pixel " << p;
            }
            labelsPerDevice.push_back(labels[0]);
            logitsPerDevice.push_back(logits[0]);
        }
        if (labelsPerDevice.size() < 2) continue;
        // kDevices lists synap-npu first: compare it with nnapi-reference's results.
        tflite::test::expectClose(logitsPerDevice[0], logitsPerDevice[1], step, flavor + " logits");
        tflite::test::expectLabelsAgree(labelsPerDevice[0], labelsPerDevice[1], logitsPerDevice[1], 5,
                                        step > 0 ? 3 * step : 1e-4f, flavor + " labels");
    }
}

}  // namespace
}  // namespace nnemu::tooltest
