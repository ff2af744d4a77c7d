// writeGraphs: GraphSpec descriptions -> a .tflite flatbuffer (one operator code per builtin,
// buffer 0 the empty sentinel, constant data 16-byte aligned).
#include <algorithm>
#include <map>

#include "nnemu/modelgen/GraphSpec.h"

namespace nnemu::modelgen {
namespace {

namespace fb = tflite::fb;

flatbuffers::Offset<void> optionsOf(flatbuffers::FlatBufferBuilder& b, const OpSpec& op, fb::BuiltinOptions* type) {
    switch (op.code) {
        case fb::BuiltinOperator_CONV_2D:
            *type = fb::BuiltinOptions_Conv2DOptions;
            return fb::CreateConv2DOptions(b, op.padding, op.stride, op.stride, op.activation).Union();
        case fb::BuiltinOperator_ADD:
            *type = fb::BuiltinOptions_AddOptions;
            return fb::CreateAddOptions(b, op.activation).Union();
        case fb::BuiltinOperator_MUL:
            *type = fb::BuiltinOptions_MulOptions;
            return fb::CreateMulOptions(b, op.activation).Union();
        case fb::BuiltinOperator_MEAN:
            *type = fb::BuiltinOptions_ReducerOptions;
            return fb::CreateReducerOptions(b, op.keepDims).Union();
        case fb::BuiltinOperator_MAX_POOL_2D:
            *type = fb::BuiltinOptions_Pool2DOptions;
            return fb::CreatePool2DOptions(b, fb::Padding_VALID, op.stride, op.stride, op.dims.at(1), op.dims.at(0)).Union();
        case fb::BuiltinOperator_RESHAPE:
            *type = fb::BuiltinOptions_ReshapeOptions;
            return fb::CreateReshapeOptionsDirect(b, &op.dims).Union();
        case fb::BuiltinOperator_LESS:
            *type = fb::BuiltinOptions_LessOptions;
            return fb::CreateLessOptions(b).Union();
        case fb::BuiltinOperator_GREATER:
            *type = fb::BuiltinOptions_GreaterOptions;
            return fb::CreateGreaterOptions(b).Union();
        case fb::BuiltinOperator_WHILE:
            *type = fb::BuiltinOptions_WhileOptions;
            return fb::CreateWhileOptions(b, op.subgraphA, op.subgraphB).Union();
        case fb::BuiltinOperator_RESIZE_BILINEAR:
            *type = fb::BuiltinOptions_ResizeBilinearOptions;
            return fb::CreateResizeBilinearOptions(b, op.alignCorners).Union();
        case fb::BuiltinOperator_ARG_MAX:
            *type = fb::BuiltinOptions_ArgMaxOptions;
            return fb::CreateArgMaxOptions(b, op.outType).Union();
        case fb::BuiltinOperator_CAST:
            *type = fb::BuiltinOptions_CastOptions;
            return fb::CreateCastOptions(b, op.inType, op.outType).Union();
        case fb::BuiltinOperator_CONCATENATION:
            *type = fb::BuiltinOptions_ConcatenationOptions;
            return fb::CreateConcatenationOptions(b, op.axis, op.activation).Union();
        case fb::BuiltinOperator_FULLY_CONNECTED:
            *type = fb::BuiltinOptions_FullyConnectedOptions;
            return fb::CreateFullyConnectedOptions(b, op.activation).Union();
        case fb::BuiltinOperator_SOFTMAX:
            *type = fb::BuiltinOptions_SoftmaxOptions;
            return fb::CreateSoftmaxOptions(b, 1.0f).Union();
        case fb::BuiltinOperator_IF:
            *type = fb::BuiltinOptions_IfOptions;
            return fb::CreateIfOptions(b, op.subgraphA, op.subgraphB).Union();
        default:
            *type = fb::BuiltinOptions_NONE;
            return 0;
    }
}

}  // namespace

std::vector<uint8_t> writeGraphs(const std::vector<GraphSpec>& graphs, const std::string& description) {
    flatbuffers::FlatBufferBuilder b;
    std::vector<flatbuffers::Offset<fb::Buffer>> buffers = {fb::CreateBuffer(b)};
    std::vector<flatbuffers::Offset<fb::OperatorCode>> codes;
    std::map<std::string, uint32_t> codeIndex;   // builtin code or custom name
    std::vector<flatbuffers::Offset<fb::SubGraph>> subgraphs;
    for (const GraphSpec& graph : graphs) {
        std::vector<flatbuffers::Offset<fb::Tensor>> tensors;
        for (const TensorSpec& t : graph.tensors) {
            uint32_t buffer = 0;
            if (!t.data.empty()) {
                b.ForceVectorAlignment(t.data.size(), 1, 16);
                buffers.push_back(fb::CreateBuffer(b, b.CreateVector(t.data)));
                buffer = static_cast<uint32_t>(buffers.size() - 1);
            }
            flatbuffers::Offset<fb::QuantizationParameters> quantization;
            if (!t.scales.empty()) {
                quantization = fb::CreateQuantizationParametersDirect(b, nullptr, nullptr, &t.scales, &t.zeroPoints,
                                                                      fb::QuantizationDetails_NONE, 0, t.axis);
            }
            tensors.push_back(fb::CreateTensorDirect(b, &t.shape, t.type, buffer, t.name.c_str(), quantization));
        }
        std::vector<flatbuffers::Offset<fb::Operator>> ops;
        for (const OpSpec& op : graph.ops) {
            const auto code = static_cast<int32_t>(op.code);
            const std::string key = op.customName.empty() ? std::to_string(code) : op.customName;
            if (codeIndex.count(key) == 0) {
                codeIndex[key] = static_cast<uint32_t>(codes.size());
                codes.push_back(fb::CreateOperatorCodeDirect(b, static_cast<int8_t>(std::min(code, 127)),
                                                             op.customName.empty() ? nullptr : op.customName.c_str(),
                                                             1, op.code));
            }
            fb::BuiltinOptions type;
            const flatbuffers::Offset<void> options = optionsOf(b, op, &type);
            ops.push_back(fb::CreateOperatorDirect(b, codeIndex[key], &op.inputs, &op.outputs, type, options));
        }
        subgraphs.push_back(
                fb::CreateSubGraphDirect(b, &tensors, &graph.inputs, &graph.outputs, &ops, graph.name.c_str()));
    }
    fb::FinishModelBuffer(b, fb::CreateModelDirect(b, 3, &codes, &subgraphs, description.c_str(), &buffers));
    return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

}  // namespace nnemu::modelgen
