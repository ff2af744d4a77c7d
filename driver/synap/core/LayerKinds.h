// The layer kinds of the NPU core, one table entry per member of the schema's LayerParams union:
// how the core computes a layer of that kind (defined into an XNNPACK subgraph, or run by the
// core itself), which unit of the board's NPU it stands for in profiles, and how many
// multiply-accumulates it costs. Adding a kind is its schema table plus one entry.
#pragma once

#include <xnnpack.h>

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "../program/ProgramTensors.h"

namespace nnemu::synap {

class CorePool;

// A layer being added to an XNNPACK subgraph.
struct XnnLayer {
    xnn_subgraph_t subgraph;
    const npu::Program& program;
    const npu::Layer& layer;
    const std::vector<uint32_t>& ids;  // subgraph value of each program tensor
    float low;                         // fused-activation bounds, as the core takes them
    float high;

    uint32_t input(uint32_t i) const {
        return i < layer.inputs()->size() ? ids[layer.inputs()->Get(i)] : XNN_INVALID_VALUE_ID;
    }
    uint32_t output() const { return ids[layer.outputs()->Get(0)]; }
    const npu::Tensor& outputTensor() const { return *program.tensors()->Get(layer.outputs()->Get(0)); }
};

// What the core keeps for one layer it runs itself between inferences (packed weights, scratch).
struct LayerState {
    virtual ~LayerState() = default;
};

// A layer the core runs itself, with the buffers of its tensors.
struct NativeLayer {
    const npu::Program& program;
    const npu::Layer& layer;
    std::span<const uint8_t* const> inputs;  // one per layer input
    uint8_t* output;
    LayerState* state = nullptr;  // from the kind's ownKernel, if it made one
    CorePool* pool = nullptr;  // the core's pool when this inference runs on it
    std::span<uint8_t> workspace;  // working memory the layer's state asked for (in the arena)

    const npu::Tensor& inputTensor(uint32_t i) const { return *program.tensors()->Get(layer.inputs()->Get(i)); }
    const npu::Tensor& outputTensor() const { return *program.tensors()->Get(layer.outputs()->Get(0)); }
};

struct LayerKind {
    npu::LayerParams params;
    const char* unit;  // the profile's `ot` column: "NN" (convolution core), "TP" (tensor processor), "SH" (shader)
    // XNNPACK kinds: adds the layer to the subgraph (XNNPACK checks types and parameters, not
    // shapes: see LayerShapes.h).
    xnn_status (*define)(const XnnLayer& layer);
    // Every kind: checks the layer's tensors when the program is loaded, so that its computation
    // stays within their buffers.
    bool (*check)(const npu::Program& program, const npu::Layer& layer);
    // Native kinds, and layers ownKernel took: computes the output at every inference.
    bool (*run)(const NativeLayer& layer);
    // Multiply-accumulates of one inference; nullptr where negligible.
    uint64_t (*multiplyAccumulates)(const npu::Program& program, const npu::Layer& layer);
    // XNNPACK kinds the core's own kernels (kernels/) also compute: the layer's state for them
    // when they take this layer (weights packed), nullptr to leave it to XNNPACK.
    std::unique_ptr<LayerState> (*ownKernel)(const npu::Program& program, const npu::Layer& layer) = nullptr;
    // Own-kernel layers that can run together with the one layer reading their output (its only
    // reader, inside the network): the pair's state, so that the value between them never exists
    // whole (BandedLayers.h); nullptr to run them apart.
    std::shared_ptr<LayerState> (*fuseWithReader)(const npu::Program& program, const npu::Layer& layer,
                                                  const std::shared_ptr<LayerState>& state, const npu::Layer& reader,
                                                  const std::shared_ptr<LayerState>& readerState) = nullptr;

    bool native() const { return define == nullptr; }
};

// The entry of `params`; nullptr for NONE or a value outside the schema.
const LayerKind* layerKind(npu::LayerParams params);

}  // namespace nnemu::synap
