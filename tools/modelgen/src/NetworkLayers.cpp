// Layer builders for the operators of feature level 29 the catalog's detector, segmenter and
// small models use. Shapes follow TFLite's rules; weights come from the graph's fixed-seed
// generator in the order layers are added.
#include <flatbuffers/flexbuffers.h>

#include <algorithm>

#include "NetworkGraph.h"

namespace nnemu::modelgen {

int32_t NetworkGraph::transposeConv(const std::string& name, int32_t input, int32_t outChannels, int32_t kernel,
                                    int32_t stride, float gain) {
    const std::vector<int32_t> in = shapeOf(input);
    const std::vector<int32_t> outShape = {in[0], in[1] * stride, in[2] * stride, outChannels};
    const int32_t shape = addIndexes(name + "/output_shape", outShape, {4});
    // Each output pixel gathers about kernel^2 / stride^2 taps of every input channel.
    const int32_t fanIn = std::max(1, kernel * kernel * in[3] / (stride * stride));
    const int32_t weights = addWeights(name + "/weights", {outChannels, kernel, kernel, in[3]}, fanIn, gain, 0);
    const int32_t bias = addBias(name + "/bias", outChannels, 0.05f, input, weights);
    const int32_t output = addActivation(name + "/conv2d_transpose", outShape);
    NetOptions options;
    options.padding = fb::Padding_SAME;
    options.strideW = options.strideH = stride;
    addOperator(fb::BuiltinOperator_TRANSPOSE_CONV, {shape, weights, input, bias}, {output}, options);
    return output;
}

int32_t NetworkGraph::argMax(const std::string& name, int32_t input, int32_t axis) {
    std::vector<int32_t> shape = shapeOf(input);
    shape.erase(shape.begin() + axis);
    const int32_t axisTensor = addIndexes(name + "/dimension", {axis}, {1});
    const int32_t output = addActivation(name, shape);
    forceType(output, fb::TensorType_INT32);
    addOperator(fb::BuiltinOperator_ARG_MAX, {input, axisTensor}, {output});
    return output;
}

int32_t NetworkGraph::gather(const std::string& name, int32_t input, std::vector<int32_t> indices, int32_t axis) {
    std::vector<int32_t> shape = shapeOf(input);
    shape[axis] = static_cast<int32_t>(indices.size());
    const int32_t indexTensor = addIndexes(name + "/indices", indices, {static_cast<int32_t>(indices.size())});
    const int32_t output = addActivation(name, shape);
    tensors[output].sameQuantizationAs = input;
    NetOptions options;
    options.axis = axis;
    addOperator(fb::BuiltinOperator_GATHER, {input, indexTensor}, {output}, options);
    return output;
}

int32_t NetworkGraph::tile(const std::string& name, int32_t input, std::vector<int32_t> multiples) {
    std::vector<int32_t> shape = shapeOf(input);
    for (size_t i = 0; i < shape.size(); ++i) shape[i] *= multiples[i];
    const int32_t multiplesTensor = addIndexes(name + "/multiples", multiples, {static_cast<int32_t>(multiples.size())});
    const int32_t output = addActivation(name, shape);
    tensors[output].sameQuantizationAs = input;
    addOperator(fb::BuiltinOperator_TILE, {input, multiplesTensor}, {output});
    return output;
}

std::vector<int32_t> NetworkGraph::topK(const std::string& name, int32_t input, int32_t k) {
    std::vector<int32_t> shape = shapeOf(input);
    shape.back() = k;
    const int32_t kTensor = addIndexes(name + "/k", {k}, {});
    const int32_t values = addActivation(name + "/values", shape);
    tensors[values].sameQuantizationAs = input;
    const int32_t indices = addActivation(name + "/indices", shape);
    forceType(indices, fb::TensorType_INT32);
    addOperator(fb::BuiltinOperator_TOPK_V2, {input, kTensor}, {values, indices});
    return {values, indices};
}

int32_t NetworkGraph::expandDims(const std::string& name, int32_t input, int32_t axis) {
    std::vector<int32_t> shape = shapeOf(input);
    shape.insert(shape.begin() + axis, 1);
    const int32_t axisTensor = addIndexes(name + "/dim", {axis}, {1});
    const int32_t output = addActivation(name, shape);
    tensors[output].sameQuantizationAs = input;
    addOperator(fb::BuiltinOperator_EXPAND_DIMS, {input, axisTensor}, {output});
    return output;
}

int32_t NetworkGraph::prelu(const std::string& name, int32_t input, std::vector<int32_t> alphaShape,
                            std::vector<float> alpha) {
    const int32_t alphaTensor = addConstant(name + "/alpha", std::move(alphaShape), std::move(alpha));
    const int32_t output = addActivation(name, shapeOf(input));
    addOperator(fb::BuiltinOperator_PRELU, {input, alphaTensor}, {output});
    return output;
}

int32_t NetworkGraph::logSoftmax(const std::string& name, int32_t input) {
    const int32_t output = addActivation(name, shapeOf(input));
    addOperator(fb::BuiltinOperator_LOG_SOFTMAX, {input}, {output});
    return output;
}

int32_t NetworkGraph::compare(fb::BuiltinOperator code, const std::string& name, int32_t a, int32_t b) {
    const int32_t output = addActivation(name, shapeOf(a));
    forceType(output, fb::TensorType_BOOL);
    addOperator(code, {a, b}, {output});
    return output;
}

int32_t NetworkGraph::select(const std::string& name, int32_t condition, int32_t a, int32_t b) {
    const int32_t output = addActivation(name, shapeOf(a));
    addOperator(fb::BuiltinOperator_SELECT, {condition, a, b}, {output});
    return output;
}

int32_t NetworkGraph::cast(const std::string& name, int32_t input, fb::TensorType outputType) {
    const int32_t output = addActivation(name, shapeOf(input));
    forceType(output, outputType);
    NetOptions options;
    options.inputType = tensors[input].hasForcedType ? tensors[input].forcedType : fb::TensorType_FLOAT32;
    options.outputType = outputType;
    addOperator(fb::BuiltinOperator_CAST, {input}, {output}, options);
    return output;
}

std::vector<int32_t> NetworkGraph::detectionPostProcess(const std::string& name, int32_t boxes, int32_t scores,
                                                        int32_t anchors, const DetectionParams& params) {
    flexbuffers::Builder map;
    map.Map([&] {
        map.Int("max_detections", params.maxDetections);
        map.Int("max_classes_per_detection", 1);
        map.Int("detections_per_class", params.detectionsPerClass);
        map.Bool("use_regular_nms", params.useRegularNms);
        map.Float("nms_score_threshold", params.scoreThreshold);
        map.Float("nms_iou_threshold", params.iouThreshold);
        map.Int("num_classes", params.numClasses);
        map.Float("y_scale", params.yScale);
        map.Float("x_scale", params.xScale);
        map.Float("h_scale", params.hScale);
        map.Float("w_scale", params.wScale);
    });
    map.Finish();
    const int32_t d = params.maxDetections;
    std::vector<int32_t> outputs = {addActivation(name, {1, d, 4}), addActivation(name + ":1", {1, d}),
                                    addActivation(name + ":2", {1, d}), addActivation(name + ":3", {1})};
    for (int32_t output : outputs) forceType(output, fb::TensorType_FLOAT32);
    NetOptions options;
    options.customCode = "TFLite_Detection_PostProcess";
    options.customOptions = map.GetBuffer();
    addOperator(fb::BuiltinOperator_CUSTOM, {boxes, scores, anchors}, outputs, options);
    return outputs;
}

int32_t NetworkGraph::sequenceRnn(const std::string& name, int32_t input, int32_t units) {
    const std::vector<int32_t> in = shapeOf(input);
    const int32_t weights = addWeights(name + "/input_weights", {units, in[2]}, in[2], 0.7f, -1);
    const int32_t recurrent = addWeights(name + "/recurrent_weights", {units, units}, units, 0.5f, -1);
    const int32_t bias = addBias(name + "/bias", units, 0.05f, input, weights);
    NetTensor state;
    state.name = name + "/hidden_state";
    state.shape = {in[0], units};
    state.role = TensorRole::STATE;
    const int32_t stateTensor = addTensor(std::move(state));
    const int32_t output = addActivation(name, {in[0], in[1], units});
    NetOptions options;
    options.activation = fb::ActivationFunctionType_RELU6;   // NNAPI's RNN has no TANH
    addOperator(fb::BuiltinOperator_UNIDIRECTIONAL_SEQUENCE_RNN, {input, weights, recurrent, bias, stateTensor}, {output},
                options);
    return output;
}

int32_t NetworkGraph::sequenceLstm(const std::string& name, int32_t input, int32_t units) {
    const std::vector<int32_t> in = shapeOf(input);
    std::vector<int32_t> operands = {input};
    const char* gates[] = {"input", "forget", "cell", "output"};
    for (const char* gate : gates) {
        operands.push_back(addWeights(name + "/" + gate + "_weights", {units, in[2]}, in[2], 0.7f, -1));
    }
    for (const char* gate : gates) {
        operands.push_back(addWeights(name + "/" + gate + "_recurrent_weights", {units, units}, units, 0.5f, -1));
    }
    operands.insert(operands.end(), {-1, -1, -1});   // no peephole connections
    for (const char* gate : gates) operands.push_back(addBias(name + "/" + gate + "_bias", units, 0.05f, input, operands[1]));
    operands.insert(operands.end(), {-1, -1});       // no projection
    for (const char* state : {"/output_state", "/cell_state"}) {
        NetTensor tensor;
        tensor.name = name + state;
        tensor.shape = {in[0], units};
        tensor.role = TensorRole::STATE;
        operands.push_back(addTensor(std::move(tensor)));
    }
    const int32_t output = addActivation(name, {in[0], in[1], units});
    NetOptions options;
    options.activation = fb::ActivationFunctionType_TANH;
    addOperator(fb::BuiltinOperator_UNIDIRECTIONAL_SEQUENCE_LSTM, operands, {output}, options);
    return output;
}

}  // namespace nnemu::modelgen
