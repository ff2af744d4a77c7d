#include "nnemu/hal/OperationCoverage.h"

#include "nnemu/hal/OperationTable.h"

namespace nnemu::hal {

std::vector<std::string> coverageProblems(const std::vector<OperationType>& listed, int64_t featureLevel,
                                          bool (*exempt)(OperationType), const std::string& what) {
    std::vector<std::string> problems;
    std::vector<int> entries(kOperations.size(), 0);
    for (OperationType type : listed) {
        const OperationInfo* info = findOperation(static_cast<int32_t>(type));
        if (info == nullptr) {
            problems.push_back("a " + what + " for code " + std::to_string(static_cast<int32_t>(type)) +
                               ", which is not in OperationTable.def");
            continue;
        }
        ++entries[static_cast<size_t>(type)];
    }
    for (const OperationInfo& info : kOperations) {
        const int count = entries[static_cast<size_t>(info.type)];
        if (count > 1) {
            problems.push_back(std::string(info.name) + " has more than one " + what + " (" +
                               std::to_string(count) + ")");
        }
        const bool needed = info.featureLevel <= featureLevel && (exempt == nullptr || !exempt(info.type));
        if (needed && count == 0) problems.push_back(std::string(info.name) + " has no " + what);
    }
    return problems;
}

}  // namespace nnemu::hal
