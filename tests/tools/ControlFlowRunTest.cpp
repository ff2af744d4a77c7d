// The control-flow models of nnemu_modelgen through the tools as processes: benchmark_model
// with --use_nnapi=true on synap-npu and on nnapi-reference writes identical outputs that match
// the loop and the branches computed in plain C++ (tests/tflite/ControlFlowReference.h), and
// label_image prints the same classes on both devices.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "../tflite/ControlFlowReference.h"
#include "GeneratedModelTest.h"
#include "ToolProcess.h"
#include "ToolTestSupport.h"
#include "nnemu/tflite/Model.h"
#include "../tflite/ResultCheck.h"

namespace nnemu::tooltest {
namespace {

const char* const kDevices[] = {"synap-npu", "nnapi-reference"};

class ControlFlowRun : public testing::TestWithParam<std::string> {
protected:
    void SetUp() override {
        if (kModelgen.empty()) GTEST_SKIP() << "nnemu_modelgen is not part of this build";
        for (const char* device : kDevices) {
            if (!hasNnapiDevice(device)) GTEST_SKIP() << device << " is not listed";
        }
        dir_ = makeTempDir("controlflow");
        graph_ = dir_ + "/" + GetParam() + ".tflite";
        const ToolRun run = runTool(kModelgen, {GetParam(), graph_});
        ASSERT_EQ(run.exitCode, 0) << run.err;
    }

    std::string dir_, graph_;
};

TEST_P(ControlFlowRun, BenchmarkModelOnBothDevicesMatchesThePlainComputation) {
    const std::unique_ptr<tflite::Model> model = tflite::test::expectValue(tflite::Model::load(graph_));
    ASSERT_NE(model, nullptr);
    const tflite::Tensor& input = model->tensors()[model->inputs()[0]];
    const tflite::Tensor& output = model->tensors()[model->outputs()[0]];
    const std::vector<uint8_t> image = tflite::test::imageBytes(input, 1.0f);
    writeBytes(dir_ + "/input.bin", image);
    const std::vector<float> real = tflite::test::realOf(input, image.data());
    const int size = input.shape[1], c = input.shape[3];
    bool tookThen = false;
    const std::vector<float> expected = GetParam().rfind("while", 0) == 0
                                                ? tflite::test::expectedWhile(*model, real, size, c)
                                                : tflite::test::expectedIf(*model, real, size, c, &tookThen);
    const float tolerance = input.type == tflite::ElementType::INT8 ? 4.0f * output.scale : 1e-4f;
    std::vector<std::vector<uint8_t>> outputs;
    for (const char* device : kDevices) {
        const std::string out = dir_ + "/out_" + device + ".bin";
        std::vector<std::string> args = {"--graph=" + graph_, "--input_file=" + dir_ + "/input.bin",
                                         "--output_file=" + out, "--num_runs=2", "--min_secs=0",
                                         "--warmup_min_secs=0"};
        for (const std::string& flag : deviceFlags(device)) args.push_back(flag);
        const ToolRun run = runTool(BENCHMARK_MODEL_PATH, args, makeTempDir("root"));
        ASSERT_EQ(run.exitCode, 0) << device << ": " << run.err;
        EXPECT_NE(run.err.find("Explicitly applied NNAPI delegate"), std::string::npos) << run.err;
        outputs.push_back(readBytes(out));
        ASSERT_EQ(outputs.back().size(), output.byteSize()) << device;
        const std::vector<float> values = tflite::test::realOf(output, outputs.back().data());
        for (size_t i = 0; i < values.size(); ++i) {
            EXPECT_NEAR(values[i], expected[i], tolerance) << device << " score " << i;
        }
    }
    EXPECT_EQ(outputs[0], outputs[1]) << "synap-npu and nnapi-reference differ";
}

TEST_P(ControlFlowRun, LabelImageGivesTheSameClassesOnBothDevices) {
    SKIP_WITHOUT_SHARED_MODELS();
    const std::string labels = dir_ + "/labels.txt";
    std::ofstream(labels) << "red\ngreen\nblue\n";
    std::vector<std::string> printed;
    for (const char* device : kDevices) {
        const ToolRun run = runTool(LABEL_IMAGE_PATH,
                                    {"-m", graph_, "-i", kModelsDir + "/images/cat.bmp", "-l", labels, "-c", "1",
                                     "-w", "0", std::string("--accelerator_name=") + device},
                                    makeTempDir("root"));
        ASSERT_EQ(run.exitCode, 0) << device << ": " << run.err;
        EXPECT_NE(run.err.find("INFO: Applied NNAPI delegate.\n"), std::string::npos) << run.err;
        std::string results;
        for (const std::string& line : run.errLines()) {
            if (line.ends_with(" red") || line.ends_with(" green") || line.ends_with(" blue")) {
                results += line + "\n";
            }
        }
        EXPECT_FALSE(results.empty()) << run.err;
        printed.push_back(results);
    }
    EXPECT_EQ(printed[0], printed[1]);
}

INSTANTIATE_TEST_SUITE_P(Catalog, ControlFlowRun,
                         testing::Values("while_conv_float", "while_conv_int8", "if_conv_float", "if_conv_int8"));

}  // namespace
}  // namespace nnemu::tooltest
