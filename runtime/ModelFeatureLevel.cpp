#include "ModelFeatureLevel.h"

#include <algorithm>

#include "nnemu/hal/OperandTypes.h"
#include "nnemu/hal/Operations.h"
#include "nnemu/hal/Validation.h"

namespace nnemu::runtime {

int64_t operationMinimumLevel(const hal::Model& model, const std::vector<hal::Operand>& operands,
                              const hal::Operation& operation) {
    int64_t level = hal::kFeatureLevel29;
    const bool oem = operation.type == hal::OperationType::OEM_OPERATION;
    if (!oem) level = std::max(level, hal::operationFeatureLevel(operation.type));
    for (const auto* list : {&operation.inputs, &operation.outputs}) {
        for (uint32_t index : *list) {
            if (index < operands.size()) level = std::max(level, hal::operandTypeFeatureLevel(operands[index].type));
        }
    }
    if (oem || hal::findSignature(operation.type) == nullptr) return level;
    const auto constantOf = [&](uint32_t index) -> uint8_t* {
        return index < operands.size() ? hal::constantData(model, operands[index]) : nullptr;
    };
    return std::max(level, hal::operationUseFeatureLevel(hal::makeOperationContext(operation, operands, constantOf)));
}

namespace {

int64_t subgraphLevel(const hal::Model& model, const std::vector<hal::Operand>& operands,
                      const std::vector<hal::Operation>& operations) {
    int64_t level = hal::kFeatureLevel29;
    for (const auto& operand : operands) level = std::max(level, hal::operandTypeFeatureLevel(operand.type));
    for (const auto& operation : operations) level = std::max(level, operationMinimumLevel(model, operands, operation));
    return level;
}

}  // namespace

int64_t modelMinimumLevel(const hal::Model& model) {
    int64_t level = subgraphLevel(model, model.operands, model.operations);
    for (const auto& subgraph : model.referenced) {
        level = std::max(level, subgraphLevel(model, subgraph.operands, subgraph.operations));
    }
    return level;
}

std::vector<bool> operationsWithinLevel(const hal::Model& model, int64_t deviceLevel) {
    std::vector<bool> within;
    within.reserve(model.operations.size());
    for (const auto& operation : model.operations) {
        within.push_back(operationMinimumLevel(model, model.operands, operation) <= deviceLevel);
    }
    return within;
}

}  // namespace nnemu::runtime
