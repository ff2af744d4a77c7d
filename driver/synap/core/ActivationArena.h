// The NPU core's activation arena: the values crossing stages, the network's inputs and outputs
// and the working memory of the stages that need some share one block of memory, each tensor's
// bytes reused once no later layer reads it, each stage's working memory once the stage has run.
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

// Bytes live over layers [first, last]: a tensor, or the working memory (band buffers) a stage
// uses while it runs.
struct LiveRange {
    int64_t first, last;
    size_t bytes;
};

struct ActivationArena {
    std::vector<size_t> offsets;           // per tensor: its offset in the arena, or SIZE_MAX
    std::vector<size_t> workspaceOffsets;  // per workspace asked
    size_t bytes = 0;
};

// Offsets for `ranges` (one each, in their order) such that no two live at the same layer overlap,
// and the arena's size in `bytes`.
std::vector<size_t> placeLiveRanges(const std::vector<LiveRange>& ranges, size_t* bytes);

// Places every network input and output and every activation `needsBuffer` marks (constants
// excluded), each padded for XNNPACK's reads past the end; not the inputs `callerHeld` marks
// (read where the caller holds them); and each of `workspaces`. Offsets are multiples of 64.
ActivationArena planActivationArena(const npu::Program& program, const std::vector<bool>& needsBuffer,
                                    std::span<const LayerRun> fusedRuns, const std::vector<bool>& callerHeld,
                                    std::span<const LiveRange> workspaces = {});

}  // namespace nnemu::synap
