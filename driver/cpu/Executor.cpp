// The run loop of nnapi-reference: each operation's shapes inferred by its signature, its outputs
// placed (RunOperands.cpp), its kernel run; IF and WHILE run their subgraphs.
#include "nnemu/cpu/Executor.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>

#include "RunOperands.h"
#include "nnemu/base/Log.h"
#include "nnemu/cpu/Kernels.h"
#include "nnemu/hal/ControlFlow.h"
#include "nnemu/hal/Operations.h"
#include "nnemu/hal/Validation.h"

namespace nnemu::cpu {
namespace {

using hal::ErrorStatus;

class ModelRun {
public:
    ModelRun(const hal::Model& root, Graph graph, uint64_t loopTimeout, const hal::Deadline& deadline)
        : root_(root), graph_(graph), loopTimeout_(loopTimeout), deadline_(deadline), operands_(root, graph) {}

    std::tuple<ErrorStatus, std::vector<hal::OutputShape>> run(const hal::Request& request) {
        if (hal::deadlinePassed(deadline_)) return {ErrorStatus::MISSED_DEADLINE_PERSISTENT, {}};
        if (!operands_.bindOperands() || !operands_.bindRequest(request)) return {ErrorStatus::INVALID_ARGUMENT, {}};
        const ErrorStatus status = runOperations();
        if (status == ErrorStatus::OUTPUT_INSUFFICIENT_SIZE) return {status, operands_.outputShapes()};
        if (status != ErrorStatus::NONE) return {status, {}};
        operands_.copyBack();
        return {ErrorStatus::NONE, operands_.outputShapes()};
    }

    // Runs a referenced subgraph on `inputs`; its outputs are computed into storage of their own.
    ErrorStatus runNested(const std::vector<Value>& inputs, std::vector<Value>* outputs) {
        if (!operands_.bindOperands() || !operands_.bindValues(inputs)) return ErrorStatus::GENERAL_FAILURE;
        const ErrorStatus status = runOperations();
        if (status != ErrorStatus::NONE) return status;
        *outputs = operands_.takeOutputs();
        return ErrorStatus::NONE;
    }

private:
    ErrorStatus runOperations() {
        for (const auto& operation : graph_.operations) {
            if (hal::deadlinePassed(deadline_)) return ErrorStatus::MISSED_DEADLINE_TRANSIENT;
            const ErrorStatus status = hal::isControlFlow(operation.type) ? runControlFlow(operation)
                                                                          : runOperation(operation);
            if (status != ErrorStatus::NONE) return status;
        }
        return ErrorStatus::NONE;
    }

    ErrorStatus runOperation(const hal::Operation& operation) {
        const char* name = hal::operationName(operation.type);
        const hal::OperationSignature* signature = hal::findSignature(operation.type);
        const Kernel kernel = findKernel(operation.type);
        if (signature == nullptr || kernel == nullptr) {
            NN_LOG(ERROR) << name << " has no reference kernel";
            return ErrorStatus::GENERAL_FAILURE;
        }
        hal::OperationContext context;
        context.type = operation.type;
        for (uint32_t index : operation.inputs) {
            const hal::OperandView& input = operands_[index].view;
            if (!input.omitted && hal::isTensorType(input.type) && input.elements() == 0 &&
                !signature->allowZeroSizedInput) {
                NN_LOG(ERROR) << name << " does not accept zero-sized inputs";
                return ErrorStatus::GENERAL_FAILURE;
            }
            context.inputs.push_back(input);
        }
        if (!hal::omissionsAllowed(*signature, context.inputs)) {
            NN_LOG(ERROR) << name << " does not accept omitted operands there";
            return ErrorStatus::GENERAL_FAILURE;
        }
        for (uint32_t index : operation.outputs) {
            hal::OperandView output = operands_[index].view;
            output.data = nullptr;
            output.length = 0;
            context.outputs.push_back(output);
        }
        if (!hal::prepareOperation(*signature, context)) {
            NN_LOG(ERROR) << name << ": invalid operand values or shapes (execution-stage checks failed)";
            return ErrorStatus::GENERAL_FAILURE;
        }
        bool insufficient = false;
        bool anyElements = false;
        for (size_t i = 0; i < operation.outputs.size(); ++i) {
            const auto& dims = context.outputs[i].dims;
            ErrorStatus status = operands_.takeQuantization(operation.outputs[i], context.outputs[i], name);
            if (status == ErrorStatus::NONE) status = operands_.placeOutput(operation.outputs[i], dims, name, &insufficient);
            if (status != ErrorStatus::NONE) return status;
            anyElements = anyElements || hal::elementCount(dims) != 0;
            const RunOperand& output = operands_[operation.outputs[i]];
            context.outputs[i].data = output.view.data;
            context.outputs[i].length = output.view.length;
        }
        if (insufficient) return ErrorStatus::OUTPUT_INSUFFICIENT_SIZE;
        if (anyElements && !kernel(context)) {
            NN_LOG(ERROR) << name << ": the reference kernel failed for these operand types or values";
            return ErrorStatus::GENERAL_FAILURE;
        }
        operands_.releaseInputs(operation);
        return ErrorStatus::NONE;
    }

    // ---- Control flow: IF and WHILE run their referenced subgraphs (feature level 30) ----

    const hal::Subgraph* subgraphOf(uint32_t index) const {
        return hal::referencedSubgraph(root_, graph_.operands[index]);
    }

    ErrorStatus runSubgraph(const hal::Subgraph& graph, const std::vector<Value>& inputs,
                            std::vector<Value>* outputs) const {
        return ModelRun(root_, subgraph(graph), loopTimeout_, deadline_).runNested(inputs, outputs);
    }

    static bool isTrue(const Value& condition) {
        return condition.length >= 1 && condition.data != nullptr && condition.data[0] != 0;
    }

    ErrorStatus runControlFlow(const hal::Operation& operation) {
        const char* name = hal::operationName(operation.type);
        std::vector<Value> results;
        const ErrorStatus status = operation.type == hal::OperationType::IF ? runIf(operation, &results)
                                                                            : runWhile(operation, &results);
        if (status != ErrorStatus::NONE) return status;
        if (results.size() < operation.outputs.size()) return ErrorStatus::GENERAL_FAILURE;
        bool insufficient = false;
        for (size_t i = 0; i < operation.outputs.size(); ++i) {
            const ErrorStatus placed = operands_.placeOutput(operation.outputs[i], results[i].dims, name, &insufficient);
            if (placed != ErrorStatus::NONE) return placed;
            const RunOperand& output = operands_[operation.outputs[i]];
            if (output.insufficient) continue;
            if (results[i].length > output.view.length) return ErrorStatus::GENERAL_FAILURE;
            if (results[i].length != 0) std::memcpy(output.view.data, results[i].data, results[i].length);
        }
        if (insufficient) return ErrorStatus::OUTPUT_INSUFFICIENT_SIZE;
        operands_.releaseInputs(operation);
        return ErrorStatus::NONE;
    }

    ErrorStatus runIf(const hal::Operation& operation, std::vector<Value>* results) const {
        const hal::OperandView& condition = operands_[operation.inputs[0]].view;
        if (condition.data == nullptr || condition.elements() != 1) {
            NN_LOG(ERROR) << "IF: the condition must hold exactly one value";
            return ErrorStatus::GENERAL_FAILURE;
        }
        const hal::Subgraph* branch = subgraphOf(operation.inputs[condition.data[0] != 0 ? 1 : 2]);
        if (branch == nullptr) return ErrorStatus::GENERAL_FAILURE;
        return runSubgraph(*branch, operands_.valuesOf(operation.inputs, 3), results);
    }

    // The body runs while the condition holds; its outputs replace the first values (input-output
    // and state-only), the others stay. Each loop has its own time budget: when it is spent the
    // execution fails with MISSED_DEADLINE_TRANSIENT, as Android's CPU executor does.
    ErrorStatus runWhile(const hal::Operation& operation, std::vector<Value>* results) const {
        const hal::Subgraph* condition = subgraphOf(operation.inputs[0]);
        const hal::Subgraph* body = subgraphOf(operation.inputs[1]);
        if (condition == nullptr || body == nullptr) return ErrorStatus::GENERAL_FAILURE;
        std::vector<Value> state = operands_.valuesOf(operation.inputs, 2);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::nanoseconds(
                std::min<uint64_t>(loopTimeout_, hal::kLoopTimeoutMaximum));
        while (true) {
            if (std::chrono::steady_clock::now() > deadline) {
                NN_LOG(ERROR) << "WHILE: the loop did not end within its timeout of " << loopTimeout_ << " ns";
                return ErrorStatus::MISSED_DEADLINE_TRANSIENT;
            }
            std::vector<Value> verdict;
            ErrorStatus status = runSubgraph(*condition, state, &verdict);
            if (status != ErrorStatus::NONE) return status;
            if (verdict.size() != 1) return ErrorStatus::GENERAL_FAILURE;
            if (!isTrue(verdict[0])) break;
            std::vector<Value> next;
            status = runSubgraph(*body, state, &next);
            if (status != ErrorStatus::NONE) return status;
            if (next.size() > state.size()) return ErrorStatus::GENERAL_FAILURE;
            for (size_t i = 0; i < next.size(); ++i) state[i] = std::move(next[i]);
        }
        *results = std::move(state);
        return ErrorStatus::NONE;
    }

    const hal::Model& root_;  // holds the constants and the referenced subgraphs
    Graph graph_;
    uint64_t loopTimeout_;
    const hal::Deadline& deadline_;
    RunOperands operands_;
};

}  // namespace

std::tuple<hal::ErrorStatus, std::vector<hal::OutputShape>> executeModel(const hal::Model& model,
                                                                         const hal::Request& request,
                                                                         const hal::Deadline& deadline) {
    return ModelRun(model, mainGraph(model), request.loopTimeoutDuration, deadline).run(request);
}

}  // namespace nnemu::cpu
