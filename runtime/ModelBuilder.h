// ANeuralNetworksModel: collects operands, constants and operations, then finishes into an
// immutable, validated, topologically sorted hal::Model.
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "FeatureLevel.h"
#include "nnemu/hal/Types.h"

struct ANeuralNetworksOperandType;
struct ANeuralNetworksSymmPerChannelQuantParams;

namespace nnemu::runtime {

// Each method checks the model's state (BAD_STATE), then its arguments' values (BAD_DATA);
// NeuralNetworks.cpp has already refused null pointer arguments.
class ModelBuilder {
public:
    ModelBuilder() = default;
    // A copy would share the model under construction (compilations share the finished one).
    ModelBuilder(const ModelBuilder&) = delete;
    ModelBuilder& operator=(const ModelBuilder&) = delete;

    int addOperand(const ANeuralNetworksOperandType& type);
    int setOperandValue(int32_t index, const void* buffer, size_t length);
    int setOperandValueFromMemory(int32_t index, std::shared_ptr<const hal::MemoryPool> memory,
                                  size_t offset, size_t length);
    // Feature level 30: a SUBGRAPH operand whose value is `value` (finished, valid).
    int setOperandValueFromModel(int32_t index, const ModelBuilder& value);
    int setOperandSymmPerChannelQuantParams(int32_t index,
                                            const ANeuralNetworksSymmPerChannelQuantParams& params);
    int addOperation(int32_t type, uint32_t inputCount, const uint32_t* inputs,
                     uint32_t outputCount, const uint32_t* outputs);
    int identifyInputsAndOutputs(uint32_t inputCount, const uint32_t* inputs,
                                 uint32_t outputCount, const uint32_t* outputs);
    int setOperandExtensionData(int32_t index, const void* data, size_t length);
    int relaxComputationFloat32toFloat16(bool allow);
    int finish();

    bool isFinished() const { return finished_; }
    bool isValid() const { return !invalid_; }
    // Only meaningful once finished.
    const hal::Model& model() const { return *model_; }
    // The finished model, shared by compilations instead of copied (it never changes again).
    std::shared_ptr<const hal::Model> sharedModel() const { return model_; }
    // Index of each sorted operation in the order the application added them.
    const std::vector<uint32_t>& sortedToAdded() const { return sortedToAdded_; }
    bool hasOemOperation() const { return hasOem_; }
    // The level finish() holds the model to: the runtime's, lower only in unit tests of the rule.
    void setRuntimeLevelForTesting(int64_t level) { runtimeLevel_ = level; }

private:
    int checkModifiable(const char* function) const;
    int checkOperandIndex(int32_t index, const char* function) const;
    uint8_t* constantOf(uint32_t index) const;
    int copyReferencedValues();
    int copyReferencedModels();
    using Placed = std::map<const ModelBuilder*, uint32_t>;
    uint32_t placeReferencedModel(const ModelBuilder& value, Placed& placed);
    uint32_t appendSubgraph(hal::Subgraph graph, uint32_t valueBase, uint32_t poolBase,
                            const std::vector<uint32_t>& innerIndex, const ModelBuilder* source);
    bool listsEveryInputAndOutput() const;
    bool sortOperations();

    std::shared_ptr<hal::Model> model_ = std::make_shared<hal::Model>();
    std::vector<const void*> referencedValues_;  // per operand: app pointer kept until finish
    std::vector<const ModelBuilder*> modelValues_;  // per operand: SUBGRAPH value until finish
    std::vector<const ModelBuilder*> referencedSources_;  // per model_.referenced entry
    bool finished_ = false;
    int64_t runtimeLevel_ = kRuntimeFeatureLevel;
    bool invalid_ = false;
    bool hasOem_ = false;
    std::vector<uint32_t> sortedToAdded_;
};

}  // namespace nnemu::runtime
