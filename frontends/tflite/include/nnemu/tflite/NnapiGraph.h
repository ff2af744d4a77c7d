// The TFLite graph lowered to NNAPI terms, before it is cut into partitions: NNAPI operands
// (activations shared between nodes, plus each node's own constants and scalars) and NNAPI
// operations grouped by the TFLite node they came from. Each partition's NNAPI model is built
// from a subset of it (see PartitionModel).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "nnemu/base/Status.h"

struct ANeuralNetworksModel;

namespace nnemu::tflite {

// The finished NNAPI model of a subgraph, by TFLite subgraph index (ControlFlow.h implements
// it). An interface, so that lowering links no NNAPI function.
class SubgraphModels {
public:
    virtual ~SubgraphModels() = default;
    // The model, or why the subgraph cannot be built.
    virtual Result<ANeuralNetworksModel*> get(int32_t index) = 0;
};

struct NnOperand {
    int32_t type = 0;                  // ANEURALNETWORKS_* operand type
    std::vector<uint32_t> dims;
    float scale = 0.0f;
    int32_t zeroPoint = 0;
    std::span<const float> channelScales;  // TENSOR_QUANT8_SYMM_PER_CHANNEL only: the Model's
    uint32_t channelDim = 0;
    // A constant's value: bytes owned here (converted data, scalars) or a view into the model file.
    bool isConstant = false;
    std::vector<uint8_t> ownedValue;
    const uint8_t* value = nullptr;
    size_t valueSize = 0;
    int32_t tensor = -1;               // the TFLite tensor an activation operand carries
    // ANEURALNETWORKS_MODEL: the finished model of a subgraph (owned by ReferencedModels).
    ANeuralNetworksModel* reference = nullptr;

    const uint8_t* valueData() const { return ownedValue.empty() ? value : ownedValue.data(); }
    size_t valueLength() const { return ownedValue.empty() ? valueSize : ownedValue.size(); }
};

struct NnOperation {
    int32_t type = 0;                  // ANEURALNETWORKS_* operation type
    uint32_t node = 0;                 // the TFLite node it implements
    std::vector<uint32_t> inputs, outputs;   // operand indexes in NnapiGraph::operands
};

// A recurrent operation's new state (NNAPI outputs it; TFLite keeps it in the variable tensor the
// node reads): after each run the partition copies the operand's value into that tensor, so the
// next invoke starts from it, as TFLite's delegate does with its model_state_outputs_.
struct StateFeedback {
    uint32_t operand = 0;   // the operation's state output (a temporary)
    int32_t tensor = -1;    // the TFLite variable tensor it replaces
    // The sequence operators' final states: TFLite's own kernels carry them, its delegate does
    // not (it maps no final-state output), so only a partition that is not delegated copies them.
    bool cpuPathOnly = false;
};

struct NnapiGraph {
    // int8 tensors become TENSOR_QUANT8_ASYMM_SIGNED (feature level 30+) instead of uint8
    // shifted by 128. Set before lowering (Interpreter: from RuntimeLevel.h).
    bool signedInt8 = false;
    std::vector<NnOperand> operands;
    std::vector<NnOperation> operations;
    std::vector<std::vector<uint32_t>> nodeOperations;   // per TFLite node: its operations
    // Per TFLite node: TFLite's NNAPI delegate would leave it to TFLite's CPU kernels (custom
    // operators, forms it does not map), so it never joins a delegated partition.
    std::vector<bool> cpuOnly;
    // Main graph of the interpreter only: a node NNAPI cannot express runs on the tools' own CPU
    // kernel (src/cpu) when it has one; such nodes have no operations, cpuOnly and cpuKernel set.
    bool allowCpuKernels = false;
    std::vector<bool> cpuKernel;
    std::vector<int32_t> tensorOperand;                  // per TFLite tensor: activation operand or -1
    std::vector<std::vector<uint32_t>> tensorReaders;    // per TFLite tensor: the nodes reading it
    std::vector<StateFeedback> stateFeedback;
    // The NNAPI models of the subgraphs IF and WHILE run, shared by the main graph and every
    // subgraph lowered for it; the main graph owns them (lowerModel creates them). Null where
    // control flow is not lowered (libvx_delegate.so, which builds no NNAPI model).
    SubgraphModels* references = nullptr;
    std::shared_ptr<SubgraphModels> ownedReferences;
};

}  // namespace nnemu::tflite
