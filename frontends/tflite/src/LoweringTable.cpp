// The table of lowerings (every operator family adds its own) and the lowering of a whole model.
#include "NodeLowering.h"
#include "cpu/CpuKernel.h"

namespace nnemu::tflite {

void LoweringTable::add(fb::BuiltinOperator code, LoweringFunction function) {
    const auto index = static_cast<size_t>(code);
    if (functions_.size() <= index) functions_.resize(index + 1, nullptr);
    functions_[index] = function;
}

void LoweringTable::addCustom(const std::string& name, LoweringFunction function) { custom_[name] = function; }

LoweringFunction LoweringTable::find(const Node& node) const {
    if (node.builtinCode == fb::BuiltinOperator_CUSTOM) {
        const auto found = custom_.find(node.opName);
        return found == custom_.end() ? nullptr : found->second;
    }
    if (node.builtinCode < 0 || static_cast<size_t>(node.builtinCode) >= functions_.size()) return nullptr;
    return functions_[static_cast<size_t>(node.builtinCode)];
}

const LoweringTable& LoweringTable::get() {
    static const LoweringTable table = [] {
        LoweringTable t;
        addConvolutionLowerings(t);
        addFullyConnectedLowerings(t);
        addPoolingLowerings(t);
        addElementwiseLowerings(t);
        addNormalizationLowerings(t);
        addReshapingLowerings(t);
        addReductionLowerings(t);
        addResizeLowerings(t);
        addQuantizationLowerings(t);
        addComparisonLowerings(t);
        addSelectionLowerings(t);
        addLookupLowerings(t);
        addMathLowerings(t);
        addTransposeConvLowerings(t);
        addSequenceLowerings(t);
        addRecurrentLowerings(t);
        addDetectionLowerings(t);
        addControlFlowLowerings(t);
        addActivationLowerings(t);
        addShapeOpLowerings(t);
        addDataMovementLowerings(t);
        return t;
    }();
    return table;
}

namespace {

// Lowers one node of `subgraph`. A node that fails may have added operations.
Status lowerNode(const Model& model, const Subgraph& subgraph, const Node& node, NnapiGraph& graph) {
    NodeLowering lowering(model, subgraph, node, graph);
    const LoweringFunction lower = LoweringTable::get().find(node);
    if (lower == nullptr && node.builtinCode == fb::BuiltinOperator_CUSTOM) {
        // TFLite's words for a custom operator no kernel is registered for.
        return badData("Encountered unresolved custom op: " + node.opName +
                       ".\nSee instructions: https://www.tensorflow.org/lite/guide/ops_custom \nNode number " +
                       std::to_string(node.index) + " (" + node.opName + ") failed to prepare.");
    }
    if (lower == nullptr) {
        lowering.fail("unsupported operator (no NNAPI mapping)");
        return lowering.status();
    }
    if (!lower(lowering) || lowering.rejected()) {
        if (lowering.status().isOk()) lowering.fail("");   // a lowering that refused without a reason
        return lowering.status();
    }
    if (graph.nodeOperations[node.index].empty()) {
        lowering.fail("no NNAPI operation");
        return lowering.status();
    }
    return {};
}

void startGraph(const Subgraph& subgraph, NnapiGraph& graph) {
    graph.stateFeedback.clear();
    graph.tensorOperand.assign(subgraph.tensors.size(), -1);
    graph.nodeOperations.assign(subgraph.nodes.size(), {});
    graph.cpuOnly.assign(subgraph.nodes.size(), false);
    graph.cpuKernel.assign(subgraph.nodes.size(), false);
}

void findReaders(const Subgraph& subgraph, NnapiGraph& graph) {
    graph.tensorReaders.assign(subgraph.tensors.size(), {});
    for (const NnOperation& operation : graph.operations) {
        for (uint32_t operand : operation.inputs) {
            const int32_t tensor = graph.operands[operand].tensor;
            if (tensor >= 0) graph.tensorReaders[tensor].push_back(operation.node);
        }
    }
    // CPU-kernel nodes read tensors too: a partition must hand them what they need.
    for (const Node& node : subgraph.nodes) {
        if (!graph.cpuKernel[node.index]) continue;
        for (int32_t tensor : node.inputs) {
            if (tensor >= 0) graph.tensorReaders[tensor].push_back(node.index);
        }
    }
}

// A node that has no NNAPI form runs on the tools' CPU kernel when it has one that accepts it;
// its operations (if any were added) go. Otherwise the lowering's reason, and the kernel's.
Status lowerOrKeepForCpuKernel(const Model& model, const Subgraph& subgraph, const Node& node, NnapiGraph& graph) {
    const size_t operationsBefore = graph.operations.size(), statesBefore = graph.stateFeedback.size();
    Status lowered = lowerNode(model, subgraph, node, graph);
    if (lowered || !graph.allowCpuKernels) return lowered;
    if (const Result<const CpuKernel*> kernel = prepareCpuKernel(subgraph, node); !kernel) {
        if (CpuKernelTable::get().find(node) == nullptr) return lowered;
        return Status(lowered.code(), lowered.message() + " (CPU kernel: " + kernel.message() + ")");
    }
    graph.operations.resize(operationsBefore);
    graph.stateFeedback.resize(statesBefore);
    graph.nodeOperations[node.index].clear();
    graph.cpuKernel[node.index] = true;
    graph.cpuOnly[node.index] = true;
    return {};
}

}  // namespace

Status lowerSubgraph(const Model& model, uint32_t index, NnapiGraph& graph) {
    const Subgraph& subgraph = model.subgraphs()[index];
    startGraph(subgraph, graph);
    for (const Node& node : subgraph.nodes) NNEMU_RETURN_IF_ERROR(lowerOrKeepForCpuKernel(model, subgraph, node, graph));
    findReaders(subgraph, graph);
    return {};
}

std::vector<bool> lowerMappableNodes(const Model& model, NnapiGraph& graph, std::vector<std::string>* reasons) {
    const Subgraph& subgraph = model.subgraphs()[0];
    startGraph(subgraph, graph);
    std::vector<bool> lowered(subgraph.nodes.size(), false);
    if (reasons != nullptr) reasons->assign(subgraph.nodes.size(), {});
    for (const Node& node : subgraph.nodes) {
        const size_t operationsBefore = graph.operations.size(), statesBefore = graph.stateFeedback.size();
        const Status status = lowerNode(model, subgraph, node, graph);
        lowered[node.index] = status.isOk();
        if (!lowered[node.index]) {
            // Its operands stay (unused); its operations and state feedback go.
            graph.operations.resize(operationsBefore);
            graph.stateFeedback.resize(statesBefore);
            graph.nodeOperations[node.index].clear();
            if (reasons != nullptr) (*reasons)[node.index] = status.message();
        }
    }
    findReaders(subgraph, graph);
    return lowered;
}

}  // namespace nnemu::tflite
