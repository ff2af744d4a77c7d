// Element-wise operators: ADD, SUB, MUL, DIV (with a fused activation) and the one-input
// activations and math functions, each onto the NNAPI operation of the same meaning.
#include <android/NeuralNetworks.h>

#include "LoweringList.h"

namespace nnemu::tflite {
namespace lowerings::elementwise {

bool lowerBinary(NodeLowering& l, int32_t nnapiType, TfLiteFusedActivation activation) {
    if (!l.expectCounts(2, 2, 1)) return false;
    uint32_t a, b, output, fuse;
    if (!l.sameTypeInputs(&a, &b)) return false;
    if (!l.fuseCode(activation, &fuse)) return false;
    if (!l.outputOperand(0, &output)) return false;
    l.addOperation(nnapiType, {a, b, fuse}, {output});
    return true;
}

// ADD, SUB, MUL, DIV: Params is the builtin's options struct (its fused activation).
template <typename Params>
bool lowerArithmetic(NodeLowering& l, int32_t nnapiType) {
    const auto* options = l.params<Params>();
    return lowerBinary(l, nnapiType, options ? options->activation : kTfLiteActNone);
}

bool lowerAdd(NodeLowering& l) { return lowerArithmetic<TfLiteAddParams>(l, ANEURALNETWORKS_ADD); }
bool lowerSub(NodeLowering& l) { return lowerArithmetic<TfLiteSubParams>(l, ANEURALNETWORKS_SUB); }
bool lowerMul(NodeLowering& l) { return lowerArithmetic<TfLiteMulParams>(l, ANEURALNETWORKS_MUL); }
// NNAPI's DIV is float and int32 only (uint8 runs on the tools' kernel).
bool lowerDiv(NodeLowering& l) {
    if (l.hasInput(0) && l.input(0).type != ElementType::FLOAT32 && l.input(0).type != ElementType::INT32) {
        return l.fail(std::string("input type ") + elementTypeName(l.input(0).type) + " has no NNAPI DIV form (float32, int32)");
    }
    return lowerArithmetic<TfLiteDivParams>(l, ANEURALNETWORKS_DIV);
}

bool lowerUnary(NodeLowering& l, int32_t nnapiType) {
    if (!l.expectCounts(1, 1, 1)) return false;
    uint32_t input, output;
    if (!l.inputOperand(0, &input) || !l.outputOperand(0, &output)) return false;
    l.addOperation(nnapiType, {input}, {output});
    return true;
}

// The RELU family maps one to one, as TensorFlow Lite's delegate maps it, also when a quantized
// output is quantized otherwise than the input: NNAPI's RELU then keeps the input's quantization
// (Android's CPU executor gives a temporary output that quantization, refuses a model output
// declared otherwise) and a device may decline it; left on the CPU it runs on the tools' kernel,
// with TFLite's requantization (TfliteKernelForms.cpp).
bool lowerRelu(NodeLowering& l) { return lowerUnary(l, ANEURALNETWORKS_RELU); }
bool lowerRelu1(NodeLowering& l) { return lowerUnary(l, ANEURALNETWORKS_RELU1); }
bool lowerRelu6(NodeLowering& l) { return lowerUnary(l, ANEURALNETWORKS_RELU6); }
bool lowerLogistic(NodeLowering& l) { return lowerUnary(l, ANEURALNETWORKS_LOGISTIC); }
bool lowerTanh(NodeLowering& l) { return lowerUnary(l, ANEURALNETWORKS_TANH); }
bool lowerFloor(NodeLowering& l) { return lowerUnary(l, ANEURALNETWORKS_FLOOR); }
bool lowerAbs(NodeLowering& l) { return lowerUnary(l, ANEURALNETWORKS_ABS); }
bool lowerExp(NodeLowering& l) { return lowerUnary(l, ANEURALNETWORKS_EXP); }
bool lowerLog(NodeLowering& l) { return lowerUnary(l, ANEURALNETWORKS_LOG); }
bool lowerNeg(NodeLowering& l) { return lowerUnary(l, ANEURALNETWORKS_NEG); }
bool lowerRsqrt(NodeLowering& l) { return lowerUnary(l, ANEURALNETWORKS_RSQRT); }
bool lowerSin(NodeLowering& l) { return lowerUnary(l, ANEURALNETWORKS_SIN); }
bool lowerSqrt(NodeLowering& l) { return lowerUnary(l, ANEURALNETWORKS_SQRT); }

}  // namespace lowerings::elementwise

}  // namespace nnemu::tflite
