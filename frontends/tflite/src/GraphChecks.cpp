// Data-flow and memory checks on the TFLite graph.
#include "GraphChecks.h"

#include <algorithm>
#include <set>

namespace nnemu::tflite {
namespace {

constexpr uint64_t kMaxTensorBytes = uint64_t{1} << 30;

}  // namespace

// Nodes in execution order: each reads what exists when it runs; each tensor has one writer.
Status checkDataFlow(const Subgraph& graph) {
    const std::vector<Tensor>& tensors = graph.tensors;
    std::vector<int64_t> producer(tensors.size(), -1);
    std::vector<bool> isInput(tensors.size(), false);
    for (int32_t t : graph.inputs) isInput[t] = true;
    const auto tensorName = [&](int32_t t) { return "tensor " + std::to_string(t) + " (" + tensors[t].name + ")"; };
    for (const Node& node : graph.nodes) {
        const std::string where = "operator " + node.opName + " at node " + std::to_string(node.index);
        for (int32_t t : node.inputs) {
            // A variable (state) tensor nobody writes holds its initial value: zeros.
            if (t < 0 || tensors[t].isConstant || tensors[t].isVariable || isInput[t]) continue;
            if (producer[t] < 0) {
                return badData(where + ": input " + tensorName(t) +
                               " has no value (not a constant, a subgraph input or an earlier node's output)");
            }
        }
        for (int32_t t : node.outputs) {
            if (producer[t] >= 0 || isInput[t] || tensors[t].isConstant) {
                return badData(where + ": output " + tensorName(t) +
                               " is already a constant, a subgraph input or another node's output");
            }
            producer[t] = node.index;
        }
    }
    for (int32_t t : graph.outputs) {
        if (producer[t] < 0 && !isInput[t] && !tensors[t].isConstant) {
            return badData("subgraph output " + tensorName(t) + " is never computed");
        }
    }
    return {};
}

Result<std::vector<int32_t>> tensorsInUse(const Subgraph& graph) {
    std::set<int32_t> inUse(graph.inputs.begin(), graph.inputs.end());
    inUse.insert(graph.outputs.begin(), graph.outputs.end());
    for (const Node& node : graph.nodes) {
        for (int32_t t : node.inputs) {
            if (t >= 0 && !graph.tensors[t].isConstant) inUse.insert(t);
        }
        inUse.insert(node.outputs.begin(), node.outputs.end());
    }
    uint64_t total = 0;
    for (int32_t t : inUse) {
        const Tensor& tensor = graph.tensors[t];
        total += std::max(tensor.byteSize(), tensor.dataSize);
        if (total > kMaxTensorBytes) {
            return Status(StatusCode::RESOURCE_EXHAUSTED_PERSISTENT,
                          "the graph's tensors need more than " + std::to_string(kMaxTensorBytes >> 20) + " MB");
        }
    }
    return std::vector<int32_t>(inUse.begin(), inUse.end());
}

}  // namespace nnemu::tflite
