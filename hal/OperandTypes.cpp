#include "nnemu/hal/OperandTypes.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

#include "nnemu/hal/OperationTable.h"

namespace nnemu::hal {
namespace {

constexpr std::array<const char*, kNumberOfOperandTypes> kOperandTypeNames = {
        "FLOAT32",          "INT32",         "UINT32",
        "TENSOR_FLOAT32",   "TENSOR_INT32",  "TENSOR_QUANT8_ASYMM",
        "BOOL",             "TENSOR_QUANT16_SYMM", "TENSOR_FLOAT16",
        "TENSOR_BOOL8",     "FLOAT16",       "TENSOR_QUANT8_SYMM_PER_CHANNEL",
        "TENSOR_QUANT16_ASYMM", "TENSOR_QUANT8_SYMM", "TENSOR_QUANT8_ASYMM_SIGNED",
        "SUBGRAPH"};

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
    const OperationInfo* info = findOperation(static_cast<int32_t>(type));
    return info != nullptr ? info->featureLevel : kFeatureLevel27;
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
    const OperationInfo* info = findOperation(static_cast<int32_t>(type));
    if (info != nullptr) return info->name;
    if (type == OperationType::OEM_OPERATION) return "OEM_OPERATION";
    return "UNKNOWN";
}

bool operationFromName(const std::string& name, OperationType* type) {
    const OperationInfo* info = findOperation(std::string_view(name));
    if (info == nullptr) return false;
    *type = info->type;
    return true;
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
