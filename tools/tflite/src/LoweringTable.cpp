// The table of lowerings (every operator family adds its own) and the lowering of a whole model.
#include "Lowering.h"

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
        addMathLowerings(t);
        addTransposeConvLowerings(t);
        addSequenceLowerings(t);
        addDetectionLowerings(t);
        return t;
    }();
    return table;
}

namespace {

// Lowers one node; false leaves `error` set. A node that fails may have added operations.
bool lowerNode(const Model& model, const Node& node, NnapiGraph& graph, std::string* error) {
    NodeLowering lowering(model, node, graph, error);
    const LoweringFunction lower = LoweringTable::get().find(node);
    if (lower == nullptr) {
        return lowering.fail(node.builtinCode == fb::BuiltinOperator_CUSTOM
                                     ? "unsupported custom operator (no NNAPI mapping)"
                                     : "unsupported operator (no NNAPI mapping)");
    }
    if (!lower(lowering) || lowering.rejected()) return false;
    if (graph.nodeOperations[node.index].empty()) return lowering.fail("no NNAPI operation");
    return true;
}

void startGraph(const Model& model, NnapiGraph& graph) {
    graph.tensorOperand.assign(model.tensors().size(), -1);
    graph.nodeOperations.assign(model.nodes().size(), {});
    graph.cpuOnly.assign(model.nodes().size(), false);
}

void findReaders(const Model& model, NnapiGraph& graph) {
    graph.tensorReaders.assign(model.tensors().size(), {});
    for (const NnOperation& operation : graph.operations) {
        for (uint32_t operand : operation.inputs) {
            const int32_t tensor = graph.operands[operand].tensor;
            if (tensor >= 0) graph.tensorReaders[tensor].push_back(operation.node);
        }
    }
}

}  // namespace

bool lowerModel(const Model& model, NnapiGraph& graph, std::string* error) {
    startGraph(model, graph);
    for (const Node& node : model.nodes()) {
        if (!lowerNode(model, node, graph, error)) return false;
    }
    findReaders(model, graph);
    return true;
}

std::vector<bool> lowerMappableNodes(const Model& model, NnapiGraph& graph, std::vector<std::string>* reasons) {
    startGraph(model, graph);
    std::vector<bool> lowered(model.nodes().size(), false);
    if (reasons != nullptr) reasons->assign(model.nodes().size(), {});
    for (const Node& node : model.nodes()) {
        const size_t operationsBefore = graph.operations.size();
        std::string why;
        lowered[node.index] = lowerNode(model, node, graph, &why);
        if (!lowered[node.index]) {
            // Its operands stay (unused); its operations go.
            graph.operations.resize(operationsBefore);
            graph.nodeOperations[node.index].clear();
            if (reasons != nullptr) (*reasons)[node.index] = why;
        }
    }
    findReaders(model, graph);
    return lowered;
}

}  // namespace nnemu::tflite
