// TRANSPOSE_CONV -> NNAPI TRANSPOSE_CONV_2D in its implicit-padding form, which takes the
// output shape as a tensor. TFLite's inputs are (output_shape, weights [O, H, W, I], input,
// [bias]); NNAPI's filter has the same layout, per-channel along dimension 0 when int8.
#include <android/NeuralNetworks.h>

#include "LoweringList.h"

namespace nnemu::tflite {
namespace lowerings::transpose_conv {

bool lowerTransposeConv(NodeLowering& l) {
    const auto* options = l.params<TfLiteTransposeConvParams>();
    if (options == nullptr) return l.fail("missing TransposeConvOptions");
    if (options->padding != kTfLitePaddingSame && options->padding != kTfLitePaddingValid) return l.fail("unknown padding");
    if (options->stride_width < 1 || options->stride_height < 1) return l.fail("strides must be at least 1");
    if (!l.expectCounts(3, 4, 1)) return false;
    uint32_t input, filter, bias, outputShape, output, fuse;
    if (!l.inputOperand(2, &input)) return false;
    const Tensor& weights = l.input(1);
    if (l.operand(input).dims.size() != 4 || weights.shape.size() != 4) return l.fail("input and weights must have rank 4");
    if (weights.isConstant ? !l.constantTensor(l.node().inputs[1], 0, &filter) : !l.activation(l.node().inputs[1], &filter)) {
        return false;
    }
    const int32_t inType = l.operand(input).type;
    const int32_t filterType = l.operand(filter).type;
    if ((inType == ANEURALNETWORKS_TENSOR_FLOAT32) != (filterType == ANEURALNETWORKS_TENSOR_FLOAT32)) {
        return l.fail(std::string("mixed float and quantized operands are not supported by NNAPI: input ") +
                      nnapiTypeName(inType) + ", weights " + nnapiTypeName(filterType));
    }
    if (inType != ANEURALNETWORKS_TENSOR_FLOAT32 && !isQuant8Asymm(inType)) {
        return l.fail(std::string("input type ") + nnapiTypeName(inType) + " is not supported");
    }
    if (static_cast<uint32_t>(weights.shape[3]) != l.operand(input).dims[3]) {
        return l.fail("weights depth " + std::to_string(weights.shape[3]) + " does not match input depth " +
                      std::to_string(l.operand(input).dims[3]));
    }
    if (!l.bias(3, input, filter, static_cast<uint32_t>(weights.shape[0]), &bias)) return false;
    if (l.input(0).isConstant) {
        std::vector<int32_t> shape;
        if (!l.constantInts(0, &shape)) return false;
        if (shape != l.output(0).shape) return l.fail("output_shape does not match the output tensor's shape");
        outputShape = l.vectorInt32(shape);
    } else if (!l.inputOperand(0, &outputShape)) {
        return false;
    }
    if (!l.fuseCode(options->activation, &fuse) || !l.outputOperand(0, &output)) return false;
    // The delegate needs constant weights and output shape.
    if (!weights.isConstant || !l.input(0).isConstant) l.keepOnCpu();
    const int32_t padding = options->padding == kTfLitePaddingSame ? ANEURALNETWORKS_PADDING_SAME : ANEURALNETWORKS_PADDING_VALID;
    l.addOperation(ANEURALNETWORKS_TRANSPOSE_CONV_2D,
                   {input, filter, bias, outputShape, l.scalarInt32(padding), l.scalarInt32(options->stride_width),
                    l.scalarInt32(options->stride_height), fuse, l.scalarBool(false)},
                   {output});
    return true;
}

}  // namespace lowerings::transpose_conv

}  // namespace nnemu::tflite
