// benchmark_model's command line: TFLite's --name=value syntax, types, and clean errors.
#include <gtest/gtest.h>

#include "BenchmarkFlags.h"

namespace nnemu::benchmark {
namespace {

FlagParseResult parse(std::vector<std::string> args, BenchmarkParams* params) {
    return parseBenchmarkFlags(args, params);
}

TEST(BenchmarkFlags, DefaultsMatchTheBoardsTool) {
    BenchmarkParams params;
    EXPECT_EQ(params.getInt("num_runs"), 50);
    EXPECT_EQ(params.getFloat("min_secs"), 1.0f);
    EXPECT_EQ(params.getFloat("max_secs"), 150.0f);
    EXPECT_EQ(params.getInt("warmup_runs"), 1);
    EXPECT_EQ(params.getFloat("warmup_min_secs"), 0.5f);
    EXPECT_EQ(params.getInt("num_threads"), -1);
    EXPECT_FALSE(params.getBool("use_nnapi"));
    EXPECT_TRUE(params.getBool("disable_nnapi_cpu"));
    EXPECT_EQ(params.getInt("max_delegated_partitions"), 0);
    EXPECT_EQ(params.getInt("max_profiling_buffer_entries"), 1024);
    EXPECT_EQ(params.getInt("memory_footprint_check_interval_ms"), 50);
    EXPECT_FALSE(params.isSet("graph"));
}

TEST(BenchmarkFlags, ParsesEveryType) {
    BenchmarkParams params;
    const auto result = parse({"--graph=/tmp/m.tflite", "--num_runs=10", "--min_secs=0.25", "--use_nnapi=true",
                               "--disable_nnapi_cpu=0", "--nnapi_accelerator_name=synap-npu", "--verbose=1"},
                              &params);
    ASSERT_EQ(result.outcome, FlagParseOutcome::RUN);
    EXPECT_TRUE(result.errors.empty());
    EXPECT_EQ(params.getString("graph"), "/tmp/m.tflite");
    EXPECT_EQ(params.getInt("num_runs"), 10);
    EXPECT_EQ(params.getFloat("min_secs"), 0.25f);
    EXPECT_TRUE(params.getBool("use_nnapi"));
    EXPECT_FALSE(params.getBool("disable_nnapi_cpu"));
    EXPECT_TRUE(params.getBool("verbose"));
    EXPECT_EQ(params.getString("nnapi_accelerator_name"), "synap-npu");
    EXPECT_TRUE(params.isSet("num_runs"));
    EXPECT_FALSE(params.isSet("max_secs"));
}

TEST(BenchmarkFlags, ValuesPrintLikeTheBoardsLog) {
    BenchmarkParams params;
    ASSERT_EQ(parse({"--use_nnapi=true", "--min_secs=0.5", "--max_secs=150"}, &params).outcome, FlagParseOutcome::RUN);
    EXPECT_EQ(params.valueText("use_nnapi"), "1");
    EXPECT_EQ(params.valueText("verbose"), "0");
    EXPECT_EQ(params.valueText("min_secs"), "0.5");
    EXPECT_EQ(params.valueText("max_secs"), "150");
}

TEST(BenchmarkFlags, BoolAcceptsOnlyTrueFalseOneZero) {
    for (const char* good : {"true", "false", "1", "0"}) {
        BenchmarkParams params;
        EXPECT_EQ(parse({std::string("--use_nnapi=") + good}, &params).outcome, FlagParseOutcome::RUN) << good;
    }
    for (const char* bad : {"yes", "TRUE", "2", ""}) {
        BenchmarkParams params;
        const auto result = parse({std::string("--use_nnapi=") + bad}, &params);
        EXPECT_EQ(result.outcome, FlagParseOutcome::ERROR) << bad;
        ASSERT_EQ(result.errors.size(), 1u);
        EXPECT_EQ(result.errors[0], std::string("Failed to parse flag 'use_nnapi' against argv '--use_nnapi=") + bad + "'");
    }
}

TEST(BenchmarkFlags, NumbersMustBeComplete) {
    for (const char* bad : {"--num_runs=abc", "--num_runs=12abc", "--num_runs=1.5", "--num_runs=99999999999",
                            "--min_secs=fast", "--min_secs=1s", "--min_secs=nan"}) {
        BenchmarkParams params;
        const auto result = parse({bad}, &params);
        EXPECT_EQ(result.outcome, FlagParseOutcome::ERROR) << bad;
        ASSERT_FALSE(result.errors.empty());
        EXPECT_NE(result.errors[0].find("Failed to parse flag"), std::string::npos) << result.errors[0];
    }
}

TEST(BenchmarkFlags, UnknownFlagsAreErrors) {
    BenchmarkParams params;
    const auto result = parse({"--graph=m.tflite", "--num_run=5", "stray"}, &params);
    EXPECT_EQ(result.outcome, FlagParseOutcome::ERROR);
    ASSERT_EQ(result.errors.size(), 1u);
    EXPECT_EQ(result.errors[0], "Unconsumed cmdline flags: --num_run=5 stray");
}

TEST(BenchmarkFlags, KnownFlagWithoutValueIsExplained) {
    BenchmarkParams params;
    const auto result = parse({"--use_nnapi"}, &params);
    EXPECT_EQ(result.outcome, FlagParseOutcome::ERROR);
    ASSERT_EQ(result.errors.size(), 1u);
    EXPECT_EQ(result.errors[0], "Flag 'use_nnapi' needs a value: --use_nnapi=VALUE");
}

TEST(BenchmarkFlags, DuplicateFlagIsAnError) {
    BenchmarkParams params;
    const auto result = parse({"--num_runs=1", "--num_runs=2"}, &params);
    EXPECT_EQ(result.outcome, FlagParseOutcome::ERROR);
    EXPECT_EQ(params.getInt("num_runs"), 1);
}

TEST(BenchmarkFlags, Help) {
    for (const char* help : {"--help", "--help=true", "-h"}) {
        BenchmarkParams params;
        EXPECT_EQ(parse({"--bogus", help}, &params).outcome, FlagParseOutcome::HELP) << help;
    }
    const std::string usage = benchmarkUsage("benchmark_model");
    EXPECT_EQ(usage.rfind("usage: benchmark_model <flags>\nFlags:\n", 0), 0u);
    for (const char* flag : {"--graph=", "--num_runs=50", "--use_nnapi=false", "--nnapi_accelerator_name=",
                             "--input_file=", "--output_file=", "--enable_op_profiling=false"}) {
        EXPECT_NE(usage.find(flag), std::string::npos) << flag;
    }
}

}  // namespace
}  // namespace nnemu::benchmark
