#include "ActivationArena.h"

#include <xnnpack.h>

#include <algorithm>
#include <cstdint>
#include <utility>

#include "LayerKinds.h"
#include "NativeLayers.h"
#include "nnemu/base/Log.h"

namespace nnemu::synap {
namespace {

// The layers over which each tensor lives, [first, last] (-1: none). A layer's inputs and
// output never share; layers run in order, XNNPACK's too. Inputs live from before the first
// layer, outputs until after the last.
void lifetimes(const npu::Program& program, std::span<const LayerRun> fusedRuns, std::vector<int64_t>* first,
               std::vector<int64_t>* last) {
    const auto* tensors = program.tensors();
    const auto* layers = program.layers();
    first->assign(tensors->size(), -1);
    last->assign(tensors->size(), -1);
    for (uint32_t l = 0; l < layers->size(); ++l) {
        const npu::Layer& layer = *layers->Get(l);
        std::vector<uint32_t> used(layer.inputs()->begin(), layer.inputs()->end());
        used.push_back(layer.outputs()->Get(0));
        for (uint32_t t : used) {
            if ((*first)[t] < 0) (*first)[t] = l;
            (*last)[t] = l;
        }
    }
    // A fused pair reads its inputs while it writes its output: they live over all its layers.
    for (const LayerRun& run : fusedRuns) {
        for (size_t l = run.firstLayer; l < run.endLayer; ++l) {
            const npu::Layer& layer = *layers->Get(l);
            for (uint32_t t : *layer.inputs()) (*last)[t] = std::max<int64_t>((*last)[t], run.endLayer - 1);
            const uint32_t output = layer.outputs()->Get(0);
            (*first)[output] = std::min<int64_t>((*first)[output], run.firstLayer);
        }
    }
    for (uint32_t t = 0; t < tensors->size(); ++t) {
        const npu::Tensor& tensor = *tensors->Get(t);
        if (tensor.input_index() >= 0) {
            (*first)[t] = 0;
            (*last)[t] = std::max<int64_t>((*last)[t], 0);
        } else if (tensor.output_index() >= 0) {
            (*first)[t] = std::max<int64_t>((*first)[t], 0);
            (*last)[t] = static_cast<int64_t>(layers->size());
        }
    }
}

// Places `ranges` in `order`, each at the lowest offset free over its layers; returns the arena's
// size.
size_t place(const std::vector<LiveRange>& ranges, const std::vector<size_t>& order, std::vector<size_t>* offsets) {
    offsets->assign(ranges.size(), SIZE_MAX);
    size_t bytes = 0;
    for (size_t i = 0; i < order.size(); ++i) {
        const LiveRange& range = ranges[order[i]];
        std::vector<std::pair<size_t, size_t>> taken;  // [offset, end) of placed ranges alive with this one
        for (size_t j = 0; j < i; ++j) {
            const LiveRange& other = ranges[order[j]];
            if (other.first <= range.last && range.first <= other.last) {
                taken.push_back({(*offsets)[order[j]], (*offsets)[order[j]] + other.bytes});
            }
        }
        std::sort(taken.begin(), taken.end());
        size_t offset = 0;
        for (const auto& [begin, end] : taken) {
            if (offset + range.bytes <= begin) break;
            offset = std::max(offset, end);
        }
        (*offsets)[order[i]] = offset;
        bytes = std::max(bytes, offset + range.bytes);
    }
    return bytes;
}

}  // namespace

// Two orders, the smaller arena kept: largest first; and by breadth, the ranges of the layer
// with the most bytes live first (largest first among them), then of the next such layer. Which
// packs tighter depends on the network: stages' workspaces live briefly beside long-lived
// values (a residual's input), which largest-first scatters.
std::vector<size_t> placeLiveRanges(const std::vector<LiveRange>& ranges, size_t* bytes) {
    std::vector<size_t> bySize(ranges.size());
    for (size_t i = 0; i < ranges.size(); ++i) bySize[i] = i;
    std::stable_sort(bySize.begin(), bySize.end(), [&](size_t a, size_t b) { return ranges[a].bytes > ranges[b].bytes; });
    int64_t layers = 0;
    for (const LiveRange& range : ranges) layers = std::max(layers, range.last + 1);
    std::vector<size_t> breadth(static_cast<size_t>(layers), 0);
    for (const LiveRange& range : ranges) {
        for (int64_t l = std::max<int64_t>(range.first, 0); l <= range.last; ++l) breadth[l] += range.bytes;
    }
    std::vector<size_t> widest(breadth.size());
    for (size_t l = 0; l < widest.size(); ++l) widest[l] = l;
    std::stable_sort(widest.begin(), widest.end(), [&](size_t a, size_t b) { return breadth[a] > breadth[b]; });
    std::vector<size_t> byBreadth;
    std::vector<bool> taken(ranges.size(), false);
    for (size_t l : widest) {
        for (size_t i : bySize) {
            const auto layer = static_cast<int64_t>(l);
            if (taken[i] || ranges[i].first > layer || ranges[i].last < layer) continue;
            taken[i] = true;
            byBreadth.push_back(i);
        }
    }
    for (size_t i : bySize) {
        if (!taken[i]) byBreadth.push_back(i);
    }
    std::vector<size_t> offsets, other;
    *bytes = place(ranges, bySize, &offsets);
    const size_t otherBytes = place(ranges, byBreadth, &other);
    if (otherBytes < *bytes) {
        *bytes = otherBytes;
        offsets.swap(other);
    }
    return offsets;
}

ActivationArena planActivationArena(const npu::Program& program, const std::vector<bool>& needsBuffer,
                                    std::span<const LayerRun> fusedRuns, const std::vector<bool>& callerHeld,
                                    std::span<const LiveRange> workspaces) {
    const auto* tensors = program.tensors();
    std::vector<int64_t> first, last;
    lifetimes(program, fusedRuns, &first, &last);
    std::vector<LiveRange> ranges;
    std::vector<uint32_t> rangeTensor;  // per range before the workspaces
    for (uint32_t t = 0; t < tensors->size(); ++t) {
        const npu::Tensor& tensor = *tensors->Get(t);
        const bool port = tensor.input_index() >= 0 || tensor.output_index() >= 0;
        if (callerHeld[t] || !(port || (needsBuffer[t] && first[t] >= 0 && !isStored(tensor)))) continue;
        ranges.push_back({first[t], last[t], (byteSize(tensor) + XNN_EXTRA_BYTES + 63) / 64 * 64});
        rangeTensor.push_back(t);
    }
    for (const LiveRange& space : workspaces) ranges.push_back({space.first, space.last, (space.bytes + 63) / 64 * 64});
    ActivationArena arena;
    const std::vector<size_t> offsets = placeLiveRanges(ranges, &arena.bytes);
    arena.offsets.assign(tensors->size(), SIZE_MAX);
    for (size_t i = 0; i < rangeTensor.size(); ++i) arena.offsets[rangeTensor[i]] = offsets[i];
    arena.workspaceOffsets.assign(offsets.begin() + static_cast<std::ptrdiff_t>(rangeTensor.size()), offsets.end());
    NN_LOG(VERBOSE) << "NPU core: activation arena of " << arena.bytes << " bytes for " << rangeTensor.size()
                    << " tensors and " << workspaces.size() << " workspaces";
    return arena;
}

}  // namespace nnemu::synap
