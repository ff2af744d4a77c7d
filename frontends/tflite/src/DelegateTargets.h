// Which NNAPI devices the delegate hands nodes to, by TFLite's rules: a named accelerator
// only; no name and nnapi-reference disabled (the default): every other device; no name and the
// CPU allowed: every device, compiled by the runtime's choice, and only when there are several.
#pragma once

#include <android/NeuralNetworks.h>

#include <string>
#include <vector>

#include "nnemu/tflite/Interpreter.h"

#include "nnemu/base/Status.h"

namespace nnemu::tflite {

struct DelegateTargets {
    std::vector<std::string> deviceNames;                  // every device, in the runtime's order
    const ANeuralNetworksDevice* reference = nullptr;      // nnapi-reference: the CPU partitions' device
    std::vector<const ANeuralNetworksDevice*> accelerators;  // empty: nothing is delegated
    bool runtimeChoice = false;                            // compile with Compilation_create
};

// False with a message when nnapi-reference is missing or the named accelerator does not exist.
Status chooseDelegateTargets(const DelegateOptions& options, DelegateTargets* targets);

}  // namespace nnemu::tflite
