// A network as the generator designs it: float weights and a list of TFLite operators, with
// enough information about each tensor to quantize it later (see TfliteEmitter). Builders add
// layers with deterministic weights; the same NetworkGraph is emitted as float, uint8 or int8.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "Random.h"
#include "nnemu/tflite/tflite_generated.h"

namespace nnemu::modelgen {

namespace fb = ::nnemu::tflite::fb;

enum class TensorRole {
    ACTIVATION,  // computed at run time (or a graph input)
    WEIGHTS,     // float constant, quantized per tensor or per channel (quantAxis)
    BIAS,        // float constant, becomes int32 with scale input * weights in quantized models
    INDEXES,     // int32 constant (shapes, axes, paddings), never quantized
    STATE,       // a float variable tensor without data (RNN/LSTM state, zeros at start)
};

struct NetTensor {
    std::string name;
    std::vector<int32_t> shape;
    TensorRole role = TensorRole::ACTIVATION;
    std::vector<float> values;     // WEIGHTS / BIAS
    std::vector<int32_t> indexes;  // INDEXES
    int32_t quantAxis = -1;        // WEIGHTS: the channel axis for per-channel int8 (-1: per tensor)
    bool hasFixedRange = false;    // ACTIVATION: a range known by design (input, relu6, softmax)
    float fixedMin = 0, fixedMax = 0;
    int32_t sameQuantizationAs = -1;  // ACTIVATION: must share this tensor's parameters
    int32_t biasInput = -1, biasWeights = -1;  // BIAS: what its scale is the product of
    // ACTIVATION in quantized models: this type instead of the model's (e.g. the uint8 edges of
    // an int8 model, or the float side of QUANTIZE / DEQUANTIZE).
    bool hasForcedType = false;
    fb::TensorType forcedType = fb::TensorType_FLOAT32;
    // ACTIVATION made by a CONV_2D / FULLY_CONNECTED: after calibration its weights are scaled so
    // that its values have this standard deviation (logits that give a readable softmax).
    float targetStddev = 0.0f;
};

struct NetOptions {
    fb::Padding padding = fb::Padding_SAME;
    int32_t strideW = 1, strideH = 1;
    int32_t filterW = 1, filterH = 1;
    int32_t depthMultiplier = 1;
    fb::ActivationFunctionType activation = fb::ActivationFunctionType_NONE;
    int32_t axis = 0;
    float beta = 1.0f;
    float alpha = 0.0f;            // LEAKY_RELU
    bool adjX = false, adjY = false;   // BATCH_MATMUL
    bool approximate = false;      // GELU
    bool keepDims = false;
    int32_t numSplits = 1;
    std::vector<int32_t> dims;     // RESHAPE new_shape, SQUEEZE squeeze_dims
    fb::TensorType outputType = fb::TensorType_INT32;   // ARG_MAX; CAST's output
    fb::TensorType inputType = fb::TensorType_FLOAT32;   // CAST's input
    std::string customCode;                  // CUSTOM: the operator's name
    std::vector<uint8_t> customOptions;      // CUSTOM: a FlexBuffers map
};

struct NetOperator {
    fb::BuiltinOperator code;
    std::vector<int32_t> inputs, outputs;
    NetOptions options;
};

// TFLite_Detection_PostProcess's options (SSD box coder scales and non-maximum suppression).
struct DetectionParams {
    int32_t maxDetections = 10;
    int32_t numClasses = 3;            // without the background class
    bool useRegularNms = false;
    int32_t detectionsPerClass = 100;
    float scoreThreshold = 0.5f, iouThreshold = 0.5f;
    float yScale = 10.0f, xScale = 10.0f, hScale = 5.0f, wScale = 5.0f;
};

class NetworkGraph {
public:
    explicit NetworkGraph(uint64_t seed) : random_(seed) {}

    std::vector<NetTensor> tensors;
    std::vector<NetOperator> operators;
    std::vector<int32_t> inputs, outputs;
    // Calibrate again after scaling layers to their target spreads: for networks where tensors
    // downstream of such a layer (a concatenation) have calibrated ranges of their own.
    bool recalibrateAfterSpreads = false;

    DeterministicRandom& random() { return random_; }
    const std::vector<int32_t>& shapeOf(int32_t tensor) const { return tensors[tensor].shape; }

    int32_t addInput(const std::string& name, std::vector<int32_t> shape, float min = -1.0f, float max = 127.0f / 128.0f);
    int32_t addActivation(const std::string& name, std::vector<int32_t> shape);
    // He-style normal weights (std = gain * sqrt(2 / fanIn)); small normal biases.
    int32_t addWeights(const std::string& name, std::vector<int32_t> shape, int32_t fanIn, float gain, int32_t quantAxis);
    int32_t addBias(const std::string& name, int32_t size, float stddev, int32_t input, int32_t weights);
    int32_t addIndexes(const std::string& name, std::vector<int32_t> values, std::vector<int32_t> shape);
    // A float constant with given values, quantized like weights (per tensor: quantAxis -1).
    int32_t addConstant(const std::string& name, std::vector<int32_t> shape, std::vector<float> values,
                        int32_t quantAxis = -1);
    void setFixedRange(int32_t tensor, float min, float max);

    // Layers. Each returns its output tensor; activation RELU6 outputs get the fixed range [0, 6].
    int32_t conv2d(const std::string& name, int32_t input, int32_t outChannels, int32_t kernel, int32_t stride,
                   fb::ActivationFunctionType activation, float gain = 1.0f, fb::Padding padding = fb::Padding_SAME);
    int32_t depthwiseConv2d(const std::string& name, int32_t input, int32_t kernel, int32_t stride,
                            fb::ActivationFunctionType activation, int32_t multiplier = 1);
    int32_t fullyConnected(const std::string& name, int32_t input, int32_t units, fb::ActivationFunctionType activation,
                           float gain = 1.0f);
    int32_t pool(fb::BuiltinOperator code, const std::string& name, int32_t input, int32_t filter, int32_t stride,
                 fb::Padding padding);
    int32_t binary(fb::BuiltinOperator code, const std::string& name, int32_t a, int32_t b,
                   fb::ActivationFunctionType activation = fb::ActivationFunctionType_NONE);
    int32_t unary(fb::BuiltinOperator code, const std::string& name, int32_t input);
    int32_t reshape(const std::string& name, int32_t input, std::vector<int32_t> shape);
    int32_t squeeze(const std::string& name, int32_t input, std::vector<int32_t> axes);
    int32_t softmax(const std::string& name, int32_t input, float beta = 1.0f);
    int32_t mean(const std::string& name, int32_t input, std::vector<int32_t> axes, bool keepDims);
    int32_t concatenation(const std::string& name, const std::vector<int32_t>& inputs, int32_t axis);
    std::vector<int32_t> split(const std::string& name, int32_t input, int32_t axis, int32_t count);
    int32_t pad(const std::string& name, int32_t input, std::vector<int32_t> paddings);
    int32_t resize(fb::BuiltinOperator code, const std::string& name, int32_t input, int32_t height, int32_t width);
    // QUANTIZE / DEQUANTIZE at the edges of a quantized model (float models emit them as
    // identities): from a tensor of another type into the model's type, from the model's type
    // into another (e.g. int8 -> uint8 at the output), and to float.
    int32_t quantizeFrom(const std::string& name, int32_t input, fb::TensorType inputType);
    int32_t quantizeTo(const std::string& name, int32_t input, fb::TensorType outputType);
    int32_t dequantize(const std::string& name, int32_t input);
    void forceType(int32_t tensor, fb::TensorType type);

    // Layers of the feature-level-29 operators (NetworkLayers.cpp). Outputs of data moves share
    // their input's quantization; integer and bool outputs keep their type in every flavor.
    int32_t transposeConv(const std::string& name, int32_t input, int32_t outChannels, int32_t kernel, int32_t stride,
                          float gain = 1.0f);
    int32_t argMax(const std::string& name, int32_t input, int32_t axis);
    int32_t gather(const std::string& name, int32_t input, std::vector<int32_t> indices, int32_t axis);
    int32_t tile(const std::string& name, int32_t input, std::vector<int32_t> multiples);
    std::vector<int32_t> topK(const std::string& name, int32_t input, int32_t k);   // values, indices
    int32_t expandDims(const std::string& name, int32_t input, int32_t axis);
    int32_t prelu(const std::string& name, int32_t input, std::vector<int32_t> alphaShape, std::vector<float> alpha);
    int32_t logSoftmax(const std::string& name, int32_t input);
    int32_t compare(fb::BuiltinOperator code, const std::string& name, int32_t a, int32_t b);   // bool output
    int32_t select(const std::string& name, int32_t condition, int32_t a, int32_t b);
    int32_t cast(const std::string& name, int32_t input, fb::TensorType outputType);
    // The custom operator TFLite_Detection_PostProcess: boxes [1, N, 4], scores [1, N, classes + 1],
    // anchors [N, 4] -> boxes, classes, scores, count (float).
    std::vector<int32_t> detectionPostProcess(const std::string& name, int32_t boxes, int32_t scores, int32_t anchors,
                                              const DetectionParams& params);
    // Float sequence layers over [batch, time, features], batch major, state from zeros: an RNN
    // with RELU6, an LSTM with TANH.
    int32_t sequenceRnn(const std::string& name, int32_t input, int32_t units);
    int32_t sequenceLstm(const std::string& name, int32_t input, int32_t units);   // no peephole, no projection

    // Layers of today's common models (ModernLayers.cpp): MobileNetV3, YOLO-style detectors,
    // transformer blocks.
    int32_t leakyRelu(const std::string& name, int32_t input, float alpha);
    int32_t gelu(const std::string& name, int32_t input, bool approximate);
    // SPLIT_V along `axis` into parts of `sizes` (one may be -1); outputs share the input's
    // quantization, as TFLite's kernel copies values.
    std::vector<int32_t> splitV(const std::string& name, int32_t input, std::vector<int32_t> sizes, int32_t axis);
    // BATCH_MATMUL of two activations of equal batch dimensions (adjY: b transposed).
    int32_t batchMatmul(const std::string& name, int32_t a, int32_t b, bool adjY);

private:
    // An elementwise operator with options, its output shaped as its input.
    int32_t elementwise(fb::BuiltinOperator code, const std::string& name, int32_t input, const NetOptions& options);
    int32_t addTensor(NetTensor tensor);
    int32_t addOperator(fb::BuiltinOperator code, std::vector<int32_t> inputs, std::vector<int32_t> outputs,
                        NetOptions options = {});

    DeterministicRandom random_;
};

}  // namespace nnemu::modelgen
