// The NPU core's activation arena: the values crossing stages and the network's inputs and
// outputs share one block of memory, each tensor's bytes reused once no later layer reads it.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "npu_program_generated.h"

namespace nnemu::synap {

// Layers [firstLayer, endLayer) that run as one (a fused pair): its inputs and output live over
// all of them.
struct LayerRun {
    size_t firstLayer;
    size_t endLayer;
};

struct ActivationArena {
    std::vector<size_t> offsets;  // per tensor: its offset in the arena, or SIZE_MAX
    size_t bytes = 0;
};

// Places every network input and output and every activation `needsBuffer` marks (constants
// excluded), each padded for XNNPACK's reads past the end; not the inputs `callerHeld` marks
// (read where the caller holds them).
ActivationArena planActivationArena(const npu::Program& program, const std::vector<bool>& needsBuffer,
                                    std::span<const LayerRun> fusedRuns, const std::vector<bool>& callerHeld);

}  // namespace nnemu::synap
