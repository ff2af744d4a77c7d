// Builds, compiles and executes one conformance variant through the public NNAPI C API.
#pragma once

#include <android/NeuralNetworks.h>

#include <string>
#include <vector>

#include "Variant.h"

namespace nnemu::conformance {

enum class ComputeMode { Sync, Async, Burst };

const char* computeModeName(ComputeMode mode);

struct Outcome {
    enum class Status { Passed, Failed, Skipped };
    Status status = Status::Passed;
    std::string reason;  // empty when passed
};

// "ANEURALNETWORKS_BAD_DATA (4)"
std::string resultCodeText(int code);

class VariantRunner {
public:
    // `devices`: the devices used for the support check (all devices, or the one chosen);
    // `compileForDevices`: compile with createForDevices(devices) instead of
    // Compilation_create.
    VariantRunner(std::vector<const ANeuralNetworksDevice*> devices, bool compileForDevices);

    Outcome run(const Variant& variant, ComputeMode mode) const;

private:
    std::vector<const ANeuralNetworksDevice*> mDevices;
    bool mCompileForDevices;
};

}  // namespace nnemu::conformance
