// At compilation: each layer an own kernel will take gets its weights packed in that kernel's
// layout, for the program to store (the core then runs on them in place, core/OwnKernelLayers.h).
#pragma once

#include <cstdint>
#include <span>

#include "ProgramTensors.h"

namespace nnemu::synap {

// The weights of layer `layerIndex` packed for the own kernel that will run it, for the program to
// store; false when no own kernel with packed weights takes the layer. `filter` holds the layer's
// filter where the program marks it packed without bytes (the compiler's skeleton,
// compiler/ProgramBuilder.cpp).
bool packOwnWeights(const npu::Program& program, uint32_t layerIndex, std::span<const uint8_t> filter,
                    npu::PackedWeightsT* packed);

}  // namespace nnemu::synap
