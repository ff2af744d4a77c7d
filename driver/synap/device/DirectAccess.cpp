// The claim and preparation the synap-npu device and the vx delegate share.
#include "nnemu/synap/DirectAccess.h"

#include <algorithm>
#include <cstring>
#include <span>

#include "../compiler/Compiler.h"
#include "../compiler/Lowering.h"
#include "ModelKey.h"
#include "NonFinite.h"
#include "PreparedNetwork.h"
#include "nnemu/hal/Validation.h"

namespace nnemu::synap {

Result<std::vector<bool>> claimOperations(const hal::Model& model) {
    NNEMU_RETURN_IF_ERROR(hal::validateModel(model));
    const hal::ConstantLookup constantOf = [&](uint32_t index) {
        return hal::constantData(model, model.operands[index]);
    };
    // Non-finite weights a warm start would read only for this check wait for the JIT (NonFinite.h).
    const std::vector<bool> unread = constantsGivenByFile(model);
    std::vector<bool> supported;
    for (const auto& operation : model.operations) {
        const LoweringRule* rule = findLowering(operation.type);
        const hal::OperationContext context = hal::makeOperationContext(operation, model.operands, constantOf);
        // An operation whose known values already fail the execution-stage checks fails on any
        // device; claiming it keeps the failure where nnapi-reference has it, at execution (the
        // JIT's prepareOperation refuses it), and keeps bad values away from the rules.
        const hal::OperationSignature* signature = hal::findSignature(operation.type);
        if (rule != nullptr && signature != nullptr && signature->checkValues != nullptr &&
            !signature->checkValues(context)) {
            supported.push_back(true);
            continue;
        }
        // An output the execution gives another quantization than the declared one (a quantized
        // RELU that rescales): nnapi-reference runs it with that quantization, a program compiled
        // from the declared one would not, so the operation is declined here, never failed later.
        const bool quantizationAsDeclared =
                signature == nullptr || hal::declaredQuantizationIsPrepared(*signature, context);
        supported.push_back(rule != nullptr && quantizationAsDeclared &&
                            !readsNonFiniteConstant(model, operation, unread) && rule->supports(context));
    }
    return supported;
}

Result<std::shared_ptr<hal::IPreparedModel>> prepareNetwork(hal::Model model) {
    NNEMU_ASSIGN_OR_RETURN(const std::vector<bool> supported, claimOperations(model));
    for (size_t i = 0; i < supported.size(); ++i) {
        if (!supported[i]) return badData(std::string("the NPU cannot run ") + hal::operationName(model.operations[i].type));
    }
    return std::shared_ptr<hal::IPreparedModel>(
            std::make_shared<PreparedNetwork>(std::make_shared<const hal::Model>(std::move(model))));
}

std::array<uint8_t, 32> networkKey(const hal::Model& model) {
    std::vector<std::vector<uint32_t>> inputDims;
    for (uint32_t index : model.inputIndexes) inputDims.push_back(model.operands[index].dimensions);
    const std::string hex = compiledNetworkKey(model, inputDims, kCompilerVersion);
    std::array<uint8_t, 32> key{};
    std::memcpy(key.data(), hex.data(), std::min(hex.size(), key.size()));
    return key;
}

uint32_t networkCompilerVersion() { return kCompilerVersion; }

std::vector<uint8_t> compiledProgram(const hal::IPreparedModel& network) {
    const auto* prepared = dynamic_cast<const PreparedNetwork*>(&network);
    if (prepared == nullptr || prepared->core() == nullptr) return {};
    const std::span<const uint8_t> bytes = prepared->core()->programBytes();
    return std::vector<uint8_t>(bytes.begin(), bytes.end());
}

Result<std::shared_ptr<hal::IPreparedModel>> networkFromProgram(std::vector<uint8_t> program) {
    NNEMU_ASSIGN_OR_RETURN(std::shared_ptr<PreparedNetwork> network,
                           PreparedNetwork::fromCachedProgram(cache::ProgramImage(std::move(program))));
    return std::shared_ptr<hal::IPreparedModel>(std::move(network));
}

}  // namespace nnemu::synap
