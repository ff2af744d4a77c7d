// A verified .tflite file: the tensors and operators of every subgraph (the first is the main
// graph; the others are bodies of control flow such as WHILE and IF), read through nnemu's own
// flatbuffers schema (binary-compatible with TensorFlow Lite's format), or from a delegate's
// TfLiteContext (ContextReader.h): the one view of a graph the front end lowers and runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "nnemu/base/Status.h"
#include "nnemu/tflite/Sparsity.h"

namespace nnemu::tflite {

// FLOAT64, COMPLEX64, COMPLEX128, RESOURCE (a variable's or hashtable's id, int32 inside) and
// STRING (TFLite's packed strings, src/StringTensor.h) only reach the tools' CPU kernels
// (src/cpu/Complex.cpp, Variables.cpp, Hashtable.cpp, SkipGram.cpp); NNAPI has no such operands.
enum class ElementType { FLOAT32, UINT8, INT8, INT16, INT32, INT64, BOOL, FLOAT64, COMPLEX64, COMPLEX128, RESOURCE, STRING, OTHER };
const char* elementTypeName(ElementType type);
size_t elementSize(ElementType type);  // bytes per element, 0 for STRING and OTHER

struct Tensor {
    std::string name;
    ElementType type = ElementType::OTHER;
    std::vector<int32_t> shape;
    float scale = 0;                // per-tensor quantization (first entry when per-channel)
    int32_t zeroPoint = 0;
    bool isConstant = false;        // has a non-empty buffer
    // Shape times element size; a STRING tensor's is its buffer's size (dataSize: the constant's,
    // or what a kernel wrote at invoke; 0 before).
    size_t byteSize() const;

    // What the loader needs beyond the contract. The quantization vectors are views into the
    // owning Model's bytes (the mapped file: processes share them), not copies.
    std::span<const float> channelScales;   // per-channel scales (size > 1 when per-channel)
    std::span<const uint8_t> channelZeroPointBytes;  // int64 each, 4-byte aligned; empty: all 0
    int32_t quantizedDimension = 0;
    const uint8_t* data = nullptr;          // constant contents, inside the owning Model
    bool isVariable = false;                // state (RNN/LSTM): starts at its data, or zeros
    size_t dataSize = 0;
    std::shared_ptr<const Sparsity> sparsity;   // a sparse constant (DENSIFY's input); data: its values
    bool isPerChannel() const { return channelScales.size() > 1; }
    int64_t channelZeroPoint(size_t channel) const;   // 0 past the stored ones
};

struct Node {
    uint32_t index = 0;            // position in its subgraph's operator list
    std::string opName;            // TFLite builtin name, e.g. "CONV_2D", or the custom code
    std::vector<int32_t> inputs, outputs;   // tensor indexes (-1 = optional input absent)

    // What the loader needs beyond the contract.
    int32_t builtinCode = -1;      // TFLite BuiltinOperator value (max of the two encodings), 32 = CUSTOM
    // The operator's parameters as TensorFlow Lite hands them to its kernels and delegates: the
    // builtin_op_data.h struct of builtinCode (nnemu/delegate/TfLiteAbi.h), or nullptr when the
    // front end reads none; a custom operator's options bytes (a FlexBuffers map). Owned by the
    // Model (file reader) or by the delegate's host (ContextReader.h).
    const void* builtinData = nullptr;
    std::span<const uint8_t> customData;
};

// A builtin operator's name as TFLite prints it ("CONV_2D"), "BUILTIN_<code>" when unknown.
std::string builtinOperatorName(int32_t code);

// One subgraph: its tensors, its operators in execution order, and its inputs and outputs.
struct Subgraph {
    std::string name;
    std::vector<Tensor> tensors;
    std::vector<Node> nodes;
    std::vector<int32_t> inputs, outputs;   // tensor indexes
};

class Model {
public:
    // Maps (read-only: processes loading the same file share its pages) and verifies
    // (flatbuffers verifier) the file; a clear message on any problem (UNAVAILABLE: the file cannot
    // be read; BAD_DATA: its content). Like TFLite's mapped models, the file must not be changed
    // while the Model lives.
    static Result<std::unique_ptr<Model>> load(const std::string& path);
    static Result<std::unique_ptr<Model>> fromBuffer(std::vector<uint8_t> bytes);
    // A model over tensors and nodes another reader made (ContextReader.h): no file behind it;
    // what its views point at (constants, scales, builtin_data) must outlive the Model.
    static std::unique_ptr<Model> fromSubgraphs(std::vector<Subgraph> subgraphs, std::string description);

    // The main graph (subgraph 0).
    const std::vector<Tensor>& tensors() const { return subgraphs_[0].tensors; }
    const std::vector<Node>& nodes() const { return subgraphs_[0].nodes; }
    const std::vector<int32_t>& inputs() const { return subgraphs_[0].inputs; }    // tensor indexes
    const std::vector<int32_t>& outputs() const { return subgraphs_[0].outputs; }
    // Every subgraph, the main graph first (never empty once loaded).
    const std::vector<Subgraph>& subgraphs() const { return subgraphs_; }
    size_t fileSize() const { return bytes_.size(); }
    // The whole file as loaded; constants' data lie in it.
    std::span<const uint8_t> bytes() const { return bytes_; }
    // The file's descriptor when load() mapped it (open as long as the Model), otherwise -1:
    // partitions hand large constants to NNAPI as regions of it instead of copies.
    int fileDescriptor() const { return fd_; }
    ~Model();
    const std::string& description() const { return description_; }
    uint32_t version() const { return version_; }

    Model(const Model&) = delete;
    Model& operator=(const Model&) = delete;

private:
    Model() = default;
    Status parse();

    std::vector<uint8_t> owned_;     // fromBuffer's bytes
    void* mapping_ = nullptr;        // or load()'s mapping of the file
    int fd_ = -1;
    std::span<const uint8_t> bytes_;
    std::vector<Subgraph> subgraphs_;
    std::vector<std::shared_ptr<void>> builtinData_;   // the file reader's builtin_data, per node
    std::string description_;
    uint32_t version_ = 0;
};

}  // namespace nnemu::tflite
