// Every operation's signature, one row per operation of OperationTable.def, grouped by the
// hal/operations/<Family>.cpp that defines its functions (declared in SignatureList.h). Explicit,
// so that what is registered does not depend on how the library is linked; adding an operation
// is one row here. signatureCoverageProblems() checks that every operation has exactly one.
#include "SignatureList.h"
#include "nnemu/hal/Broadcast.h"

namespace nnemu::hal::signatures {

constexpr OperationSignature kSignatures[] = {
    // Activation.cpp
    {OperationType::RELU, validateQuantizable, prepareSameShape, false, true, signedFeatureLevel, nullptr,
     activationQuantization},
    {OperationType::RELU1, validateQuantizable, prepareSameShape, false, true, signedFeatureLevel, nullptr,
     activationQuantization},
    {OperationType::RELU6, validateQuantizable, prepareSameShape, false, true, signedFeatureLevel, nullptr,
     activationQuantization},
    {OperationType::LOGISTIC, validateQuantizable, prepareSameShape, false, true, signedFeatureLevel, nullptr,
     activationQuantization},
    {OperationType::TANH, validateQuantizable, prepareSameShape, false, true, signedFeatureLevel, nullptr,
     activationQuantization},
    {OperationType::FLOOR, validateFloatOnly, prepareSameShape, false, false},
    {OperationType::ABS, validateAbs, prepareSameShape, false, false, absFeatureLevel},
    {OperationType::EXP, validateFloatOnly, prepareSameShape, false, false},
    {OperationType::LOG, validateFloatOnly, prepareSameShape, false, false},
    {OperationType::RSQRT, validateRsqrt, prepareSameShape, false, false, rsqrtFeatureLevel},
    {OperationType::SIN, validateFloatOnly, prepareSameShape, false, false},
    {OperationType::SQRT, validateFloatOnly, prepareSameShape, false, false},
    {OperationType::NEG, validateNeg, prepareSameShape, false, false},

    // ArgMinMax.cpp
    {OperationType::ARGMAX, validateArgMinMax, prepareArgMinMax, false, false},
    {OperationType::ARGMIN, validateArgMinMax, prepareArgMinMax, false, false},

    // BatchMatmul.cpp
    {OperationType::BATCH_MATMUL, validateBatchMatmul, prepareBatchMatmul, true, true},

    // Cast.cpp
    {OperationType::CAST, validateCast, prepareCast, false, false, castFeatureLevel},

    // ChannelShuffle.cpp
    {OperationType::CHANNEL_SHUFFLE, validateChannelShuffle, prepareChannelShuffle, false, false},

    // Comparison.cpp
    {OperationType::EQUAL, validateComparison, prepareBroadcastOutput, false, false},
    {OperationType::NOT_EQUAL, validateComparison, prepareBroadcastOutput, false, false},
    {OperationType::GREATER, validateComparison, prepareBroadcastOutput, false, false},
    {OperationType::GREATER_EQUAL, validateComparison, prepareBroadcastOutput, false, false},
    {OperationType::LESS, validateComparison, prepareBroadcastOutput, false, false},
    {OperationType::LESS_EQUAL, validateComparison, prepareBroadcastOutput, false, false},

    // Concatenation.cpp
    {OperationType::CONCATENATION, validateConcatenation, prepareConcatenation, false, true},

    // ControlFlow.cpp
    {OperationType::IF, validateIf, interpretedOnly},
    {OperationType::WHILE, validateWhile, interpretedOnly},

    // Convolution.cpp
    {OperationType::CONV_2D, validateConv2D, prepareConv2D, false, true, nullptr, checkConv2DValues},
    {OperationType::DEPTHWISE_CONV_2D, validateDepthwiseConv2D, prepareDepthwiseConv2D, false, true, nullptr,
     checkDepthwiseValues},
    {OperationType::GROUPED_CONV_2D, validateGroupedConv2D, prepareGroupedConv2D, false, false, nullptr,
     checkGroupedValues},

    // Detection.cpp
    {OperationType::AXIS_ALIGNED_BBOX_TRANSFORM, validateBboxTransform, prepareBboxTransform, false, true},
    {OperationType::BOX_WITH_NMS_LIMIT, validateBoxWithNmsLimit, prepareBoxWithNmsLimit, false, true},
    {OperationType::GENERATE_PROPOSALS, validateGenerateProposals, prepareGenerateProposals, false, false},
    {OperationType::DETECTION_POSTPROCESSING, validateDetectionPostprocessing, prepareDetectionPostprocessing, false,
     false},

    // Elementwise.cpp
    {OperationType::ADD, validateBinary, prepareBinary, false, true, binaryFeatureLevel, checkBinaryValues},
    {OperationType::MUL, validateBinary, prepareBinary, false, true, binaryFeatureLevel, checkBinaryValues},
    {OperationType::SUB, validateBinary, prepareBinary, false, true, binaryFeatureLevel, checkBinaryValues},
    {OperationType::DIV, validateBinary, prepareBinary, false, true, binaryFeatureLevel, checkBinaryValues},

    // EluHardSwish.cpp
    {OperationType::ELU, validateElu, prepareEluHardSwish, false, true},
    {OperationType::HARD_SWISH, validateHardSwish, prepareEluHardSwish, false, true},

    // FillRank.cpp
    {OperationType::FILL, validateFill, prepareFill, false, false},
    {OperationType::RANK, validateRank, prepareRank, false, true},

    // FullyConnected.cpp
    {OperationType::FULLY_CONNECTED, validateFullyConnected, prepareFullyConnected, false, true, nullptr,
     checkFullyConnectedValues},

    // Gather.cpp
    {OperationType::GATHER, validateGather, prepareGather, false, false},

    // InstanceNormalization.cpp
    {OperationType::INSTANCE_NORMALIZATION, validateInstanceNormalization, prepareInstanceNormalization, false, false},

    // LogSoftmax.cpp
    {OperationType::LOG_SOFTMAX, validateLogSoftmax, prepareLogSoftmax, false, false},

    // Logical.cpp
    {OperationType::LOGICAL_AND, validateAndOr, prepareBroadcastOutput, false, false},
    {OperationType::LOGICAL_OR, validateAndOr, prepareBroadcastOutput, false, false},
    {OperationType::LOGICAL_NOT, validateNot, prepareNot, false, false},

    // Lookup.cpp
    {OperationType::EMBEDDING_LOOKUP, validateEmbeddingLookup, prepareEmbeddingLookup, false, false,
     embeddingLookupFeatureLevel},
    {OperationType::HASHTABLE_LOOKUP, validateHashtableLookup, prepareHashtableLookup, false, false},
    {OperationType::LSH_PROJECTION, validateLshProjection, prepareLshProjection, true, false},

    // Normalization.cpp
    {OperationType::L2_NORMALIZATION, validateL2Norm, prepareL2Norm, false, false},
    {OperationType::LOCAL_RESPONSE_NORMALIZATION, validateLrn, prepareLrn, false, false},

    // PackMirrorPadReverse.cpp
    {OperationType::PACK, validatePack, preparePack, false, true},
    {OperationType::MIRROR_PAD, validateMirrorPad, prepareMirrorPad, false, true},
    {OperationType::REVERSE, validateReverse, prepareReverse, false, true},

    // Pooling.cpp
    {OperationType::AVERAGE_POOL_2D, validateQuantizablePool, preparePool, false, true, nullptr, checkPoolValues},
    {OperationType::MAX_POOL_2D, validateQuantizablePool, preparePool, false, true, nullptr, checkPoolValues},
    {OperationType::L2_POOL_2D, validateFloatPool, preparePool, false, true, nullptr, checkPoolValues},

    // Power.cpp
    {OperationType::POW, validatePow, prepareBroadcastOutput, false, false},
    {OperationType::PRELU, validatePrelu, prepareBroadcastOutput, false, false},

    // Quantization.cpp
    {OperationType::DEQUANTIZE, validateDequantize, prepareDequantize, false, true},
    {OperationType::QUANTIZE, validateQuantize, prepareQuantize, false, true},

    // QuantizedLstm.cpp
    {OperationType::QUANTIZED_16BIT_LSTM, validateQuantizedLstm, prepareQuantizedLstm, false, false},

    // QuantizedLstmInteger.cpp
    {OperationType::QUANTIZED_LSTM, validateQuantizedLstmInteger, prepareQuantizedLstmInteger, true, false},

    // RandomMultinomial.cpp
    {OperationType::RANDOM_MULTINOMIAL, validateRandomMultinomial, prepareRandomMultinomial, false, false},

    // Recurrent.cpp
    {OperationType::LSTM, validateLstm, prepareLstm, true, false},
    {OperationType::RNN, validateRnn, prepareRnn, false, false},
    {OperationType::SVDF, validateSvdf, prepareSvdf, true, false},

    // Reduction.cpp
    {OperationType::MEAN, validateMean, prepareReduction, false, false},
    {OperationType::REDUCE_SUM, validateSumProd, prepareReduction, false, false},
    {OperationType::REDUCE_PROD, validateSumProd, prepareReduction, false, false},
    {OperationType::REDUCE_MAX, validateReduceMaxMin, prepareMaxMin, false, false},
    {OperationType::REDUCE_MIN, validateReduceMaxMin, prepareMaxMin, false, false},
    {OperationType::REDUCE_ANY, validateAnyAll, prepareReduction, false, false},
    {OperationType::REDUCE_ALL, validateAnyAll, prepareReduction, false, false},

    // Reshaping.cpp
    {OperationType::RESHAPE, validateReshape, prepareReshape, false, false, reshapeFeatureLevel},
    {OperationType::SQUEEZE, validateWithAxisList, prepareSqueeze, true, false},
    {OperationType::EXPAND_DIMS, validateExpandDims, prepareExpandDims, false, false},
    {OperationType::TRANSPOSE, validateWithAxisList, prepareTranspose, true, true},
    {OperationType::DEPTH_TO_SPACE, validateBlockOp, prepareDepthToSpace, false, false},
    {OperationType::SPACE_TO_DEPTH, validateBlockOp, prepareSpaceToDepth, false, false},
    {OperationType::BATCH_TO_SPACE_ND, validateBatchToSpace, prepareBatchToSpace, false, false},
    {OperationType::SPACE_TO_BATCH_ND, validateSpaceToBatch, prepareSpaceToBatch, false, false},

    // Resize.cpp
    {OperationType::RESIZE_BILINEAR, validateBilinear, prepareResize, false, true, resizeFeatureLevel},
    {OperationType::RESIZE_NEAREST_NEIGHBOR, validateNearest, prepareResize, false, true, resizeFeatureLevel},

    // Roi.cpp
    {OperationType::ROI_ALIGN, validateRoiAlign, prepareRoiAlign, false, true},
    {OperationType::ROI_POOLING, validateRoiPooling, prepareRoiPooling, false, false},
    {OperationType::HEATMAP_MAX_KEYPOINT, validateHeatmapMaxKeypoint, prepareHeatmapMaxKeypoint, false, false},

    // Selection.cpp
    {OperationType::MAXIMUM, validateMaxMin, prepareBroadcastOutput, false, false},
    {OperationType::MINIMUM, validateMaxMin, prepareBroadcastOutput, false, false},
    {OperationType::SELECT, validateSelect, prepareSelect, false, false},

    // SequenceRecurrent.cpp
    {OperationType::UNIDIRECTIONAL_SEQUENCE_RNN, validateUnidirectionalRnn, prepareUnidirectionalRnn, false, false,
     unidirectionalFeatureLevel},
    {OperationType::BIDIRECTIONAL_SEQUENCE_RNN, validateBidirectionalRnn, prepareBidirectionalRnn, true, false,
     bidirectionalRnnFeatureLevel},
    {OperationType::UNIDIRECTIONAL_SEQUENCE_LSTM, validateUnidirectionalLstm, prepareUnidirectionalLstm, true, false,
     unidirectionalFeatureLevel},
    {OperationType::BIDIRECTIONAL_SEQUENCE_LSTM, validateBidirectionalLstm, prepareBidirectionalLstm, true, false,
     bidirectionalLstmFeatureLevel},

    // Slicing.cpp
    {OperationType::STRIDED_SLICE, validateStridedSlice, prepareStridedSlice, false, false},
    {OperationType::SLICE, validateSlice, prepareSlice, false, true},
    {OperationType::PAD, validatePad, preparePad, false, false},
    {OperationType::PAD_V2, validatePadV2, preparePadV2, false, false},

    // Softmax.cpp
    {OperationType::SOFTMAX, validateSoftmax, prepareSoftmax, false, true},

    // Splitting.cpp
    {OperationType::SPLIT, validateSplit, prepareSplit, false, false},

    // Tile.cpp
    {OperationType::TILE, validateTile, prepareTile, false, false},

    // TopK.cpp
    {OperationType::TOPK_V2, validateTopK, prepareTopK, false, false},

    // TransposeConvolution.cpp
    {OperationType::TRANSPOSE_CONV_2D, validateTransposeConv2D, prepareTransposeConv2D, false, true, nullptr,
     checkTransposeConv2DValues},
};

}  // namespace nnemu::hal::signatures

namespace nnemu::hal {

std::span<const OperationSignature> allSignatures() { return signatures::kSignatures; }

}  // namespace nnemu::hal
