// Element-wise operators: ADD, SUB, MUL, DIV (with a fused activation) and the one-input
// activations and math functions, each onto the NNAPI operation of the same meaning.
#include <android/NeuralNetworks.h>

#include "NodeLowering.h"

namespace nnemu::tflite {
namespace {

bool lowerBinary(NodeLowering& l, int32_t nnapiType, TfLiteFusedActivation activation) {
    if (!l.expectCounts(2, 2, 1)) return false;
    uint32_t a, b, output, fuse;
    if (!l.inputOperand(0, &a) || !l.inputOperand(1, &b)) return false;
    if (l.operand(a).type != l.operand(b).type) {
        return l.fail(std::string("input types differ (") + nnapiTypeName(l.operand(a).type) + ", " +
                      nnapiTypeName(l.operand(b).type) + ")");
    }
    if (!l.fuseCode(activation, &fuse)) return false;
    if (!l.outputOperand(0, &output)) return false;
    l.addOperation(nnapiType, {a, b, fuse}, {output});
    return true;
}

bool lowerAdd(NodeLowering& l) {
    const auto* options = l.params<TfLiteAddParams>();
    return lowerBinary(l, ANEURALNETWORKS_ADD, options ? options->activation : kTfLiteActNone);
}

bool lowerSub(NodeLowering& l) {
    const auto* options = l.params<TfLiteSubParams>();
    return lowerBinary(l, ANEURALNETWORKS_SUB, options ? options->activation : kTfLiteActNone);
}

bool lowerMul(NodeLowering& l) {
    const auto* options = l.params<TfLiteMulParams>();
    return lowerBinary(l, ANEURALNETWORKS_MUL, options ? options->activation : kTfLiteActNone);
}

bool lowerDiv(NodeLowering& l) {
    const auto* options = l.params<TfLiteDivParams>();
    return lowerBinary(l, ANEURALNETWORKS_DIV, options ? options->activation : kTfLiteActNone);
}

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

}  // namespace

void addElementwiseLowerings(LoweringTable& table) {
    table.add(fb::BuiltinOperator_ADD, lowerAdd);
    table.add(fb::BuiltinOperator_SUB, lowerSub);
    table.add(fb::BuiltinOperator_MUL, lowerMul);
    table.add(fb::BuiltinOperator_DIV, lowerDiv);
    table.add(fb::BuiltinOperator_RELU, lowerRelu);
    table.add(fb::BuiltinOperator_RELU_N1_TO_1, lowerRelu1);
    table.add(fb::BuiltinOperator_RELU6, lowerRelu6);
    table.add(fb::BuiltinOperator_LOGISTIC, lowerLogistic);
    table.add(fb::BuiltinOperator_TANH, lowerTanh);
    table.add(fb::BuiltinOperator_FLOOR, lowerFloor);
    table.add(fb::BuiltinOperator_ABS, lowerAbs);
    table.add(fb::BuiltinOperator_EXP, lowerExp);
    table.add(fb::BuiltinOperator_LOG, lowerLog);
    table.add(fb::BuiltinOperator_NEG, lowerNeg);
    table.add(fb::BuiltinOperator_RSQRT, lowerRsqrt);
    table.add(fb::BuiltinOperator_SIN, lowerSin);
    table.add(fb::BuiltinOperator_SQRT, lowerSqrt);
}

}  // namespace nnemu::tflite
