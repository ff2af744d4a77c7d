// benchmark_model: TensorFlow Lite's benchmark tool on nnemu. Same flags and output as the
// board's build (TF 2.15), so its documented commands and their output can be compared here.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "BenchmarkFlags.h"
#include "BenchmarkLoop.h"
#include "BenchmarkParams.h"
#include "BenchmarkSession.h"
#include "ToolLog.h"

namespace {

// The TensorFlow Lite release the board's benchmark_model is built from (not nnemu's version).
const char* const kEmulatedTensorflowVersion = "2.15.0";

int runTool(int argc, char** argv) {
    using namespace nnemu::benchmark;
    const std::string program = "benchmark_model";
    std::vector<std::string> args(argv + 1, argv + argc);
    BenchmarkParams params;
    const FlagParseResult parsed = parseBenchmarkFlags(args, &params);
    if (parsed.outcome == FlagParseOutcome::HELP) {
        std::fputs(benchmarkUsage(program).c_str(), stdout);
        return EXIT_SUCCESS;
    }
    TOOL_LOG(INFO) << "STARTING!";
    TOOL_LOG(INFO) << "Tensorflow Version : " << kEmulatedTensorflowVersion;
    if (parsed.outcome == FlagParseOutcome::ERROR) {
        for (const std::string& error : parsed.errors) TOOL_LOG(ERROR) << error;
        TOOL_LOG(ERROR) << "Run '" << program << " --help' for the list of flags.";
        TOOL_LOG(ERROR) << "Benchmarking failed.";
        return EXIT_FAILURE;
    }
    // The library reads NNEMU_TRACE at its first traced call, after this.
    if (params.isSet("nnemu_trace")) setenv("NNEMU_TRACE", params.getString("nnemu_trace").c_str(), 1);
    SteadyBenchmarkClock clock;
    BenchmarkSession session(params, clock);
    if (!session.run()) {
        TOOL_LOG(ERROR) << "Benchmarking failed.";
        return EXIT_FAILURE;
    }
    return EXIT_SUCCESS;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return runTool(argc, argv);
    } catch (const std::exception& e) {
        TOOL_LOG(ERROR) << e.what();
        TOOL_LOG(ERROR) << "Benchmarking failed.";
        return EXIT_FAILURE;
    }
}
