// The claim and preparation the synap-npu device and the vx delegate share.
#include "nnemu/synap/DirectAccess.h"

#include "Lowering.h"
#include "NonFinite.h"
#include "PreparedNetwork.h"
#include "nnemu/hal/Validation.h"

namespace nnemu::synap {

std::vector<bool> claimOperations(const hal::Model& model, std::string* why) {
    if (!hal::validateModel(model, why)) return {};
    const hal::ConstantLookup constantOf = [&](uint32_t index) {
        return hal::constantData(model, model.operands[index]);
    };
    std::vector<bool> supported;
    for (const auto& operation : model.operations) {
        const LoweringRule* rule = findLowering(operation.type);
        supported.push_back(rule != nullptr && !readsNonFiniteConstant(model, operation) &&
                            rule->supports(hal::makeOperationContext(operation, model.operands, constantOf)));
    }
    return supported;
}

std::shared_ptr<hal::IPreparedModel> prepareNetwork(hal::Model model, std::string* why) {
    const std::vector<bool> supported = claimOperations(model, why);
    if (supported.empty()) return nullptr;
    for (size_t i = 0; i < supported.size(); ++i) {
        if (!supported[i]) {
            *why = std::string("the NPU cannot run ") + hal::operationName(model.operations[i].type);
            return nullptr;
        }
    }
    return std::make_shared<PreparedNetwork>(std::move(model));
}

}  // namespace nnemu::synap
