// The models nnemu_modelgen can write: MobileNet v1/v2 shaped networks named like the
// published ones, small single-operation models, and a mixed model with an operation an NPU
// typically lacks in the middle. Weights are deterministic (fixed seeds), so every run writes
// the same bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nnemu/base/Status.h"

namespace nnemu::modelgen {

struct ModelInfo {
    std::string name;
    std::string summary;   // one line: what it is
    bool large = false;    // a full-size network (megabytes, seconds to generate)
};

const std::vector<ModelInfo>& modelCatalog();

// Builds the named model as .tflite bytes; NOT_FOUND for an unknown name, or the failure of
// calibrating the float network.
Status generateModel(const std::string& name, std::vector<uint8_t>* bytes);

}  // namespace nnemu::modelgen
