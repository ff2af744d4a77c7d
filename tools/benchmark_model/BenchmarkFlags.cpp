#include "BenchmarkFlags.h"

#include <algorithm>
#include <iomanip>
#include <set>
#include <sstream>

namespace nnemu::benchmark {
namespace {

const char* typeName(ParamType type) {
    switch (type) {
        case ParamType::BOOL: return "bool";
        case ParamType::INT32: return "int32";
        case ParamType::FLOAT: return "float";
        case ParamType::STRING: return "string";
    }
    return "unknown";
}

bool isHelpRequest(const std::string& arg) {
    return arg == "--help" || arg == "-h" || arg == "--help=true" || arg == "--help=1";
}

}  // namespace

FlagParseResult parseBenchmarkFlags(const std::vector<std::string>& args, BenchmarkParams* params) {
    FlagParseResult result;
    std::vector<std::string> unconsumed;
    std::set<std::string> seen;
    for (const std::string& arg : args) {
        if (isHelpRequest(arg)) {
            result.outcome = FlagParseOutcome::HELP;
            result.errors.clear();
            return result;
        }
        const size_t equals = arg.find('=');
        if (arg.rfind("--", 0) != 0 || equals == std::string::npos) {
            const std::string bare = arg.rfind("--", 0) == 0 ? arg.substr(2) : std::string();
            if (!bare.empty() && params->has(bare)) {
                result.errors.push_back("Flag '" + bare + "' needs a value: --" + bare + "=VALUE");
            } else {
                unconsumed.push_back(arg);
            }
            continue;
        }
        const std::string name = arg.substr(2, equals - 2);
        const std::string value = arg.substr(equals + 1);
        if (!params->has(name)) {
            unconsumed.push_back(arg);
            continue;
        }
        if (!seen.insert(name).second) {
            result.errors.push_back("Duplicate flag '" + name + "' in argv '" + arg + "'");
            continue;
        }
        if (!params->setFromText(name, value)) {
            result.errors.push_back("Failed to parse flag '" + name + "' against argv '" + arg + "'");
        }
    }
    if (!unconsumed.empty()) {
        std::string joined;
        for (const std::string& arg : unconsumed) {
            if (!joined.empty()) joined += ' ';
            joined += arg;
        }
        result.errors.push_back("Unconsumed cmdline flags: " + joined);
    }
    if (params->getBool("help")) {
        result.outcome = FlagParseOutcome::HELP;
        result.errors.clear();
        return result;
    }
    result.outcome = result.errors.empty() ? FlagParseOutcome::RUN : FlagParseOutcome::ERROR;
    return result;
}

std::string benchmarkUsage(const std::string& program) {
    const auto& specs = benchmarkParamSpecs();
    std::vector<std::string> nameColumn;
    size_t width = 0;
    for (const ParamSpec& spec : specs) {
        nameColumn.push_back("--" + spec.name + "=" + spec.defaultValue);
        width = std::max(width, nameColumn.back().size());
    }
    std::ostringstream out;
    out << "usage: " << program << " <flags>\n";
    out << "Flags:\n";
    for (size_t i = 0; i < specs.size(); ++i) {
        out << "\t" << std::left << std::setw(static_cast<int>(width)) << nameColumn[i] << "\t"
            << typeName(specs[i].type) << "\toptional\t" << specs[i].usage << "\n";
    }
    return out.str();
}

}  // namespace nnemu::benchmark
