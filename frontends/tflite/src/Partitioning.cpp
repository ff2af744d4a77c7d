// Dependency-respecting partitioning: a topological walk that stays on one kind of node
// (delegated or CPU) as long as any node of that kind is ready, then switches kind.
#include "Partitioning.h"

#include <algorithm>
#include <functional>
#include <queue>

#include "nnemu/tflite/tflite_generated.h"

namespace nnemu::tflite {
namespace {

// Nodes that read or write an interpreter's resource variables, state no tensor shows.
bool touchesVariables(const Node& node) {
    for (fb::BuiltinOperator code : {fb::BuiltinOperator_READ_VARIABLE, fb::BuiltinOperator_ASSIGN_VARIABLE,
                                     fb::BuiltinOperator_CALL_ONCE}) {
        if (node.builtinCode == static_cast<int32_t>(code)) return true;
    }
    return false;
}

}  // namespace

std::vector<NodeSubset> partitionNodes(const Model& model, const std::vector<bool>& supported) {
    const std::vector<Node>& nodes = model.nodes();
    const size_t count = nodes.size();
    std::vector<int64_t> producer(model.tensors().size(), -1);
    for (const Node& node : nodes) {
        for (int32_t t : node.outputs) producer[t] = node.index;
    }
    // Producer -> consumer edges, each counted once.
    std::vector<std::vector<uint32_t>> consumers(count);
    std::vector<uint32_t> pending(count, 0);
    int64_t lastStateful = -1;
    for (const Node& node : nodes) {
        std::vector<uint32_t> from;
        // Variable reads and assignments keep their order, as TFLite runs them: each waits for
        // the previous one as for a producer.
        if (touchesVariables(node)) {
            if (lastStateful >= 0) from.push_back(static_cast<uint32_t>(lastStateful));
            lastStateful = node.index;
        }
        for (int32_t t : node.inputs) {
            if (t >= 0 && producer[t] >= 0 && producer[t] != node.index) from.push_back(static_cast<uint32_t>(producer[t]));
        }
        std::sort(from.begin(), from.end());
        from.erase(std::unique(from.begin(), from.end()), from.end());
        for (uint32_t p : from) consumers[p].push_back(node.index);
        pending[node.index] = static_cast<uint32_t>(from.size());
    }
    using ReadyQueue = std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>>;
    ReadyQueue ready[2];  // [0] CPU, [1] delegated; lowest node index first
    for (uint32_t n = 0; n < count; ++n) {
        if (pending[n] == 0) ready[supported[n] ? 1 : 0].push(n);
    }
    std::vector<NodeSubset> subsets;
    if (count == 0) return subsets;
    // Start with the kind of the first node in execution order.
    int kind = supported[0] ? 1 : 0;
    size_t placed = 0;
    while (placed < count) {
        NodeSubset subset;
        subset.delegated = kind == 1;
        while (!ready[kind].empty()) {
            const uint32_t n = ready[kind].top();
            ready[kind].pop();
            subset.nodes.push_back(n);
            ++placed;
            for (uint32_t c : consumers[n]) {
                if (--pending[c] == 0) ready[supported[c] ? 1 : 0].push(c);
            }
        }
        if (!subset.nodes.empty()) {
            std::sort(subset.nodes.begin(), subset.nodes.end());
            subsets.push_back(std::move(subset));
        } else if (ready[1 - kind].empty()) {
            break;  // a cycle: cannot happen for nodes in execution order
        }
        kind = 1 - kind;
    }
    return subsets;
}

std::vector<bool> limitDelegatedPartitions(const std::vector<NodeSubset>& subsets, std::vector<bool> supported,
                                           int maxDelegatedPartitions) {
    if (maxDelegatedPartitions <= 0) return supported;
    std::vector<const NodeSubset*> delegated;
    for (const NodeSubset& subset : subsets) {
        if (subset.delegated) delegated.push_back(&subset);
    }
    if (delegated.size() <= static_cast<size_t>(maxDelegatedPartitions)) return supported;
    std::stable_sort(delegated.begin(), delegated.end(),
                     [](const NodeSubset* a, const NodeSubset* b) { return a->nodes.size() > b->nodes.size(); });
    for (size_t i = static_cast<size_t>(maxDelegatedPartitions); i < delegated.size(); ++i) {
        for (uint32_t n : delegated[i]->nodes) supported[n] = false;
    }
    return supported;
}

}  // namespace nnemu::tflite
