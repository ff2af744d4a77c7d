// FULLY_CONNECTED -> NNAPI FULLY_CONNECTED. NNAPI flattens the input to [batch, depth] and
// writes [batch, units]; when TFLite keeps more dimensions (keep_num_dims) a RESHAPE follows.
// Hybrid (float input, int8 weights per tensor or per unit): DEQUANTIZE of the weights, then the
// float operation, as TensorFlow Lite's delegate (2.21) does.
#include <android/NeuralNetworks.h>

#include "LoweringList.h"

namespace nnemu::tflite {
namespace lowerings::fully_connected {

bool lowerFullyConnected(NodeLowering& l) {
    const auto* options = l.params<TfLiteFullyConnectedParams>();
    if (options == nullptr) return l.fail("missing FullyConnectedOptions");
    if (options->weights_format != kTfLiteFullyConnectedWeightsFormatDefault) {
        return l.fail("shuffled weights are not supported by NNAPI");
    }
    if (!l.expectCounts(2, 3, 1)) return false;
    const Tensor& weightsTensor = l.input(1);
    if (weightsTensor.shape.size() != 2) return l.fail("weights must have rank 2");
    uint32_t input, weights, bias, output, fuse;
    if (!l.inputOperand(0, &input)) return false;
    // Hybrid (float input, int8 weights): the weights dequantized to float, as TFLite's delegate
    // lowers it from feature level 29.
    const bool hybrid = l.operand(input).type == ANEURALNETWORKS_TENSOR_FLOAT32 && weightsTensor.type == ElementType::INT8;
    if (hybrid) {
        if (!l.dequantizedWeights(1, 0, &weights)) return false;
    } else if (weightsTensor.isPerChannel()) {
        return l.fail("per-channel quantized weights are not supported by NNAPI FULLY_CONNECTED");
    } else if (!l.inputOperand(1, &weights)) {
        return false;
    }
    const int32_t inType = l.operand(input).type;
    const int32_t weightsType = l.operand(weights).type;
    if ((inType == ANEURALNETWORKS_TENSOR_FLOAT32) != (weightsType == ANEURALNETWORKS_TENSOR_FLOAT32)) {
        return l.fail(std::string("mixed float and quantized operands (hybrid quantization) are not supported by "
                                  "NNAPI: input ") + nnapiTypeName(inType) + ", weights " + nnapiTypeName(weightsType));
    }
    if (inType != ANEURALNETWORKS_TENSOR_FLOAT32 && !isQuant8Asymm(inType)) {
        return l.fail(std::string("input type ") + nnapiTypeName(inType) + " is not supported");
    }
    const auto units = static_cast<uint32_t>(weightsTensor.shape[0]);
    const auto depth = static_cast<uint64_t>(weightsTensor.shape[1]);
    uint64_t elements = 1;
    for (uint32_t dim : l.operand(input).dims) elements *= dim;
    if (depth == 0 || elements % depth != 0) {
        return l.fail("input size " + std::to_string(elements) + " is not a multiple of the weights depth " +
                      std::to_string(depth));
    }
    const auto batch = static_cast<uint32_t>(elements / depth);
    if (!l.bias(2, input, weights, units, &bias)) return false;
    if (!l.fuseCode(options->activation, &fuse)) return false;
    if (!l.outputOperand(0, &output)) return false;
    const std::vector<uint32_t> flatDims = {batch, units};
    if (l.operand(output).dims == flatDims) {
        l.addOperation(ANEURALNETWORKS_FULLY_CONNECTED, {input, weights, bias, fuse}, {output});
        return true;
    }
    uint64_t outputElements = 1;
    for (uint32_t dim : l.operand(output).dims) outputElements *= dim;
    if (outputElements != static_cast<uint64_t>(batch) * units) {
        return l.fail("output shape does not hold " + std::to_string(batch) + " x " + std::to_string(units) + " values");
    }
    const uint32_t flat = l.temporary(l.operand(output), flatDims);
    std::vector<int32_t> shape(l.operand(output).dims.begin(), l.operand(output).dims.end());
    l.addOperation(ANEURALNETWORKS_FULLY_CONNECTED, {input, weights, bias, fuse}, {flat});
    l.addOperation(ANEURALNETWORKS_RESHAPE, {flat, l.vectorInt32(shape)}, {output});
    return true;
}

}  // namespace lowerings::fully_connected

}  // namespace nnemu::tflite
