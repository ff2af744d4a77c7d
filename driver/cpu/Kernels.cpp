#include "nnemu/cpu/Kernels.h"

#include <array>
#include <cassert>

#include "kernels/KernelFamilies.h"
#include "nnemu/hal/ControlFlow.h"
#include "nnemu/hal/OperationCoverage.h"

namespace nnemu::cpu {
namespace {

// Every reference kernel, one family (driver/cpu/kernels/<Family>.cpp) per line. Explicit, so
// that what is registered does not depend on how the library is linked.
constexpr std::span<const KernelEntry> (*kKernelFamilies[])() = {
        activationKernels,
        argMinMaxKernels,
        batchMatmulKernels,
        castKernels,
        channelShuffleKernels,
        comparisonKernels,
        concatenationKernels,
        convolutionKernels,
        detectionKernels,
        detectionPostprocessingKernels,
        elementwiseKernels,
        eluHardSwishKernels,
        fillRankKernels,
        fullyConnectedKernels,
        gatherKernels,
        heatmapMaxKeypointKernels,
        instanceNormalizationKernels,
        logSoftmaxKernels,
        logicalKernels,
        lookupKernels,
        normalizationKernels,
        packMirrorPadReverseKernels,
        poolingKernels,
        powerKernels,
        quantizationKernels,
        quantizedLstmKernels,
        quantizedLstmIntegerKernels,
        randomMultinomialKernels,
        recurrentKernels,
        reductionKernels,
        reshapingKernels,
        resizeKernels,
        roiKernels,
        selectionKernels,
        sequenceRecurrentKernels,
        slicingKernels,
        softmaxKernels,
        splittingKernels,
        tileKernels,
        topKKernels,
        transposeConvolutionKernels,
};

using KernelTable = std::array<Kernel, hal::kNumberOfOperationTypes>;

KernelTable buildTable() {
    assert(kernelCoverageProblems().empty() && "driver/cpu/Kernels.cpp: a kernel missing or listed twice");
    KernelTable table{};
    for (auto family : kKernelFamilies) {
        for (const KernelEntry& entry : family()) {
            const auto code = static_cast<int32_t>(entry.type);
            if (code >= 0 && code < hal::kNumberOfOperationTypes && table[code] == nullptr) table[code] = entry.kernel;
        }
    }
    return table;
}

}  // namespace

std::vector<hal::OperationType> listedKernels() {
    std::vector<hal::OperationType> listed;
    for (auto family : kKernelFamilies) {
        for (const KernelEntry& entry : family()) listed.push_back(entry.type);
    }
    return listed;
}

std::vector<std::string> kernelCoverageProblems() {
    return hal::coverageProblems(listedKernels(), kReferenceFeatureLevel, hal::isControlFlow, "reference kernel");
}

Kernel findKernel(hal::OperationType type) {
    static const KernelTable table = buildTable();
    const auto code = static_cast<int32_t>(type);
    if (code < 0 || code >= hal::kNumberOfOperationTypes) return nullptr;
    return table[code];
}

}  // namespace nnemu::cpu
