// MAXIMUM, MINIMUM, POW, PRELU, LOG_SOFTMAX and CAST -> the NNAPI operations of the same name.
// Types follow TFLite's delegate at API level 29; forms NNAPI can express that the delegate
// leaves to TFLite (int8 PRELU) stay on the CPU.
#include <android/NeuralNetworks.h>

#include <algorithm>
#include <initializer_list>

#include "LoweringList.h"

namespace nnemu::tflite {
namespace lowerings::math {

bool lowerTwoInputs(NodeLowering& l, int32_t nnapiType, std::initializer_list<int32_t> types) {
    if (!l.expectCounts(2, 2, 1)) return false;
    uint32_t a, b, output;
    if (!l.sameTypeInputs(&a, &b)) return false;
    const int32_t type = l.operand(a).type;
    if (std::find(types.begin(), types.end(), type) == types.end()) {
        return l.fail(std::string("input type ") + nnapiTypeName(type) + " is not supported");
    }
    if (!l.outputOperand(0, &output)) return false;
    l.addOperation(nnapiType, {a, b}, {output});
    return true;
}

bool lowerMaximum(NodeLowering& l) {
    return lowerTwoInputs(l, ANEURALNETWORKS_MAXIMUM, {ANEURALNETWORKS_TENSOR_FLOAT32, ANEURALNETWORKS_TENSOR_INT32,
                                                       ANEURALNETWORKS_TENSOR_QUANT8_ASYMM,
                                                       ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED});
}

bool lowerMinimum(NodeLowering& l) {
    return lowerTwoInputs(l, ANEURALNETWORKS_MINIMUM, {ANEURALNETWORKS_TENSOR_FLOAT32, ANEURALNETWORKS_TENSOR_INT32,
                                                       ANEURALNETWORKS_TENSOR_QUANT8_ASYMM,
                                                       ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED});
}

bool lowerPow(NodeLowering& l) { return lowerTwoInputs(l, ANEURALNETWORKS_POW, {ANEURALNETWORKS_TENSOR_FLOAT32}); }

bool lowerPrelu(NodeLowering& l) {
    if (l.expectCounts(2, 2, 1) && l.input(0).type == ElementType::INT8) l.keepOnCpu();   // delegate: float, uint8
    return lowerTwoInputs(l, ANEURALNETWORKS_PRELU, {ANEURALNETWORKS_TENSOR_FLOAT32, ANEURALNETWORKS_TENSOR_QUANT8_ASYMM,
                                                     ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED});
}

// TFLite's LOG_SOFTMAX has no parameters: beta 1 over the last axis.
bool lowerLogSoftmax(NodeLowering& l) {
    if (!l.expectCounts(1, 1, 1)) return false;
    uint32_t input, output;
    if (!l.inputOperand(0, &input) || !l.outputOperand(0, &output)) return false;
    if (l.operand(input).type != ANEURALNETWORKS_TENSOR_FLOAT32) {
        return l.fail(std::string("input type ") + nnapiTypeName(l.operand(input).type) + " is not supported");
    }
    l.addOperation(ANEURALNETWORKS_LOG_SOFTMAX, {input, l.scalarFloat32(1.0f), l.scalarInt32(-1)}, {output});
    return true;
}

// CAST converts values and ignores quantization parameters, in both TFLite and NNAPI: uint8
// tensors without parameters are plain integers. int8 cannot be cast here, because it reaches
// NNAPI as uint8 shifted by 128, and NNAPI's CAST at feature level 29 has no bool form.
bool castType(NodeLowering& l, const Tensor& tensor, const char* what) {
    switch (tensor.type) {
        case ElementType::FLOAT32:
        case ElementType::INT32:
        case ElementType::UINT8: return true;
        case ElementType::INT8:
            return l.fail(std::string("int8 ") + what + " is not supported by NNAPI CAST at feature level 29 (int8 "
                          "travels as uint8 shifted by 128)");
        default:
            return l.fail(std::string(what) + " type " + elementTypeName(tensor.type) +
                          " is not supported by NNAPI CAST at feature level 29");
    }
}

bool lowerCast(NodeLowering& l) {
    if (!l.expectCounts(1, 1, 1)) return false;
    if (!castType(l, l.input(0), "input") || !castType(l, l.output(0), "output")) return false;
    if (l.output(0).isConstant) return l.fail("the output is a constant");
    uint32_t input, output;
    const bool inputOk = l.input(0).isConstant ? l.inputOperand(0, &input)
                                               : l.activation(l.node().inputs[0], &input, true);
    if (!inputOk || !l.activation(l.node().outputs[0], &output, true)) return false;
    l.addOperation(ANEURALNETWORKS_CAST, {input}, {output});
    return true;
}

}  // namespace lowerings::math

}  // namespace nnemu::tflite
