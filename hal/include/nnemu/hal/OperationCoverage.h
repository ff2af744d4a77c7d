// A per-operation list (signatures, a device's kernels or lowering rules) against the table of
// OperationTable.def.
#pragma once

#include <array>
#include <span>
#include <string>
#include <vector>

#include "nnemu/hal/Types.h"

namespace nnemu::hal {

// What is wrong with `listed` (the operations a list has an entry for, one element per entry):
// an operation of the table introduced at or below `featureLevel` with no entry or with more than
// one, an entry for a code outside the table. `exempt` operations need no entry (nullptr: none).
// `what` names an entry in the messages ("signature", "reference kernel"). Empty when complete.
std::vector<std::string> coverageProblems(const std::vector<OperationType>& listed, int64_t featureLevel,
                                          bool (*exempt)(OperationType), const std::string& what);

// A layer's list of per-operation entries (structs with a `type`: signatures, kernels, lowering
// rules): every entry's operation in list order, what coverageProblems checks.
template <typename Entry>
std::vector<OperationType> operationsOf(std::span<const Entry> entries) {
    std::vector<OperationType> types;
    for (const Entry& entry : entries) types.push_back(entry.type);
    return types;
}

// Such a list indexed by operation code: find() gives the first entry of a code, nullptr when the
// code has none or is outside the table.
template <typename Entry>
class OperationIndex {
public:
    explicit OperationIndex(std::span<const Entry> entries) {
        for (const Entry& entry : entries) {
            const auto code = static_cast<int32_t>(entry.type);
            if (code >= 0 && code < kNumberOfOperationTypes && byCode_[code] == nullptr) byCode_[code] = &entry;
        }
    }

    const Entry* find(OperationType type) const {
        const auto code = static_cast<int32_t>(type);
        if (code < 0 || code >= kNumberOfOperationTypes) return nullptr;
        return byCode_[code];
    }

private:
    std::array<const Entry*, kNumberOfOperationTypes> byCode_{};
};

}  // namespace nnemu::hal
