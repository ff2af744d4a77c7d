#include "nnemu/cpu/Executor.h"

#include <chrono>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>

#include "nnemu/cpu/Kernels.h"
#include "nnemu/hal/ControlFlow.h"
#include "nnemu/base/Log.h"
#include "nnemu/hal/Operations.h"
#include "nnemu/hal/Validation.h"

namespace nnemu::cpu {
namespace {

using hal::ErrorStatus;
using hal::OperandLifeTime;

// The run-time state of one operand.
struct RunOperand {
    hal::OperandView view;
    OperandLifeTime lifetime = OperandLifeTime::TEMPORARY_VARIABLE;
    std::vector<uint8_t> storage;  // temporaries, and aligned copies of misaligned arguments
    uint8_t* copyBackTo = nullptr;  // a misaligned model output, written from storage at the end
    uint32_t consumersLeft = 0;
    bool insufficient = false;
};

// One graph of a model: the main one, or a subgraph that IF/WHILE run.
struct Graph {
    const std::vector<hal::Operand>& operands;
    const std::vector<hal::Operation>& operations;
    const std::vector<uint32_t>& inputIndexes;
    const std::vector<uint32_t>& outputIndexes;
};

Graph mainGraph(const hal::Model& model) {
    return {model.operands, model.operations, model.inputIndexes, model.outputIndexes};
}

Graph subgraph(const hal::Subgraph& graph) {
    return {graph.operands, graph.operations, graph.inputIndexes, graph.outputIndexes};
}

// A value passed into or out of a subgraph: its shape and bytes, owned or borrowed.
struct Value {
    std::vector<uint32_t> dims;
    std::vector<uint8_t> storage;  // when owned
    const uint8_t* data = nullptr;
    size_t length = 0;

    static Value borrow(const hal::OperandView& view) { return {view.dims, {}, view.data, view.length}; }
    static Value own(std::vector<uint32_t> dims, std::vector<uint8_t> bytes) {
        Value value{std::move(dims), std::move(bytes), nullptr, 0};
        value.data = value.storage.data();
        value.length = value.storage.size();
        return value;
    }
};

class ModelRun {
public:
    ModelRun(const hal::Model& root, Graph graph, uint64_t loopTimeout, const hal::Deadline& deadline)
        : root_(root), graph_(graph), loopTimeout_(loopTimeout), deadline_(deadline) {}

    std::tuple<ErrorStatus, std::vector<hal::OutputShape>> run(const hal::Request& request) {
        if (hal::deadlinePassed(deadline_)) return {ErrorStatus::MISSED_DEADLINE_PERSISTENT, {}};
        if (!bindOperands() || !bindRequest(request)) return {ErrorStatus::INVALID_ARGUMENT, {}};
        const ErrorStatus status = runOperations();
        if (status == ErrorStatus::OUTPUT_INSUFFICIENT_SIZE) return {status, outputShapes()};
        if (status != ErrorStatus::NONE) return {status, {}};
        for (const RunOperand& operand : operands_) {
            if (operand.copyBackTo != nullptr) std::memcpy(operand.copyBackTo, operand.storage.data(), operand.view.length);
        }
        return {ErrorStatus::NONE, outputShapes()};
    }

    // Runs a referenced subgraph on `inputs`; its outputs are computed into storage of their own.
    ErrorStatus runNested(const std::vector<Value>& inputs, std::vector<Value>* outputs) {
        if (!bindOperands() || !bindValues(inputs)) return ErrorStatus::GENERAL_FAILURE;
        const ErrorStatus status = runOperations();
        if (status != ErrorStatus::NONE) return status;
        outputs->clear();
        for (uint32_t index : graph_.outputIndexes) {
            RunOperand& output = operands_[index];
            output.storage.resize(output.view.length);
            outputs->push_back(Value::own(output.view.dims, std::move(output.storage)));
        }
        return ErrorStatus::NONE;
    }

private:
    // Kernels read elements through typed pointers, so data that an application placed at an odd
    // address (a pointer argument, a memory offset) is copied to storage aligned for its type.
    static bool isMisaligned(const hal::OperandView& view) {
        const uint32_t size = hal::elementSize(view.type);
        return size > 1 && reinterpret_cast<uintptr_t>(view.data) % size != 0;
    }

    static bool alignInput(RunOperand& operand, const char* what) {
        if (operand.view.data == nullptr || !isMisaligned(operand.view)) return true;
        if (!allocateScratch(operand, operand.view.length, what)) return false;
        std::memcpy(operand.storage.data(), operand.view.data, operand.view.length);
        operand.view.data = operand.storage.data();
        return true;
    }

    ErrorStatus runOperations() {
        for (const auto& operation : graph_.operations) {
            if (hal::deadlinePassed(deadline_)) return ErrorStatus::MISSED_DEADLINE_TRANSIENT;
            const ErrorStatus status = hal::isControlFlow(operation.type) ? runControlFlow(operation)
                                                                          : runOperation(operation);
            if (status != ErrorStatus::NONE) return status;
        }
        return ErrorStatus::NONE;
    }

    bool bindArgument(const hal::Request& request, const hal::RequestArgument& argument, RunOperand* operand,
                      const char* what) {
        if (argument.hasNoValue) {
            operand->view.omitted = true;
            operand->view.data = nullptr;
            return true;
        }
        const auto& at = argument.location;
        if (at.poolIndex >= request.pools.size()) {
            NN_LOG(ERROR) << what << ": memory pool " << at.poolIndex << " does not exist";
            return false;
        }
        const auto& pool = request.pools[at.poolIndex];
        if (uint64_t{at.offset} + at.length > pool->size() || pool->data() == nullptr) {
            NN_LOG(ERROR) << what << ": argument lies outside its memory or the memory cannot be mapped";
            return false;
        }
        operand->view.data = pool->data() + at.offset;
        operand->view.length = at.length;
        if (!argument.dimensions.empty()) {
            if (!hal::dimsCompatible(operand->view.dims, argument.dimensions)) {
                NN_LOG(ERROR) << what << ": dimensions " << hal::dimsToString(argument.dimensions)
                              << " do not match the model's " << hal::dimsToString(operand->view.dims);
                return false;
            }
            operand->view.dims = argument.dimensions;
        }
        return true;
    }

    bool bindOperands() {
        operands_.resize(graph_.operands.size());
        for (size_t i = 0; i < graph_.operands.size(); ++i) {
            const hal::Operand& operand = graph_.operands[i];
            RunOperand& run = operands_[i];
            run.view.type = operand.type;
            run.view.dims = operand.dimensions;
            run.view.scale = operand.scale;
            run.view.zeroPoint = operand.zeroPoint;
            run.view.channelQuant = operand.channelQuant ? &*operand.channelQuant : nullptr;
            run.view.omitted = operand.lifetime == OperandLifeTime::NO_VALUE;
            run.lifetime = operand.lifetime;
            if (operand.lifetime == OperandLifeTime::CONSTANT_COPY ||
                operand.lifetime == OperandLifeTime::CONSTANT_REFERENCE) {
                run.view.data = hal::constantData(root_, operand);
                run.view.length = operand.location.length;
                if (run.view.data == nullptr || !alignInput(run, "constant")) return false;
            }
        }
        for (const auto& operation : graph_.operations) {
            for (uint32_t index : operation.inputs) operands_[index].consumersLeft++;
        }
        return true;
    }

    static bool checkInputSize(const RunOperand& input, size_t i) {
        const uint64_t needed = hal::byteSize(input.view.type, input.view.dims);
        if (!hal::isFullySpecified(input.view.type, input.view.dims) || needed != input.view.length) {
            NN_LOG(ERROR) << "input " << i << ": shape " << hal::dimsToString(input.view.dims)
                          << " is not fully specified or does not match its " << input.view.length << " bytes";
            return false;
        }
        return true;
    }

    bool bindRequest(const hal::Request& request) {
        if (request.inputs.size() != graph_.inputIndexes.size() ||
            request.outputs.size() != graph_.outputIndexes.size()) {
            NN_LOG(ERROR) << "request has the wrong number of inputs or outputs";
            return false;
        }
        for (size_t i = 0; i < request.inputs.size(); ++i) {
            RunOperand& input = operands_[graph_.inputIndexes[i]];
            if (!bindArgument(request, request.inputs[i], &input, "input")) return false;
            if (input.view.omitted) continue;
            if (!alignInput(input, "input") || !checkInputSize(input, i)) return false;
        }
        for (size_t i = 0; i < request.outputs.size(); ++i) {
            if (!bindArgument(request, request.outputs[i], &operands_[graph_.outputIndexes[i]], "output")) return false;
        }
        return true;
    }

    // A subgraph's inputs are the values of the IF/WHILE operands; its outputs get scratch storage.
    bool bindValues(const std::vector<Value>& inputs) {
        if (inputs.size() != graph_.inputIndexes.size()) return false;
        for (size_t i = 0; i < inputs.size(); ++i) {
            RunOperand& input = operands_[graph_.inputIndexes[i]];
            if (!hal::dimsCompatible(input.view.dims, inputs[i].dims)) {
                NN_LOG(ERROR) << "subgraph input " << i << ": shape " << hal::dimsToString(inputs[i].dims)
                              << " does not match the declared " << hal::dimsToString(input.view.dims);
                return false;
            }
            input.view.dims = inputs[i].dims;
            input.view.data = const_cast<uint8_t*>(inputs[i].data);
            input.view.length = inputs[i].length;
            if (!alignInput(input, "input") || !checkInputSize(input, i)) return false;
        }
        for (uint32_t index : graph_.outputIndexes) operands_[index].view.omitted = true;
        return true;
    }

    // Scratch storage for a temporary (or omitted output). Sizes come from shapes the model or its
    // data chose, so a request beyond what a HAL data location can describe (32-bit lengths), or
    // beyond what the machine can give, fails the execution instead of the process.
    static bool allocateScratch(RunOperand& output, uint64_t bytes, const char* name) {
        if (bytes > std::numeric_limits<uint32_t>::max()) {
            NN_LOG(ERROR) << name << ": an output of " << bytes << " bytes is larger than an operand can be";
            return false;
        }
        try {
            output.storage.assign(bytes, 0);
        } catch (const std::bad_alloc&) {
            NN_LOG(ERROR) << name << ": cannot allocate " << bytes << " bytes for an output";
            return false;
        }
        return true;
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
        if (!signature->prepare(context)) {
            NN_LOG(ERROR) << name << ": inputs are inconsistent (shape inference failed)";
            return ErrorStatus::GENERAL_FAILURE;
        }
        bool insufficient = false;
        bool anyElements = false;
        for (size_t i = 0; i < operation.outputs.size(); ++i) {
            const auto& dims = context.outputs[i].dims;
            const ErrorStatus status = placeOutput(operation.outputs[i], dims, name, &insufficient);
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
        releaseInputs(operation);
        return ErrorStatus::NONE;
    }

    // Gives operand `index`, an operation's output, the shape `dims` and storage for its bytes:
    // the application's buffer for a model output (unless too small: *insufficient), else scratch.
    ErrorStatus placeOutput(uint32_t index, const std::vector<uint32_t>& dims, const char* name, bool* insufficient) {
        RunOperand& output = operands_[index];
        if (!hal::dimsCompatible(output.view.dims, dims)) {
            NN_LOG(ERROR) << name << ": computed output shape " << hal::dimsToString(dims)
                          << " contradicts the declared " << hal::dimsToString(output.view.dims);
            return ErrorStatus::GENERAL_FAILURE;
        }
        output.view.dims = dims;
        const uint64_t needed = hal::byteSize(output.view.type, dims);
        if (output.lifetime == OperandLifeTime::MODEL_OUTPUT && !output.view.omitted) {
            if (needed > output.view.length) {
                output.insufficient = true;
                *insufficient = true;
            } else if (isMisaligned(output.view)) {
                uint8_t* destination = output.view.data;
                if (!allocateScratch(output, output.view.length, name)) return ErrorStatus::GENERAL_FAILURE;
                output.copyBackTo = destination;
                output.view.data = output.storage.data();
            }
        } else {  // a temporary, or an output the application omitted: scratch storage
            output.view.omitted = false;
            if (!allocateScratch(output, needed, name)) return ErrorStatus::GENERAL_FAILURE;
            output.view.data = output.storage.data();
            output.view.length = needed;
        }
        return ErrorStatus::NONE;
    }

    void releaseInputs(const hal::Operation& operation) {
        for (uint32_t index : operation.inputs) {
            RunOperand& input = operands_[index];
            if (--input.consumersLeft == 0 && input.lifetime == OperandLifeTime::TEMPORARY_VARIABLE) {
                std::vector<uint8_t>().swap(input.storage);
            }
        }
    }

    // ---- Control flow: IF and WHILE run their referenced subgraphs (feature level 30) ----

    const hal::Subgraph* subgraphOf(uint32_t index) const {
        return hal::referencedSubgraph(root_, graph_.operands[index]);
    }

    std::vector<Value> valuesOf(const std::vector<uint32_t>& indexes, size_t first) const {
        std::vector<Value> values;
        for (size_t i = first; i < indexes.size(); ++i) values.push_back(Value::borrow(operands_[indexes[i]].view));
        return values;
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
            const ErrorStatus placed = placeOutput(operation.outputs[i], results[i].dims, name, &insufficient);
            if (placed != ErrorStatus::NONE) return placed;
            const RunOperand& output = operands_[operation.outputs[i]];
            if (output.insufficient) continue;
            if (results[i].length > output.view.length) return ErrorStatus::GENERAL_FAILURE;
            if (results[i].length != 0) std::memcpy(output.view.data, results[i].data, results[i].length);
        }
        if (insufficient) return ErrorStatus::OUTPUT_INSUFFICIENT_SIZE;
        releaseInputs(operation);
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
        return runSubgraph(*branch, valuesOf(operation.inputs, 3), results);
    }

    // The body runs while the condition holds; its outputs replace the first values (input-output
    // and state-only), the others stay. Each loop has its own time budget: when it is spent the
    // execution fails with MISSED_DEADLINE_TRANSIENT, as Android's CPU executor does.
    ErrorStatus runWhile(const hal::Operation& operation, std::vector<Value>* results) const {
        const hal::Subgraph* condition = subgraphOf(operation.inputs[0]);
        const hal::Subgraph* body = subgraphOf(operation.inputs[1]);
        if (condition == nullptr || body == nullptr) return ErrorStatus::GENERAL_FAILURE;
        std::vector<Value> state = valuesOf(operation.inputs, 2);
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

    std::vector<hal::OutputShape> outputShapes() const {
        std::vector<hal::OutputShape> shapes;
        for (uint32_t index : graph_.outputIndexes) {
            shapes.push_back({operands_[index].view.dims, !operands_[index].insufficient});
        }
        return shapes;
    }

    const hal::Model& root_;  // holds the constants and the referenced subgraphs
    Graph graph_;
    uint64_t loopTimeout_;
    const hal::Deadline& deadline_;
    std::vector<RunOperand> operands_;
};

}  // namespace

std::tuple<hal::ErrorStatus, std::vector<hal::OutputShape>> executeModel(const hal::Model& model,
                                                                         const hal::Request& request,
                                                                         const hal::Deadline& deadline) {
    return ModelRun(model, mainGraph(model), request.loopTimeoutDuration, deadline).run(request);
}

}  // namespace nnemu::cpu
