// The subgraphs a model's IF and WHILE nodes run, each lowered and built once as a finished
// NNAPI model that ANEURALNETWORKS_MODEL operands refer to (setOperandValueFromModel). A
// subgraph's inputs and outputs keep TFLite's order; an output that is an input, a constant or
// listed twice goes through an identity CAST, since an NNAPI model output must be computed.
#pragma once

#include <android/NeuralNetworks.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nnemu/tflite/NnapiGraph.h"
#include "nnemu/tflite/Model.h"

namespace nnemu::tflite {

class ReferencedModels final : public SubgraphModels {
public:
    // Far beyond real models; keeps a crafted chain of subgraphs from exhausting the stack.
    static constexpr size_t kMaxNesting = 32;

    ReferencedModels(const Model& model, bool signedInt8);
    ~ReferencedModels() override;   // frees the models, referring ones before those they refer to

    // The finished model of subgraph `index`, built on first use; BAD_DATA with a reason for an
    // index out of range, a subgraph reached again while it is being built (a recursion cycle;
    // the main graph counts as being built), nesting deeper than kMaxNesting, or one that cannot
    // be lowered or that NNAPI refuses.
    Result<ANeuralNetworksModel*> get(int32_t index) override;

    ReferencedModels(const ReferencedModels&) = delete;
    ReferencedModels& operator=(const ReferencedModels&) = delete;

private:
    enum class State : uint8_t { NOT_BUILT, BUILDING, BUILT };
    Status build(uint32_t index);
    Status boundary(uint32_t index, NnapiGraph& graph, std::vector<uint32_t>* inputs, std::vector<uint32_t>* outputs);
    Status finish(uint32_t index, const NnapiGraph& graph, const std::vector<uint32_t>& inputs,
                  const std::vector<uint32_t>& outputs, ANeuralNetworksModel* model);

    const Model& model_;
    bool signedInt8_;
    size_t depth_ = 0;                               // subgraphs being built, nested
    std::vector<State> state_;                       // per subgraph
    std::vector<ANeuralNetworksModel*> models_;      // per subgraph, once built
    std::vector<ANeuralNetworksModel*> created_;     // in creation order
    std::vector<std::unique_ptr<NnapiGraph>> graphs_;   // their operand values stay alive
};

}  // namespace nnemu::tflite
