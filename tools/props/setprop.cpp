// setprop NAME VALUE: sets a property of the emulated board (in local.prop under the device
// root), as Android's toybox setprop does; an empty VALUE unsets it.
#include <string>

#include "ToyboxCommandLine.h"
#include "nnemu/props/Properties.h"

int main(int argc, char** argv) {
    const nnemu::tools::ToyboxCommand command{"setprop", "setprop NAME VALUE", "Sets an Android system property.", 2,
                                              2};
    nnemu::tools::ToyboxArguments arguments = nnemu::tools::parseToyboxArguments(command, argc, argv);
    if (arguments.exitStatus) return *arguments.exitStatus;
    const std::string& name = arguments.positional[0];
    const std::string& value = arguments.positional[1];

    // Check name and value first so the user hears exactly what is wrong, as toybox does.
    nnemu::Status valid = nnemu::props::isValidName(name);
    if (valid) valid = nnemu::props::isValidValue(value);
    if (!valid) {
        nnemu::tools::printToyboxError(command, valid.message());
        return 1;
    }
    if (const nnemu::Status set = nnemu::props::set(name, value); !set) {
        nnemu::tools::printToyboxError(command,
                                       "failed to set property '" + name + "' to '" + value + "': " + set.message());
        return 1;
    }
    return 0;
}
