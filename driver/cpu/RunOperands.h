// The operands of one graph run on nnapi-reference (Executor.cpp runs the operations): their
// views and storage, bound to a request or to a subgraph's values, and the placement of each
// operation's outputs.
#pragma once

#include <cstdint>
#include <vector>

#include "nnemu/hal/Operations.h"
#include "nnemu/hal/Types.h"

namespace nnemu::cpu {

// One graph of a model: the main one, or a subgraph that IF/WHILE run.
struct Graph {
    const std::vector<hal::Operand>& operands;
    const std::vector<hal::Operation>& operations;
    const std::vector<uint32_t>& inputIndexes;
    const std::vector<uint32_t>& outputIndexes;
};

inline Graph mainGraph(const hal::Model& model) {
    return {model.operands, model.operations, model.inputIndexes, model.outputIndexes};
}

inline Graph subgraph(const hal::Subgraph& graph) {
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

// The run-time state of one operand.
struct RunOperand {
    hal::OperandView view;
    hal::OperandLifeTime lifetime = hal::OperandLifeTime::TEMPORARY_VARIABLE;
    std::vector<uint8_t> storage;  // temporaries, and aligned copies of misaligned arguments
    uint8_t* copyBackTo = nullptr;  // a misaligned model output, written from storage at the end
    uint32_t consumersLeft = 0;
    bool insufficient = false;
};

class RunOperands {
public:
    RunOperands(const hal::Model& root, Graph graph) : root_(root), graph_(graph) {}

    // The graph's operands as declared, constants bound; false when a constant cannot be read.
    bool bindOperands();
    // The main graph's inputs and outputs from the request's arguments.
    bool bindRequest(const hal::Request& request);
    // A subgraph's inputs are the values of the IF/WHILE operands; its outputs get scratch storage.
    bool bindValues(const std::vector<Value>& inputs);

    // Gives operand `index`, an operation's output, the shape `dims` and storage for its bytes:
    // the application's buffer for a model output (unless too small: *insufficient), else scratch.
    hal::ErrorStatus placeOutput(uint32_t index, const std::vector<uint32_t>& dims, const char* name,
                                 bool* insufficient);
    // Gives operand `index`, an operation's output, the quantization the operation's prepare()
    // computed, as Android's CPU executor does: a temporary takes it (later operations read it),
    // a model output declared otherwise fails the execution.
    hal::ErrorStatus takeQuantization(uint32_t index, const hal::OperandView& prepared, const char* name);
    // Frees the temporaries `operation` was the last to read.
    void releaseInputs(const hal::Operation& operation);
    // Writes the outputs computed into aligned storage to the application's misaligned buffers.
    void copyBack();

    // The values of operands indexes[first...], borrowed.
    std::vector<Value> valuesOf(const std::vector<uint32_t>& indexes, size_t first) const;
    // The graph's outputs, moved out into values of their own.
    std::vector<Value> takeOutputs();
    std::vector<hal::OutputShape> outputShapes() const;

    RunOperand& operator[](uint32_t index) { return operands_[index]; }
    const RunOperand& operator[](uint32_t index) const { return operands_[index]; }

private:
    const hal::Model& root_;  // holds the constants
    Graph graph_;
    std::vector<RunOperand> operands_;
};

}  // namespace nnemu::cpu
