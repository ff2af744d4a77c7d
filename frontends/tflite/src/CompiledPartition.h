// One NNAPI model built from a subset of the lowered graph, compiled for a device set, and run
// with the interpreter's tensor buffers bound as its inputs and outputs.
#pragma once

#include <android/NeuralNetworks.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ExecutionUnit.h"
#include "nnemu/tflite/NnapiGraph.h"
#include "TensorBuffer.h"
#include "nnemu/tflite/Model.h"

namespace nnemu::tflite {

// The NNAPI model of some TFLite nodes: which TFLite tensors go in and out, and which node each
// NNAPI operation comes from (in the model's operation order).
// The mapped model file as an NNAPI memory: constants that lie in it are handed to NNAPI as
// regions of it, which the runtime references instead of copying (processes share the pages).
struct ConstantFile {
    ANeuralNetworksMemory* memory = nullptr;
    std::span<const uint8_t> bytes;  // the Model's view of the file
};

class PartitionModel {
public:
    // Adds the nodes' operations and operands through the public API. On failure names the node
    // whose operation NNAPI refused, or the result code of identifyInputsAndOutputs / finish.
    // `relaxed`: the model lets float32 math run with 16-bit precision.
    static Result<std::unique_ptr<PartitionModel>> build(const Model& model, const NnapiGraph& graph,
                                                         const std::vector<uint32_t>& nodes, bool relaxed = false);
    ~PartitionModel();

    ANeuralNetworksModel* handle() const { return model_; }
    const std::vector<int32_t>& inputTensors() const { return inputTensors_; }
    const std::vector<int32_t>& outputTensors() const { return outputTensors_; }
    const std::vector<uint32_t>& operationNodes() const { return operationNodes_; }
    const std::vector<uint32_t>& nodes() const { return nodes_; }   // never empty
    // The recurrent states the model outputs after outputTensors() (NnapiGraph::stateFeedback).
    const std::vector<StateFeedback>& states() const { return states_; }
    const std::vector<size_t>& stateBytes() const { return stateBytes_; }

    PartitionModel(const PartitionModel&) = delete;
    PartitionModel& operator=(const PartitionModel&) = delete;

private:
    PartitionModel() = default;

    ANeuralNetworksModel* model_ = nullptr;
    ConstantFile file_;  // its memory freed after the model
    std::vector<int32_t> inputTensors_, outputTensors_;
    std::vector<uint32_t> operationNodes_;
    std::vector<uint32_t> nodes_;
    std::vector<StateFeedback> states_;
    std::vector<size_t> stateBytes_;
};

struct CompileTarget {
    std::vector<const ANeuralNetworksDevice*> devices;   // empty: the runtime's choice (Compilation_create)
    int32_t preference = -1;
    std::vector<uint8_t> cacheToken;                      // 32 bytes, with cacheDir
    std::string cacheDir;
    // A delegate kernel: like TFLite's delegate, it does not carry the sequence operators'
    // final states (StateFeedback::cpuPathOnly).
    bool delegated = false;
};

class CompiledPartition : public ExecutionUnit {
public:
    static Result<std::unique_ptr<CompiledPartition>> compile(std::unique_ptr<PartitionModel> model,
                                                              const CompileTarget& target);
    ~CompiledPartition() override;

    const PartitionModel& model() const { return *model_; }
    // buffers[t]: the interpreter's NNAPI-layout buffer of TFLite tensor t.
    Status run(std::vector<TensorBuffer>& buffers) override;
    uint32_t firstNode() const override { return model_->nodes().front(); }
    // Its boundary only: the tensors inside live in the device's memory.
    void markTensors(std::vector<bool>* touched) const override;

    CompiledPartition(const CompiledPartition&) = delete;
    CompiledPartition& operator=(const CompiledPartition&) = delete;

private:
    CompiledPartition() = default;

    std::unique_ptr<PartitionModel> model_;
    ANeuralNetworksCompilation* compilation_ = nullptr;
    // Per model state output: where NNAPI writes it and whether it is copied back.
    std::vector<TensorBuffer> stateBuffers_;
    std::vector<bool> carryState_;
};

const char* resultCodeName(int code);

// Adds `operand` to `model` as operand `id` (the next index): its type, per-channel parameters,
// and its value when constant (data, or the referenced model of an ANEURALNETWORKS_MODEL).
int addNnapiOperand(ANeuralNetworksModel* model, const NnOperand& operand, uint32_t id,
                    const ConstantFile* file = nullptr);

// NNAPI refuses a null operand list even with a count of 0, and an empty vector's data() may be
// null: an empty list is passed as a pointer to nothing.
const uint32_t* listData(const std::vector<uint32_t>& list);

}  // namespace nnemu::tflite
