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

}  // namespace

// Largest first, each at the lowest offset free over its layers.
ActivationArena planActivationArena(const npu::Program& program, const std::vector<bool>& needsBuffer,
                                    std::span<const LayerRun> fusedRuns, const std::vector<bool>& callerHeld) {
    const auto* tensors = program.tensors();
    std::vector<int64_t> first, last;
    lifetimes(program, fusedRuns, &first, &last);
    std::vector<uint32_t> planned;
    for (uint32_t t = 0; t < tensors->size(); ++t) {
        const npu::Tensor& tensor = *tensors->Get(t);
        const bool port = tensor.input_index() >= 0 || tensor.output_index() >= 0;
        if (callerHeld[t]) continue;
        if (port || (needsBuffer[t] && first[t] >= 0 && !isStored(tensor))) planned.push_back(t);
    }
    auto bytesOf = [&](uint32_t t) { return (byteSize(*tensors->Get(t)) + XNN_EXTRA_BYTES + 63) / 64 * 64; };
    std::stable_sort(planned.begin(), planned.end(), [&](uint32_t a, uint32_t b) { return bytesOf(a) > bytesOf(b); });
    ActivationArena arena;
    arena.offsets.assign(tensors->size(), SIZE_MAX);
    for (size_t i = 0; i < planned.size(); ++i) {
        const uint32_t t = planned[i];
        std::vector<std::pair<size_t, size_t>> taken;  // [offset, end) of placed tensors alive with t
        for (size_t j = 0; j < i; ++j) {
            const uint32_t u = planned[j];
            if (first[u] <= last[t] && first[t] <= last[u]) {
                taken.push_back({arena.offsets[u], arena.offsets[u] + bytesOf(u)});
            }
        }
        std::sort(taken.begin(), taken.end());
        size_t offset = 0;
        for (const auto& [begin, end] : taken) {
            if (offset + bytesOf(t) <= begin) break;
            offset = std::max(offset, end);
        }
        arena.offsets[t] = offset;
        arena.bytes = std::max(arena.bytes, offset + bytesOf(t));
    }
    NN_LOG(VERBOSE) << "NPU core: activation arena of " << arena.bytes << " bytes for " << planned.size()
                    << " tensors";
    return arena;
}

}  // namespace nnemu::synap
