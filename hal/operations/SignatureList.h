// The functions of the operation signatures (validate, prepare, and where an operation has them
// featureLevel and checkValues), each defined in the hal/operations/<Family>.cpp named above its
// group. hal/operations/Signatures.cpp lists the signatures built from them, one per operation.
#pragma once

#include <span>

#include "nnemu/hal/Operations.h"
#include "nnemu/hal/TypeShorthands.h"

namespace nnemu::hal {

// The rows of hal/operations/Signatures.cpp, in their order.
std::span<const OperationSignature> allSignatures();

using namespace types;  // kF32, kQ8... (TypeShorthands.h)

// Input i is a tensor of values that operations move without computing on them: F16, F32, I32,
// Q8 or Q8S.
inline bool inputIsDataTensor(const OperationContext& context, uint32_t i) {
    return inputTypeIs(context, i, {kF16, kF32, kI32, kQ8, kQ8S});
}

}  // namespace nnemu::hal

namespace nnemu::hal::signatures {

// Activation.cpp
bool validateQuantizable(const OperationContext& context);
bool prepareSameShape(OperationContext& context);
int64_t signedFeatureLevel(const OperationContext& context);
void activationQuantization(OperationContext& context);
bool validateFloatOnly(const OperationContext& context);
bool validateAbs(const OperationContext& context);
int64_t absFeatureLevel(const OperationContext& context);
bool validateRsqrt(const OperationContext& context);
int64_t rsqrtFeatureLevel(const OperationContext& context);
bool validateNeg(const OperationContext& context);

// ArgMinMax.cpp
bool validateArgMinMax(const OperationContext& context);
bool prepareArgMinMax(OperationContext& context);

// BatchMatmul.cpp
bool validateBatchMatmul(const OperationContext& context);
bool prepareBatchMatmul(OperationContext& context);

// Cast.cpp
bool validateCast(const OperationContext& context);
bool prepareCast(OperationContext& context);
int64_t castFeatureLevel(const OperationContext& context);

// ChannelShuffle.cpp
bool validateChannelShuffle(const OperationContext& context);
bool prepareChannelShuffle(OperationContext& context);

// Comparison.cpp
bool validateComparison(const OperationContext& context);

// Concatenation.cpp
bool validateConcatenation(const OperationContext& context);
bool prepareConcatenation(OperationContext& context);

// ControlFlow.cpp
bool validateIf(const OperationContext& context);
bool interpretedOnly(OperationContext&);
bool validateWhile(const OperationContext& context);

// Convolution.cpp
bool validateConv2D(const OperationContext& context);
bool prepareConv2D(OperationContext& context);
bool checkConv2DValues(const OperationContext& context);
bool validateDepthwiseConv2D(const OperationContext& context);
bool prepareDepthwiseConv2D(OperationContext& context);
bool checkDepthwiseValues(const OperationContext& context);
bool validateGroupedConv2D(const OperationContext& context);
bool prepareGroupedConv2D(OperationContext& context);
bool checkGroupedValues(const OperationContext& context);

// Detection.cpp
bool validateBboxTransform(const OperationContext& context);
bool prepareBboxTransform(OperationContext& context);
bool validateBoxWithNmsLimit(const OperationContext& context);
bool prepareBoxWithNmsLimit(OperationContext& context);
bool validateGenerateProposals(const OperationContext& context);
bool prepareGenerateProposals(OperationContext& context);
bool validateDetectionPostprocessing(const OperationContext& context);
bool prepareDetectionPostprocessing(OperationContext& context);

// Elementwise.cpp
bool validateBinary(const OperationContext& context);
bool prepareBinary(OperationContext& context);
int64_t binaryFeatureLevel(const OperationContext& context);
bool checkBinaryValues(const OperationContext& context);

// EluHardSwish.cpp
bool validateElu(const OperationContext& context);
bool prepareEluHardSwish(OperationContext& context);
bool validateHardSwish(const OperationContext& context);

// FillRank.cpp
bool validateFill(const OperationContext& context);
bool prepareFill(OperationContext& context);
bool validateRank(const OperationContext& context);
bool prepareRank(OperationContext& context);

// FullyConnected.cpp
bool validateFullyConnected(const OperationContext& context);
bool prepareFullyConnected(OperationContext& context);
bool checkFullyConnectedValues(const OperationContext& context);

// Gather.cpp
bool validateGather(const OperationContext& context);
bool prepareGather(OperationContext& context);

// InstanceNormalization.cpp
bool validateInstanceNormalization(const OperationContext& context);
bool prepareInstanceNormalization(OperationContext& context);

// LogSoftmax.cpp
bool validateLogSoftmax(const OperationContext& context);
bool prepareLogSoftmax(OperationContext& context);

// Logical.cpp
bool validateAndOr(const OperationContext& context);
bool validateNot(const OperationContext& context);
bool prepareNot(OperationContext& context);

// Lookup.cpp
bool validateEmbeddingLookup(const OperationContext& context);
bool prepareEmbeddingLookup(OperationContext& context);
int64_t embeddingLookupFeatureLevel(const OperationContext& context);
bool validateHashtableLookup(const OperationContext& context);
bool prepareHashtableLookup(OperationContext& context);
bool validateLshProjection(const OperationContext& context);
bool prepareLshProjection(OperationContext& context);

// Normalization.cpp
bool validateL2Norm(const OperationContext& context);
bool prepareL2Norm(OperationContext& context);
bool validateLrn(const OperationContext& context);
bool prepareLrn(OperationContext& context);

// PackMirrorPadReverse.cpp
bool validatePack(const OperationContext& context);
bool preparePack(OperationContext& context);
bool validateMirrorPad(const OperationContext& context);
bool prepareMirrorPad(OperationContext& context);
bool validateReverse(const OperationContext& context);
bool prepareReverse(OperationContext& context);

// Pooling.cpp
bool validateQuantizablePool(const OperationContext& context);
bool preparePool(OperationContext& context);
bool checkPoolValues(const OperationContext& context);
bool validateFloatPool(const OperationContext& context);

// Power.cpp
bool validatePow(const OperationContext& context);
bool validatePrelu(const OperationContext& context);

// Quantization.cpp
bool validateDequantize(const OperationContext& context);
bool prepareDequantize(OperationContext& context);
bool validateQuantize(const OperationContext& context);
bool prepareQuantize(OperationContext& context);

// QuantizedLstm.cpp
bool validateQuantizedLstm(const OperationContext& context);
bool prepareQuantizedLstm(OperationContext& context);

// QuantizedLstmInteger.cpp
bool validateQuantizedLstmInteger(const OperationContext& context);
bool prepareQuantizedLstmInteger(OperationContext& context);

// RandomMultinomial.cpp
bool validateRandomMultinomial(const OperationContext& context);
bool prepareRandomMultinomial(OperationContext& context);

// Recurrent.cpp
bool validateLstm(const OperationContext& context);
bool prepareLstm(OperationContext& context);
bool validateRnn(const OperationContext& context);
bool prepareRnn(OperationContext& context);
bool validateSvdf(const OperationContext& context);
bool prepareSvdf(OperationContext& context);

// Reduction.cpp
bool validateMean(const OperationContext& context);
bool prepareReduction(OperationContext& context);
bool validateSumProd(const OperationContext& context);
bool validateReduceMaxMin(const OperationContext& context);
bool prepareMaxMin(OperationContext& context);
bool validateAnyAll(const OperationContext& context);

// Reshaping.cpp
bool validateReshape(const OperationContext& context);
bool prepareReshape(OperationContext& context);
int64_t reshapeFeatureLevel(const OperationContext& context);
bool validateWithAxisList(const OperationContext& context);
bool prepareSqueeze(OperationContext& context);
bool validateExpandDims(const OperationContext& context);
bool prepareExpandDims(OperationContext& context);
bool prepareTranspose(OperationContext& context);
bool validateBlockOp(const OperationContext& context);
bool prepareDepthToSpace(OperationContext& context);
bool prepareSpaceToDepth(OperationContext& context);
bool validateBatchToSpace(const OperationContext& context);
bool prepareBatchToSpace(OperationContext& context);
bool validateSpaceToBatch(const OperationContext& context);
bool prepareSpaceToBatch(OperationContext& context);

// Resize.cpp
bool validateBilinear(const OperationContext& context);
bool prepareResize(OperationContext& context);
int64_t resizeFeatureLevel(const OperationContext& context);
bool validateNearest(const OperationContext& context);

// Roi.cpp
bool validateRoiAlign(const OperationContext& context);
bool prepareRoiAlign(OperationContext& context);
bool validateRoiPooling(const OperationContext& context);
bool prepareRoiPooling(OperationContext& context);
bool validateHeatmapMaxKeypoint(const OperationContext& context);
bool prepareHeatmapMaxKeypoint(OperationContext& context);

// Selection.cpp
bool validateMaxMin(const OperationContext& context);
bool validateSelect(const OperationContext& context);
bool prepareSelect(OperationContext& context);

// SequenceRecurrent.cpp
bool validateUnidirectionalRnn(const OperationContext& context);
bool prepareUnidirectionalRnn(OperationContext& context);
int64_t unidirectionalFeatureLevel(const OperationContext& context);
bool validateBidirectionalRnn(const OperationContext& context);
bool prepareBidirectionalRnn(OperationContext& context);
int64_t bidirectionalRnnFeatureLevel(const OperationContext& context);
bool validateUnidirectionalLstm(const OperationContext& context);
bool prepareUnidirectionalLstm(OperationContext& context);
bool validateBidirectionalLstm(const OperationContext& context);
bool prepareBidirectionalLstm(OperationContext& context);
int64_t bidirectionalLstmFeatureLevel(const OperationContext& context);

// Slicing.cpp
bool validateStridedSlice(const OperationContext& context);
bool prepareStridedSlice(OperationContext& context);
bool validateSlice(const OperationContext& context);
bool prepareSlice(OperationContext& context);
bool validatePad(const OperationContext& context);
bool preparePad(OperationContext& context);
bool validatePadV2(const OperationContext& context);
bool preparePadV2(OperationContext& context);

// Softmax.cpp
bool validateSoftmax(const OperationContext& context);
bool prepareSoftmax(OperationContext& context);

// Splitting.cpp
bool validateSplit(const OperationContext& context);
bool prepareSplit(OperationContext& context);

// Tile.cpp
bool validateTile(const OperationContext& context);
bool prepareTile(OperationContext& context);

// TopK.cpp
bool validateTopK(const OperationContext& context);
bool prepareTopK(OperationContext& context);

// TransposeConvolution.cpp
bool validateTransposeConv2D(const OperationContext& context);
bool prepareTransposeConv2D(OperationContext& context);
bool checkTransposeConv2DValues(const OperationContext& context);

}  // namespace nnemu::hal::signatures
