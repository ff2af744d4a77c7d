// QUANTIZE and DEQUANTIZE. Float -> quantized is NNAPI QUANTIZE; quantized -> float is
// DEQUANTIZE; a requantization (uint8/int8 -> uint8/int8, e.g. the uint8 <-> int8 edges of TF2
// models) has no single NNAPI operation at feature level 29 and becomes DEQUANTIZE + QUANTIZE
// through a float temporary, one TFLite node still.
#include <android/NeuralNetworks.h>

#include "LoweringList.h"

namespace nnemu::tflite {
namespace lowerings::quantization {

bool lowerQuantize(NodeLowering& l) {
    if (!l.expectCounts(1, 1, 1)) return false;
    uint32_t input, output;
    if (!l.inputOperand(0, &input) || !l.outputOperand(0, &output)) return false;
    if (!isQuant8Asymm(l.operand(output).type)) {
        return l.fail(std::string("output type ") + nnapiTypeName(l.operand(output).type) + " is not supported");
    }
    const int32_t inType = l.operand(input).type;
    if (inType == ANEURALNETWORKS_TENSOR_FLOAT32) {
        l.addOperation(ANEURALNETWORKS_QUANTIZE, {input}, {output});
        return true;
    }
    if (!isQuant8Asymm(inType)) {
        return l.fail(std::string("input type ") + nnapiTypeName(inType) + " is not supported");
    }
    const uint32_t real = l.temporaryOfType(ANEURALNETWORKS_TENSOR_FLOAT32, l.operand(input).dims, 0.0f, 0);
    l.addOperation(ANEURALNETWORKS_DEQUANTIZE, {input}, {real});
    l.addOperation(ANEURALNETWORKS_QUANTIZE, {real}, {output});
    return true;
}

bool lowerDequantize(NodeLowering& l) {
    if (!l.expectCounts(1, 1, 1)) return false;
    uint32_t input, output;
    // Weights stored int8 per channel dequantize as NNAPI per-channel constants.
    const Tensor& source = l.input(0);
    const bool perChannel = source.isConstant && source.isPerChannel();
    if (perChannel ? !l.constantTensor(l.node().inputs[0], source.quantizedDimension, &input)
                   : !l.inputOperand(0, &input)) {
        return false;
    }
    if (!l.outputOperand(0, &output)) return false;
    if (l.operand(output).type != ANEURALNETWORKS_TENSOR_FLOAT32) return l.fail("output must be float32");
    l.addOperation(ANEURALNETWORKS_DEQUANTIZE, {input}, {output});
    return true;
}

}  // namespace lowerings::quantization

}  // namespace nnemu::tflite
