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
bool lowerDiv(NodeLowering& l) { return lowerArithmetic<TfLiteDivParams>(l, ANEURALNETWORKS_DIV); }

bool lowerUnary(NodeLowering& l, int32_t nnapiType) {
    if (!l.expectCounts(1, 1, 1)) return false;
    uint32_t input, output;
    if (!l.inputOperand(0, &input) || !l.outputOperand(0, &output)) return false;
    l.addOperation(nnapiType, {input}, {output});
    return true;
}

// NNAPI's quantized RELU family keeps the input's quantization; TFLite's may requantize. Then
// the clamp becomes ADD(x, 0) with the activation fused, which requantizes to the output.
bool lowerClamp(NodeLowering& l, int32_t nnapiType, int32_t fuseCode) {
    if (!l.expectCounts(1, 1, 1)) return false;
    uint32_t input, output;
    if (!l.inputOperand(0, &input) || !l.outputOperand(0, &output)) return false;
    const NnOperand& in = l.operand(input);
    const NnOperand& out = l.operand(output);
    if (!isQuant8Asymm(in.type) || (in.scale == out.scale && in.zeroPoint == out.zeroPoint)) {
        l.addOperation(nnapiType, {input}, {output});
        return true;
    }
    const float scale = in.scale;
    const int32_t zeroPoint = in.zeroPoint;
    const uint32_t zero = l.quantizedConstant(in.type, zeroPoint, scale, zeroPoint);
    l.addOperation(ANEURALNETWORKS_ADD, {input, zero, l.scalarInt32(fuseCode)}, {output});
    return true;
}

bool lowerRelu(NodeLowering& l) { return lowerClamp(l, ANEURALNETWORKS_RELU, ANEURALNETWORKS_FUSED_RELU); }
bool lowerRelu1(NodeLowering& l) { return lowerClamp(l, ANEURALNETWORKS_RELU1, ANEURALNETWORKS_FUSED_RELU1); }
bool lowerRelu6(NodeLowering& l) { return lowerClamp(l, ANEURALNETWORKS_RELU6, ANEURALNETWORKS_FUSED_RELU6); }
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
