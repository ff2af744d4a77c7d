// benchmark_model's command line, parsed the way TensorFlow Lite's tool parses it: every argument
// is --name=value; bools take true/false/1/0. Unlike TFLite, which only warns about arguments it
// did not consume, nnemu reports them as errors so that a typo never goes unnoticed.
#pragma once

#include <string>
#include <vector>

#include "BenchmarkParams.h"

namespace nnemu::benchmark {

enum class FlagParseOutcome { RUN, HELP, ERROR };

struct FlagParseResult {
    FlagParseOutcome outcome = FlagParseOutcome::RUN;
    std::vector<std::string> errors;   // one message per problem, without a severity prefix
};

// args excludes the program name.
FlagParseResult parseBenchmarkFlags(const std::vector<std::string>& args, BenchmarkParams* params);

// "usage: <program> <flags>" and one line per flag: --name=default, type, optional, description.
std::string benchmarkUsage(const std::string& program);

}  // namespace nnemu::benchmark
