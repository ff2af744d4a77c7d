// NetworkGraph layer builders: shapes follow TFLite's rules (SAME/VALID padding), weights come
// from the graph's fixed-seed generator in the order layers are added.
#include "NetworkGraph.h"

#include <cmath>

namespace nnemu::modelgen {
namespace {

int32_t outputSize(int32_t in, int32_t kernel, int32_t stride, fb::Padding padding) {
    return padding == fb::Padding_SAME ? (in + stride - 1) / stride : (in - kernel + stride) / stride;
}

NetTensor weightsTensor(const std::string& name, std::vector<int32_t> shape, int32_t quantAxis) {
    NetTensor tensor;
    tensor.name = name;
    tensor.shape = std::move(shape);
    tensor.role = TensorRole::WEIGHTS;
    tensor.quantAxis = quantAxis;
    return tensor;
}

}  // namespace

int32_t NetworkGraph::addTensor(NetTensor tensor) {
    tensors.push_back(std::move(tensor));
    return static_cast<int32_t>(tensors.size() - 1);
}

int32_t NetworkGraph::addOperator(fb::BuiltinOperator code, std::vector<int32_t> in, std::vector<int32_t> out,
                                  NetOptions options) {
    operators.push_back({code, std::move(in), std::move(out), std::move(options)});
    return static_cast<int32_t>(operators.size() - 1);
}

int32_t NetworkGraph::addInput(const std::string& name, std::vector<int32_t> shape, float min, float max) {
    const int32_t t = addActivation(name, std::move(shape));
    setFixedRange(t, min, max);
    inputs.push_back(t);
    return t;
}

int32_t NetworkGraph::addActivation(const std::string& name, std::vector<int32_t> shape) {
    NetTensor tensor;
    tensor.name = name;
    tensor.shape = std::move(shape);
    return addTensor(std::move(tensor));
}

int32_t NetworkGraph::addWeights(const std::string& name, std::vector<int32_t> shape, int32_t fanIn, float gain,
                                 int32_t quantAxis) {
    NetTensor tensor = weightsTensor(name, std::move(shape), quantAxis);
    size_t count = 1;
    for (int32_t d : tensor.shape) count *= static_cast<size_t>(d);
    const float stddev = gain * std::sqrt(2.0f / static_cast<float>(fanIn));
    tensor.values.resize(count);
    for (float& v : tensor.values) v = stddev * random_.normal();
    return addTensor(std::move(tensor));
}

int32_t NetworkGraph::addBias(const std::string& name, int32_t size, float stddev, int32_t input, int32_t weights) {
    NetTensor tensor;
    tensor.name = name;
    tensor.shape = {size};
    tensor.role = TensorRole::BIAS;
    tensor.biasInput = input;
    tensor.biasWeights = weights;
    tensor.values.resize(static_cast<size_t>(size));
    for (float& v : tensor.values) v = stddev * random_.normal();
    return addTensor(std::move(tensor));
}

int32_t NetworkGraph::addIndexes(const std::string& name, std::vector<int32_t> values, std::vector<int32_t> shape) {
    NetTensor tensor;
    tensor.name = name;
    tensor.shape = std::move(shape);
    tensor.role = TensorRole::INDEXES;
    tensor.indexes = std::move(values);
    return addTensor(std::move(tensor));
}

int32_t NetworkGraph::addConstant(const std::string& name, std::vector<int32_t> shape, std::vector<float> values,
                                  int32_t quantAxis) {
    NetTensor tensor = weightsTensor(name, std::move(shape), quantAxis);
    tensor.values = std::move(values);
    return addTensor(std::move(tensor));
}

void NetworkGraph::setFixedRange(int32_t tensor, float min, float max) {
    tensors[tensor].hasFixedRange = true;
    tensors[tensor].fixedMin = min;
    tensors[tensor].fixedMax = max;
}

void NetworkGraph::forceType(int32_t tensor, fb::TensorType type) {
    tensors[tensor].hasForcedType = true;
    tensors[tensor].forcedType = type;
}

int32_t NetworkGraph::conv2d(const std::string& name, int32_t input, int32_t outChannels, int32_t kernel, int32_t stride,
                             fb::ActivationFunctionType activation, float gain, fb::Padding padding) {
    const std::vector<int32_t> in = shapeOf(input);
    const int32_t weights = addWeights(name + "/weights", {outChannels, kernel, kernel, in[3]}, kernel * kernel * in[3],
                                       gain, 0);
    const int32_t bias = addBias(name + "/bias", outChannels, 0.05f, input, weights);
    const int32_t output = addActivation(name + (activation == fb::ActivationFunctionType_RELU6 ? "/Relu6" : "/BiasAdd"),
                                         {in[0], outputSize(in[1], kernel, stride, padding),
                                          outputSize(in[2], kernel, stride, padding), outChannels});
    if (activation == fb::ActivationFunctionType_RELU6) setFixedRange(output, 0.0f, 6.0f);
    NetOptions options;
    options.padding = padding;
    options.strideW = options.strideH = stride;
    options.activation = activation;
    addOperator(fb::BuiltinOperator_CONV_2D, {input, weights, bias}, {output}, options);
    return output;
}

int32_t NetworkGraph::depthwiseConv2d(const std::string& name, int32_t input, int32_t kernel, int32_t stride,
                                      fb::ActivationFunctionType activation, int32_t multiplier) {
    const std::vector<int32_t> in = shapeOf(input);
    const int32_t channels = in[3] * multiplier;
    const int32_t weights = addWeights(name + "/depthwise_weights", {1, kernel, kernel, channels}, kernel * kernel, 1.0f, 3);
    const int32_t bias = addBias(name + "/depthwise_bias", channels, 0.05f, input, weights);
    const int32_t output = addActivation(name + (activation == fb::ActivationFunctionType_RELU6 ? "/Relu6" : "/BiasAdd"),
                                         {in[0], outputSize(in[1], kernel, stride, fb::Padding_SAME),
                                          outputSize(in[2], kernel, stride, fb::Padding_SAME), channels});
    if (activation == fb::ActivationFunctionType_RELU6) setFixedRange(output, 0.0f, 6.0f);
    NetOptions options;
    options.strideW = options.strideH = stride;
    options.depthMultiplier = multiplier;
    options.activation = activation;
    addOperator(fb::BuiltinOperator_DEPTHWISE_CONV_2D, {input, weights, bias}, {output}, options);
    return output;
}

int32_t NetworkGraph::fullyConnected(const std::string& name, int32_t input, int32_t units,
                                     fb::ActivationFunctionType activation, float gain) {
    const std::vector<int32_t> in = shapeOf(input);
    const int32_t depth = in.back();
    int32_t batch = 1;
    for (size_t i = 0; i + 1 < in.size(); ++i) batch *= in[i];
    // Fully connected weights stay per tensor: NNAPI's FULLY_CONNECTED has no per-channel form.
    const int32_t weights = addWeights(name + "/weights", {units, depth}, depth, gain, -1);
    const int32_t bias = addBias(name + "/bias", units, 0.05f, input, weights);
    const int32_t output = addActivation(name + "/MatMul", {batch, units});
    if (activation == fb::ActivationFunctionType_RELU6) setFixedRange(output, 0.0f, 6.0f);
    NetOptions options;
    options.activation = activation;
    addOperator(fb::BuiltinOperator_FULLY_CONNECTED, {input, weights, bias}, {output}, options);
    return output;
}

int32_t NetworkGraph::pool(fb::BuiltinOperator code, const std::string& name, int32_t input, int32_t filter,
                           int32_t stride, fb::Padding padding) {
    const std::vector<int32_t> in = shapeOf(input);
    const int32_t output = addActivation(name, {in[0], outputSize(in[1], filter, stride, padding),
                                                outputSize(in[2], filter, stride, padding), in[3]});
    tensors[output].sameQuantizationAs = input;  // TFLite's quantized pooling keeps the input's parameters
    NetOptions options;
    options.padding = padding;
    options.strideW = options.strideH = stride;
    options.filterW = options.filterH = filter;
    addOperator(code, {input}, {output}, options);
    return output;
}

int32_t NetworkGraph::binary(fb::BuiltinOperator code, const std::string& name, int32_t a, int32_t b,
                             fb::ActivationFunctionType activation) {
    // Broadcast: the larger shape wins dimension by dimension (same ranks only here).
    std::vector<int32_t> shape = shapeOf(a);
    const std::vector<int32_t>& other = shapeOf(b);
    for (size_t i = 0; i < shape.size() && i < other.size(); ++i) shape[i] = std::max(shape[i], other[i]);
    const int32_t output = addActivation(name, shape);
    NetOptions options;
    options.activation = activation;
    addOperator(code, {a, b}, {output}, options);
    return output;
}

int32_t NetworkGraph::unary(fb::BuiltinOperator code, const std::string& name, int32_t input) {
    const int32_t output = addActivation(name, shapeOf(input));
    switch (code) {
        case fb::BuiltinOperator_LOGISTIC: setFixedRange(output, 0.0f, 255.0f / 256.0f); break;
        case fb::BuiltinOperator_TANH: setFixedRange(output, -1.0f, 127.0f / 128.0f); break;
        case fb::BuiltinOperator_RELU6: setFixedRange(output, 0.0f, 6.0f); break;
        default: break;
    }
    addOperator(code, {input}, {output});
    return output;
}

int32_t NetworkGraph::reshape(const std::string& name, int32_t input, std::vector<int32_t> shape) {
    const int32_t shapeTensor = addIndexes(name + "/shape", shape, {static_cast<int32_t>(shape.size())});
    const int32_t output = addActivation(name, shape);
    tensors[output].sameQuantizationAs = input;
    NetOptions options;
    options.dims = shape;
    addOperator(fb::BuiltinOperator_RESHAPE, {input, shapeTensor}, {output}, options);
    return output;
}

int32_t NetworkGraph::squeeze(const std::string& name, int32_t input, std::vector<int32_t> axes) {
    std::vector<int32_t> shape;
    const std::vector<int32_t> in = shapeOf(input);
    for (size_t i = 0; i < in.size(); ++i) {
        bool squeezed = false;
        for (int32_t a : axes) squeezed = squeezed || static_cast<size_t>(a) == i;
        if (!squeezed) shape.push_back(in[i]);
    }
    const int32_t output = addActivation(name, shape);
    tensors[output].sameQuantizationAs = input;
    NetOptions options;
    options.dims = std::move(axes);
    addOperator(fb::BuiltinOperator_SQUEEZE, {input}, {output}, options);
    return output;
}

int32_t NetworkGraph::softmax(const std::string& name, int32_t input, float beta) {
    const int32_t output = addActivation(name, shapeOf(input));
    setFixedRange(output, 0.0f, 255.0f / 256.0f);
    NetOptions options;
    options.beta = beta;
    addOperator(fb::BuiltinOperator_SOFTMAX, {input}, {output}, options);
    return output;
}

int32_t NetworkGraph::mean(const std::string& name, int32_t input, std::vector<int32_t> axes, bool keepDims) {
    std::vector<int32_t> shape;
    const std::vector<int32_t> in = shapeOf(input);
    for (size_t i = 0; i < in.size(); ++i) {
        bool reduced = false;
        for (int32_t a : axes) reduced = reduced || static_cast<size_t>(a) == i;
        if (!reduced) {
            shape.push_back(in[i]);
        } else if (keepDims) {
            shape.push_back(1);
        }
    }
    const int32_t axesTensor = addIndexes(name + "/reduction_indices", axes, {static_cast<int32_t>(axes.size())});
    const int32_t output = addActivation(name, shape);
    NetOptions options;
    options.keepDims = keepDims;
    addOperator(fb::BuiltinOperator_MEAN, {input, axesTensor}, {output}, options);
    return output;
}

int32_t NetworkGraph::concatenation(const std::string& name, const std::vector<int32_t>& parts, int32_t axis) {
    std::vector<int32_t> shape = shapeOf(parts[0]);
    shape[axis] = 0;
    for (int32_t p : parts) shape[axis] += shapeOf(p)[axis];
    const int32_t output = addActivation(name, shape);
    NetOptions options;
    options.axis = axis;
    addOperator(fb::BuiltinOperator_CONCATENATION, parts, {output}, options);
    return output;
}

std::vector<int32_t> NetworkGraph::split(const std::string& name, int32_t input, int32_t axis, int32_t count) {
    const int32_t axisTensor = addIndexes(name + "/split_dim", {axis}, {});
    std::vector<int32_t> shape = shapeOf(input);
    shape[axis] /= count;
    std::vector<int32_t> outputs;
    for (int32_t i = 0; i < count; ++i) {
        const int32_t output = addActivation(name + "/split" + std::to_string(i), shape);
        tensors[output].sameQuantizationAs = input;
        outputs.push_back(output);
    }
    NetOptions options;
    options.numSplits = count;
    addOperator(fb::BuiltinOperator_SPLIT, {axisTensor, input}, outputs, options);
    return outputs;
}

int32_t NetworkGraph::pad(const std::string& name, int32_t input, std::vector<int32_t> paddings) {
    std::vector<int32_t> shape = shapeOf(input);
    for (size_t i = 0; i < shape.size(); ++i) shape[i] += paddings[2 * i] + paddings[2 * i + 1];
    const int32_t paddingTensor = addIndexes(name + "/paddings", paddings, {static_cast<int32_t>(shapeOf(input).size()), 2});
    const int32_t output = addActivation(name, shape);
    tensors[output].sameQuantizationAs = input;
    addOperator(fb::BuiltinOperator_PAD, {input, paddingTensor}, {output});
    return output;
}

int32_t NetworkGraph::resize(fb::BuiltinOperator code, const std::string& name, int32_t input, int32_t height,
                             int32_t width) {
    const std::vector<int32_t> in = shapeOf(input);
    const int32_t sizeTensor = addIndexes(name + "/size", {height, width}, {2});
    const int32_t output = addActivation(name, {in[0], height, width, in[3]});
    tensors[output].sameQuantizationAs = input;
    addOperator(code, {input, sizeTensor}, {output});
    return output;
}

int32_t NetworkGraph::quantizeFrom(const std::string& name, int32_t input, fb::TensorType inputType) {
    forceType(input, inputType);
    const int32_t output = addActivation(name, shapeOf(input));
    tensors[output].sameQuantizationAs = input;
    addOperator(fb::BuiltinOperator_QUANTIZE, {input}, {output});
    return output;
}

int32_t NetworkGraph::quantizeTo(const std::string& name, int32_t input, fb::TensorType outputType) {
    const int32_t output = addActivation(name, shapeOf(input));
    forceType(output, outputType);
    tensors[output].sameQuantizationAs = input;
    addOperator(fb::BuiltinOperator_QUANTIZE, {input}, {output});
    return output;
}

int32_t NetworkGraph::dequantize(const std::string& name, int32_t input) {
    const int32_t output = addActivation(name, shapeOf(input));
    forceType(output, fb::TensorType_FLOAT32);
    addOperator(fb::BuiltinOperator_DEQUANTIZE, {input}, {output});
    return output;
}

}  // namespace nnemu::modelgen
