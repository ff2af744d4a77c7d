// The board documentation's commands on models from nnemu_modelgen, so they work without the
// shared corpus: benchmark_model on a fully delegated MobileNet and on a model whose middle
// operation the NPU lacks (delegate / CPU / delegate, reported and profiled as on the board),
// and label_image on generated classifiers.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "ToolProcess.h"
#include "ToolTestSupport.h"

namespace nnemu::tooltest {
namespace {

#ifdef NNEMU_MODELGEN_PATH
const std::string kModelgen = NNEMU_MODELGEN_PATH;
#else
const std::string kModelgen;
#endif

class GeneratedModelRun : public testing::Test {
protected:
    void SetUp() override {
        if (kModelgen.empty()) GTEST_SKIP() << "nnemu_modelgen is not part of this build";
        dir_ = makeTempDir("generated");
    }

    std::string generate(const std::string& name) {
        const std::string path = dir_ + "/" + name + ".tflite";
        const ToolRun run = runTool(kModelgen, {name, path});
        EXPECT_EQ(run.exitCode, 0) << run.err;
        return path;
    }

    std::string dir_;
};

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
    EXPECT_TRUE(std::regex_search(run.err, std::regex("INFO: Running benchmark for at least 1 iterations and at least 0.5 "
                                                      "seconds but terminate if exceeding 150 seconds.\nINFO: count=")));
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
    EXPECT_NE(run.err.find("INFO: Explicitly applied NNAPI delegate, and the model graph will be partially executed by the "
                           "delegate w/ 2 delegate kernels.\n"),
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

}  // namespace
}  // namespace nnemu::tooltest
