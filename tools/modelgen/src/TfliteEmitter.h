// Writes a NetworkGraph as a .tflite flatbuffer in one of three flavors: float32, uint8
// (per-tensor asymmetric weights, TF1 style) or int8 (per-channel symmetric weights, TF2 style).
// Quantization parameters come from each tensor's range: fixed by design or calibrated.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "NetworkGraph.h"

namespace nnemu::modelgen {

enum class Flavor { FLOAT32, UINT8, INT8 };

struct Range {
    float min = 0, max = 0;
};

struct EmitOptions {
    Flavor flavor = Flavor::FLOAT32;
    std::vector<Range> ranges;          // per tensor (quantized flavors)
    bool everyActivationIsOutput = false;   // for calibration runs
    bool skipCustomOperators = false;       // for calibration runs: their float outputs need no range
    std::string description;
};

std::vector<uint8_t> emitTflite(const NetworkGraph& graph, const EmitOptions& options);

}  // namespace nnemu::modelgen
