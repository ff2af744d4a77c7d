// Models with several subgraphs (control flow: WHILE, IF) described as plain data and written
// as .tflite bytes. nnemu_modelgen's control-flow models are built this way, and tests alter
// the description (a subgraph index, a shape) to make malformed variants.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nnemu/tflite/tflite_generated.h"

namespace nnemu::modelgen {

struct TensorSpec {
    std::string name;
    std::vector<int32_t> shape;
    tflite::fb::TensorType type = tflite::fb::TensorType_FLOAT32;
    std::vector<uint8_t> data;          // non-empty: a constant
    std::vector<float> scales;          // quantized: one per tensor or one per channel
    std::vector<int64_t> zeroPoints;
    int32_t axis = 0;                   // quantized dimension when per channel
};

// An operator and the options the catalog's control-flow models use.
struct OpSpec {
    tflite::fb::BuiltinOperator code = tflite::fb::BuiltinOperator_ADD;
    std::vector<int32_t> inputs, outputs;
    tflite::fb::ActivationFunctionType activation = tflite::fb::ActivationFunctionType_NONE;
    tflite::fb::Padding padding = tflite::fb::Padding_SAME;   // CONV_2D
    int32_t stride = 1;                                        // CONV_2D, MAX_POOL_2D (both directions)
    bool keepDims = false;                                     // MEAN
    bool alignCorners = false;                                 // RESIZE_BILINEAR
    int32_t axis = 0;                                          // CONCATENATION
    tflite::fb::TensorType inType = tflite::fb::TensorType_FLOAT32;   // CAST
    tflite::fb::TensorType outType = tflite::fb::TensorType_INT32;    // ARG_MAX, CAST
    std::vector<int32_t> dims;   // MAX_POOL_2D: filter {height, width} (VALID); RESHAPE: new shape
    int32_t subgraphA = -1, subgraphB = -1;   // WHILE: cond, body; IF: then, else
    std::string customName;                   // CUSTOM: the operator's name (no options)
};

struct GraphSpec {
    std::string name;
    std::vector<TensorSpec> tensors;
    std::vector<OpSpec> ops;
    std::vector<int32_t> inputs, outputs;

    int32_t add(TensorSpec tensor) {
        tensors.push_back(std::move(tensor));
        return static_cast<int32_t>(tensors.size() - 1);
    }
};

inline TensorSpec tensorSpec(std::string name, std::vector<int32_t> shape,
                             tflite::fb::TensorType type = tflite::fb::TensorType_FLOAT32) {
    TensorSpec t;
    t.name = std::move(name);
    t.shape = std::move(shape);
    t.type = type;
    return t;
}

inline OpSpec opSpec(tflite::fb::BuiltinOperator code, std::vector<int32_t> inputs, std::vector<int32_t> outputs,
                     tflite::fb::ActivationFunctionType activation = tflite::fb::ActivationFunctionType_NONE) {
    OpSpec op;
    op.code = code;
    op.inputs = std::move(inputs);
    op.outputs = std::move(outputs);
    op.activation = activation;
    return op;
}

// WHILE (a = cond, b = body) or IF (a = then, b = else).
inline OpSpec controlFlowSpec(tflite::fb::BuiltinOperator code, std::vector<int32_t> inputs,
                              std::vector<int32_t> outputs, int32_t a, int32_t b) {
    OpSpec op = opSpec(code, std::move(inputs), std::move(outputs));
    op.subgraphA = a;
    op.subgraphB = b;
    return op;
}

// Subgraph 0 is the main graph.
std::vector<uint8_t> writeGraphs(const std::vector<GraphSpec>& graphs, const std::string& description);

// The control-flow models of the catalog, as descriptions: "while_conv_float",
// "while_conv_int8", "if_conv_float", "if_conv_int8". Empty for an unknown name.
std::vector<GraphSpec> controlFlowGraphs(const std::string& name);

// The models whose nodes TFLite's NNAPI delegate partly leaves to the CPU (CpuPathModels.cpp):
// "deeplab_segmenter_float", "deeplab_segmenter_quant", "pose_keypoints_float",
// "extreme_scales_quant". Empty for an unknown name.
std::vector<GraphSpec> cpuPathGraphs(const std::string& name);

}  // namespace nnemu::modelgen
