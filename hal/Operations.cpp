#include "nnemu/hal/Operations.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <limits>

#include "nnemu/hal/OperationCoverage.h"
#include "operations/SignatureFamilies.h"

namespace nnemu::hal {
namespace {

// Every operation's signature, one family (hal/operations/<Family>.cpp) per line. Explicit, so
// that what is registered does not depend on how the library is linked.
constexpr std::span<const OperationSignature> (*kSignatureFamilies[])() = {
        activationSignatures,
        argMinMaxSignatures,
        batchMatmulSignatures,
        castSignatures,
        channelShuffleSignatures,
        comparisonSignatures,
        concatenationSignatures,
        controlFlowSignatures,
        convolutionSignatures,
        detectionSignatures,
        elementwiseSignatures,
        eluHardSwishSignatures,
        fillRankSignatures,
        fullyConnectedSignatures,
        gatherSignatures,
        instanceNormalizationSignatures,
        logSoftmaxSignatures,
        logicalSignatures,
        lookupSignatures,
        normalizationSignatures,
        packMirrorPadReverseSignatures,
        poolingSignatures,
        powerSignatures,
        quantizationSignatures,
        quantizedLstmSignatures,
        quantizedLstmIntegerSignatures,
        randomMultinomialSignatures,
        recurrentSignatures,
        reductionSignatures,
        reshapingSignatures,
        resizeSignatures,
        roiSignatures,
        selectionSignatures,
        sequenceRecurrentSignatures,
        slicingSignatures,
        softmaxSignatures,
        splittingSignatures,
        tileSignatures,
        topKSignatures,
        transposeConvolutionSignatures,
};

using SignatureTable = std::array<const OperationSignature*, kNumberOfOperationTypes>;

SignatureTable buildTable() {
    assert(signatureCoverageProblems().empty() && "hal/Operations.cpp: a signature missing or listed twice");
    SignatureTable table{};
    for (const OperationSignature* signature : listedSignatures()) {
        const auto code = static_cast<int32_t>(signature->type);
        if (code >= 0 && code < kNumberOfOperationTypes && table[code] == nullptr) table[code] = signature;
    }
    return table;
}

}  // namespace

std::vector<const OperationSignature*> listedSignatures() {
    std::vector<const OperationSignature*> signatures;
    for (auto family : kSignatureFamilies) {
        for (const OperationSignature& signature : family()) signatures.push_back(&signature);
    }
    return signatures;
}

std::vector<std::string> signatureCoverageProblems() {
    std::vector<OperationType> listed;
    for (const OperationSignature* signature : listedSignatures()) listed.push_back(signature->type);
    return coverageProblems(listed, std::numeric_limits<int64_t>::max(), nullptr, "signature");
}

const OperationSignature* findSignature(OperationType type) {
    static const SignatureTable table = buildTable();
    const auto code = static_cast<int32_t>(type);
    if (code < 0 || code >= kNumberOfOperationTypes) return nullptr;
    return table[code];
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
