#include "nnemu/hal/Operations.h"

#include <algorithm>
#include <cassert>
#include <limits>

#include "nnemu/hal/OperationCoverage.h"
#include "operations/SignatureList.h"

namespace nnemu::hal {
namespace {

OperationIndex<OperationSignature> buildIndex() {
    assert(signatureCoverageProblems().empty() && "hal/operations/Signatures.cpp: a signature missing or listed twice");
    return OperationIndex<OperationSignature>(allSignatures());
}

}  // namespace

std::vector<const OperationSignature*> listedSignatures() {
    std::vector<const OperationSignature*> signatures;
    for (const OperationSignature& signature : allSignatures()) signatures.push_back(&signature);
    return signatures;
}

std::vector<std::string> signatureCoverageProblems() {
    return coverageProblems(operationsOf(allSignatures()), std::numeric_limits<int64_t>::max(), nullptr, "signature");
}

const OperationSignature* findSignature(OperationType type) {
    static const OperationIndex<OperationSignature> index = buildIndex();
    return index.find(type);
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
    if (!signature.prepare(context)) return false;
    if (signature.outputQuantization != nullptr) signature.outputQuantization(context);
    return true;
}

bool declaredQuantizationIsPrepared(const OperationSignature& signature, const OperationContext& context) {
    if (signature.outputQuantization == nullptr) return true;
    OperationContext prepared = context;
    signature.outputQuantization(prepared);
    for (uint32_t i = 0; i < context.numOutputs(); ++i) {
        if (prepared.output(i).scale != context.output(i).scale ||
            prepared.output(i).zeroPoint != context.output(i).zeroPoint) {
            return false;
        }
    }
    return true;
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
