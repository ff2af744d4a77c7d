// The single-step recurrent builtins -> NNAPI's LSTM, RNN and SVDF, float32, as TensorFlow Lite's
// NNAPI delegate (2.21) maps them: the node's tensors in order (absent optional ones omitted),
// the options as scalars, and the new state as an extra output that is copied back into the
// state's variable tensor after each run (NodeLowering::stateOutput), so that N invokes give
// TFLite's result after N steps. The hybrid forms (8-bit weights with float activations) and
// the 8-bit basic LSTM kernel are refused by name.
#include <android/NeuralNetworks.h>

#include "RecurrentLowering.h"

namespace nnemu::tflite {
namespace {

// Every present input float32: the form NNAPI takes. `required`: the inputs that must be present.
bool floatInputs(NodeLowering& l, std::initializer_list<size_t> required) {
    for (size_t i : required) {
        if (!l.hasInput(i)) return l.fail("required input " + std::to_string(i) + " is absent");
    }
    const bool floatData = l.input(0).type == ElementType::FLOAT32;
    for (size_t i = 0; i < l.inputCount(); ++i) {
        if (!l.hasInput(i) || l.input(i).type == ElementType::FLOAT32) continue;
        const std::string type = elementTypeName(l.input(i).type);
        return l.fail(floatData ? "input " + std::to_string(i) + " has type " + type +
                                          ": the hybrid form (8-bit weights, float activations) is not supported"
                                : "input " + std::to_string(i) + " has type " + type +
                                          ": only the float32 form is supported");
    }
    if (l.output(0).type != ElementType::FLOAT32) return l.fail("output 0 is not FLOAT32");
    return true;
}

// A tensor's size along `dim`, 0 when it has no such dimension.
uint32_t dimOf(const Tensor& tensor, size_t dim) {
    return dim < tensor.shape.size() && tensor.shape[dim] > 0 ? static_cast<uint32_t>(tensor.shape[dim]) : 0;
}

// State input i has the shape the weights imply, as TFLite's kernels check at prepare.
bool stateShape(NodeLowering& l, size_t i, std::vector<int32_t> expected) {
    if (l.input(i).shape == expected) return true;
    std::string dims;
    for (int32_t d : expected) dims += (dims.empty() ? "" : ", ") + std::to_string(d);
    return l.fail("state input " + std::to_string(i) + " must have shape [" + dims + "]");
}

// RNN and SVDF take a fuse code (NONE, RELU, RELU_N1_TO_1, RELU6).
bool fuseActivation(NodeLowering& l, TfLiteFusedActivation activation, uint32_t* operand) {
    if (activation < kTfLiteActNone || activation > kTfLiteActRelu6) {
        return l.fail(std::string("activation ") + activationName(activation) +
                      " is not supported by NNAPI (a fuse code: NONE, RELU, RELU_N1_TO_1 or RELU6)");
    }
    *operand = l.scalarInt32(activation);
    return true;
}

// Inputs: 0 input [batch, input], 1 weights [units, input], 2 recurrent weights [units, units],
// 3 bias [units], 4 hidden state (variable) [batch, units]. NNAPI outputs the state, then the output.
bool lowerRnn(NodeLowering& l) {
    const auto* options = l.params<TfLiteRNNParams>();
    if (options == nullptr) return l.fail("missing RNNOptions");
    std::vector<uint32_t> in, out(2);
    uint32_t activation;
    if (!recurrentCounts(l, {5}, 1) || !floatInputs(l, {0, 1, 2, 3, 4}) || !floatTensorInputs(l, 5, &in)) return false;
    const auto batch = static_cast<int32_t>(dimOf(l.input(0), 0)), units = static_cast<int32_t>(dimOf(l.input(1), 0));
    if (!stateShape(l, 4, {batch, units}) || !fuseActivation(l, options->activation, &activation)) return false;
    if (!l.stateOutput(4, false, &out[0]) || !l.outputOperand(0, &out[1])) return false;
    in.push_back(activation);
    l.addOperation(ANEURALNETWORKS_RNN, in, out);
    return true;
}

// Inputs: 0 input [batch, input], 1 feature weights [filters, input], 2 time weights
// [filters, memory], 3 bias [units] (optional), 4 state (variable) [batch, memory * filters].
bool lowerSvdf(NodeLowering& l) {
    const auto* options = l.params<TfLiteSVDFParams>();
    if (options == nullptr) return l.fail("missing SVDFOptions");
    std::vector<uint32_t> in, out(2);
    uint32_t activation;
    if (!recurrentCounts(l, {5}, 1) || !floatInputs(l, {0, 1, 2, 4}) || !floatTensorInputs(l, 5, &in)) return false;
    const uint32_t filters = dimOf(l.input(1), 0);
    if (options->rank < 1 || filters == 0 || filters % static_cast<uint32_t>(options->rank) != 0) {
        return l.fail("rank " + std::to_string(options->rank) + " does not divide the " + std::to_string(filters) +
                      " filters of the feature weights");
    }
    const auto batch = static_cast<int32_t>(dimOf(l.input(0), 0)), memory = static_cast<int32_t>(dimOf(l.input(2), 1));
    if (!stateShape(l, 4, {batch, memory * static_cast<int32_t>(filters)})) return false;
    if (!fuseActivation(l, options->activation, &activation)) return false;
    if (!l.stateOutput(4, false, &out[0]) || !l.outputOperand(0, &out[1])) return false;
    in.push_back(l.scalarInt32(options->rank));
    in.push_back(activation);
    l.addOperation(ANEURALNETWORKS_SVDF, in, out);
    return true;
}

// The full kernel: 20 inputs, or 24 with the layer-normalization weights. 18 and 19 are the
// output and cell states (variables). NNAPI outputs the scratch buffer, both states, the output.
bool lowerLstm(NodeLowering& l) {
    const auto* options = l.params<TfLiteLSTMParams>();
    if (options == nullptr) return l.fail("missing LSTMOptions");
    if (options->kernel_type == kTfLiteLSTMBasicKernel || l.inputCount() == 5) {
        return l.fail("the basic LSTM kernel (5 inputs, 8-bit) is not supported");
    }
    if (!recurrentCounts(l, {20, 24}, 1)) return false;
    if (!floatInputs(l, {0, 2, 3, 4, 6, 7, 8, 13, 14, 15, 18, 19})) return false;
    // Batch, cells (input-to-output weights [cells, input]), outputs (recurrent-to-output [cells, outputs]).
    const auto batch = static_cast<int32_t>(dimOf(l.input(0), 0)), cells = static_cast<int32_t>(dimOf(l.input(4), 0)),
               outputs = static_cast<int32_t>(dimOf(l.input(8), 1));
    if (!stateShape(l, 18, {batch, outputs}) || !stateShape(l, 19, {batch, cells})) return false;
    // LSTM's activation codes: NONE, RELU, RELU6, TANH, SIGMOID.
    const TfLiteFusedActivation a = options->activation;
    if (a != kTfLiteActNone && a != kTfLiteActRelu && a != kTfLiteActRelu6 && a != kTfLiteActTanh &&
        a != kTfLiteActSigmoid) {
        return l.fail(std::string("activation ") + activationName(a) + " is not supported by NNAPI LSTM");
    }
    std::vector<uint32_t> in, out(4);
    if (!floatTensorInputs(l, 20, &in)) return false;
    in.push_back(l.scalarInt32(a));
    in.push_back(l.scalarFloat32(options->cell_clip));
    in.push_back(l.scalarFloat32(options->proj_clip));
    for (size_t i = 20; i < l.inputCount(); ++i) {
        uint32_t operand;
        if (!l.optionalInput(i, ANEURALNETWORKS_TENSOR_FLOAT32, &operand)) return false;
        in.push_back(operand);
    }
    // The scratch buffer: the gates, three of them without the input gate (CIFG).
    out[0] = l.temporaryOfType(ANEURALNETWORKS_TENSOR_FLOAT32,
                               {static_cast<uint32_t>(batch), static_cast<uint32_t>(cells) * (l.hasInput(1) ? 4u : 3u)},
                               0.0f, 0);
    if (!l.stateOutput(18, false, &out[1]) || !l.stateOutput(19, false, &out[2]) || !l.outputOperand(0, &out[3])) {
        return false;
    }
    l.addOperation(ANEURALNETWORKS_LSTM, in, out);
    return true;
}

}  // namespace

bool recurrentCounts(NodeLowering& l, std::initializer_list<size_t> inputCounts, size_t outputs) {
    bool countOk = false;
    for (size_t count : inputCounts) countOk = countOk || l.inputCount() == count;
    if (!countOk) return l.fail("has " + std::to_string(l.inputCount()) + " inputs, which is not a known form");
    if (l.outputCount() != outputs) {
        return l.fail("has " + std::to_string(l.outputCount()) + " outputs, expected " + std::to_string(outputs));
    }
    return true;
}

bool floatTensorInputs(NodeLowering& l, size_t count, std::vector<uint32_t>* operands) {
    for (size_t i = 0; i < count; ++i) {
        uint32_t operand;
        if (!l.optionalInput(i, ANEURALNETWORKS_TENSOR_FLOAT32, &operand)) return false;
        operands->push_back(operand);
    }
    return true;
}

bool sequenceFinalStates(NodeLowering& l, std::initializer_list<size_t> inputs, std::vector<uint32_t>* outputs) {
    for (size_t i : inputs) {
        if (!l.hasInput(i) || !l.input(i).isVariable || l.input(i).type != ElementType::FLOAT32) return true;
    }
    for (size_t i : inputs) {
        uint32_t operand;
        if (!l.stateOutput(i, true, &operand)) return false;
        outputs->push_back(operand);
    }
    return true;
}

void addRecurrentLowerings(LoweringTable& table) {
    table.add(fb::BuiltinOperator_LSTM, lowerLstm);
    table.add(fb::BuiltinOperator_RNN, lowerRnn);
    table.add(fb::BuiltinOperator_SVDF, lowerSvdf);
}

}  // namespace nnemu::tflite
