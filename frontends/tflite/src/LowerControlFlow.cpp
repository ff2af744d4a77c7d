// Control flow: WHILE -> NNAPI WHILE, IF -> NNAPI IF (feature level 30), their subgraphs as
// referenced models. TFLite's WHILE carries every value through the loop: all of them become
// NNAPI input-output values (m = all, no state-only or input-only values), so each must keep
// its type, shape and quantization from iteration to iteration. TFLite's IF takes the condition
// and then the values both branches receive, as NNAPI's does.
#include <android/NeuralNetworks.h>

#include "LoweringList.h"
#include "RuntimeLevel.h"

namespace nnemu::tflite {
namespace lowerings::control_flow {

constexpr int64_t kControlFlowLevel = 30;

std::string shapeText(const std::vector<int32_t>& shape) {
    std::string text = "[";
    for (size_t i = 0; i < shape.size(); ++i) text += (i == 0 ? "" : ",") + std::to_string(shape[i]);
    return text + "]";
}

// NNAPI sees a rank-0 tensor as [1] (see NodeLowering): compare shapes the same way.
std::vector<int32_t> nnapiShape(const Tensor& tensor) {
    return tensor.shape.empty() ? std::vector<int32_t>{1} : tensor.shape;
}

// Why a value of tensor `a` cannot flow into `b` across a subgraph boundary ("" if it can).
std::string mismatch(const Tensor& a, const Tensor& b) {
    if (a.type != b.type) return std::string("type ") + elementTypeName(a.type) + " vs " + elementTypeName(b.type);
    if (nnapiShape(a) != nnapiShape(b)) return "shape " + shapeText(a.shape) + " vs " + shapeText(b.shape);
    const bool quantized = a.type == ElementType::UINT8 || a.type == ElementType::INT8;
    if (quantized && (a.scale != b.scale || a.zeroPoint != b.zeroPoint)) return "quantization (scale, zero point)";
    return "";
}

const Subgraph* subgraphAt(const NodeLowering& l, int32_t index) {
    const std::vector<Subgraph>& all = l.model().subgraphs();
    return index >= 0 && static_cast<size_t>(index) < all.size() ? &all[static_cast<size_t>(index)] : nullptr;
}

bool levelAllows(NodeLowering& l) {
    const int64_t level = nnapiRuntimeFeatureLevel();
    if (level >= kControlFlowLevel) return true;
    return l.fail("control flow needs NNAPI feature level 30 (IF/WHILE); the runtime implements " +
                  std::to_string(level));
}

// Every input present and lowered (activation or constant).
bool valueOperands(NodeLowering& l, size_t first, std::vector<uint32_t>* operands) {
    for (size_t i = first; i < l.inputCount(); ++i) {
        uint32_t operand;
        if (!l.inputOperand(i, &operand)) return false;
        operands->push_back(operand);
    }
    return true;
}

bool outputOperands(NodeLowering& l, std::vector<uint32_t>* operands) {
    for (size_t i = 0; i < l.outputCount(); ++i) {
        uint32_t operand;
        if (!l.outputOperand(i, &operand)) return false;
        operands->push_back(operand);
    }
    return true;
}

bool isBoolScalar(const Tensor& tensor) {
    return tensor.type == ElementType::BOOL && nnapiShape(tensor) == std::vector<int32_t>{1};
}

// A subgraph's inputs and outputs against the values passed in (the node's inputs from
// `firstInput`) and out (the node's outputs, when `checkOutputs`).
bool checkSignature(NodeLowering& l, const char* role, const Subgraph& graph, size_t firstInput, bool checkOutputs) {
    const size_t values = l.inputCount() - firstInput;
    if (graph.inputs.size() != values) {
        return l.fail(std::string(role) + " subgraph takes " + std::to_string(graph.inputs.size()) +
                      " inputs, the operator passes " + std::to_string(values));
    }
    for (size_t i = 0; i < values; ++i) {
        const std::string why = mismatch(l.input(firstInput + i), graph.tensors[graph.inputs[i]]);
        if (!why.empty()) return l.fail(std::string(role) + " subgraph input " + std::to_string(i) + ": " + why);
    }
    if (!checkOutputs) return true;
    if (graph.outputs.size() != l.outputCount()) {
        return l.fail(std::string(role) + " subgraph has " + std::to_string(graph.outputs.size()) +
                      " outputs, the operator " + std::to_string(l.outputCount()));
    }
    for (size_t i = 0; i < l.outputCount(); ++i) {
        const std::string why = mismatch(graph.tensors[graph.outputs[i]], l.output(i));
        if (!why.empty()) return l.fail(std::string(role) + " subgraph output " + std::to_string(i) + ": " + why);
    }
    return true;
}

bool lowerWhile(NodeLowering& l) {
    if (!levelAllows(l)) return false;
    const auto* options = l.params<TfLiteWhileParams>();
    if (options == nullptr) return l.fail("missing WhileOptions");
    const size_t count = l.inputCount();
    if (count == 0) return l.fail("has no loop values");
    if (!l.expectCounts(count, count, count)) return false;
    const Subgraph* cond = subgraphAt(l, options->cond_subgraph_index);
    const Subgraph* body = subgraphAt(l, options->body_subgraph_index);
    // The body's own shapes first: a value whose shape changes is the typical inexpressible loop.
    for (size_t i = 0; body != nullptr && body->inputs.size() == count && i < body->outputs.size() && i < count; ++i) {
        const Tensor& in = body->tensors[body->inputs[i]];
        const Tensor& out = body->tensors[body->outputs[i]];
        if (nnapiShape(in) != nnapiShape(out)) {
            return l.fail("loop variable " + std::to_string(i) + " changes shape from " + shapeText(in.shape) +
                          " to " + shapeText(out.shape) + " in the body; NNAPI's WHILE needs fixed shapes");
        }
        const std::string why = mismatch(out, in);
        if (!why.empty()) {
            return l.fail("loop variable " + std::to_string(i) + " changes " + why +
                          " in the body; NNAPI's WHILE feeds each output back unchanged");
        }
    }
    if (cond != nullptr && body != nullptr) {
        if (!checkSignature(l, "cond", *cond, 0, false) || !checkSignature(l, "body", *body, 0, true)) return false;
        if (cond->outputs.size() != 1 || !isBoolScalar(cond->tensors[cond->outputs[0]])) {
            return l.fail("cond subgraph must have exactly one output, a bool of one element");
        }
    }
    uint32_t condModel, bodyModel;
    if (!l.referencedModel(options->cond_subgraph_index, "cond", &condModel) ||
        !l.referencedModel(options->body_subgraph_index, "body", &bodyModel)) {
        return false;
    }
    std::vector<uint32_t> inputs = {condModel, bodyModel}, outputs;
    if (!valueOperands(l, 0, &inputs) || !outputOperands(l, &outputs)) return false;
    l.addOperation(ANEURALNETWORKS_WHILE, inputs, outputs);
    return true;
}

bool lowerIf(NodeLowering& l) {
    if (!levelAllows(l)) return false;
    const auto* options = l.params<TfLiteIfParams>();
    if (options == nullptr) return l.fail("missing IfOptions");
    if (l.inputCount() < 1 || l.outputCount() < 1) return l.fail("needs a condition input and at least one output");
    if (!l.expectCounts(l.inputCount(), l.inputCount(), l.outputCount())) return false;
    if (!isBoolScalar(l.input(0))) return l.fail("the condition must be a bool tensor of one element");
    const Subgraph* thenGraph = subgraphAt(l, options->then_subgraph_index);
    const Subgraph* elseGraph = subgraphAt(l, options->else_subgraph_index);
    if (thenGraph != nullptr && !checkSignature(l, "then", *thenGraph, 1, true)) return false;
    if (elseGraph != nullptr && !checkSignature(l, "else", *elseGraph, 1, true)) return false;
    uint32_t condition, thenModel, elseModel;
    if (!l.inputOperand(0, &condition)) return false;
    if (!l.referencedModel(options->then_subgraph_index, "then", &thenModel) ||
        !l.referencedModel(options->else_subgraph_index, "else", &elseModel)) {
        return false;
    }
    std::vector<uint32_t> inputs = {condition, thenModel, elseModel}, outputs;
    if (!valueOperands(l, 1, &inputs) || !outputOperands(l, &outputs)) return false;
    l.addOperation(ANEURALNETWORKS_IF, inputs, outputs);
    return true;
}

}  // namespace lowerings::control_flow

}  // namespace nnemu::tflite
