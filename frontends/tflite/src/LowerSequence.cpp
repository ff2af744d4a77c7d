// Sequence operators -> the NNAPI operations of the same name, float32 only (NNAPI at feature
// level 29 has no quantized or hybrid form). TFLite's inputs map one to one, absent optional
// inputs become omitted operands, and the options follow as scalars. The state inputs are
// TFLite variable tensors. TFLite's own kernels leave the final states in them, so the next
// invoke starts from there; its delegate maps no final-state output, so there every invoke
// starts from the initial state. Both are kept: the final-state outputs (feature level 30) are
// fed back only where the node is not delegated (sequenceFinalStates).
#include <android/NeuralNetworks.h>

#include "RecurrentLowering.h"

namespace nnemu::tflite {
namespace {

bool checkCounts(NodeLowering& l, std::initializer_list<size_t> inputCounts, size_t outputs) {
    if (!recurrentCounts(l, inputCounts, outputs)) return false;
    if (!l.hasInput(0)) return l.fail("required input 0 is absent");
    for (size_t i = 0; i < l.inputCount(); ++i) {
        if (l.hasInput(i) && l.input(i).type != ElementType::FLOAT32) {
            return l.fail("input " + std::to_string(i) + " has type " + elementTypeName(l.input(i).type) +
                          ": quantized and hybrid sequence operators are not supported by NNAPI at feature level 29");
        }
    }
    return true;
}

bool outputs(NodeLowering& l, std::vector<uint32_t>* operands) {
    for (size_t i = 0; i < l.outputCount(); ++i) {
        uint32_t operand;
        if (!l.outputOperand(i, &operand)) return false;
        operands->push_back(operand);
    }
    return true;
}

// NNAPI's LSTM activation takes TFLite's codes (NONE, RELU, RELU_N1_TO_1, RELU6, TANH); its RNN
// activation is a fuse code, which has no TANH.
bool activationCode(NodeLowering& l, TfLiteFusedActivation activation, bool lstm, uint32_t* operand) {
    const TfLiteFusedActivation last = lstm ? kTfLiteActTanh : kTfLiteActRelu6;
    if (activation < kTfLiteActNone || activation > last) {
        return l.fail(std::string("activation ") + activationName(activation) + " is not supported by NNAPI" +
                      (lstm ? "" : " RNN operators (a fuse code: NONE, RELU, RELU_N1_TO_1 or RELU6)"));
    }
    *operand = l.scalarInt32(activation);
    return true;
}

bool lowerUnidirectionalRnn(NodeLowering& l) {
    const auto* options = l.params<TfLiteSequenceRNNParams>();
    if (options == nullptr) return l.fail("missing SequenceRNNOptions");
    std::vector<uint32_t> in, out;
    uint32_t activation;
    if (!checkCounts(l, {5}, 1) || !floatTensorInputs(l, 5, &in)) return false;
    if (!activationCode(l, options->activation, false, &activation) || !outputs(l, &out)) return false;
    if (!sequenceFinalStates(l, {4}, &out)) return false;
    in.push_back(activation);
    in.push_back(l.scalarInt32(options->time_major ? 1 : 0));
    l.addOperation(ANEURALNETWORKS_UNIDIRECTIONAL_SEQUENCE_RNN, in, out);
    return true;
}

bool lowerBidirectionalRnn(NodeLowering& l) {
    const auto* options = l.params<TfLiteBidirectionalSequenceRNNParams>();
    if (options == nullptr) return l.fail("missing BidirectionalSequenceRNNOptions");
    std::vector<uint32_t> in, out;
    uint32_t activation;
    if (!checkCounts(l, {12}, options->merge_outputs ? 1 : 2) || !floatTensorInputs(l, 12, &in)) return false;
    if (!activationCode(l, options->activation, false, &activation) || !outputs(l, &out)) return false;
    if (!sequenceFinalStates(l, {4, 8}, &out)) return false;
    in.push_back(activation);
    in.push_back(l.scalarBool(options->time_major));
    in.push_back(l.scalarBool(options->merge_outputs));
    l.keepOnCpu();   // TFLite's delegate does not map it
    l.addOperation(ANEURALNETWORKS_BIDIRECTIONAL_SEQUENCE_RNN, in, out);
    return true;
}

// 20 inputs, or 24 with the layer-normalization weights.
bool lowerUnidirectionalLstm(NodeLowering& l) {
    const auto* options = l.params<TfLiteUnidirectionalSequenceLSTMParams>();
    if (options == nullptr) return l.fail("missing UnidirectionalSequenceLSTMOptions");
    std::vector<uint32_t> in, out;
    uint32_t activation;
    if (!checkCounts(l, {20, 24}, 1) || !floatTensorInputs(l, 20, &in)) return false;
    if (!activationCode(l, options->activation, true, &activation)) return false;
    in.push_back(activation);
    in.push_back(l.scalarFloat32(options->cell_clip));
    in.push_back(l.scalarFloat32(options->proj_clip));
    in.push_back(l.scalarBool(options->time_major));
    for (size_t i = 20; i < 24; ++i) {
        uint32_t operand = 0;
        if (i >= l.inputCount()) {
            operand = l.omitted(ANEURALNETWORKS_TENSOR_FLOAT32);
        } else if (!l.optionalInput(i, ANEURALNETWORKS_TENSOR_FLOAT32, &operand)) {
            return false;
        }
        in.push_back(operand);
    }
    if (!outputs(l, &out) || !sequenceFinalStates(l, {18, 19}, &out)) return false;
    l.addOperation(ANEURALNETWORKS_UNIDIRECTIONAL_SEQUENCE_LSTM, in, out);
    return true;
}

// 48 inputs: input, forward and backward weights, states, auxiliary input and weights. TFLite
// has no layer normalization here: NNAPI's 8 layer-norm operands are omitted.
bool lowerBidirectionalLstm(NodeLowering& l) {
    const auto* options = l.params<TfLiteBidirectionalSequenceLSTMParams>();
    if (options == nullptr) return l.fail("missing BidirectionalSequenceLSTMOptions");
    std::vector<uint32_t> in, out;
    uint32_t activation;
    if (!checkCounts(l, {48}, options->merge_outputs ? 1 : 2) || !floatTensorInputs(l, 48, &in)) return false;
    if (!activationCode(l, options->activation, true, &activation) || !outputs(l, &out)) return false;
    if (!sequenceFinalStates(l, {35, 36, 37, 38}, &out)) return false;
    in.push_back(activation);
    in.push_back(l.scalarFloat32(options->cell_clip));
    in.push_back(l.scalarFloat32(options->proj_clip));
    in.push_back(l.scalarBool(options->merge_outputs));
    in.push_back(l.scalarBool(options->time_major));
    for (int i = 0; i < 8; ++i) in.push_back(l.omitted(ANEURALNETWORKS_TENSOR_FLOAT32));
    l.addOperation(ANEURALNETWORKS_BIDIRECTIONAL_SEQUENCE_LSTM, in, out);
    return true;
}

}  // namespace

void addSequenceLowerings(LoweringTable& table) {
    table.add(fb::BuiltinOperator_UNIDIRECTIONAL_SEQUENCE_RNN, lowerUnidirectionalRnn);
    table.add(fb::BuiltinOperator_BIDIRECTIONAL_SEQUENCE_RNN, lowerBidirectionalRnn);
    table.add(fb::BuiltinOperator_UNIDIRECTIONAL_SEQUENCE_LSTM, lowerUnidirectionalLstm);
    table.add(fb::BuiltinOperator_BIDIRECTIONAL_SEQUENCE_LSTM, lowerBidirectionalLstm);
}

}  // namespace nnemu::tflite
