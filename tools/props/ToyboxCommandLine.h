// Command-line handling shared by setprop and getprop, with toybox's observable behaviour:
// --help prints the help text to stdout; an unknown option or a wrong argument count prints the
// help text and then "<tool>: <problem>" to stderr and exits 1.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace nnemu::tools {

struct ToyboxCommand {
    const char* name;         // "getprop"
    const char* usage;        // "getprop [NAME [DEFAULT]]"
    const char* description;  // the help text's paragraph
    size_t minArguments;
    size_t maxArguments;
};

// The positional arguments, or the exit status when the tool must stop here.
struct ToyboxArguments {
    std::vector<std::string> positional;
    std::optional<int> exitStatus;
};

ToyboxArguments parseToyboxArguments(const ToyboxCommand& command, int argc, char** argv);

// Prints "<tool>: <message>" to stderr, as toybox's error_msg does.
void printToyboxError(const ToyboxCommand& command, const std::string& message);

}  // namespace nnemu::tools
