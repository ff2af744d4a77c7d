// getprop [NAME [DEFAULT]]: prints a property of the emulated board, or lists them all as
// "[name]: [value]" sorted by name, as Android's toybox getprop does. nnemu's own
// `getprop --faults` lists the fault properties in force (nnemu/props/Faults.h), each with what it
// does or why the drivers ignore it.
#include <cstdio>
#include <string>

#include "ToyboxCommandLine.h"
#include "nnemu/props/Board.h"
#include "nnemu/props/Faults.h"
#include "nnemu/props/Properties.h"

int main(int argc, char** argv) {
    const nnemu::tools::ToyboxCommand command{"getprop", "getprop [NAME [DEFAULT]]",
                                              "Gets an Android system property, or lists them all.", 0, 2};
    const bool faults = argc == 2 && std::string(argv[1]) == "--faults";
    nnemu::tools::ToyboxArguments arguments =
            faults ? nnemu::tools::ToyboxArguments{} : nnemu::tools::parseToyboxArguments(command, argc, argv);
    if (arguments.exitStatus) return *arguments.exitStatus;
    if (nnemu::props::isYocto()) {
        nnemu::tools::printToyboxError(command, std::string(nnemu::props::kNoPropertyService));
        return 1;
    }

    if (faults) {
        for (const auto& fault : nnemu::props::faults::inForce()) {
            std::printf("[%s]: [%s] %s\n", fault.name.c_str(), fault.value.c_str(), fault.meaning.c_str());
        }
    } else if (arguments.positional.empty()) {
        for (const auto& [name, value] : nnemu::props::all()) {
            std::printf("[%s]: [%s]\n", name.c_str(), value.c_str());
        }
    } else {
        // An unset or empty property prints DEFAULT, or an empty line.
        const std::string fallback = arguments.positional.size() > 1 ? arguments.positional[1] : std::string();
        std::printf("%s\n", nnemu::props::get(arguments.positional[0], fallback).c_str());
    }
    return std::fflush(stdout) == 0 ? 0 : 1;
}
