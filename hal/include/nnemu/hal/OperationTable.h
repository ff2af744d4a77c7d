// The NNAPI operations as data, from the one table of OperationTable.def: code, name and the
// feature level that introduced each. Header-only and constexpr, so that programs outside the
// HAL (the conformance runner, which only links libneuralnetworks.so) read the same rows.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "nnemu/hal/Types.h"

namespace nnemu::hal {

struct OperationInfo {
    OperationType type;
    const char* name;  // as in the NDK without ANEURALNETWORKS_: "CONV_2D"
    int64_t featureLevel;
};

inline constexpr std::array<OperationInfo, kNumberOfOperationTypes> kOperations = {{
#define NN_OPERATION(name, code, featureLevel) {OperationType::name, #name, featureLevel},
#include "nnemu/hal/OperationTable.def"
#undef NN_OPERATION
}};

namespace detail {

// Row i holds code i (so that a code indexes kOperations), every name once, and levels that
// never decrease with the code (new operations are appended).
constexpr bool operationTableIsWellFormed() {
    for (size_t i = 0; i < kOperations.size(); ++i) {
        if (static_cast<size_t>(kOperations[i].type) != i) return false;
        if (i > 0 && kOperations[i].featureLevel < kOperations[i - 1].featureLevel) return false;
        for (size_t j = 0; j < i; ++j) {
            if (std::string_view(kOperations[i].name) == kOperations[j].name) return false;
        }
    }
    return true;
}

}  // namespace detail

static_assert(detail::operationTableIsWellFormed(),
              "OperationTable.def: codes 0, 1, 2... in order, unique names, non-decreasing levels");

// The row of an operation code; nullptr outside the table (OEM_OPERATION included).
constexpr const OperationInfo* findOperation(int32_t code) {
    if (code < 0 || code >= kNumberOfOperationTypes) return nullptr;
    return &kOperations[static_cast<size_t>(code)];
}

// The row of an operation name ("CONV_2D"); nullptr when no operation has it.
constexpr const OperationInfo* findOperation(std::string_view name) {
    for (const OperationInfo& info : kOperations) {
        if (name == info.name) return &info;
    }
    return nullptr;
}

}  // namespace nnemu::hal
