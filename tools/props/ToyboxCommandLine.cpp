#include "ToyboxCommandLine.h"

#include <cstdio>

namespace nnemu::tools {
namespace {

void printHelp(const ToyboxCommand& command, std::FILE* stream) {
    std::fprintf(stream, "usage: %s\n\n%s\n", command.usage, command.description);
}

ToyboxArguments usageError(const ToyboxCommand& command, const std::string& message) {
    printHelp(command, stderr);
    std::fputc('\n', stderr);
    printToyboxError(command, message);
    return {{}, 1};
}

}  // namespace

void printToyboxError(const ToyboxCommand& command, const std::string& message) {
    std::fprintf(stderr, "%s: %s\n", command.name, message.c_str());
}

ToyboxArguments parseToyboxArguments(const ToyboxCommand& command, int argc, char** argv) {
    ToyboxArguments arguments;
    bool options = true;
    for (int i = 1; i < argc; ++i) {
        std::string argument = argv[i];
        if (options && argument == "--help") {
            printHelp(command, stdout);
            arguments.exitStatus = 0;
            return arguments;
        }
        if (options && argument == "--") {
            options = false;
            continue;
        }
        // Neither tool has options: "-x" is an error, a lone "-" is an ordinary argument.
        if (options && argument.size() > 1 && argument[0] == '-') {
            if (argument[1] == '-') return usageError(command, "Unknown option '" + argument.substr(2) + "'");
            return usageError(command, "Unknown option '" + argument.substr(1, 1) + "'");
        }
        // Options end at the first positional argument, so a value such as "-1" needs no "--".
        options = false;
        arguments.positional.push_back(argument);
    }
    const size_t count = arguments.positional.size();
    if (count < command.minArguments) {
        return usageError(command, "Need " + std::to_string(command.minArguments) + " argument" +
                                       (command.minArguments == 1 ? "" : "s"));
    }
    if (count > command.maxArguments) {
        return usageError(command, "Max " + std::to_string(command.maxArguments) + " argument" +
                                       (command.maxArguments == 1 ? "" : "s"));
    }
    return arguments;
}

}  // namespace nnemu::tools
