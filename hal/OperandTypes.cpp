#include "nnemu/hal/OperandTypes.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

namespace nnemu::hal {
namespace {

constexpr std::array<const char*, kNumberOfOperandTypes> kOperandTypeNames = {
        "FLOAT32",          "INT32",         "UINT32",
        "TENSOR_FLOAT32",   "TENSOR_INT32",  "TENSOR_QUANT8_ASYMM",
        "BOOL",             "TENSOR_QUANT16_SYMM", "TENSOR_FLOAT16",
        "TENSOR_BOOL8",     "FLOAT16",       "TENSOR_QUANT8_SYMM_PER_CHANNEL",
        "TENSOR_QUANT16_ASYMM", "TENSOR_QUANT8_SYMM", "TENSOR_QUANT8_ASYMM_SIGNED",
        "SUBGRAPH"};

constexpr std::array<const char*, kNumberOfOperationTypes> kOperationNames = {
        "ADD", "AVERAGE_POOL_2D", "CONCATENATION", "CONV_2D", "DEPTHWISE_CONV_2D",
        "DEPTH_TO_SPACE", "DEQUANTIZE", "EMBEDDING_LOOKUP", "FLOOR", "FULLY_CONNECTED",
        "HASHTABLE_LOOKUP", "L2_NORMALIZATION", "L2_POOL_2D", "LOCAL_RESPONSE_NORMALIZATION",
        "LOGISTIC", "LSH_PROJECTION", "LSTM", "MAX_POOL_2D", "MUL", "RELU", "RELU1", "RELU6",
        "RESHAPE", "RESIZE_BILINEAR", "RNN", "SOFTMAX", "SPACE_TO_DEPTH", "SVDF", "TANH",
        "BATCH_TO_SPACE_ND", "DIV", "MEAN", "PAD", "SPACE_TO_BATCH_ND", "SQUEEZE",
        "STRIDED_SLICE", "SUB", "TRANSPOSE", "ABS", "ARGMAX", "ARGMIN",
        "AXIS_ALIGNED_BBOX_TRANSFORM", "BIDIRECTIONAL_SEQUENCE_LSTM",
        "BIDIRECTIONAL_SEQUENCE_RNN", "BOX_WITH_NMS_LIMIT", "CAST", "CHANNEL_SHUFFLE",
        "DETECTION_POSTPROCESSING", "EQUAL", "EXP", "EXPAND_DIMS", "GATHER",
        "GENERATE_PROPOSALS", "GREATER", "GREATER_EQUAL", "GROUPED_CONV_2D",
        "HEATMAP_MAX_KEYPOINT", "INSTANCE_NORMALIZATION", "LESS", "LESS_EQUAL", "LOG",
        "LOGICAL_AND", "LOGICAL_NOT", "LOGICAL_OR", "LOG_SOFTMAX", "MAXIMUM", "MINIMUM", "NEG",
        "NOT_EQUAL", "PAD_V2", "POW", "PRELU", "QUANTIZE", "QUANTIZED_16BIT_LSTM",
        "RANDOM_MULTINOMIAL", "REDUCE_ALL", "REDUCE_ANY", "REDUCE_MAX", "REDUCE_MIN",
        "REDUCE_PROD", "REDUCE_SUM", "ROI_ALIGN", "ROI_POOLING", "RSQRT", "SELECT", "SIN",
        "SLICE", "SPLIT", "SQRT", "TILE", "TOPK_V2", "TRANSPOSE_CONV_2D",
        "UNIDIRECTIONAL_SEQUENCE_LSTM", "UNIDIRECTIONAL_SEQUENCE_RNN",
        "RESIZE_NEAREST_NEIGHBOR", "QUANTIZED_LSTM", "IF", "WHILE", "ELU", "HARD_SWISH", "FILL",
        "RANK", "BATCH_MATMUL", "PACK", "MIRROR_PAD", "REVERSE"};

}  // namespace

bool isValidOperandType(int32_t code) {
    return (code >= 0 && code < kNumberOfOperandTypes) ||
           code == static_cast<int32_t>(OperandType::OEM) ||
           code == static_cast<int32_t>(OperandType::TENSOR_OEM_BYTE);
}

bool isScalarType(OperandType type) {
    switch (type) {
        case OperandType::FLOAT32:
        case OperandType::INT32:
        case OperandType::UINT32:
        case OperandType::BOOL:
        case OperandType::FLOAT16:
        case OperandType::OEM:
        case OperandType::SUBGRAPH:  // no dimensions: a reference to a model
            return true;
        default:
            return false;
    }
}

bool isTensorType(OperandType type) { return !isScalarType(type); }

bool isQuantizedType(OperandType type) {
    switch (type) {
        case OperandType::TENSOR_QUANT8_ASYMM:
        case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
        case OperandType::TENSOR_QUANT8_SYMM:
        case OperandType::TENSOR_QUANT16_SYMM:
        case OperandType::TENSOR_QUANT16_ASYMM:
            return true;
        default:
            return false;
    }
}

uint32_t elementSize(OperandType type) {
    switch (type) {
        case OperandType::FLOAT32:
        case OperandType::INT32:
        case OperandType::UINT32:
        case OperandType::TENSOR_FLOAT32:
        case OperandType::TENSOR_INT32:
            return 4;
        case OperandType::TENSOR_QUANT16_SYMM:
        case OperandType::TENSOR_QUANT16_ASYMM:
        case OperandType::TENSOR_FLOAT16:
        case OperandType::FLOAT16:
            return 2;
        case OperandType::OEM:
        case OperandType::SUBGRAPH:  // holds no data of its own
            return 0;
        default:
            return 1;
    }
}

int64_t operationFeatureLevel(OperationType type) {
    const auto code = static_cast<int32_t>(type);
    if (code >= static_cast<int32_t>(OperationType::MIRROR_PAD) && code < kNumberOfOperationTypes) {
        return kFeatureLevel7;
    }
    if (code >= static_cast<int32_t>(OperationType::BATCH_MATMUL) && code < kNumberOfOperationTypes) {
        return kFeatureLevel6;
    }
    if (code >= static_cast<int32_t>(OperationType::QUANTIZED_LSTM) && code < kNumberOfOperationTypes) {
        return kFeatureLevel30;
    }
    if (code >= static_cast<int32_t>(OperationType::ABS) && code < kNumberOfOperationTypes) return kFeatureLevel29;
    if (code >= static_cast<int32_t>(OperationType::BATCH_TO_SPACE_ND) && code < kNumberOfOperationTypes) return 28;
    return 27;
}

int64_t operandTypeFeatureLevel(OperandType type) {
    const auto code = static_cast<int32_t>(type);
    if (type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED || type == OperandType::SUBGRAPH) return 30;
    // BOOL (6) up to TENSOR_QUANT8_SYMM (13) came with API 29.
    if (code >= static_cast<int32_t>(OperandType::BOOL) && code <= static_cast<int32_t>(OperandType::TENSOR_QUANT8_SYMM)) {
        return 29;
    }
    return 27;
}

bool isQuant8Asymm(OperandType type) {
    return type == OperandType::TENSOR_QUANT8_ASYMM || type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
}

int32_t quant8Min(OperandType type) { return type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED ? -128 : 0; }

int32_t quant8Max(OperandType type) { return type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED ? 127 : 255; }

int32_t quant8ZeroPoint(OperandType type, int32_t unsignedZeroPoint) {
    return type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED ? unsignedZeroPoint - 128 : unsignedZeroPoint;
}

const char* operandTypeName(OperandType type) {
    const auto code = static_cast<int32_t>(type);
    if (code >= 0 && code < kNumberOfOperandTypes) return kOperandTypeNames[code];
    if (type == OperandType::OEM) return "OEM_SCALAR";
    if (type == OperandType::TENSOR_OEM_BYTE) return "TENSOR_OEM_BYTE";
    return "UNKNOWN";
}

const char* operationName(OperationType type) {
    const auto code = static_cast<int32_t>(type);
    if (code >= 0 && code < kNumberOfOperationTypes) return kOperationNames[code];
    if (type == OperationType::OEM_OPERATION) return "OEM_OPERATION";
    return "UNKNOWN";
}

bool operationFromName(const std::string& name, OperationType* type) {
    for (int32_t i = 0; i < kNumberOfOperationTypes; ++i) {
        if (name == kOperationNames[i]) {
            *type = static_cast<OperationType>(i);
            return true;
        }
    }
    return false;
}

bool operandTypeFromName(const std::string& name, OperandType* type) {
    for (int32_t i = 0; i < kNumberOfOperandTypes; ++i) {
        if (name == kOperandTypeNames[i]) {
            *type = static_cast<OperandType>(i);
            return true;
        }
    }
    return false;
}

// Saturates at UINT64_MAX (any zero dim still gives 0), so absurd shapes never wrap to small sizes.
uint64_t elementCount(const std::vector<uint32_t>& dims) {
    constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
    uint64_t count = 1;
    bool saturated = false;
    for (uint32_t d : dims) {
        if (d == 0) return 0;
        if (count > kMax / d) saturated = true;
        count = saturated ? kMax : count * d;
    }
    return count;
}

bool isFullySpecified(OperandType type, const std::vector<uint32_t>& dims) {
    if (isScalarType(type)) return true;
    if (dims.empty()) return false;
    for (uint32_t d : dims) {
        if (d == 0) return false;
    }
    return true;
}

uint64_t byteSize(OperandType type, const std::vector<uint32_t>& dims) {
    if (!isFullySpecified(type, dims)) return 0;
    const uint64_t count = elementCount(dims);
    const uint64_t size = elementSize(type);
    return count > std::numeric_limits<uint64_t>::max() / std::max<uint64_t>(size, 1) ? std::numeric_limits<uint64_t>::max()
                                                                                   : count * size;
}

bool dimsCompatible(const std::vector<uint32_t>& declared, const std::vector<uint32_t>& refined) {
    if (declared.empty()) return true;
    if (declared.size() != refined.size()) return false;
    for (size_t i = 0; i < declared.size(); ++i) {
        if (declared[i] != 0 && declared[i] != refined[i]) return false;
    }
    return true;
}

std::string dimsToString(const std::vector<uint32_t>& dims) {
    std::string text = "[";
    for (size_t i = 0; i < dims.size(); ++i) {
        if (i) text += ",";
        text += std::to_string(dims[i]);
    }
    return text + "]";
}

}  // namespace nnemu::hal
