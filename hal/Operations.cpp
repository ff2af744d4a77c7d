#include "nnemu/hal/Operations.h"

#include <algorithm>
#include <array>

namespace nnemu::hal {
namespace {

std::array<const OperationSignature*, kNumberOfOperationTypes>& table() {
    static std::array<const OperationSignature*, kNumberOfOperationTypes> signatures{};
    return signatures;
}

}  // namespace

void registerSignature(const OperationSignature& signature) {
    const auto code = static_cast<int32_t>(signature.type);
    if (code < 0 || code >= kNumberOfOperationTypes) return;
    // Registrations are static objects, so they outlive every lookup.
    table()[code] = new OperationSignature(signature);
}

const OperationSignature* findSignature(OperationType type) {
    const auto code = static_cast<int32_t>(type);
    if (code < 0 || code >= kNumberOfOperationTypes) return nullptr;
    return table()[code];
}

int64_t operationUseFeatureLevel(const OperationContext& context) {
    const OperationSignature* signature = findSignature(context.type);
    if (signature != nullptr && signature->featureLevel != nullptr) {
        return std::max(signature->featureLevel(context), operationFeatureLevel(context.type));
    }
    return operationFeatureLevel(context.type);
}

bool prepareOperation(const OperationSignature& signature, OperationContext& context) {
    if (signature.checkValues != nullptr && !signature.checkValues(context)) return false;
    return signature.prepare(context);
}

bool omissionsAllowed(const OperationSignature& signature, const std::vector<OperandView>& inputs) {
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (inputs[i].omitted && (i == 0 || !signature.allowOmittedOperand)) return false;
    }
    return true;
}

bool checkCounts(const OperationContext& context, std::initializer_list<uint32_t> inputCounts,
                 uint32_t outputCount) {
    NN_RET_CHECK(std::find(inputCounts.begin(), inputCounts.end(), context.numInputs()) !=
                 inputCounts.end());
    NN_RET_CHECK(context.numOutputs() == outputCount);
    return true;
}

bool inputTypeIs(const OperationContext& context, uint32_t i, std::initializer_list<OperandType> types) {
    NN_RET_CHECK(i < context.numInputs());
    NN_RET_CHECK(std::find(types.begin(), types.end(), context.inputType(i)) != types.end());
    return true;
}

bool rankIsOrUnknown(const OperandView& operand, uint32_t rank) {
    return operand.dims.empty() || operand.rank() == rank;
}

bool rankAtMostOrUnknown(const OperandView& operand, uint32_t rank) {
    return operand.rank() <= rank;
}

}  // namespace nnemu::hal
