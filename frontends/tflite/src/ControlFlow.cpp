// Building the NNAPI model of a subgraph: data-flow checks, lowering of its nodes (which may
// build further subgraphs), its inputs and outputs in TFLite's order, then Model_finish.
#include "ControlFlow.h"

#include <algorithm>
#include <map>
#include <set>

#include "CompiledPartition.h"
#include "GraphChecks.h"
#include "NodeLowering.h"

namespace nnemu::tflite {

ReferencedModels::ReferencedModels(const Model& model, bool signedInt8)
    : model_(model),
      signedInt8_(signedInt8),
      state_(model.subgraphs().size(), State::NOT_BUILT),
      models_(model.subgraphs().size(), nullptr) {
    state_[0] = State::BUILDING;   // the main graph refers to the others, never the reverse
}

ReferencedModels::~ReferencedModels() {
    for (auto it = created_.rbegin(); it != created_.rend(); ++it) ANeuralNetworksModel_free(*it);
}

Result<ANeuralNetworksModel*> ReferencedModels::get(int32_t index) {
    const size_t count = state_.size();
    if (index < 0 || static_cast<size_t>(index) >= count) {
        return badData("subgraph index " + std::to_string(index) + " is out of range (the model has " +
                       std::to_string(count) + " subgraph" + (count == 1 ? "" : "s") + ")");
    }
    const auto s = static_cast<uint32_t>(index);
    if (state_[s] == State::BUILDING) {
        return badData("subgraph " + std::to_string(s) + (s == 0 ? " (the main graph)" : "") +
                       " is reached again while it is being built: a recursion cycle, which NNAPI cannot express");
    }
    if (state_[s] == State::NOT_BUILT) {
        if (depth_ >= kMaxNesting) {
            return badData("control flow nested more than " + std::to_string(kMaxNesting) + " subgraphs deep");
        }
        state_[s] = State::BUILDING;
        ++depth_;
        const Status built = build(s);
        --depth_;
        state_[s] = built ? State::BUILT : State::NOT_BUILT;
        if (!built) {
            const std::string& name = model_.subgraphs()[s].name;
            return Status(built.code(), "subgraph " + std::to_string(s) + (name.empty() ? "" : " (" + name + ")") +
                                                ": " + built.message());
        }
    }
    return models_[s];
}

Status ReferencedModels::build(uint32_t index) {
    const Subgraph& subgraph = model_.subgraphs()[index];
    NNEMU_RETURN_IF_ERROR(checkDataFlow(subgraph));
    NNEMU_RETURN_IF_ERROR(tensorsInUse(subgraph));
    auto graph = std::make_unique<NnapiGraph>();
    graph->signedInt8 = signedInt8_;
    graph->references = this;
    NNEMU_RETURN_IF_ERROR(lowerSubgraph(model_, index, *graph));
    std::vector<uint32_t> inputs, outputs;
    NNEMU_RETURN_IF_ERROR(boundary(index, *graph, &inputs, &outputs));
    ANeuralNetworksModel* model = nullptr;
    if (ANeuralNetworksModel_create(&model) != ANEURALNETWORKS_NO_ERROR) {
        return opFailed("ANeuralNetworksModel_create failed");
    }
    created_.push_back(model);
    NNEMU_RETURN_IF_ERROR(finish(index, *graph, inputs, outputs, model));
    models_[index] = model;
    graphs_.push_back(std::move(graph));
    return {};
}

// The subgraph's input and output operands, in order. A pseudo node after the last one owns
// the identity CASTs that give a passed-through input, a constant or a repeated output its own
// computed operand.
Status ReferencedModels::boundary(uint32_t index, NnapiGraph& graph, std::vector<uint32_t>* inputs,
                                  std::vector<uint32_t>* outputs) {
    const Subgraph& subgraph = model_.subgraphs()[index];
    Node edges;
    edges.index = static_cast<uint32_t>(subgraph.nodes.size());
    edges.opName = "(subgraph inputs and outputs)";
    graph.nodeOperations.emplace_back();
    graph.cpuOnly.push_back(false);
    NodeLowering lowering(model_, subgraph, edges, graph);
    const std::set<int32_t> inputSet(subgraph.inputs.begin(), subgraph.inputs.end());
    if (inputSet.size() != subgraph.inputs.size()) {
        lowering.fail("a tensor is listed twice as an input");
        return lowering.status();
    }
    for (int32_t t : subgraph.inputs) {
        if (subgraph.tensors[t].isConstant) {
            lowering.fail("input tensor " + std::to_string(t) + " (" + subgraph.tensors[t].name + ") is a constant");
            return lowering.status();
        }
        uint32_t operand;
        if (!lowering.activation(t, &operand)) return lowering.status();
        inputs->push_back(operand);
    }
    std::set<int32_t> listed;
    for (int32_t t : subgraph.outputs) {
        const Tensor& tensor = subgraph.tensors[t];
        uint32_t operand;
        if (!(tensor.isConstant ? lowering.constantTensor(t, -1, &operand) : lowering.activation(t, &operand))) {
            return lowering.status();
        }
        if (tensor.isConstant || inputSet.count(t) != 0 || !listed.insert(t).second) {
            const uint32_t copy = lowering.temporary(lowering.operand(operand), lowering.operand(operand).dims);
            lowering.addOperation(ANEURALNETWORKS_CAST, {operand}, {copy});
            if (lowering.rejected()) return lowering.status();
            operand = copy;
        }
        outputs->push_back(operand);
    }
    return {};
}

Status ReferencedModels::finish(uint32_t index, const NnapiGraph& graph, const std::vector<uint32_t>& inputs,
                                const std::vector<uint32_t>& outputs, ANeuralNetworksModel* model) {
    std::map<uint32_t, uint32_t> local;   // graph operand -> model operand
    const auto add = [&](uint32_t index) -> int {
        if (local.count(index) != 0) return ANEURALNETWORKS_NO_ERROR;
        const auto id = static_cast<uint32_t>(local.size());
        local[index] = id;
        return addNnapiOperand(model, graph.operands[index], id);
    };
    std::vector<uint32_t> modelInputs, modelOutputs;
    int status = ANEURALNETWORKS_NO_ERROR;
    for (uint32_t operand : inputs) {
        if (status == ANEURALNETWORKS_NO_ERROR) status = add(operand);
        modelInputs.push_back(local[operand]);
    }
    for (const NnOperation& operation : graph.operations) {
        std::vector<uint32_t> ins, outs;
        for (uint32_t operand : operation.inputs) {
            if (status == ANEURALNETWORKS_NO_ERROR) status = add(operand);
            ins.push_back(local[operand]);
        }
        for (uint32_t operand : operation.outputs) {
            if (status == ANEURALNETWORKS_NO_ERROR) status = add(operand);
            outs.push_back(local[operand]);
        }
        if (status != ANEURALNETWORKS_NO_ERROR) break;
        status = ANeuralNetworksModel_addOperation(model, operation.type, static_cast<uint32_t>(ins.size()),
                                                   listData(ins), static_cast<uint32_t>(outs.size()), listData(outs));
        if (status != ANEURALNETWORKS_NO_ERROR) {
            const std::vector<Node>& nodes = model_.subgraphs()[index].nodes;
            const std::string name = operation.node < nodes.size() ? nodes[operation.node].opName : "CAST";
            return badData("operator " + name + " at node " + std::to_string(operation.node) +
                           ": NNAPI rejected the operation (" + resultCodeName(status) + ")");
        }
    }
    for (uint32_t operand : outputs) {
        if (status == ANEURALNETWORKS_NO_ERROR) status = add(operand);
        modelOutputs.push_back(local[operand]);
    }
    if (status == ANEURALNETWORKS_NO_ERROR) {
        status = ANeuralNetworksModel_identifyInputsAndOutputs(
                model, static_cast<uint32_t>(modelInputs.size()), listData(modelInputs),
                static_cast<uint32_t>(modelOutputs.size()), listData(modelOutputs));
    }
    if (status == ANEURALNETWORKS_NO_ERROR) status = ANeuralNetworksModel_finish(model);
    if (status != ANEURALNETWORKS_NO_ERROR) {
        return badData(std::string("NNAPI rejected the subgraph's model (") + resultCodeName(status) + ")");
    }
    return {};
}

// Here, not beside lowerSubgraph: the main graph's lowering is what needs the NNAPI models of its
// subgraphs, and a library that only maps nodes (libvx_delegate.so) must not link them.
Status lowerModel(const Model& model, NnapiGraph& graph) {
    if (graph.references == nullptr) {
        auto references = std::make_shared<ReferencedModels>(model, graph.signedInt8);
        graph.references = references.get();
        graph.ownedReferences = std::move(references);
    }
    return lowerSubgraph(model, 0, graph);
}

}  // namespace nnemu::tflite
