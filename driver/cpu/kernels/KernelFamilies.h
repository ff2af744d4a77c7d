// One function per driver/cpu/kernels/<Family>.cpp: the reference kernels that file defines.
// driver/cpu/Kernels.cpp lists them all (kKernelFamilies); a new family file adds its line here
// and there.
#pragma once

#include <span>

#include "nnemu/cpu/Kernels.h"

namespace nnemu::cpu {

std::span<const KernelEntry> activationKernels();
std::span<const KernelEntry> argMinMaxKernels();
std::span<const KernelEntry> batchMatmulKernels();
std::span<const KernelEntry> castKernels();
std::span<const KernelEntry> channelShuffleKernels();
std::span<const KernelEntry> comparisonKernels();
std::span<const KernelEntry> concatenationKernels();
std::span<const KernelEntry> convolutionKernels();
std::span<const KernelEntry> detectionKernels();
std::span<const KernelEntry> detectionPostprocessingKernels();
std::span<const KernelEntry> elementwiseKernels();
std::span<const KernelEntry> eluHardSwishKernels();
std::span<const KernelEntry> fillRankKernels();
std::span<const KernelEntry> fullyConnectedKernels();
std::span<const KernelEntry> gatherKernels();
std::span<const KernelEntry> heatmapMaxKeypointKernels();
std::span<const KernelEntry> instanceNormalizationKernels();
std::span<const KernelEntry> logSoftmaxKernels();
std::span<const KernelEntry> logicalKernels();
std::span<const KernelEntry> lookupKernels();
std::span<const KernelEntry> normalizationKernels();
std::span<const KernelEntry> packMirrorPadReverseKernels();
std::span<const KernelEntry> poolingKernels();
std::span<const KernelEntry> powerKernels();
std::span<const KernelEntry> quantizationKernels();
std::span<const KernelEntry> quantizedLstmKernels();
std::span<const KernelEntry> quantizedLstmIntegerKernels();
std::span<const KernelEntry> randomMultinomialKernels();
std::span<const KernelEntry> recurrentKernels();
std::span<const KernelEntry> reductionKernels();
std::span<const KernelEntry> reshapingKernels();
std::span<const KernelEntry> resizeKernels();
std::span<const KernelEntry> roiKernels();
std::span<const KernelEntry> selectionKernels();
std::span<const KernelEntry> sequenceRecurrentKernels();
std::span<const KernelEntry> slicingKernels();
std::span<const KernelEntry> softmaxKernels();
std::span<const KernelEntry> splittingKernels();
std::span<const KernelEntry> tileKernels();
std::span<const KernelEntry> topKKernels();
std::span<const KernelEntry> transposeConvolutionKernels();

}  // namespace nnemu::cpu
