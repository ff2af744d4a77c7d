// benchmark_model writing a trace (NNEMU_TRACE or --nnemu_trace) of generated models: the file
// parses, spans nest per thread, each execution's partitions fit inside it, the first inference
// shows the JIT, profiling mode adds one event per NPU layer with its unit; tracing off writes
// nothing and an unusable path costs one warning. Nothing is asserted on time.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "../base/TraceCheck.h"
#include "GeneratedModelTest.h"
#include "ToolProcess.h"
#include "ToolTestSupport.h"

namespace nnemu::tooltest {
namespace {

using trace::testing::inside;
using trace::testing::named;
using trace::testing::nestingViolation;
using trace::testing::readTrace;
using trace::testing::Trace;

class TraceRun : public GeneratedModelTest {
protected:
    TraceRun() : GeneratedModelTest("trace") {}

    void SetUp() override {
        GeneratedModelTest::SetUp();
        if (IsSkipped()) return;
        if (!hasNnapiDevice("synap-npu")) GTEST_SKIP() << "synap-npu is not listed";
        root_ = makeTempDir("root");
    }

    void TearDown() override {
        std::error_code ignored;
        if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
        if (!root_.empty()) std::filesystem::remove_all(root_, ignored);
    }

    // Two timed runs after one warm-up, through NNAPI; the CPU device is allowed, so a model the
    // NPU takes only partly is partitioned by the runtime.
    ToolRun benchmark(const std::string& graph, std::vector<std::string> extraArgs,
                      const std::vector<std::string>& environment) {
        std::vector<std::string> args = {"--graph=" + graph, "--use_nnapi=true", "--disable_nnapi_cpu=false",
                                         "--num_runs=2", "--min_secs=0", "--warmup_runs=1", "--warmup_min_secs=0"};
        args.insert(args.end(), extraArgs.begin(), extraArgs.end());
        ToolRun run = runTool(BENCHMARK_MODEL_PATH, args, root_, environment);
        EXPECT_EQ(run.exitCode, 0) << run.err;
        return run;
    }

    std::string root_;
};

// Each execution holds its partitions, on devices, and they take no more than it does.
void expectExecutionsHoldTheirPartitions(const Trace& trace, size_t partitionsEach) {
    const auto executions = named(trace, "execution");
    EXPECT_GE(executions.size(), 3u);  // warm-up and two runs
    for (const auto* execution : executions) {
        EXPECT_EQ(execution->args["partitions"], partitionsEach);
        EXPECT_EQ(execution->args["result"], 0);
        const auto partitions = inside(trace, *execution, "partition");
        EXPECT_EQ(partitions.size(), partitionsEach);
        int64_t total = 0;
        for (const auto* partition : partitions) {
            const std::string device = partition->args["device"];
            EXPECT_TRUE(device == "synap-npu" || device == "nnapi-reference") << device;
            EXPECT_EQ(partition->name, device);
            total += partition->durationNs();
        }
        EXPECT_LE(total, execution->durationNs());
    }
}

TEST_F(TraceRun, EnvironmentVariableTracesAPartitionedRun) {
    const std::string graph = generate("mixed_resize_nearest");  // NPU / CPU / NPU
    const std::string path = dir_ + "/trace.json";
    benchmark(graph, {}, {"NNEMU_TRACE=" + path});
    const Trace trace = readTrace(path);
    EXPECT_EQ(nestingViolation(trace.events), "");
    EXPECT_EQ(trace.processNames.size(), 1u);
    expectExecutionsHoldTheirPartitions(trace, 3);
    EXPECT_FALSE(named(trace, "compilation").empty());
    EXPECT_FALSE(named(trace, "validate").empty());
    // The first inference of each NPU partition compiles it: a cold JIT, inside a partition.
    const auto jits = named(trace, "jit");
    EXPECT_EQ(jits.size(), 2u);
    for (const auto* jit : jits) {
        std::set<std::string> steps;
        for (const auto* step : inside(trace, *jit, "jit")) steps.insert(step->name);
        EXPECT_EQ(steps, (std::set<std::string>{"synap cache lookup", "lowering", "core load", "synap cache store"}));
    }
    for (const auto* run : named(trace, "npu run")) {
        EXPECT_EQ(inside(trace, *run, "npu").size(), 2u) << "copy inputs, copy outputs";
    }
    EXPECT_TRUE(named(trace, "npu layer").empty()) << "layers are traced in profiling mode only";
    EXPECT_TRUE(std::filesystem::is_regular_file(path));
}

TEST_F(TraceRun, FlagTracesEveryLayerInProfilingMode) {
    const ToolRun setprop = runTool(SETPROP_PATH, {"vendor.NNAPI_SYNAP_PROFILE", "1"}, root_);
    ASSERT_EQ(setprop.exitCode, 0) << setprop.err;
    const std::string graph = generate("conv_net_quant");
    const std::string path = dir_ + "/profiled.json";
    const ToolRun run = benchmark(graph, {"--nnemu_trace=" + path}, {"NNEMU_TRACE"});
    EXPECT_NE(run.err.find("nnemu trace file: [" + path + "]"), std::string::npos) << run.err;
    const Trace trace = readTrace(path);
    EXPECT_EQ(nestingViolation(trace.events), "");
    expectExecutionsHoldTheirPartitions(trace, 1);
    const auto runs = named(trace, "npu run");
    EXPECT_GE(runs.size(), 3u);
    for (const auto* npuRun : runs) {
        const auto layers = inside(trace, *npuRun, "npu layer");
        EXPECT_EQ(layers.size(), npuRun->args["layers"].get<size_t>());
        for (size_t i = 0; i < layers.size(); ++i) {
            const std::string unit = layers[i]->args["unit"];
            EXPECT_TRUE(unit == "NN" || unit == "TP" || unit == "SH") << unit;
        }
    }
}

// Unset or empty, NNEMU_TRACE writes nothing anywhere the run can be seen to write.
TEST_F(TraceRun, OffWritesNothing) {
    const std::string graph = generate("conv_quant");
    const auto before = std::distance(std::filesystem::directory_iterator(dir_), {});
    benchmark(graph, {}, {"NNEMU_TRACE"});
    benchmark(graph, {}, {"NNEMU_TRACE="});
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), {}), before);
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root_)) {
        EXPECT_NE(entry.path().extension(), ".json") << entry.path();
    }
}

TEST_F(TraceRun, AnUnwritablePathWarnsOnceAndRunsUntraced) {
    const std::string graph = generate("conv_quant");
    const std::string path = dir_ + "/no such folder/trace.json";
    const ToolRun run = benchmark(graph, {"--nnemu_trace=" + path}, {});
    size_t warnings = 0;
    for (const std::string& line : run.errLines()) warnings += line.find("NNEMU_TRACE") != std::string::npos;
    EXPECT_EQ(warnings, 1u) << run.err;
    EXPECT_FALSE(std::filesystem::exists(path));
}

TEST_F(TraceRun, AFileThatIsNoTraceIsLeftAlone) {
    const std::string graph = generate("conv_quant");
    const std::string path = dir_ + "/notes.json";
    std::ofstream(path) << "{\"mine\": true}\n";
    const ToolRun run = benchmark(graph, {}, {"NNEMU_TRACE=" + path});
    EXPECT_NE(run.err.find("NNEMU_TRACE"), std::string::npos) << run.err;
    std::ifstream file(path);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(file), {}), "{\"mine\": true}\n");
}

// Processes tracing to one path at the same time each add their events under their own pid.
TEST_F(TraceRun, ConcurrentProcessesShareOneFile) {
    const std::string graph = generate("conv_quant");
    const std::string path = dir_ + "/shared.json";
    std::thread other([&] { benchmark(graph, {}, {"NNEMU_TRACE=" + path}); });
    benchmark(graph, {}, {"NNEMU_TRACE=" + path});
    other.join();
    const Trace trace = readTrace(path);
    EXPECT_EQ(nestingViolation(trace.events), "");
    ASSERT_EQ(trace.processNames.size(), 2u);
    for (const auto& [pid, name] : trace.processNames) {
        EXPECT_EQ(name, "benchmark_model");
        size_t executions = 0;
        for (const auto* execution : named(trace, "execution")) executions += execution->pid == pid;
        EXPECT_GE(executions, 3u) << "pid " << pid;
    }
}

}  // namespace
}  // namespace nnemu::tooltest
