// Signatures of IF and WHILE, and their checks against the referenced subgraphs.
// IF: 0 TENSOR_BOOL8 [1] condition, 1 then-model, 2 else-model, then the n values passed to the
// chosen model; its m outputs are the chosen model's. WHILE: 0 condition model, 1 body model,
// then the m input-output, k state-only and n input-only initial values; the condition model
// maps all m+k+n to one TENSOR_BOOL8 [1], the body maps them to the next m+k; the m outputs are
// the final input-output values. Drivers interpret both (no kernel): prepare() is never called.
#include "nnemu/hal/ControlFlow.h"

#include "nnemu/hal/Operations.h"
#include "SignatureList.h"

namespace nnemu::hal {
namespace {

bool dimsAgree(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
    if (a.empty() || b.empty()) return true;  // unknown rank
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
        if (a[i] != 0 && b[i] != 0 && a[i] != b[i]) return false;
    }
    return true;
}

bool isBoolScalarTensor(const Operand& operand) {
    return operand.type == OperandType::TENSOR_BOOL8 && dimsAgree(operand.dimensions, {1});
}

// Operand `i` of a subgraph's inputs or outputs.
const Operand& inputOf(const Subgraph& graph, size_t i) { return graph.operands[graph.inputIndexes[i]]; }
const Operand& outputOf(const Subgraph& graph, size_t i) { return graph.operands[graph.outputIndexes[i]]; }

Status validateIfBranches(const Model& model, const std::vector<Operand>& operands, const Operation& operation) {
    const Operand& condition = operands[operation.inputs[0]];
    if (!isBoolScalarTensor(condition)) return badData("IF: the condition must be a TENSOR_BOOL8 of shape [1]");
    const size_t valueCount = operation.inputs.size() - 3;
    for (uint32_t branch : {1u, 2u}) {
        const Subgraph* graph = referencedSubgraph(model, operands[operation.inputs[branch]]);
        if (graph == nullptr) return badData("IF: input " + std::to_string(branch) + " is not a model");
        if (graph->inputIndexes.size() != valueCount || graph->outputIndexes.size() != operation.outputs.size()) {
            return badData("IF: a branch model's inputs or outputs do not match the operation's");
        }
        for (size_t i = 0; i < valueCount; ++i) {
            if (!compatibleAcrossSubgraphs(operands[operation.inputs[3 + i]], inputOf(*graph, i))) {
                return badData("IF: value " + std::to_string(i) + " does not match the branch model's input");
            }
        }
        for (size_t i = 0; i < operation.outputs.size(); ++i) {
            if (!compatibleAcrossSubgraphs(operands[operation.outputs[i]], outputOf(*graph, i))) {
                return badData("IF: output " + std::to_string(i) + " does not match the branch model's output");
            }
        }
    }
    return {};
}

Status validateWhileModels(const Model& model, const std::vector<Operand>& operands, const Operation& operation) {
    const Subgraph* condition = referencedSubgraph(model, operands[operation.inputs[0]]);
    const Subgraph* body = referencedSubgraph(model, operands[operation.inputs[1]]);
    if (condition == nullptr || body == nullptr) return badData("WHILE: inputs 0 and 1 must be models");
    const size_t valueCount = operation.inputs.size() - 2;
    const size_t m = operation.outputs.size();
    if (condition->inputIndexes.size() != valueCount || body->inputIndexes.size() != valueCount) {
        return badData("WHILE: the condition and body models must take every value of the loop");
    }
    if (condition->outputIndexes.size() != 1 || !isBoolScalarTensor(outputOf(*condition, 0))) {
        return badData("WHILE: the condition model must have one TENSOR_BOOL8 [1] output");
    }
    const size_t carried = body->outputIndexes.size();  // m input-output + k state-only
    if (carried < m || carried > valueCount) {
        return badData("WHILE: the body model's outputs do not match the operation's");
    }
    for (size_t i = 0; i < valueCount; ++i) {
        const Operand& outer = operands[operation.inputs[2 + i]];
        if (!compatibleAcrossSubgraphs(outer, inputOf(*condition, i)) ||
            !compatibleAcrossSubgraphs(outer, inputOf(*body, i))) {
            return badData("WHILE: value " + std::to_string(i) + " does not match the models' inputs");
        }
        if (i < carried && !compatibleAcrossSubgraphs(outputOf(*body, i), inputOf(*body, i))) {
            return badData("WHILE: body output " + std::to_string(i) + " cannot feed the next iteration");
        }
        if (i < m && !compatibleAcrossSubgraphs(operands[operation.outputs[i]], outputOf(*body, i))) {
            return badData("WHILE: output " + std::to_string(i) + " does not match the body model's output");
        }
    }
    return {};
}

}  // namespace

bool signatures::validateIf(const OperationContext& context) {
    NN_RET_CHECK(context.numInputs() >= 3 && context.numOutputs() >= 1);
    NN_RET_CHECK(inputTypeIs(context, 0, {OperandType::TENSOR_BOOL8}));
    NN_RET_CHECK(rankIsOrUnknown(context.input(0), 1));
    NN_RET_CHECK(inputTypeIs(context, 1, {OperandType::SUBGRAPH}));
    NN_RET_CHECK(inputTypeIs(context, 2, {OperandType::SUBGRAPH}));
    return true;
}

bool signatures::interpretedOnly(OperationContext&) { return false; }

bool signatures::validateWhile(const OperationContext& context) {
    NN_RET_CHECK(context.numInputs() >= 3 && context.numOutputs() >= 1);
    NN_RET_CHECK(inputTypeIs(context, 0, {OperandType::SUBGRAPH}));
    NN_RET_CHECK(inputTypeIs(context, 1, {OperandType::SUBGRAPH}));
    return true;
}

bool isControlFlow(OperationType type) { return type == OperationType::IF || type == OperationType::WHILE; }

const Subgraph* referencedSubgraph(const Model& model, const Operand& operand) {
    if (operand.lifetime != OperandLifeTime::SUBGRAPH || operand.location.offset >= model.referenced.size()) {
        return nullptr;
    }
    return &model.referenced[operand.location.offset];
}

bool compatibleAcrossSubgraphs(const Operand& a, const Operand& b) {
    if (a.type != b.type || a.scale != b.scale || a.zeroPoint != b.zeroPoint) return false;
    if (a.channelQuant.has_value() != b.channelQuant.has_value()) return false;
    if (a.channelQuant && (a.channelQuant->channelDim != b.channelQuant->channelDim ||
                           a.channelQuant->scales != b.channelQuant->scales)) {
        return false;
    }
    return dimsAgree(a.dimensions, b.dimensions);
}

Status validateControlFlow(const Model& model, const std::vector<Operand>& operands, const Operation& operation) {
    if (operation.type == OperationType::IF) return validateIfBranches(model, operands, operation);
    return validateWhileModels(model, operands, operation);
}

}  // namespace nnemu::hal
