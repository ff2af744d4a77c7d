// CONV_2D and DEPTHWISE_CONV_2D -> the NNAPI operations of the same name, implicit padding
// (TFLite's SAME/VALID are NNAPI's padding codes), dilation through the feature-level-29 form.
#include <android/NeuralNetworks.h>

#include "LoweringList.h"

namespace nnemu::tflite {
namespace lowerings::convolution {

int32_t paddingCode(TfLitePadding padding) {
    return padding == kTfLitePaddingSame ? ANEURALNETWORKS_PADDING_SAME : ANEURALNETWORKS_PADDING_VALID;
}

bool checkWindow(NodeLowering& l, TfLitePadding padding, int32_t strideW, int32_t strideH, int32_t dilationW,
                 int32_t dilationH) {
    if (padding != kTfLitePaddingSame && padding != kTfLitePaddingValid) return l.fail("unknown padding");
    if (strideW < 1 || strideH < 1) return l.fail("strides must be at least 1");
    if (dilationW < 1 || dilationH < 1) return l.fail("dilation factors must be at least 1");
    return true;
}

// Input, filter (per-channel along filterChannelDim when int8) and bias operands.
bool convOperands(NodeLowering& l, int32_t filterChannelDim, uint32_t* input, uint32_t* filter, uint32_t* bias,
                  uint32_t* outChannels) {
    if (!l.expectCounts(2, 3, 1)) return false;
    if (!l.inputOperand(0, input)) return false;
    const Tensor& filterTensor = l.input(1);
    if (filterTensor.shape.size() != 4) return l.fail("filter must have rank 4");
    // Hybrid CONV_2D (float input, int8 filter): the filter dequantized to float, as TFLite's
    // delegate lowers it; a hybrid DEPTHWISE_CONV_2D it leaves to TFLite.
    const bool hybrid = l.operand(*input).type == ANEURALNETWORKS_TENSOR_FLOAT32 &&
                        filterTensor.type == ElementType::INT8 && l.node().builtinCode == static_cast<int32_t>(fb::BuiltinOperator_CONV_2D);
    if (hybrid) {
        if (!l.dequantizedWeights(1, filterChannelDim, filter)) return false;
    } else if (filterTensor.isConstant) {
        if (!l.constantTensor(l.node().inputs[1], filterChannelDim, filter)) return false;
    } else if (!l.activation(l.node().inputs[1], filter)) {
        return false;
    }
    const int32_t inType = l.operand(*input).type;
    const int32_t filterType = l.operand(*filter).type;
    if (l.operand(*input).dims.size() != 4) return l.fail("input must have rank 4");
    const bool floatInput = inType == ANEURALNETWORKS_TENSOR_FLOAT32;
    const bool floatFilter = filterType == ANEURALNETWORKS_TENSOR_FLOAT32;
    if (floatInput != floatFilter) {
        return l.fail(std::string("mixed float and quantized operands (hybrid quantization) are not supported by "
                                  "NNAPI: input ") + nnapiTypeName(inType) + ", filter " + nnapiTypeName(filterType));
    }
    if (!floatInput && !isQuant8Asymm(inType)) {
        return l.fail(std::string("input type ") + nnapiTypeName(inType) + " is not supported");
    }
    *outChannels = static_cast<uint32_t>(filterTensor.shape[filterChannelDim]);
    return l.bias(2, *input, *filter, *outChannels, bias);
}

bool lowerConv2D(NodeLowering& l) {
    const auto* options = l.params<TfLiteConvParams>();
    if (options == nullptr) return l.fail("missing Conv2DOptions");
    if (!checkWindow(l, options->padding, options->stride_width, options->stride_height, options->dilation_width_factor,
                     options->dilation_height_factor)) {
        return false;
    }
    uint32_t input, filter, bias, outChannels, output, fuse;
    if (!convOperands(l, 0, &input, &filter, &bias, &outChannels)) return false;
    if (l.input(1).shape[3] != static_cast<int32_t>(l.operand(input).dims[3])) {
        return l.fail("grouped convolution (filter depth " + std::to_string(l.input(1).shape[3]) +
                      " != input depth " + std::to_string(l.operand(input).dims[3]) + ") is not supported by NNAPI");
    }
    if (!l.fuseCode(options->activation, &fuse)) return false;
    if (!l.outputOperand(0, &output)) return false;
    std::vector<uint32_t> inputs = {input, filter, bias, l.scalarInt32(paddingCode(options->padding)),
                                    l.scalarInt32(options->stride_width), l.scalarInt32(options->stride_height), fuse};
    if (options->dilation_width_factor != 1 || options->dilation_height_factor != 1) {
        inputs.push_back(l.scalarBool(false));  // NHWC
        inputs.push_back(l.scalarInt32(options->dilation_width_factor));
        inputs.push_back(l.scalarInt32(options->dilation_height_factor));
    }
    l.addOperation(ANEURALNETWORKS_CONV_2D, inputs, {output});
    return true;
}

bool lowerDepthwiseConv2D(NodeLowering& l) {
    const auto* options = l.params<TfLiteDepthwiseConvParams>();
    if (options == nullptr) return l.fail("missing DepthwiseConv2DOptions");
    if (!checkWindow(l, options->padding, options->stride_width, options->stride_height, options->dilation_width_factor,
                     options->dilation_height_factor)) {
        return false;
    }
    uint32_t input, filter, bias, outChannels, output, fuse;
    if (!convOperands(l, 3, &input, &filter, &bias, &outChannels)) return false;
    if (l.input(1).shape[0] != 1) return l.fail("depthwise filter must have shape [1, H, W, C]");
    // TFLite's depth_multiplier is advisory; the shapes decide.
    const uint32_t inChannels = l.operand(input).dims[3];
    if (outChannels % inChannels != 0) {
        return l.fail("output depth " + std::to_string(outChannels) + " is not a multiple of input depth " +
                      std::to_string(inChannels));
    }
    const auto multiplier = static_cast<int32_t>(outChannels / inChannels);
    if (!l.fuseCode(options->activation, &fuse)) return false;
    if (!l.outputOperand(0, &output)) return false;
    std::vector<uint32_t> inputs = {input, filter, bias, l.scalarInt32(paddingCode(options->padding)),
                                    l.scalarInt32(options->stride_width), l.scalarInt32(options->stride_height),
                                    l.scalarInt32(multiplier), fuse};
    if (options->dilation_width_factor != 1 || options->dilation_height_factor != 1) {
        inputs.push_back(l.scalarBool(false));  // NHWC
        inputs.push_back(l.scalarInt32(options->dilation_width_factor));
        inputs.push_back(l.scalarInt32(options->dilation_height_factor));
    }
    l.addOperation(ANEURALNETWORKS_DEPTHWISE_CONV_2D, inputs, {output});
    return true;
}

}  // namespace lowerings::convolution

}  // namespace nnemu::tflite
