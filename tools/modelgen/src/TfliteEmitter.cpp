// emitTflite: quantization parameters first (activations from ranges, weights from their
// values, biases from input x weights scales), then the flatbuffer through the generated builder.
#include "TfliteEmitter.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

namespace nnemu::modelgen {
namespace {

struct TensorEncoding {
    fb::TensorType type = fb::TensorType_FLOAT32;
    std::vector<float> scales;
    std::vector<int64_t> zeroPoints;
    int32_t axis = 0;
    std::vector<uint8_t> data;   // constants only
};

template <typename T>
void append(std::vector<uint8_t>& bytes, T value) {
    const size_t at = bytes.size();
    bytes.resize(at + sizeof value);
    std::memcpy(bytes.data() + at, &value, sizeof value);
}

// Asymmetric 8-bit parameters covering [min, max] (extended to hold 0, as TFLite requires).
void asymmetric(float min, float max, bool isSigned, float* scale, int64_t* zeroPoint) {
    min = std::min(min, 0.0f);
    max = std::max(max, 0.0f);
    if (max - min < 1e-6f) max = min + 1e-6f;
    *scale = (max - min) / 255.0f;
    const int64_t zero = std::clamp<int64_t>(std::llround(-min / *scale), 0, 255);
    *zeroPoint = isSigned ? zero - 128 : zero;
}

class Emitter {
public:
    Emitter(const NetworkGraph& graph, const EmitOptions& options) : graph_(graph), options_(options) {}

    std::vector<uint8_t> run() {
        encodings_.resize(graph_.tensors.size());
        for (size_t t = 0; t < graph_.tensors.size(); ++t) encodeActivation(static_cast<int32_t>(t));
        for (size_t t = 0; t < graph_.tensors.size(); ++t) encodeWeights(static_cast<int32_t>(t));
        for (size_t t = 0; t < graph_.tensors.size(); ++t) encodeBias(static_cast<int32_t>(t));
        return build();
    }

private:
    bool quantized() const { return options_.flavor != Flavor::FLOAT32; }
    fb::TensorType modelType() const {
        switch (options_.flavor) {
            case Flavor::UINT8: return fb::TensorType_UINT8;
            case Flavor::INT8: return fb::TensorType_INT8;
            default: return fb::TensorType_FLOAT32;
        }
    }

    Range rangeOf(int32_t t) const {
        for (int hops = 0; hops < 1000; ++hops) {
            const NetTensor& tensor = graph_.tensors[t];
            if (tensor.hasFixedRange) return {tensor.fixedMin, tensor.fixedMax};
            if (tensor.sameQuantizationAs < 0) break;
            t = tensor.sameQuantizationAs;
        }
        return t < static_cast<int32_t>(options_.ranges.size()) ? options_.ranges[t] : Range{-1.0f, 1.0f};
    }

    void encodeActivation(int32_t t) {
        const NetTensor& tensor = graph_.tensors[t];
        TensorEncoding& e = encodings_[t];
        if (tensor.role == TensorRole::INDEXES) {
            e.type = fb::TensorType_INT32;
            for (int32_t v : tensor.indexes) append(e.data, v);
            return;
        }
        if (tensor.role != TensorRole::ACTIVATION) return;
        // Integer and bool tensors (indices, masks) keep their type in every flavor.
        const bool integral = tensor.hasForcedType && tensor.forcedType != fb::TensorType_FLOAT32 &&
                              tensor.forcedType != fb::TensorType_UINT8 && tensor.forcedType != fb::TensorType_INT8;
        e.type = integral ? tensor.forcedType
                 : !quantized() ? fb::TensorType_FLOAT32
                 : tensor.hasForcedType ? tensor.forcedType
                                        : modelType();
        if (e.type != fb::TensorType_UINT8 && e.type != fb::TensorType_INT8) return;
        const Range range = rangeOf(t);
        float scale;
        int64_t zeroPoint;
        asymmetric(range.min, range.max, e.type == fb::TensorType_INT8, &scale, &zeroPoint);
        e.scales = {scale};
        e.zeroPoints = {zeroPoint};
    }

    void encodeWeights(int32_t t) {
        const NetTensor& tensor = graph_.tensors[t];
        if (tensor.role != TensorRole::WEIGHTS) return;
        TensorEncoding& e = encodings_[t];
        if (!quantized()) {
            e.type = fb::TensorType_FLOAT32;
            for (float v : tensor.values) append(e.data, v);
            return;
        }
        if (options_.flavor == Flavor::UINT8) {
            // Per tensor, asymmetric (TF1 quantization-aware training style).
            const auto [low, high] = std::minmax_element(tensor.values.begin(), tensor.values.end());
            float scale;
            int64_t zeroPoint;
            asymmetric(*low, *high, false, &scale, &zeroPoint);
            e.type = fb::TensorType_UINT8;
            e.scales = {scale};
            e.zeroPoints = {zeroPoint};
            for (float v : tensor.values) {
                e.data.push_back(static_cast<uint8_t>(std::clamp<int64_t>(std::llround(v / scale) + zeroPoint, 0, 255)));
            }
            return;
        }
        // int8: symmetric, per channel along quantAxis when there is one (TF2 post-training style).
        e.type = fb::TensorType_INT8;
        const std::vector<int32_t>& shape = tensor.shape;
        const int32_t axis = tensor.quantAxis;
        const size_t channels = axis >= 0 ? static_cast<size_t>(shape[axis]) : 1;
        size_t inner = 1;
        if (axis >= 0) {
            for (size_t i = static_cast<size_t>(axis) + 1; i < shape.size(); ++i) inner *= static_cast<size_t>(shape[i]);
        }
        const auto channelOf = [&](size_t index) { return axis >= 0 ? (index / inner) % channels : 0; };
        std::vector<float> maxAbs(channels, 0.0f);
        for (size_t i = 0; i < tensor.values.size(); ++i) {
            maxAbs[channelOf(i)] = std::max(maxAbs[channelOf(i)], std::fabs(tensor.values[i]));
        }
        for (size_t c = 0; c < channels; ++c) {
            e.scales.push_back(std::max(maxAbs[c], 1e-6f) / 127.0f);
            e.zeroPoints.push_back(0);
        }
        e.axis = std::max(axis, 0);
        for (size_t i = 0; i < tensor.values.size(); ++i) {
            const int64_t q = std::clamp<int64_t>(std::llround(tensor.values[i] / e.scales[channelOf(i)]), -127, 127);
            e.data.push_back(static_cast<uint8_t>(static_cast<int8_t>(q)));
        }
    }

    void encodeBias(int32_t t) {
        const NetTensor& tensor = graph_.tensors[t];
        if (tensor.role != TensorRole::BIAS) return;
        TensorEncoding& e = encodings_[t];
        if (!quantized()) {
            e.type = fb::TensorType_FLOAT32;
            for (float v : tensor.values) append(e.data, v);
            return;
        }
        e.type = fb::TensorType_INT32;
        const float inputScale = encodings_[tensor.biasInput].scales.at(0);
        const std::vector<float>& weightScales = encodings_[tensor.biasWeights].scales;
        for (size_t c = 0; c < tensor.values.size(); ++c) {
            const float scale = inputScale * weightScales[weightScales.size() == 1 ? 0 : c];
            e.scales.push_back(scale);
            e.zeroPoints.push_back(0);
            append(e.data, static_cast<int32_t>(std::llround(tensor.values[c] / scale)));
        }
        if (weightScales.size() == 1) {
            e.scales.resize(1);
            e.zeroPoints.resize(1);
        }
    }

    flatbuffers::Offset<void> options(const NetOperator& op, fb::BuiltinOptions* type) {
        const NetOptions& o = op.options;
        switch (op.code) {
            case fb::BuiltinOperator_CONV_2D:
                *type = fb::BuiltinOptions_Conv2DOptions;
                return fb::CreateConv2DOptions(builder_, o.padding, o.strideW, o.strideH, o.activation).Union();
            case fb::BuiltinOperator_DEPTHWISE_CONV_2D:
                *type = fb::BuiltinOptions_DepthwiseConv2DOptions;
                return fb::CreateDepthwiseConv2DOptions(builder_, o.padding, o.strideW, o.strideH, o.depthMultiplier,
                                                        o.activation).Union();
            case fb::BuiltinOperator_FULLY_CONNECTED:
                *type = fb::BuiltinOptions_FullyConnectedOptions;
                return fb::CreateFullyConnectedOptions(builder_, o.activation).Union();
            case fb::BuiltinOperator_AVERAGE_POOL_2D:
            case fb::BuiltinOperator_MAX_POOL_2D:
            case fb::BuiltinOperator_L2_POOL_2D:
                *type = fb::BuiltinOptions_Pool2DOptions;
                return fb::CreatePool2DOptions(builder_, o.padding, o.strideW, o.strideH, o.filterW, o.filterH,
                                               o.activation).Union();
            case fb::BuiltinOperator_ADD:
                *type = fb::BuiltinOptions_AddOptions;
                return fb::CreateAddOptions(builder_, o.activation).Union();
            case fb::BuiltinOperator_SUB:
                *type = fb::BuiltinOptions_SubOptions;
                return fb::CreateSubOptions(builder_, o.activation).Union();
            case fb::BuiltinOperator_MUL:
                *type = fb::BuiltinOptions_MulOptions;
                return fb::CreateMulOptions(builder_, o.activation).Union();
            case fb::BuiltinOperator_SOFTMAX:
                *type = fb::BuiltinOptions_SoftmaxOptions;
                return fb::CreateSoftmaxOptions(builder_, o.beta).Union();
            case fb::BuiltinOperator_RESHAPE:
                *type = fb::BuiltinOptions_ReshapeOptions;
                return fb::CreateReshapeOptionsDirect(builder_, &o.dims).Union();
            case fb::BuiltinOperator_SQUEEZE:
                *type = fb::BuiltinOptions_SqueezeOptions;
                return fb::CreateSqueezeOptionsDirect(builder_, &o.dims).Union();
            case fb::BuiltinOperator_CONCATENATION:
                *type = fb::BuiltinOptions_ConcatenationOptions;
                return fb::CreateConcatenationOptions(builder_, o.axis, o.activation).Union();
            case fb::BuiltinOperator_SPLIT:
                *type = fb::BuiltinOptions_SplitOptions;
                return fb::CreateSplitOptions(builder_, o.numSplits).Union();
            case fb::BuiltinOperator_MEAN:
                *type = fb::BuiltinOptions_ReducerOptions;
                return fb::CreateReducerOptions(builder_, o.keepDims).Union();
            case fb::BuiltinOperator_PAD:
                *type = fb::BuiltinOptions_PadOptions;
                return fb::CreatePadOptions(builder_).Union();
            case fb::BuiltinOperator_RESIZE_BILINEAR:
                *type = fb::BuiltinOptions_ResizeBilinearOptions;
                return fb::CreateResizeBilinearOptions(builder_).Union();
            case fb::BuiltinOperator_RESIZE_NEAREST_NEIGHBOR:
                *type = fb::BuiltinOptions_ResizeNearestNeighborOptions;
                return fb::CreateResizeNearestNeighborOptions(builder_).Union();
            case fb::BuiltinOperator_QUANTIZE:
                *type = fb::BuiltinOptions_QuantizeOptions;
                return fb::CreateQuantizeOptions(builder_).Union();
            case fb::BuiltinOperator_DEQUANTIZE:
                *type = fb::BuiltinOptions_DequantizeOptions;
                return fb::CreateDequantizeOptions(builder_).Union();
            default:
                return fl29Options(op, type);
        }
    }

    // Options of the operators feature level 29 added to the catalog.
    flatbuffers::Offset<void> fl29Options(const NetOperator& op, fb::BuiltinOptions* type) {
        const NetOptions& o = op.options;
        switch (op.code) {
            case fb::BuiltinOperator_TRANSPOSE_CONV:
                *type = fb::BuiltinOptions_TransposeConvOptions;
                return fb::CreateTransposeConvOptions(builder_, o.padding, o.strideW, o.strideH).Union();
            case fb::BuiltinOperator_ARG_MAX:
                *type = fb::BuiltinOptions_ArgMaxOptions;
                return fb::CreateArgMaxOptions(builder_, o.outputType).Union();
            case fb::BuiltinOperator_GATHER:
                *type = fb::BuiltinOptions_GatherOptions;
                return fb::CreateGatherOptions(builder_, o.axis).Union();
            case fb::BuiltinOperator_TILE:
                *type = fb::BuiltinOptions_TileOptions;
                return fb::CreateTileOptions(builder_).Union();
            case fb::BuiltinOperator_TOPK_V2:
                *type = fb::BuiltinOptions_TopKV2Options;
                return fb::CreateTopKV2Options(builder_).Union();
            case fb::BuiltinOperator_EXPAND_DIMS:
                *type = fb::BuiltinOptions_ExpandDimsOptions;
                return fb::CreateExpandDimsOptions(builder_).Union();
            case fb::BuiltinOperator_MAXIMUM:
            case fb::BuiltinOperator_MINIMUM:
                *type = fb::BuiltinOptions_MaximumMinimumOptions;
                return fb::CreateMaximumMinimumOptions(builder_).Union();
            case fb::BuiltinOperator_POW:
                *type = fb::BuiltinOptions_PowOptions;
                return fb::CreatePowOptions(builder_).Union();
            case fb::BuiltinOperator_LOG_SOFTMAX:
                *type = fb::BuiltinOptions_LogSoftmaxOptions;
                return fb::CreateLogSoftmaxOptions(builder_).Union();
            case fb::BuiltinOperator_GREATER:
                *type = fb::BuiltinOptions_GreaterOptions;
                return fb::CreateGreaterOptions(builder_).Union();
            case fb::BuiltinOperator_SELECT:
                *type = fb::BuiltinOptions_SelectOptions;
                return fb::CreateSelectOptions(builder_).Union();
            case fb::BuiltinOperator_CAST:
                *type = fb::BuiltinOptions_CastOptions;
                return fb::CreateCastOptions(builder_, o.inputType, o.outputType).Union();
            case fb::BuiltinOperator_UNIDIRECTIONAL_SEQUENCE_RNN:
                *type = fb::BuiltinOptions_SequenceRNNOptions;
                return fb::CreateSequenceRNNOptions(builder_, false, o.activation).Union();
            case fb::BuiltinOperator_UNIDIRECTIONAL_SEQUENCE_LSTM:
                *type = fb::BuiltinOptions_UnidirectionalSequenceLSTMOptions;
                return fb::CreateUnidirectionalSequenceLSTMOptions(builder_, o.activation).Union();
            case fb::BuiltinOperator_LEAKY_RELU:
                *type = fb::BuiltinOptions_LeakyReluOptions;
                return fb::CreateLeakyReluOptions(builder_, o.alpha).Union();
            case fb::BuiltinOperator_HARD_SWISH:
                *type = fb::BuiltinOptions_HardSwishOptions;
                return fb::CreateHardSwishOptions(builder_).Union();
            case fb::BuiltinOperator_GELU:
                *type = fb::BuiltinOptions_GeluOptions;
                return fb::CreateGeluOptions(builder_, o.approximate).Union();
            case fb::BuiltinOperator_SPLIT_V:
                *type = fb::BuiltinOptions_SplitVOptions;
                return fb::CreateSplitVOptions(builder_, o.numSplits).Union();
            case fb::BuiltinOperator_BATCH_MATMUL:
                *type = fb::BuiltinOptions_BatchMatMulOptions;
                return fb::CreateBatchMatMulOptions(builder_, o.adjX, o.adjY).Union();
            default:
                *type = fb::BuiltinOptions_NONE;
                return 0;
        }
    }

    std::vector<uint8_t> build() {
        std::vector<flatbuffers::Offset<fb::Buffer>> buffers;
        buffers.push_back(fb::CreateBuffer(builder_));  // the empty sentinel
        std::vector<flatbuffers::Offset<fb::Tensor>> tensors;
        const auto addTensor = [&](const std::string& name, const std::vector<int32_t>& shape,
                                   const TensorEncoding& e, bool variable = false) {
            uint32_t buffer = 0;
            if (!e.data.empty()) {
                builder_.ForceVectorAlignment(e.data.size(), sizeof(uint8_t), 16);
                buffers.push_back(fb::CreateBuffer(builder_, builder_.CreateVector(e.data)));
                buffer = static_cast<uint32_t>(buffers.size() - 1);
            }
            flatbuffers::Offset<fb::QuantizationParameters> quantization;
            if (!e.scales.empty()) {
                quantization = fb::CreateQuantizationParametersDirect(builder_, nullptr, nullptr, &e.scales,
                                                                      &e.zeroPoints, fb::QuantizationDetails_NONE, 0,
                                                                      e.axis);
            }
            tensors.push_back(fb::CreateTensorDirect(builder_, &shape, e.type, buffer, name.c_str(), quantization, variable));
            return static_cast<int32_t>(tensors.size() - 1);
        };
        for (size_t t = 0; t < graph_.tensors.size(); ++t) {
            addTensor(graph_.tensors[t].name, graph_.tensors[t].shape, encodings_[t],
                      graph_.tensors[t].role == TensorRole::STATE);
        }

        std::map<std::string, uint32_t> codeIndex;   // builtin code or custom name
        std::vector<flatbuffers::Offset<fb::OperatorCode>> codes;
        std::vector<flatbuffers::Offset<fb::Operator>> operators;
        std::vector<bool> skipped(graph_.tensors.size(), false);
        for (const NetOperator& op : graph_.operators) {
            if (options_.skipCustomOperators && op.code == fb::BuiltinOperator_CUSTOM) {
                for (int32_t t : op.outputs) skipped[t] = true;
                continue;
            }
            NetOperator emitted = op;
            // Float models have nothing to quantize: QUANTIZE / DEQUANTIZE become identities.
            if (!quantized() && (op.code == fb::BuiltinOperator_QUANTIZE || op.code == fb::BuiltinOperator_DEQUANTIZE)) {
                const std::vector<int32_t>& shape = graph_.tensors[op.outputs[0]].shape;
                TensorEncoding shapeEncoding;
                shapeEncoding.type = fb::TensorType_INT32;
                for (int32_t v : shape) append(shapeEncoding.data, v);
                const int32_t shapeTensor = addTensor(graph_.tensors[op.outputs[0]].name + "/shape",
                                                      {static_cast<int32_t>(shape.size())}, shapeEncoding);
                emitted.code = fb::BuiltinOperator_RESHAPE;
                emitted.inputs.push_back(shapeTensor);
                emitted.options.dims = shape;
            }
            const auto code = static_cast<int32_t>(emitted.code);
            const std::string key = emitted.options.customCode.empty() ? std::to_string(code) : emitted.options.customCode;
            if (codeIndex.count(key) == 0) {
                codeIndex[key] = static_cast<uint32_t>(codes.size());
                codes.push_back(fb::CreateOperatorCodeDirect(
                        builder_, static_cast<int8_t>(std::min(code, 127)),
                        emitted.options.customCode.empty() ? nullptr : emitted.options.customCode.c_str(), 1, emitted.code));
            }
            fb::BuiltinOptions optionsType;
            const flatbuffers::Offset<void> optionsTable = options(emitted, &optionsType);
            const std::vector<uint8_t>* custom = emitted.options.customOptions.empty() ? nullptr : &emitted.options.customOptions;
            operators.push_back(fb::CreateOperatorDirect(builder_, codeIndex[key], &emitted.inputs, &emitted.outputs,
                                                         optionsType, optionsTable, custom));
        }
        std::vector<int32_t> outputs;
        for (int32_t t : graph_.outputs) {
            if (!skipped[t]) outputs.push_back(t);
        }
        if (options_.everyActivationIsOutput) {
            for (size_t t = 0; t < graph_.tensors.size(); ++t) {
                const bool isInput = std::find(graph_.inputs.begin(), graph_.inputs.end(), t) != graph_.inputs.end();
                const bool listed = std::find(outputs.begin(), outputs.end(), t) != outputs.end();
                if (graph_.tensors[t].role == TensorRole::ACTIVATION && !isInput && !listed && !skipped[t]) {
                    outputs.push_back(static_cast<int32_t>(t));
                }
            }
        }
        const auto subgraph = fb::CreateSubGraphDirect(builder_, &tensors, &graph_.inputs, &outputs, &operators, "main");
        std::vector<flatbuffers::Offset<fb::SubGraph>> subgraphs = {subgraph};
        const auto model = fb::CreateModelDirect(builder_, 3, &codes, &subgraphs, options_.description.c_str(), &buffers);
        fb::FinishModelBuffer(builder_, model);
        return std::vector<uint8_t>(builder_.GetBufferPointer(), builder_.GetBufferPointer() + builder_.GetSize());
    }

    const NetworkGraph& graph_;
    const EmitOptions& options_;
    std::vector<TensorEncoding> encodings_;
    flatbuffers::FlatBufferBuilder builder_{1 << 20};
};

}  // namespace

std::vector<uint8_t> emitTflite(const NetworkGraph& graph, const EmitOptions& options) {
    return Emitter(graph, options).run();
}

}  // namespace nnemu::modelgen
