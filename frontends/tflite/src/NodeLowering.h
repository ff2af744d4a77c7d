// Lowering of one TFLite node into NNAPI operations, the way TFLite's NNAPI delegate maps it
// (the entry points are public: nnemu/tflite/Lowering.h).
// Each operator family has its lowering functions in Lower<Family>.cpp, found by builtin code
// through LoweringTable; NodeLowering gives them the node, its tensors and operand factories.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "nnemu/base/Status.h"
#include "nnemu/delegate/TfLiteAbi.h"
#include "nnemu/tflite/Lowering.h"
#include "nnemu/tflite/NnapiGraph.h"
#include "nnemu/tflite/Model.h"
#include "nnemu/tflite/tflite_generated.h"

namespace nnemu::tflite {

class NodeLowering {
public:
    // node belongs to subgraph (model.subgraphs()[i] for some i), whose tensors it names.
    NodeLowering(const Model& model, const Subgraph& subgraph, const Node& node, NnapiGraph& graph)
        : model_(model), subgraph_(subgraph), node_(node), graph_(graph) {}

    const Model& model() const { return model_; }

    const Node& node() const { return node_; }
    // The node's builtin_data as T, the builtin_op_data.h struct of its builtin code
    // (nnemu/delegate/TfLiteAbi.h); nullptr when the reader gave none.
    template <typename T>
    const T* params() const { return static_cast<const T*>(node_.builtinData); }
    size_t inputCount() const { return node_.inputs.size(); }
    size_t outputCount() const { return node_.outputs.size(); }
    // The i-th input/output tensor (present: index != -1).
    bool hasInput(size_t i) const { return i < node_.inputs.size() && node_.inputs[i] >= 0; }
    const Tensor& input(size_t i) const { return subgraph_.tensors[node_.inputs[i]]; }
    const Tensor& output(size_t i) const { return subgraph_.tensors[node_.outputs[i]]; }
    bool signedInt8() const { return graph_.signedInt8; }

    // Records "operator X at node N: reason" (BAD_DATA, see status()) and returns false.
    bool fail(const std::string& reason);
    // The last failure fail() recorded; OK while there is none.
    const Status& status() const { return status_; }
    // Checks the input/output counts; fails with a clear reason otherwise.
    bool expectCounts(size_t minInputs, size_t maxInputs, size_t outputs);

    // Operands. Each returns false (after fail()) when the tensor cannot be represented.
    // A non-constant tensor's operand is shared by every node that uses it; int8 becomes
    // TENSOR_QUANT8_ASYMM_SIGNED when the graph is signedInt8, else TENSOR_QUANT8_ASYMM with
    // zero point + 128.
    // rawIntegers: a uint8 tensor without quantization parameters is plain integers (CAST),
    // given scale 1 and zero point 0.
    bool activation(int32_t tensorIndex, uint32_t* operand, bool rawIntegers = false);
    bool inputOperand(size_t i, uint32_t* operand);    // activation or (per-tensor) constant
    // Inputs 0 and 1 as operands of one NNAPI type (else fails: "input types differ (A, B)").
    bool sameTypeInputs(uint32_t* a, uint32_t* b);
    bool outputOperand(size_t i, uint32_t* operand);
    // An absent optional input (-1) becomes an omitted NNAPI operand of the given type.
    bool optionalInput(size_t i, int32_t omittedType, uint32_t* operand);
    uint32_t omitted(int32_t type);
    // A constant tensor, converted (int8 per-tensor without signedInt8: +128) or, with perChannelDim >= 0 and
    // per-channel parameters, as TENSOR_QUANT8_SYMM_PER_CHANNEL.
    bool constantTensor(int32_t tensorIndex, int32_t perChannelDim, uint32_t* operand);
    // The int8 weights of a hybrid operator (float input, int8 weights) in float, as TFLite's
    // delegate gives them: the constant as TENSOR_QUANT8_SYMM (one scale, zero point 0) or
    // TENSOR_QUANT8_SYMM_PER_CHANNEL along perChannelDim, then a DEQUANTIZE to float32.
    bool dequantizedWeights(size_t inputIndex, int32_t perChannelDim, uint32_t* operand);
    // A bias for a quantized convolution or fully connected layer: INT32 with scale
    // inputScale * filterScale (0 when the filter is per-channel); zeros when absent.
    bool bias(size_t inputIndex, uint32_t inputOperand, uint32_t filterOperand, uint32_t outChannels,
              uint32_t* operand);
    uint32_t scalarInt32(int32_t value);
    uint32_t scalarFloat32(float value);
    uint32_t scalarBool(bool value);
    uint32_t vectorInt32(const std::vector<int32_t>& values);
    uint32_t tensorInt32(const std::vector<int32_t>& values, std::vector<uint32_t> dims);
    uint32_t tensorFloat32(const std::vector<float>& values, std::vector<uint32_t> dims);
    // A one-element constant of a TENSOR_QUANT8_ASYMM(_SIGNED) type holding `value`.
    uint32_t quantizedConstant(int32_t type, int32_t value, float scale, int32_t zeroPoint);
    uint32_t temporary(const NnOperand& like, const std::vector<uint32_t>& dims);
    // The output operand of the new value of state input i (a float variable tensor, which must
    // be present), fed back into that tensor after each run (NnapiGraph::stateFeedback).
    bool stateOutput(size_t i, bool cpuPathOnly, uint32_t* operand);
    uint32_t temporaryOfType(int32_t type, const std::vector<uint32_t>& dims, float scale, int32_t zeroPoint);
    // An ANEURALNETWORKS_MODEL operand referring to subgraph `index` (IF, WHILE); `role` names it
    // in messages ("body", "then", ...). Fails for an index out of range, a subgraph that refers
    // back to itself, or one NNAPI refuses.
    bool referencedModel(int32_t index, const char* role, uint32_t* operand);
    // Valid until the next operand is added.
    const NnOperand& operand(uint32_t index) const { return graph_.operands[index]; }

    // Reads a constant integer tensor (INT32 or INT64) input as int32 values.
    bool constantInts(size_t inputIndex, std::vector<int32_t>* values);
    // The constant axes (input 1) along which operand `input` is reduced: at least one, each in
    // [-rank, rank).
    bool reductionAxes(uint32_t input, std::vector<int32_t>* axes);
    // NNAPI fuse code of a TFLite fused activation (NONE, RELU, RELU_N1_TO_1, RELU6).
    bool fuseCode(TfLiteFusedActivation activation, uint32_t* operand);

    // Adds an NNAPI operation for this node. A quantized operation whose scales are too far
    // apart for fixed-point requantization is refused (see rejected()).
    void addOperation(int32_t type, std::vector<uint32_t> inputs, std::vector<uint32_t> outputs);
    bool rejected() const { return rejected_; }
    // TFLite's NNAPI delegate would not take this node (a custom operator, or a form it does
    // not map at API level 29): it runs on nnapi-reference as TFLite's CPU kernels would.
    void keepOnCpu() { graph_.cpuOnly[node_.index] = true; }

private:
    uint32_t addOperand(NnOperand operand);
    bool requantizable(int32_t type, const std::vector<uint32_t>& inputs, const std::vector<uint32_t>& outputs);

    const Model& model_;
    const Subgraph& subgraph_;
    const Node& node_;
    NnapiGraph& graph_;
    Status status_;
    bool rejected_ = false;
};

using LoweringFunction = bool (*)(NodeLowering& lowering);

// A fused activation's name as TFLite's schema spells it, for messages.
const char* activationName(TfLiteFusedActivation activation);

// Lowerings by builtin code: the rows of kLowerings (LoweringTable.cpp) and what the families
// below add. Explicit, because a static library drops self-registering objects.
class LoweringTable {
public:
    void add(fb::BuiltinOperator code, LoweringFunction function);
    void addCustom(const std::string& name, LoweringFunction function);   // a custom operator by name
    LoweringFunction find(const Node& node) const;   // nullptr: no NNAPI mapping
    static const LoweringTable& get();

private:
    std::vector<LoweringFunction> functions_;
    std::map<std::string, LoweringFunction> custom_;
};

// The families that add their own lowerings; every other family's functions are declared in
// LoweringList.h.
void addLookupLowerings(LoweringTable& table);
void addSequenceLowerings(LoweringTable& table);
void addRecurrentLowerings(LoweringTable& table);   // LSTM, RNN, SVDF

}  // namespace nnemu::tflite
