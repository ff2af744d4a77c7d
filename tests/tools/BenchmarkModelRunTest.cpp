// benchmark_model end to end: the output line sequence of the board's tool, delegation lines,
// results through --input_file/--output_file against the shared oracles on every device, and
// clean failures for bad flags and models NNAPI cannot run.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <regex>
#include <string>
#include <vector>

#include "ToolProcess.h"
#include "ToolTestSupport.h"
#include "nnemu/tflite/Model.h"
#include "../tflite/ResultCheck.h"

namespace nnemu::tooltest {
namespace {

const std::string kBenchmark = BENCHMARK_MODEL_PATH;
// Few, short runs: the tests check behaviour, not speed.
const std::vector<std::string> kQuickRuns = {"--num_runs=2", "--min_secs=0", "--warmup_runs=1", "--warmup_min_secs=0"};

ToolRun benchmark(std::vector<std::string> args, const std::string& device = "", bool quick = true) {
    std::vector<std::string> all = args;
    if (quick) all.insert(all.end(), kQuickRuns.begin(), kQuickRuns.end());
    const std::vector<std::string> devices = deviceFlags(device);
    all.insert(all.end(), devices.begin(), devices.end());
    return runTool(kBenchmark, all, makeTempDir("root"));
}

std::string model(const std::string& name) { return kModelsDir + "/models/" + name; }

// Each expected line is a regex that must match the whole line, in order, with nothing between.
void expectLines(const std::vector<std::string>& got, size_t from, const std::vector<std::string>& patterns) {
    ASSERT_GE(got.size(), from + patterns.size()) << "output too short";
    for (size_t i = 0; i < patterns.size(); ++i) {
        EXPECT_TRUE(std::regex_match(got[from + i], std::regex(patterns[i])))
            << "line " << from + i << ": '" << got[from + i] << "' does not match '" << patterns[i] << "'";
    }
}

std::string quote(const std::string& text) {
    static const std::regex special(R"([.^$|()\[\]{}*+?\\])");
    return std::regex_replace(text, special, R"(\$&)");
}

const char* const kNumber = R"([0-9]+(\.[0-9]+)?(e[+-][0-9]+)?)";

TEST(BenchmarkModelRun, CpuLineSequence) {
    SKIP_WITHOUT_SHARED_MODELS();
    const std::string graph = model("hello_world_float.tflite");
    const ToolRun run = runTool(kBenchmark, {"--graph=" + graph, "--num_runs=3", "--min_secs=0", "--warmup_min_secs=0"},
                                makeTempDir("root"));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    const std::string n = kNumber;
    expectLines(run.errLines(), 0,
                {
                    "INFO: STARTING!",
                    "INFO: Tensorflow Version : 2\\.15\\.0",
                    "INFO: Log parameter values verbosely: \\[0\\]",
                    "INFO: Min num runs: \\[3\\]",
                    "INFO: Min runs duration \\(seconds\\): \\[0\\]",
                    "INFO: Min warmup runs duration \\(seconds\\): \\[0\\]",
                    "INFO: Graph: \\[" + quote(graph) + "\\]",
                    "INFO: Loaded model " + quote(graph),
                    "INFO: Initialized TensorFlow Lite runtime\\.",
                    "INFO: Created TensorFlow Lite XNNPACK delegate for CPU\\.",
                    "INFO: The input model file size \\(MB\\): 0\\.003164",
                    "INFO: Initialized session in " + n + "ms\\.",
                    "INFO: Running benchmark for at least 1 iterations and at least 0 seconds but terminate if exceeding 150 seconds\\.",
                    "INFO: count=1 curr=[0-9]+",
                    "",
                    "INFO: Running benchmark for at least 3 iterations and at least 0 seconds but terminate if exceeding 150 seconds\\.",
                    "INFO: count=3 (curr=[0-9]+\\(all same\\)|first=[0-9]+ curr=[0-9]+ min=[0-9]+ max=[0-9]+ avg=" + n + " std=[0-9]+)",
                    "",
                    "INFO: Inference timings in us: Init: [0-9]+, First inference: [0-9]+, Warmup \\(avg\\): " + n +
                        ", Inference \\(avg\\): " + n,
                    "INFO: Note: as the benchmark tool itself affects memory footprint, the following is only APPROXIMATE "
                    "to the actual memory footprint of the model at runtime\\. Take the information at your discretion\\.",
                    "INFO: Memory footprint delta from the start of the tool \\(MB\\): init=-?" + n + " overall=-?" + n,
                });
    EXPECT_EQ(run.errLines().size(), 21u) << run.err;
    EXPECT_TRUE(run.out.empty()) << run.out;
}

TEST(BenchmarkModelRun, NnapiDelegateLines) {
    SKIP_WITHOUT_SHARED_MODELS();
    const std::string graph = model("hello_world_float.tflite");
    const ToolRun run = benchmark({"--graph=" + graph}, "nnapi-reference");
    ASSERT_EQ(run.exitCode, 0) << run.err;
    const auto lines = run.errLines();
    size_t at = 0;
    while (at < lines.size() && lines[at] != "INFO: Use NNAPI: [1]") ++at;
    expectLines(lines, at,
                {
                    "INFO: Use NNAPI: \\[1\\]",
                    "INFO: NNAPI accelerator name: \\[nnapi-reference\\]",
                    "INFO: NNAPI accelerators available: \\[" + quote(joinedNnapiDevices()) + "\\]",
                    "INFO: Loaded model " + quote(graph),
                    "INFO: Initialized TensorFlow Lite runtime\\.",
                    "INFO: Created TensorFlow Lite delegate for NNAPI\\.",
                    "INFO: NNAPI delegate created\\.",
                    "WARNING: NNAPI SL driver did not implement SL_ANeuralNetworksDiagnostic_registerCallbacks!",
                    "VERBOSE: Replacing 3 out of 3 node\\(s\\) with delegate \\(TfLiteNnapiDelegate\\) node, yielding 1 "
                    "partitions for the whole graph\\.",
                    "INFO: Explicitly applied NNAPI delegate, and the model graph will be completely executed by the delegate\\.",
                    "INFO: The input model file size \\(MB\\): 0\\.003164",
                });
}

// TensorFlow Lite's support-library route (nnapi-fl30plus.md §4.5): libneuralnetworks.so named by
// --nnapi_support_library_path is loaded and checked like TFLite does, and the model then runs
// fully delegated on the devices other than nnapi-reference (disable_nnapi_cpu, the default).
TEST(BenchmarkModelRun, SupportLibraryPathRunsFullyDelegated) {
    SKIP_WITHOUT_SHARED_MODELS();
    if (!hasNnapiDevice("synap-npu")) GTEST_SKIP() << "synap-npu is not listed";
    const ToolRun run = benchmark({"--graph=" + model("hello_world_float.tflite"), "--use_nnapi=true",
                                   "--nnapi_support_library_path=" + std::string(NNEMU_LIBRARY_PATH)});
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_NE(run.err.find("INFO: Loaded NNAPI support library from path: " + std::string(NNEMU_LIBRARY_PATH) +
                           " (feature level 1000007)"),
              std::string::npos)
        << run.err;
    EXPECT_NE(run.err.find("Replacing 3 out of 3 node(s) with delegate"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("the model graph will be completely executed by the delegate"), std::string::npos) << run.err;
    // The table has the diagnostic hook the plain library's exports lack.
    EXPECT_EQ(run.err.find("did not implement SL_ANeuralNetworksDiagnostic_registerCallbacks"), std::string::npos)
        << run.err;
}

TEST(BenchmarkModelRun, SupportLibraryThatDoesNotLoadLeavesTheModelOnTheCpu) {
    SKIP_WITHOUT_SHARED_MODELS();
    const ToolRun run = benchmark({"--graph=" + model("hello_world_float.tflite"), "--use_nnapi=true",
                                   "--nnapi_support_library_path=/nonexistent/libnothing.so"});
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_NE(run.err.find("ERROR: Couldn't load NNAPI support library from path: /nonexistent/libnothing.so"),
              std::string::npos)
        << run.err;
    EXPECT_EQ(run.err.find("with delegate"), std::string::npos) << run.err;
}

TEST(BenchmarkModelRun, VerboseLogsEveryParameter) {
    SKIP_WITHOUT_SHARED_MODELS();
    const ToolRun run = benchmark({"--graph=" + model("hello_world_float.tflite"), "--verbose=true"});
    ASSERT_EQ(run.exitCode, 0) << run.err;
    for (const char* line : {"INFO: Log parameter values verbosely: [1]", "INFO: Max runs duration (seconds): [150]",
                             "INFO: Min warmup runs: [1]", "INFO: Num threads: [-1]", "INFO: Enable op profiling: [0]",
                             "INFO: Max number of delegated partitions: [0]", "INFO: Use NNAPI: [0]"}) {
        EXPECT_NE(run.err.find(std::string(line) + "\n"), std::string::npos) << line;
    }
}

TEST(BenchmarkModelRun, AcceleratorWithoutUseNnapiWarns) {
    SKIP_WITHOUT_SHARED_MODELS();
    const ToolRun run = benchmark({"--graph=" + model("hello_world_float.tflite"), "--nnapi_accelerator_name=synap-npu"});
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_NE(run.err.find("WARNING: `--use_nnapi=true` must be set for the provided NNAPI accelerator (synap-npu) to be used.\n"),
              std::string::npos)
        << run.err;
}

TEST(BenchmarkModelRun, OpProfilingTables) {
    SKIP_WITHOUT_SHARED_MODELS();
    const ToolRun run = benchmark({"--graph=" + model("hello_world_float.tflite"), "--enable_op_profiling=true"},
                                  "nnapi-reference");
    ASSERT_EQ(run.exitCode, 0) << run.err;
    const std::string& err = run.err;
    const size_t timings = err.find("INFO: Inference timings in us:");
    const size_t init = err.find("INFO: Profiling Info for Benchmark Initialization:\n"
                                 "============================== Run Order ==============================\n");
    const size_t regular = err.find("INFO: Operator-wise Profiling Info for Regular Benchmark Runs:\n"
                                    "============================== Run Order ==============================\n");
    ASSERT_NE(timings, std::string::npos);
    ASSERT_NE(init, std::string::npos) << err;
    ASSERT_NE(regular, std::string::npos) << err;
    EXPECT_LT(timings, init);
    EXPECT_LT(init, regular);
    EXPECT_NE(err.find("INFO: Enable op profiling: [1]\n"), std::string::npos);
    const std::string tail = err.substr(regular);
    EXPECT_TRUE(std::regex_search(tail, std::regex("\n\t {21}TfLiteNnapiDelegate\t +[0-9]+\\.[0-9]{3}\t +[0-9]+\\.[0-9]{3}\t"
                                                   "100\\.000%\t100\\.000%\t +0\\.000\t +1\t\\[[^\n]*\\]:3\n")))
        << tail;
    EXPECT_NE(tail.find("============================== Top by Computation Time =============================="), std::string::npos);
    EXPECT_NE(tail.find("Number of nodes executed: 1\n============================== Summary by node type"), std::string::npos);
    EXPECT_NE(tail.find("Timings (microseconds): count=2 "), std::string::npos) << tail;
    EXPECT_NE(tail.find("Memory (bytes): count=0\n1 nodes observed\n"), std::string::npos);
}

TEST(BenchmarkModelRun, ProfilingCsvFile) {
    SKIP_WITHOUT_SHARED_MODELS();
    const std::string csv = makeTempDir("csv") + "/profile.csv";
    const ToolRun run = benchmark({"--graph=" + model("hello_world_float.tflite"), "--enable_op_profiling=true",
                                   "--profiling_output_csv_file=" + csv});
    ASSERT_EQ(run.exitCode, 0) << run.err;
    const std::vector<uint8_t> bytes = readBytes(csv);
    const std::string text(bytes.begin(), bytes.end());
    EXPECT_NE(text.find("Operator-wise Profiling Info for Regular Benchmark Runs:\n"), std::string::npos) << text;
    EXPECT_NE(text.find("node type, first, avg_ms, %, cdf%, mem KB, times called, name\n"), std::string::npos) << text;
    EXPECT_EQ(run.err.find("Run Order"), std::string::npos);
}

// --- results against the shared oracles, on every device ------------------------------------

class BenchmarkModelOnDevice : public testing::TestWithParam<std::string> {
protected:
    void SetUp() override {
        if (!GetParam().empty() && !hasNnapiDevice(GetParam())) {
            GTEST_SKIP() << "NNAPI device " << GetParam() << " is not listed (devices: " << joinedNnapiDevices() << ")";
        }
        dir_ = makeTempDir("io");
    }

    // Runs the model on inputs (raw bytes, input order) and returns its outputs.
    std::vector<std::vector<uint8_t>> runModel(const std::string& graph, const std::vector<std::vector<uint8_t>>& inputs,
                                               size_t outputs) {
        std::string inputList, outputList;
        for (size_t i = 0; i < inputs.size(); ++i) {
            const std::string path = dir_ + "/in" + std::to_string(i) + ".bin";
            writeBytes(path, inputs[i]);
            inputList += (i ? "," : "") + path;
        }
        for (size_t i = 0; i < outputs; ++i) outputList += (i ? "," : "") + dir_ + "/out" + std::to_string(i) + ".bin";
        const ToolRun run = benchmark({"--graph=" + graph, "--input_file=" + inputList, "--output_file=" + outputList}, GetParam());
        EXPECT_EQ(run.exitCode, 0) << run.err;
        std::vector<std::vector<uint8_t>> results;
        for (size_t i = 0; i < outputs; ++i) results.push_back(readBytes(dir_ + "/out" + std::to_string(i) + ".bin"));
        return results;
    }

    std::string dir_;
};

std::vector<uint8_t> floatBytes(float value) {
    std::vector<uint8_t> bytes(sizeof value);
    std::memcpy(bytes.data(), &value, sizeof value);
    return bytes;
}

TEST_P(BenchmarkModelOnDevice, HelloWorldFloat) {
    SKIP_WITHOUT_SHARED_MODELS();
    for (float x : {0.0f, 1.0f, 3.0f, 5.0f}) {
        const auto outputs = runModel(model("hello_world_float.tflite"), {floatBytes(x)}, 1);
        ASSERT_EQ(outputs[0].size(), sizeof(float)) << "x=" << x;
        float y = 0;
        std::memcpy(&y, outputs[0].data(), sizeof y);
        EXPECT_LE(std::fabs(y - std::sin(x)), 0.05f) << "x=" << x << " y=" << y;
    }
}

TEST_P(BenchmarkModelOnDevice, HelloWorldInt8) {
    SKIP_WITHOUT_SHARED_MODELS();
    const std::vector<std::pair<int8_t, float>> cases = {{-96, 0.77f}, {-63, 1.57f}, {-34, 2.3f}, {0, 3.14f}};
    for (const auto& [xq, x] : cases) {
        const auto outputs = runModel(model("hello_world_int8.tflite"), {{static_cast<uint8_t>(xq)}}, 1);
        ASSERT_EQ(outputs[0].size(), 1u);
        const float y = (static_cast<int8_t>(outputs[0][0]) - 5) * 0.00829096f;
        EXPECT_LE(std::fabs(y - std::sin(x)), 0.05f) << "x=" << x << " y_q=" << int(static_cast<int8_t>(outputs[0][0]));
    }
}

TEST_P(BenchmarkModelOnDevice, PersonDetection) {
    SKIP_WITHOUT_SHARED_MODELS();
    for (const std::string image : {"person", "no_person"}) {
        const auto input = readBytes(kModelsDir + "/inputs/" + image + "_96x96x1_i8.bin");
        const auto outputs = runModel(model("person_detect.tflite"), {input}, 1);
        ASSERT_EQ(outputs[0].size(), 2u) << image;
        const int noPerson = static_cast<int8_t>(outputs[0][0]), person = static_cast<int8_t>(outputs[0][1]);
        if (image == "person") {
            EXPECT_GT(person, noPerson);
        } else {
            EXPECT_GT(noPerson, person);
        }
    }
}

TEST_P(BenchmarkModelOnDevice, SplitConcatExact) {
    SKIP_WITHOUT_SHARED_MODELS();
    const auto loaded = tflite::test::expectValue(tflite::Model::load(model("split_concat.tflite")));
    ASSERT_NE(loaded, nullptr);
    // Inputs by name: input1 [1,8,8,3], rnn1 [1,8,8,1], rnn2 [1,8,8,2], each with distinct bytes.
    std::vector<std::vector<uint8_t>> inputs;
    std::vector<uint8_t> input1, rnn1, rnn2;
    for (size_t i = 0; i < loaded->inputs().size(); ++i) {
        const tflite::Tensor& tensor = loaded->tensors()[loaded->inputs()[i]];
        std::vector<uint8_t> bytes(tensor.byteSize());
        for (size_t b = 0; b < bytes.size(); ++b) bytes[b] = static_cast<uint8_t>(b * 7 + i * 61 + 3);
        if (tensor.name == "input1") input1 = bytes;
        if (tensor.name == "inputs/rnn1") rnn1 = bytes;
        if (tensor.name == "inputs/rnn2") rnn2 = bytes;
        inputs.push_back(bytes);
    }
    ASSERT_EQ(input1.size(), 192u);
    ASSERT_EQ(rnn1.size(), 64u);
    ASSERT_EQ(rnn2.size(), 128u);
    const auto channel = [](const std::vector<uint8_t>& t, size_t channels, size_t c) {
        std::vector<uint8_t> out;
        for (size_t p = 0; p < 64; ++p) out.push_back(t[p * channels + c]);
        return out;
    };
    std::vector<uint8_t> concat;
    for (size_t p = 0; p < 64; ++p) concat.insert(concat.end(), {rnn1[p], rnn2[p * 2 + 1]});
    const std::vector<std::vector<uint8_t>> expected = {channel(input1, 3, 0), channel(input1, 3, 2), channel(rnn2, 2, 0),
                                                        channel(input1, 3, 1), concat};
    ASSERT_EQ(loaded->outputs().size(), expected.size());
    const auto outputs = runModel(model("split_concat.tflite"), inputs, expected.size());
    for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(outputs[i], expected[i]) << "output " << i;
}

TEST_P(BenchmarkModelOnDevice, NegativeModelIsRejectedCleanly) {
    SKIP_WITHOUT_SHARED_MODELS();
    const ToolRun run = benchmark({"--graph=" + model("negative/model_invoking_error.tflite")}, GetParam());
    EXPECT_EQ(run.signal, 0);
    EXPECT_EQ(run.exitCode, 1) << run.err;
    EXPECT_NE(run.err.find("fake-op-double"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("ERROR: Benchmarking failed.\n"), std::string::npos) << run.err;
}

// int16 (16x8 quantized) models have no NNAPI form: they run on the tools' CPU kernels
// (exactness against TFLM's golden outputs: tests/tflite/TflmGoldenTest.cpp).
TEST_P(BenchmarkModelOnDevice, Int16ActivationsRunOnTheCpuKernels) {
    SKIP_WITHOUT_SHARED_MODELS();
    for (const std::string test : {"add/add0", "conv/conv0"}) {
        const ToolRun run =
            benchmark({"--graph=" + kModelsDir + "/tflm_integration_tests/seanet/" + test + ".tflite"}, GetParam());
        EXPECT_EQ(run.signal, 0) << test;
        EXPECT_EQ(run.exitCode, 0) << test << "\n" << run.err;
    }
}

INSTANTIATE_TEST_SUITE_P(Devices, BenchmarkModelOnDevice, testing::Values("", "nnapi-reference", "synap-npu"),
                         [](const testing::TestParamInfo<std::string>& info) {
                             return info.param.empty() ? std::string("cpu")
                                                       : std::regex_replace(info.param, std::regex("-"), "_");
                         });

// --- partial delegation ---------------------------------------------------------------------

TEST(BenchmarkModelRun, RequireFullDelegationMatchesTheDelegationLine) {
    SKIP_WITHOUT_SHARED_MODELS();
    if (!hasNnapiDevice("synap-npu")) GTEST_SKIP() << "synap-npu is not listed";
    const std::string graph = model("tf2_mobilenet_v2_1.0_224_ptq.tflite");
    const ToolRun plain = benchmark({"--graph=" + graph}, "synap-npu");
    ASSERT_EQ(plain.exitCode, 0) << plain.err;
    const bool complete = plain.err.find("will be completely executed by the delegate.") != std::string::npos;
    const ToolRun strict = benchmark({"--graph=" + graph, "--require_full_delegation=true"}, "synap-npu");
    if (complete) {
        EXPECT_EQ(strict.exitCode, 0) << strict.err;
    } else {
        EXPECT_EQ(strict.exitCode, 1);
        EXPECT_NE(strict.err.find("ERROR: Disallowed CPU fallback detected.\n"), std::string::npos) << strict.err;
        // The partition line counts CPU subsets too: more partitions than delegate kernels.
        std::smatch match;
        ASSERT_TRUE(std::regex_search(plain.err, match, std::regex("yielding ([0-9]+) partitions for the whole graph\\.\n")));
        const int partitions = std::stoi(match[1]);
        ASSERT_TRUE(std::regex_search(plain.err, match, std::regex("partially executed by the delegate w/ ([0-9]+) delegate kernels\\.")));
        EXPECT_GT(partitions, std::stoi(match[1]));
    }
}

// --- bad input -------------------------------------------------------------------------------

TEST(BenchmarkModelRun, FlagErrorsFailCleanly) {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"--graph=x.tflite", "--num_run=3"}, "ERROR: Unconsumed cmdline flags: --num_run=3"},
        {{"--graph=x.tflite", "--use_nnapi=yes"}, "ERROR: Failed to parse flag 'use_nnapi' against argv '--use_nnapi=yes'"},
        {{"--graph=x.tflite", "--num_runs=ten"}, "ERROR: Failed to parse flag 'num_runs' against argv '--num_runs=ten'"},
        {{"--graph=x.tflite", "--use_nnapi"}, "ERROR: Flag 'use_nnapi' needs a value: --use_nnapi=VALUE"},
        {{}, "ERROR: Please specify the name of your TF Lite input file with --graph"},
        {{"--graph=/nonexistent/model.tflite"}, "ERROR: Failed to mmap model /nonexistent/model.tflite"},
    };
    for (const auto& [args, message] : cases) {
        const ToolRun run = runTool(kBenchmark, args, makeTempDir("root"));
        EXPECT_EQ(run.signal, 0) << message;
        EXPECT_EQ(run.exitCode, 1) << message;
        EXPECT_NE(run.err.find(message + "\n"), std::string::npos) << run.err;
        EXPECT_NE(run.err.find("ERROR: Benchmarking failed.\n"), std::string::npos) << run.err;
    }
}

TEST(BenchmarkModelRun, MalformedModelFailsCleanly) {
    const std::string dir = makeTempDir("bad");
    writeBytes(dir + "/garbage.tflite", std::vector<uint8_t>(100, 0xAB));
    writeBytes(dir + "/empty.tflite", {});
    for (const std::string name : {"garbage.tflite", "empty.tflite"}) {
        const ToolRun run = runTool(kBenchmark, {"--graph=" + dir + "/" + name}, makeTempDir("root"));
        EXPECT_EQ(run.signal, 0) << name;
        EXPECT_EQ(run.exitCode, 1) << name;
        EXPECT_NE(run.err.find("ERROR: Benchmarking failed.\n"), std::string::npos) << run.err;
    }
}

TEST(BenchmarkModelRun, InputFileErrors) {
    SKIP_WITHOUT_SHARED_MODELS();
    const std::string dir = makeTempDir("in");
    writeBytes(dir + "/short.bin", {1, 2});
    const std::string graph = "--graph=" + model("hello_world_float.tflite");
    ToolRun run = benchmark({graph, "--input_file=" + dir + "/short.bin"});
    EXPECT_EQ(run.exitCode, 1);
    EXPECT_NE(run.err.find("ERROR: The size of " + dir + "/short.bin is 2 bytes. It should be 4 bytes.\n"), std::string::npos)
        << run.err;
    run = benchmark({graph, "--input_file=" + dir + "/a.bin," + dir + "/b.bin"});
    EXPECT_EQ(run.exitCode, 1);
    EXPECT_NE(run.err.find("ERROR: --input_file names 2 file(s) but the model has 1 input(s).\n"), std::string::npos) << run.err;
    run = benchmark({graph, "--input_file=" + dir + "/missing.bin"});
    EXPECT_EQ(run.exitCode, 1);
    EXPECT_NE(run.err.find("missing.bin"), std::string::npos) << run.err;
}

TEST(BenchmarkModelRun, HelpListsTheFlags) {
    const ToolRun run = runTool(kBenchmark, {"--help"});
    EXPECT_EQ(run.exitCode, 0);
    EXPECT_EQ(run.out.rfind("usage: benchmark_model <flags>\n", 0), 0u) << run.out;
    EXPECT_NE(run.out.find("--input_file="), std::string::npos);
}

}  // namespace
}  // namespace nnemu::tooltest
