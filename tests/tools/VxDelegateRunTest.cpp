// The board's vx command (synap-behaviors.md §6.1) under nnemu's benchmark_model on generated
// MobileNets: libvx_delegate.so found by name, its lines, inference_count moving, and the
// outputs equal to nnemu's NNAPI path, with vendor.NNAPI_SYNAP_DISABLE=1 too (it only hides the
// NNAPI device). Bad options leave the graph to the CPU path with a clear message.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "GeneratedModelTest.h"
#include "StatisticsFiles.h"
#include "ToolProcess.h"
#include "ToolTestSupport.h"

namespace nnemu::tooltest {
namespace {

const std::string kVxFlag = "--external_delegate_path=libvx_delegate.so";

using props::testing::readInferenceCount;

class VxDelegateRun : public GeneratedModelTest {
protected:
    VxDelegateRun() : GeneratedModelTest("vx") {}

    // benchmark_model with fixed random inputs, two regular runs; the output bytes ("" on failure).
    std::string runOnce(const std::string& graph, std::vector<std::string> flags, const std::string& root,
                        ToolRun* run) {
        const std::string output = dir_ + "/out.bin";
        std::filesystem::remove(output);
        std::vector<std::string> args = {"--graph=" + graph, "--output_file=" + output, "--num_runs=2",
                                         "--min_secs=0", "--warmup_min_secs=0"};
        args.insert(args.end(), flags.begin(), flags.end());
        *run = runTool(BENCHMARK_MODEL_PATH, args, root);
        const std::vector<uint8_t> bytes = run->exitCode == 0 ? readBytes(output) : std::vector<uint8_t>{};
        return std::string(bytes.begin(), bytes.end());
    }

};

TEST_F(VxDelegateRun, BoardCommandVerbatim) {
    const std::string graph = generate("mobilenet_v1_0.25_128_quant");
    const std::string root = makeTempDir("root");
    const ToolRun run = runTool(BENCHMARK_MODEL_PATH, {"--graph=" + graph, kVxFlag}, root);
    ASSERT_EQ(run.exitCode, 0) << run.err;
    // Found by name through the tool's library path; the line shows where (synap-behaviors.md §6.1).
    const std::string lines = "INFO: External delegate path: [" + std::string(VX_DELEGATE_PATH) + "]\n";
    EXPECT_NE(run.err.find(lines), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("INFO: Vx delegate: allowed_cache_mode set to 0.\n"
                           "INFO: Vx delegate: device num set to 0.\n"
                           "INFO: Vx delegate: allowed_builtin_code set to 0.\n"
                           "INFO: Vx delegate: error_during_init set to 0.\n"
                           "INFO: Vx delegate: error_during_prepare set to 0.\n"
                           "INFO: Vx delegate: error_during_invoke set to 0.\n"
                           "INFO: EXTERNAL delegate created.\n"
                           "VERBOSE: Replacing 31 out of 31 node(s) with delegate (Vx Delegate) node, yielding 1 "
                           "partitions for the whole graph.\n"
                           "INFO: Explicitly applied EXTERNAL delegate, and the model graph will be completely executed "
                           "by the delegate.\n"),
              std::string::npos)
            << run.err;
    EXPECT_EQ(run.err.find("Fallback unsupported op"), std::string::npos) << run.err;
    const std::string count = readInferenceCount(root);
    ASSERT_FALSE(count.empty());
    EXPECT_GE(std::stoll(count), 51);  // at least one warm-up and 50 regular runs
}

// The board's command verbatim (no other flag) on every shared model, with
// vendor.NNAPI_SYNAP_DISABLE=1: each runs on the NPU through the delegate and counts there.
TEST_F(VxDelegateRun, BoardCommandOnTheSharedModelsWithNnapiDisabled) {
    const std::string models = std::string(NNEMU_SHARED_DIR) + "/models/models";
    if (!std::filesystem::is_directory(models)) GTEST_SKIP() << "no shared models in " << models;
    size_t tried = 0;
    for (const auto& entry : std::filesystem::directory_iterator(models)) {
        if (entry.path().extension() != ".tflite") continue;
        ++tried;
        const std::string root = makeTempDir("root");
        ASSERT_EQ(runTool(SETPROP_PATH, {"vendor.NNAPI_SYNAP_DISABLE", "1"}, root).exitCode, 0);
        const ToolRun run = runTool(BENCHMARK_MODEL_PATH, {"--graph=" + entry.path().string(), kVxFlag}, root);
        ASSERT_EQ(run.exitCode, 0) << entry.path() << "\n" << run.err;
        EXPECT_NE(run.err.find("INFO: EXTERNAL delegate created.\n"), std::string::npos) << run.err;
        EXPECT_NE(run.err.find("with delegate (Vx Delegate) node"), std::string::npos) << run.err;
        const std::string count = readInferenceCount(root);
        ASSERT_FALSE(count.empty()) << entry.path();
        EXPECT_GE(std::stoll(count), 2) << entry.path();  // the warm-up and at least one regular run
    }
    EXPECT_GE(tried, 1u);
}

TEST_F(VxDelegateRun, SameOutputsAsTheNnapiPathWithAndWithoutNnapiDisabled) {
    for (const std::string name : {"mobilenet_v1_0.25_128_quant", "mobilenet_v1_0.25_128_int8",
                                   "mobilenet_v1_0.25_128_full_int8"}) {
        const std::string graph = generate(name);
        ToolRun run;
        const std::string nnapiRoot = makeTempDir("root");
        const std::string nnapi = runOnce(graph, deviceFlags("synap-npu"), nnapiRoot, &run);
        ASSERT_FALSE(nnapi.empty()) << name << "\n" << run.err;
        ASSERT_NE(run.err.find("(TfLiteNnapiDelegate) node, yielding 1 partitions"), std::string::npos) << run.err;
        for (const bool disabled : {false, true}) {
            const std::string root = makeTempDir("root");
            if (disabled) {
                const ToolRun set = runTool(SETPROP_PATH, {"vendor.NNAPI_SYNAP_DISABLE", "1"}, root);
                ASSERT_EQ(set.exitCode, 0) << set.err;
            }
            const std::string vx = runOnce(graph, {kVxFlag}, root, &run);
            ASSERT_FALSE(vx.empty()) << name << "\n" << run.err;
            EXPECT_NE(run.err.find("(Vx Delegate) node, yielding 1 partitions"), std::string::npos) << run.err;
            EXPECT_EQ(vx, nnapi) << name << (disabled ? " with vendor.NNAPI_SYNAP_DISABLE=1" : "");
            EXPECT_EQ(readInferenceCount(root), "3\n") << name;  // one warm-up and two runs on the NPU
        }
    }
}

TEST_F(VxDelegateRun, BadOptionsLeaveTheGraphOnTheCpuPath) {
    const std::string graph = generate("mobilenet_v1_0.25_128_quant");
    ToolRun run;
    const std::string cpu = runOnce(graph, {}, makeTempDir("root"), &run);
    ASSERT_FALSE(cpu.empty()) << run.err;
    const std::string refused = "ERROR: the external delegate libvx_delegate.so refused its options and created no "
                                "delegate\n";
    const std::pair<std::string, std::string> cases[] = {
            {"allowed_cache_mode:maybe",
             "ERROR: Vx delegate: bad value 'maybe' for option allowed_cache_mode (expected 0, 1, true or false)\n" +
                     refused},
            {"device_id:-3",
             "ERROR: Vx delegate: bad value '-3' for option device_id (expected a non-negative integer)\n" + refused},
            {"allowed_builtin_code:3x",
             "ERROR: Vx delegate: bad value '3x' for option allowed_builtin_code (expected a non-negative integer)\n" +
                     refused},
            {"device_id", "ERROR: malformed external delegate option 'device_id' (expected key:value)\n"}};
    for (const auto& [options, message] : cases) {
        const std::string root = makeTempDir("root");
        const std::string out = runOnce(graph, {kVxFlag, "--external_delegate_options=" + options}, root, &run);
        ASSERT_FALSE(out.empty()) << options << "\n" << run.err;
        EXPECT_EQ(out, cpu) << options;
        EXPECT_NE(run.err.find(message), std::string::npos) << run.err;
        EXPECT_NE(run.err.find("WARNING: EXTERNAL delegate not created: the graph runs on the CPU path.\n"),
                  std::string::npos)
                << run.err;
        EXPECT_EQ(readInferenceCount(root), "") << options;
    }
    // An unknown key is only a warning; the delegate still runs the graph.
    const std::string out = runOnce(graph, {kVxFlag, "--external_delegate_options=no_such_key:1"}, makeTempDir("root"), &run);
    ASSERT_FALSE(out.empty()) << run.err;
    EXPECT_NE(run.err.find("WARNING: Vx delegate: unknown option 'no_such_key' ignored.\n"), std::string::npos);
    EXPECT_NE(run.err.find("(Vx Delegate) node, yielding 1 partitions"), std::string::npos) << run.err;
}

// allowed_cache_mode under the tool: the first run saves the compiled graph, the second loads it
// and gives the same outputs.
TEST_F(VxDelegateRun, CacheFileSavedThenLoaded) {
    const std::string graph = generate("mobilenet_v1_0.25_128_quant");
    const std::string cache = dir_ + "/m.nbg";
    const std::string options = "--external_delegate_options=allowed_cache_mode:1;cache_file_path:" + cache;
    ToolRun run;
    const std::string first = runOnce(graph, {kVxFlag, options}, makeTempDir("root"), &run);
    ASSERT_FALSE(first.empty()) << run.err;
    EXPECT_NE(run.err.find("INFO: Vx delegate: compiled graph saved to " + cache + ".\n"), std::string::npos) << run.err;
    const std::string second = runOnce(graph, {kVxFlag, options}, makeTempDir("root"), &run);
    EXPECT_EQ(second, first);
    EXPECT_NE(run.err.find("INFO: Vx delegate: compiled graph loaded from " + cache + "; compilation skipped.\n"),
              std::string::npos)
            << run.err;
}

TEST_F(VxDelegateRun, FailingKernelPrepareRestoresTheCpuPlan) {
    const std::string graph = generate("mobilenet_v1_0.25_128_quant");
    ToolRun run;
    const std::string cpu = runOnce(graph, {}, makeTempDir("root"), &run);
    const std::string out = runOnce(graph, {kVxFlag, "--external_delegate_options=error_during_prepare:1"},
                                    makeTempDir("root"), &run);
    ASSERT_FALSE(out.empty()) << run.err;
    EXPECT_EQ(out, cpu);
    EXPECT_NE(run.err.find("WARNING: Restored original execution plan after delegate application failure.\n"),
              std::string::npos)
            << run.err;
}

TEST_F(VxDelegateRun, PartialDelegationFallsBackPerOperator) {
    const std::string graph = generate("mixed_resize_nearest");
    ToolRun run;
    const std::string nnapi = runOnce(graph, deviceFlags("synap-npu"), makeTempDir("root"), &run);
    ASSERT_FALSE(nnapi.empty()) << run.err;
    const std::string vx = runOnce(graph, {kVxFlag}, makeTempDir("root"), &run);
    ASSERT_FALSE(vx.empty()) << run.err;
    EXPECT_EQ(vx, nnapi);
    EXPECT_NE(run.err.find("WARNING: Fallback unsupported op 97 to TfLite\n"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("VERBOSE: Replacing 2 out of 3 node(s) with delegate (Vx Delegate) node, yielding 3 "
                           "partitions for the whole graph.\n"),
              std::string::npos)
            << run.err;
}

}  // namespace
}  // namespace nnemu::tooltest
