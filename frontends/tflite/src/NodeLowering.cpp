// NodeLowering: the operand factories the per-operator lowerings share. This is where TFLite
// tensors become NNAPI operands: int8 is TENSOR_QUANT8_ASYMM_SIGNED on a feature level 30+
// runtime and shifts to uint8 (+128) below it (graph.signedInt8), int8 per-channel weights become TENSOR_QUANT8_SYMM_PER_CHANNEL, scalars are kept as [1].
#include <android/NeuralNetworks.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "ControlFlow.h"
#include "NodeLowering.h"

namespace nnemu::tflite {
namespace {

// Quantization scales outside this range describe no real model and break fixed-point math.
constexpr float kMinScale = 1e-12f;
constexpr float kMaxScale = 1e6f;
// Requantization multipliers (input over output scale) that fixed-point kernels handle without
// overflowing their 32-bit intermediates; real models stay within a few powers of two.
constexpr double kMaxRatio = 65536.0;               // 2^16
constexpr double kMinRatio = 1.0 / 2147483648.0;    // 2^-31
constexpr double kMaxProductRatio = 8192.0;         // 2^13, for MUL's 16-bit products
// Convolutions and fully connected layers: since NNAPI feature level 29 the multiplier
// input x filter / output may exceed 1 (a left shift before the Q31 multiply). From 2^30 on,
// that shift reaches bit 31 and leaves 32-bit fixed point.
constexpr double kMaxAccumulatorRatio = 1073741824.0;   // 2^30
constexpr int32_t kMaxBias = 1 << 30;

bool isQuant8(int32_t type) {
    return isQuant8Asymm(type) || type == ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL;
}

std::vector<uint32_t> nnapiDims(const Tensor& tensor) {
    std::vector<uint32_t> dims(tensor.shape.begin(), tensor.shape.end());
    if (dims.empty()) dims.push_back(1);  // NNAPI reads a rank-0 tensor as "rank unknown"
    return dims;
}

// Constants are handed to NNAPI in place when aligned for any element type, else copied:
// a file's buffers are usually 16-byte aligned, but nothing guarantees it.
void setValue(NnOperand& operand, const uint8_t* data, size_t size) {
    if (reinterpret_cast<uintptr_t>(data) % alignof(std::max_align_t) == 0) {
        operand.value = data;
        operand.valueSize = size;
    } else {
        operand.ownedValue.assign(data, data + size);
    }
}

template <typename T>
std::vector<uint8_t> bytesOf(const T& value) {
    std::vector<uint8_t> bytes(sizeof value);
    std::memcpy(bytes.data(), &value, sizeof value);
    return bytes;
}

// A constant operand owning its bytes (none: NNAPI's "no value" operand).
NnOperand constantOf(int32_t type, std::vector<uint8_t> bytes, std::vector<uint32_t> dims = {}) {
    NnOperand o;
    o.type = type;
    o.isConstant = true;
    o.dims = std::move(dims);
    o.ownedValue = std::move(bytes);
    return o;
}

}  // namespace

bool isQuant8Asymm(int32_t type) {
    return type == ANEURALNETWORKS_TENSOR_QUANT8_ASYMM || type == ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED;
}

const char* nnapiTypeName(int32_t type) {
    switch (type) {
        case ANEURALNETWORKS_FLOAT32: return "FLOAT32";
        case ANEURALNETWORKS_INT32: return "INT32";
        case ANEURALNETWORKS_BOOL: return "BOOL";
        case ANEURALNETWORKS_TENSOR_FLOAT32: return "TENSOR_FLOAT32";
        case ANEURALNETWORKS_TENSOR_INT32: return "TENSOR_INT32";
        case ANEURALNETWORKS_TENSOR_QUANT8_ASYMM: return "TENSOR_QUANT8_ASYMM";
        case ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL: return "TENSOR_QUANT8_SYMM_PER_CHANNEL";
        case ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED: return "TENSOR_QUANT8_ASYMM_SIGNED";
        case ANEURALNETWORKS_TENSOR_BOOL8: return "TENSOR_BOOL8";
        default: return "?";
    }
}

bool NodeLowering::fail(const std::string& reason) {
    status_ = badData("operator " + node_.opName + " at node " + std::to_string(node_.index) + ": " + reason);
    return false;
}

bool NodeLowering::expectCounts(size_t minInputs, size_t maxInputs, size_t outputs) {
    if (inputCount() < minInputs || inputCount() > maxInputs) {
        return fail("has " + std::to_string(inputCount()) + " inputs, expected " +
                    (minInputs == maxInputs ? std::to_string(minInputs)
                                            : std::to_string(minInputs) + " to " + std::to_string(maxInputs)));
    }
    if (outputCount() != outputs) {
        return fail("has " + std::to_string(outputCount()) + " outputs, expected " + std::to_string(outputs));
    }
    for (size_t i = 0; i < minInputs; ++i) {
        if (!hasInput(i)) return fail("required input " + std::to_string(i) + " is absent");
    }
    return true;
}

uint32_t NodeLowering::addOperand(NnOperand operand) {
    graph_.operands.push_back(std::move(operand));
    return static_cast<uint32_t>(graph_.operands.size() - 1);
}

bool NodeLowering::activation(int32_t tensorIndex, uint32_t* operand, bool rawIntegers) {
    if (graph_.tensorOperand[tensorIndex] >= 0) {
        *operand = static_cast<uint32_t>(graph_.tensorOperand[tensorIndex]);
        return true;
    }
    const Tensor& tensor = subgraph_.tensors[tensorIndex];
    const std::string what = "tensor " + std::to_string(tensorIndex) + " (" + tensor.name + ")";
    NnOperand o;
    o.tensor = tensorIndex;
    o.dims = nnapiDims(tensor);
    for (uint32_t dim : o.dims) {
        if (dim == 0) return fail(what + " has a zero-sized dimension");
    }
    switch (tensor.type) {
        case ElementType::FLOAT32:
            o.type = ANEURALNETWORKS_TENSOR_FLOAT32;
            break;
        case ElementType::UINT8:
        case ElementType::INT8: {
            if (tensor.isPerChannel()) return fail(what + ": per-channel quantized activations are not supported by NNAPI");
            if (rawIntegers && tensor.type == ElementType::UINT8 && !(tensor.scale > 0)) {
                o.type = ANEURALNETWORKS_TENSOR_QUANT8_ASYMM;
                o.scale = 1.0f;
                break;
            }
            if (!(tensor.scale > 0)) return fail(what + ": quantized tensor without a quantization scale");
            if (tensor.scale < kMinScale || tensor.scale > kMaxScale) return fail(what + ": quantization scale out of range");
            const bool keepSigned = tensor.type == ElementType::INT8 && graph_.signedInt8;
            const bool shifted = tensor.type == ElementType::INT8 && !graph_.signedInt8;
            const int32_t zeroPoint = tensor.zeroPoint + (shifted ? 128 : 0);
            const int32_t lowest = keepSigned ? -128 : 0;
            if (zeroPoint < lowest || zeroPoint > lowest + 255) return fail(what + ": zero point out of range");
            o.type = keepSigned ? ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED : ANEURALNETWORKS_TENSOR_QUANT8_ASYMM;
            o.scale = tensor.scale;
            o.zeroPoint = zeroPoint;
            break;
        }
        case ElementType::INT32:
            o.type = ANEURALNETWORKS_TENSOR_INT32;
            break;
        case ElementType::BOOL:
            o.type = ANEURALNETWORKS_TENSOR_BOOL8;
            break;
        case ElementType::INT16:
            return fail("int16 activations are not supported by NNAPI (" + what + ")");
        default:
            return fail(what + ": element type " + elementTypeName(tensor.type) + " is not supported by NNAPI");
    }
    *operand = addOperand(std::move(o));
    graph_.tensorOperand[tensorIndex] = static_cast<int32_t>(*operand);
    return true;
}

bool NodeLowering::constantTensor(int32_t tensorIndex, int32_t perChannelDim, uint32_t* operand) {
    const Tensor& tensor = subgraph_.tensors[tensorIndex];
    const std::string what = "constant tensor " + std::to_string(tensorIndex) + " (" + tensor.name + ")";
    NnOperand o;
    o.isConstant = true;
    o.dims = nnapiDims(tensor);
    // Bytes need no alignment: they stay in the model file, which NNAPI is given as a memory.
    const bool bytes = tensor.type == ElementType::UINT8 || tensor.type == ElementType::INT8 || tensor.type == ElementType::BOOL;
    if (bytes) {
        o.value = tensor.data;
        o.valueSize = tensor.dataSize;
    } else {
        setValue(o, tensor.data, tensor.dataSize);
    }
    for (uint32_t dim : o.dims) {
        if (dim == 0) return fail(what + " has a zero-sized dimension");
    }
    switch (tensor.type) {
        case ElementType::FLOAT32:
            o.type = ANEURALNETWORKS_TENSOR_FLOAT32;
            break;
        case ElementType::INT32:
            o.type = ANEURALNETWORKS_TENSOR_INT32;
            break;
        case ElementType::BOOL:
            o.type = ANEURALNETWORKS_TENSOR_BOOL8;
            break;
        case ElementType::UINT8:
            if (tensor.isPerChannel()) return fail(what + ": per-channel uint8 weights are not supported by NNAPI");
            if (!(tensor.scale > 0)) return fail(what + ": quantized tensor without a quantization scale");
            if (tensor.scale < kMinScale || tensor.scale > kMaxScale) return fail(what + ": quantization scale out of range");
            if (tensor.zeroPoint < 0 || tensor.zeroPoint > 255) return fail(what + ": zero point out of range");
            o.type = ANEURALNETWORKS_TENSOR_QUANT8_ASYMM;
            o.scale = tensor.scale;
            o.zeroPoint = tensor.zeroPoint;
            break;
        case ElementType::INT8:
            if (tensor.isPerChannel()) {
                if (perChannelDim < 0) {
                    return fail(what + ": per-channel quantization is not supported by NNAPI for this operand");
                }
                if (tensor.quantizedDimension != perChannelDim) {
                    return fail(what + ": quantized along dimension " + std::to_string(tensor.quantizedDimension) +
                                ", NNAPI needs dimension " + std::to_string(perChannelDim));
                }
                for (size_t c = 0; c < tensor.channelScales.size(); ++c) {
                    if (tensor.channelZeroPoint(c) != 0) return fail(what + ": per-channel zero points must be 0");
                    if (!(tensor.channelScales[c] >= kMinScale && tensor.channelScales[c] <= kMaxScale)) {
                        return fail(what + ": per-channel scale out of range");
                    }
                }
                o.type = ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL;
                o.channelScales = tensor.channelScales;
                o.channelDim = static_cast<uint32_t>(perChannelDim);
            } else {
                if (!(tensor.scale > 0)) return fail(what + ": quantized tensor without a quantization scale");
                if (tensor.scale < kMinScale || tensor.scale > kMaxScale) return fail(what + ": quantization scale out of range");
                if (tensor.zeroPoint < -128 || tensor.zeroPoint > 127) return fail(what + ": zero point out of range");
                if (graph_.signedInt8) {
                    o.type = ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED;
                    o.scale = tensor.scale;
                    o.zeroPoint = tensor.zeroPoint;
                    break;
                }
                // No signed 8-bit type before feature level 30: shift values and zero point by 128.
                o.type = ANEURALNETWORKS_TENSOR_QUANT8_ASYMM;
                o.scale = tensor.scale;
                o.zeroPoint = tensor.zeroPoint + 128;
                o.ownedValue.resize(tensor.dataSize);
                for (size_t i = 0; i < tensor.dataSize; ++i) o.ownedValue[i] = tensor.data[i] ^ 0x80u;
                o.value = nullptr;
                o.valueSize = 0;
            }
            break;
        case ElementType::INT64: {
            // Index-like constants (axes, paddings, shapes) may be int64: narrow them.
            std::vector<int32_t> narrowed(tensor.dataSize / 8);
            for (size_t i = 0; i < narrowed.size(); ++i) {
                int64_t v;
                std::memcpy(&v, tensor.data + 8 * i, 8);
                if (v < INT32_MIN || v > INT32_MAX) return fail(what + ": int64 value out of int32 range");
                narrowed[i] = static_cast<int32_t>(v);
            }
            o.type = ANEURALNETWORKS_TENSOR_INT32;
            o.ownedValue.resize(narrowed.size() * 4);
            if (!narrowed.empty()) std::memcpy(o.ownedValue.data(), narrowed.data(), o.ownedValue.size());
            o.value = nullptr;
            o.valueSize = 0;
            break;
        }
        case ElementType::INT16:
            return fail("int16 tensors are not supported by NNAPI (" + what + ")");
        default:
            return fail(what + ": element type " + elementTypeName(tensor.type) + " is not supported by NNAPI");
    }
    if (o.valueLength() == 0) return fail(what + " has no data");
    *operand = addOperand(std::move(o));
    return true;
}

bool NodeLowering::inputOperand(size_t i, uint32_t* operand) {
    if (!hasInput(i)) return fail("required input " + std::to_string(i) + " is absent");
    const int32_t tensorIndex = node_.inputs[i];
    if (subgraph_.tensors[tensorIndex].isConstant) return constantTensor(tensorIndex, -1, operand);
    return activation(tensorIndex, operand);
}

bool NodeLowering::sameTypeInputs(uint32_t* a, uint32_t* b) {
    if (!inputOperand(0, a) || !inputOperand(1, b)) return false;
    if (operand(*a).type != operand(*b).type) {
        return fail(std::string("input types differ (") + nnapiTypeName(operand(*a).type) + ", " +
                    nnapiTypeName(operand(*b).type) + ")");
    }
    return true;
}

bool NodeLowering::optionalInput(size_t i, int32_t omittedType, uint32_t* operand) {
    if (i < inputCount() && node_.inputs[i] < 0) {
        *operand = omitted(omittedType);
        return true;
    }
    return inputOperand(i, operand);
}

uint32_t NodeLowering::omitted(int32_t type) { return addOperand(constantOf(type, {})); }

bool NodeLowering::outputOperand(size_t i, uint32_t* operand) {
    const int32_t tensorIndex = node_.outputs[i];
    if (subgraph_.tensors[tensorIndex].isConstant) {
        return fail("output tensor " + std::to_string(tensorIndex) + " is a constant");
    }
    return activation(tensorIndex, operand);
}

bool NodeLowering::dequantizedWeights(size_t inputIndex, int32_t perChannelDim, uint32_t* operand) {
    if (!hasInput(inputIndex)) return fail("required input " + std::to_string(inputIndex) + " is absent");
    const int32_t tensorIndex = node_.inputs[inputIndex];
    const Tensor& tensor = subgraph_.tensors[tensorIndex];
    const std::string what = "hybrid weights " + std::to_string(tensorIndex) + " (" + tensor.name + ")";
    if (tensor.type != ElementType::INT8 || !tensor.isConstant) return fail(what + " must be constant int8");
    uint32_t weights;
    if (tensor.isPerChannel()) {
        if (!constantTensor(tensorIndex, perChannelDim, &weights)) return false;
    } else {
        if (tensor.zeroPoint != 0) return fail(what + " must have zero point 0");
        if (!(tensor.scale >= kMinScale && tensor.scale <= kMaxScale)) return fail(what + ": quantization scale out of range");
        NnOperand o;
        o.isConstant = true;
        o.type = ANEURALNETWORKS_TENSOR_QUANT8_SYMM;
        o.dims = nnapiDims(tensor);
        o.scale = tensor.scale;
        o.value = tensor.data;
        o.valueSize = tensor.dataSize;
        weights = addOperand(std::move(o));
    }
    *operand = temporaryOfType(ANEURALNETWORKS_TENSOR_FLOAT32, graph_.operands[weights].dims, 0.0f, 0);
    addOperation(ANEURALNETWORKS_DEQUANTIZE, {weights}, {*operand});
    return true;
}

bool NodeLowering::bias(size_t inputIndex, uint32_t inputOperand, uint32_t filterOperand, uint32_t outChannels,
                        uint32_t* operand) {
    const NnOperand& input = graph_.operands[inputOperand];
    const NnOperand& filter = graph_.operands[filterOperand];
    const bool isFloat = input.type == ANEURALNETWORKS_TENSOR_FLOAT32;
    NnOperand o;
    o.isConstant = true;
    o.dims = {outChannels};
    if (isFloat) {
        o.type = ANEURALNETWORKS_TENSOR_FLOAT32;
    } else {
        o.type = ANEURALNETWORKS_TENSOR_INT32;
        // NNAPI wants exactly inputScale * filterScale; per-channel filters carry their own.
        o.scale = filter.type == ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL
                          ? 0.0f
                          : static_cast<float>(static_cast<double>(input.scale) * filter.scale);
    }
    if (!hasInput(inputIndex)) {
        o.ownedValue.assign(static_cast<size_t>(outChannels) * 4, 0);
        *operand = addOperand(std::move(o));
        return true;
    }
    const Tensor& tensor = this->input(inputIndex);
    const std::string what = "bias tensor " + std::to_string(node_.inputs[inputIndex]) + " (" + tensor.name + ")";
    const ElementType expected = isFloat ? ElementType::FLOAT32 : ElementType::INT32;
    if (tensor.type != expected) {
        if (tensor.type == ElementType::INT64) return fail("int64 bias (16x8 quantization) is not supported by NNAPI");
        return fail(what + " has type " + elementTypeName(tensor.type) + ", expected " + elementTypeName(expected));
    }
    if (tensor.shape.size() != 1 || static_cast<uint32_t>(tensor.shape[0]) != outChannels) {
        return fail(what + " must have shape [" + std::to_string(outChannels) + "]");
    }
    if (!tensor.isConstant) {
        if (!isFloat) return fail(what + ": a non-constant quantized bias is not supported");
        return activation(node_.inputs[inputIndex], operand);
    }
    if (!isFloat) {
        // Quantized kernels add the bias to a 32-bit accumulator: values near the int32 limits
        // come from no converter and would overflow it.
        for (size_t i = 0; i < tensor.dataSize / 4; ++i) {
            int32_t value;
            std::memcpy(&value, tensor.data + 4 * i, 4);
            if (value > kMaxBias || value < -kMaxBias) return fail(what + ": bias value " + std::to_string(value) + " out of range");
        }
    }
    setValue(o, tensor.data, tensor.dataSize);
    *operand = addOperand(std::move(o));
    return true;
}

uint32_t NodeLowering::scalarInt32(int32_t value) {
    return addOperand(constantOf(ANEURALNETWORKS_INT32, bytesOf(value)));
}

uint32_t NodeLowering::scalarFloat32(float value) {
    return addOperand(constantOf(ANEURALNETWORKS_FLOAT32, bytesOf(value)));
}

uint32_t NodeLowering::scalarBool(bool value) {
    return addOperand(constantOf(ANEURALNETWORKS_BOOL, {static_cast<uint8_t>(value ? 1 : 0)}));
}

uint32_t NodeLowering::vectorInt32(const std::vector<int32_t>& values) {
    return tensorInt32(values, {static_cast<uint32_t>(values.size())});
}

uint32_t NodeLowering::tensorInt32(const std::vector<int32_t>& values, std::vector<uint32_t> dims) {
    std::vector<uint8_t> bytes(values.size() * 4);
    if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
    return addOperand(constantOf(ANEURALNETWORKS_TENSOR_INT32, std::move(bytes), std::move(dims)));
}

uint32_t NodeLowering::tensorFloat32(const std::vector<float>& values, std::vector<uint32_t> dims) {
    std::vector<uint8_t> bytes(values.size() * 4);
    if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
    return addOperand(constantOf(ANEURALNETWORKS_TENSOR_FLOAT32, std::move(bytes), std::move(dims)));
}

uint32_t NodeLowering::quantizedConstant(int32_t type, int32_t value, float scale, int32_t zeroPoint) {
    // Two's complement for the signed type.
    NnOperand o = constantOf(type, {static_cast<uint8_t>(value)}, {1});
    o.scale = scale;
    o.zeroPoint = zeroPoint;
    return addOperand(std::move(o));
}

uint32_t NodeLowering::temporary(const NnOperand& like, const std::vector<uint32_t>& dims) {
    return temporaryOfType(like.type, dims, like.scale, like.zeroPoint);
}

uint32_t NodeLowering::temporaryOfType(int32_t type, const std::vector<uint32_t>& dims, float scale,
                                       int32_t zeroPoint) {
    NnOperand o;
    o.type = type;
    o.dims = dims;
    o.scale = scale;
    o.zeroPoint = zeroPoint;
    return addOperand(std::move(o));
}

bool NodeLowering::stateOutput(size_t i, bool cpuPathOnly, uint32_t* operand) {
    if (!hasInput(i)) return fail("state input " + std::to_string(i) + " is absent");
    if (&subgraph_ != &model_.subgraphs()[0]) return fail("a recurrent state inside a control-flow subgraph is not supported");
    const Tensor& state = input(i);
    if (!state.isVariable) return fail("state input " + std::to_string(i) + " is not a variable tensor");
    if (state.type != ElementType::FLOAT32) {
        return fail("state input " + std::to_string(i) + " has type " + elementTypeName(state.type) + ", expected FLOAT32");
    }
    *operand = temporaryOfType(ANEURALNETWORKS_TENSOR_FLOAT32, nnapiDims(state), 0.0f, 0);
    graph_.stateFeedback.push_back({*operand, node_.inputs[i], cpuPathOnly});
    return true;
}

bool NodeLowering::referencedModel(int32_t index, const char* role, uint32_t* operand) {
    if (graph_.references == nullptr) return fail("control flow outside a lowered model");
    const Result<ANeuralNetworksModel*> model = graph_.references->get(index);
    if (!model) return fail(std::string(role) + ": " + model.message());
    NnOperand o;
    o.type = ANEURALNETWORKS_MODEL;
    o.isConstant = true;
    o.reference = *model;
    *operand = addOperand(std::move(o));
    return true;
}

bool NodeLowering::constantInts(size_t inputIndex, std::vector<int32_t>* values) {
    if (!hasInput(inputIndex)) return fail("required input " + std::to_string(inputIndex) + " is absent");
    const Tensor& tensor = input(inputIndex);
    if (!tensor.isConstant) {
        return fail("input " + std::to_string(inputIndex) + " (" + tensor.name +
                    ") must be a constant for NNAPI");
    }
    values->clear();
    if (tensor.type == ElementType::INT32) {
        values->resize(tensor.dataSize / 4);
        if (!values->empty()) std::memcpy(values->data(), tensor.data, values->size() * 4);
        return true;
    }
    if (tensor.type == ElementType::INT64) {
        for (size_t i = 0; i < tensor.dataSize / 8; ++i) {
            int64_t v;
            std::memcpy(&v, tensor.data + 8 * i, 8);
            if (v < INT32_MIN || v > INT32_MAX) return fail("input " + std::to_string(inputIndex) + ": value out of range");
            values->push_back(static_cast<int32_t>(v));
        }
        return true;
    }
    return fail("input " + std::to_string(inputIndex) + " must be an int32 constant");
}

bool NodeLowering::reductionAxes(uint32_t input, std::vector<int32_t>* axes) {
    if (!constantInts(1, axes)) return false;
    if (axes->empty()) return fail("no axis to reduce");
    const auto rank = static_cast<int32_t>(operand(input).dims.size());
    for (int32_t axis : *axes) {
        if (axis < -rank || axis >= rank) return fail("axis " + std::to_string(axis) + " out of range");
    }
    return true;
}

const char* activationName(TfLiteFusedActivation activation) {
    if (activation == kTfLiteActSigmoid) return "SIGMOID";
    const char* name = activation >= kTfLiteActNone && activation <= kTfLiteActSignBit
                               ? fb::EnumNameActivationFunctionType(static_cast<fb::ActivationFunctionType>(activation))
                               : "";
    return name[0] != '\0' ? name : "?";
}

bool NodeLowering::fuseCode(TfLiteFusedActivation activation, uint32_t* operand) {
    switch (activation) {
        case kTfLiteActNone: *operand = scalarInt32(ANEURALNETWORKS_FUSED_NONE); return true;
        case kTfLiteActRelu: *operand = scalarInt32(ANEURALNETWORKS_FUSED_RELU); return true;
        case kTfLiteActReluN1To1: *operand = scalarInt32(ANEURALNETWORKS_FUSED_RELU1); return true;
        case kTfLiteActRelu6: *operand = scalarInt32(ANEURALNETWORKS_FUSED_RELU6); return true;
        default: break;
    }
    return fail(std::string("fused activation ") + activationName(activation) + " is not supported by NNAPI");
}

bool NodeLowering::requantizable(int32_t type, const std::vector<uint32_t>& inputs,
                                 const std::vector<uint32_t>& outputs) {
    const auto scalesOf = [this](uint32_t operand) {
        const NnOperand& o = graph_.operands[operand];
        return o.type == ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL
                       ? std::vector<float>(o.channelScales.begin(), o.channelScales.end())
                       : std::vector<float>{o.scale};
    };
    // Convolutions and fully connected layers rescale a 32-bit accumulator; MUL scales a 16-bit
    // product; other operations rescale single inputs, which real models keep within a few
    // powers of two.
    double maxProduct = 0.0;
    switch (type) {
        case ANEURALNETWORKS_CONV_2D:
        case ANEURALNETWORKS_DEPTHWISE_CONV_2D:
        case ANEURALNETWORKS_TRANSPOSE_CONV_2D:
        case ANEURALNETWORKS_FULLY_CONNECTED: maxProduct = kMaxAccumulatorRatio; break;
        case ANEURALNETWORKS_MUL: maxProduct = kMaxProductRatio; break;
        default: break;
    }
    for (uint32_t out : outputs) {
        if (!isQuant8Asymm(graph_.operands[out].type)) continue;
        const double outScale = graph_.operands[out].scale;
        if (maxProduct > 0 && inputs.size() >= 2 && isQuant8(graph_.operands[inputs[0]].type) &&
            isQuant8(graph_.operands[inputs[1]].type)) {
            for (float scale : scalesOf(inputs[1])) {
                const double ratio = static_cast<double>(graph_.operands[inputs[0]].scale) * scale / outScale;
                if (ratio >= maxProduct || ratio < kMinRatio) {
                    const bool accumulator = maxProduct == kMaxAccumulatorRatio;
                    char text[160];
                    std::snprintf(text, sizeof text,
                                  "requantization multiplier input x %s / output = %g is outside 32-bit fixed "
                                  "point [2^-31, 2^%d)",
                                  accumulator ? "filter" : "input 2", ratio, accumulator ? 30 : 13);
                    return fail(text);
                }
            }
            continue;
        }
        for (uint32_t in : inputs) {
            if (!isQuant8(graph_.operands[in].type)) continue;
            for (float scale : scalesOf(in)) {
                const double ratio = scale / outScale;
                if (ratio > kMaxRatio || ratio < kMinRatio) {
                    return fail("quantization scales too far apart for fixed-point requantization (input " +
                                std::to_string(scale) + ", output " + std::to_string(outScale) + ")");
                }
            }
        }
    }
    return true;
}

void NodeLowering::addOperation(int32_t type, std::vector<uint32_t> inputs, std::vector<uint32_t> outputs) {
    if (!requantizable(type, inputs, outputs)) {
        rejected_ = true;
        return;
    }
    graph_.operations.push_back(NnOperation{type, node_.index, std::move(inputs), std::move(outputs)});
    graph_.nodeOperations[node_.index].push_back(static_cast<uint32_t>(graph_.operations.size() - 1));
}

}  // namespace nnemu::tflite
