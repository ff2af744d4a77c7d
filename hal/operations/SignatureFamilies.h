// One function per hal/operations/<Family>.cpp: the signatures that file defines. hal/Operations.cpp
// lists them all (kSignatureFamilies); a new family file adds its line here and there.
#pragma once

#include <span>

#include "nnemu/hal/Operations.h"

namespace nnemu::hal {

std::span<const OperationSignature> activationSignatures();
std::span<const OperationSignature> argMinMaxSignatures();
std::span<const OperationSignature> batchMatmulSignatures();
std::span<const OperationSignature> castSignatures();
std::span<const OperationSignature> channelShuffleSignatures();
std::span<const OperationSignature> comparisonSignatures();
std::span<const OperationSignature> concatenationSignatures();
std::span<const OperationSignature> controlFlowSignatures();
std::span<const OperationSignature> convolutionSignatures();
std::span<const OperationSignature> detectionSignatures();
std::span<const OperationSignature> elementwiseSignatures();
std::span<const OperationSignature> eluHardSwishSignatures();
std::span<const OperationSignature> fillRankSignatures();
std::span<const OperationSignature> fullyConnectedSignatures();
std::span<const OperationSignature> gatherSignatures();
std::span<const OperationSignature> instanceNormalizationSignatures();
std::span<const OperationSignature> logSoftmaxSignatures();
std::span<const OperationSignature> logicalSignatures();
std::span<const OperationSignature> lookupSignatures();
std::span<const OperationSignature> normalizationSignatures();
std::span<const OperationSignature> packMirrorPadReverseSignatures();
std::span<const OperationSignature> poolingSignatures();
std::span<const OperationSignature> powerSignatures();
std::span<const OperationSignature> quantizationSignatures();
std::span<const OperationSignature> quantizedLstmSignatures();
std::span<const OperationSignature> quantizedLstmIntegerSignatures();
std::span<const OperationSignature> randomMultinomialSignatures();
std::span<const OperationSignature> recurrentSignatures();
std::span<const OperationSignature> reductionSignatures();
std::span<const OperationSignature> reshapingSignatures();
std::span<const OperationSignature> resizeSignatures();
std::span<const OperationSignature> roiSignatures();
std::span<const OperationSignature> selectionSignatures();
std::span<const OperationSignature> sequenceRecurrentSignatures();
std::span<const OperationSignature> slicingSignatures();
std::span<const OperationSignature> softmaxSignatures();
std::span<const OperationSignature> splittingSignatures();
std::span<const OperationSignature> tileSignatures();
std::span<const OperationSignature> topKSignatures();
std::span<const OperationSignature> transposeConvolutionSignatures();

}  // namespace nnemu::hal
