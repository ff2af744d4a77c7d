// The functions of the tools' CPU kernels (prepare, run), each family in the namespace of the
// cpu/<Family>.cpp that defines them; CpuKernelTable.cpp lists them by builtin code (kKernels).
#pragma once

#include "CpuKernel.h"

namespace nnemu::tflite::kernels {

namespace activation {   // Activation.cpp
bool prepareRelu0To1(const CpuKernelCall& call);
bool runRelu0To1(const CpuKernelCall& call);
bool prepareReluX(const CpuKernelCall& call);
bool runRelu(const CpuKernelCall& call);
bool runRelu6(const CpuKernelCall& call);
bool runReluN1To1(const CpuKernelCall& call);
bool prepareGelu(const CpuKernelCall& call);
bool runGelu(const CpuKernelCall& call);
bool prepareLeakyRelu(const CpuKernelCall& call);
bool runLeakyRelu(const CpuKernelCall& call);
bool prepareElu(const CpuKernelCall& call);
bool runElu(const CpuKernelCall& call);
bool prepareFakeQuant(const CpuKernelCall& call);
bool runFakeQuant(const CpuKernelCall& call);
bool prepareHardSwish(const CpuKernelCall& call);
bool runHardSwish(const CpuKernelCall& call);
bool prepareTanh(const CpuKernelCall& call);
bool runTanh(const CpuKernelCall& call);
bool prepareLogistic(const CpuKernelCall& call);   // float32; reached through activation16's
bool runLogistic(const CpuKernelCall& call);
}  // namespace activation

namespace activation16 {   // Activation16.cpp
bool prepareLogistic(const CpuKernelCall& call);   // int16; float32 to activation::prepareLogistic
bool runLogistic(const CpuKernelCall& call);
bool prepareTanh(const CpuKernelCall& call);   // int16; float32 to activation::prepareTanh
bool runTanh(const CpuKernelCall& call);
}  // namespace activation16

namespace add_n_atan2 {   // AddNAtan2.cpp
bool prepareAddN(const CpuKernelCall& call);
bool runAddN(const CpuKernelCall& call);
bool prepareAtan2(const CpuKernelCall& call);
bool runAtan2(const CpuKernelCall& call);
}  // namespace add_n_atan2

namespace arg_min_max {   // ArgMinMax.cpp
bool prepareArg(const CpuKernelCall& call);
bool runArgMax(const CpuKernelCall& call);
bool runArgMin(const CpuKernelCall& call);
}  // namespace arg_min_max

namespace arithmetic {   // Arithmetic.cpp
bool prepareAdd(const CpuKernelCall& call);
bool runAdd(const CpuKernelCall& call);
bool prepareSub(const CpuKernelCall& call);
bool runSub(const CpuKernelCall& call);
bool prepareMul(const CpuKernelCall& call);
bool runMul(const CpuKernelCall& call);
}  // namespace arithmetic

namespace binary {   // Binary.cpp
bool prepareFloorDiv(const CpuKernelCall& call);
bool runFloorDiv(const CpuKernelCall& call);
bool prepareFloorMod(const CpuKernelCall& call);
bool runFloorMod(const CpuKernelCall& call);
bool prepareSquaredDifference(const CpuKernelCall& call);
bool runSquaredDifference(const CpuKernelCall& call);
bool prepareQuantizedExtremum(const CpuKernelCall& call);
bool runQuantizedMaximum(const CpuKernelCall& call);
bool runQuantizedMinimum(const CpuKernelCall& call);
}  // namespace binary

namespace batch_matmul {   // BatchMatmul.cpp
bool prepareBatchMatmul(const CpuKernelCall& call);
bool runBatchMatmul(const CpuKernelCall& call);
}  // namespace batch_matmul

namespace bitwise {   // Bitwise.cpp
bool prepareBitwise(const CpuKernelCall& call);
bool runBitwiseXor(const CpuKernelCall& call);
bool runRightShift(const CpuKernelCall& call);
}  // namespace bitwise

namespace broadcast_to {   // BroadcastTo.cpp
bool prepareBroadcastTo(const CpuKernelCall& call);
bool runBroadcastTo(const CpuKernelCall& call);
bool broadcastArgsCheck(const CpuKernelCall& call);
bool runBroadcastArgs(const CpuKernelCall& call);
}  // namespace broadcast_to

namespace bucketize {   // Bucketize.cpp
bool prepareBucketize(const CpuKernelCall& call);
bool runBucketize(const CpuKernelCall& call);
}  // namespace bucketize

namespace cast {   // Cast.cpp
bool prepareCast(const CpuKernelCall& call);
bool runCast(const CpuKernelCall& call);
bool prepareBitcast(const CpuKernelCall& call);
bool runBitcast(const CpuKernelCall& call);
}  // namespace cast

namespace comparison {   // QuantizedComparison.cpp
bool prepareQuantized(const CpuKernelCall& call);
bool runEqual(const CpuKernelCall& call);
bool runNotEqual(const CpuKernelCall& call);
bool runLess(const CpuKernelCall& call);
bool runLessEqual(const CpuKernelCall& call);
bool runGreater(const CpuKernelCall& call);
bool runGreaterEqual(const CpuKernelCall& call);
}  // namespace comparison

namespace conv {   // Conv.cpp
bool prepareConv(const CpuKernelCall& call);
bool runConv(const CpuKernelCall& call);
}  // namespace conv

namespace conv3d {   // Conv3d.cpp
bool prepareConv3d(const CpuKernelCall& call);
bool runConv3d(const CpuKernelCall& call);
bool prepareTranspose(const CpuKernelCall& call);
bool runTranspose(const CpuKernelCall& call);
}  // namespace conv3d

namespace cos {   // Cos.cpp
bool prepareCos(const CpuKernelCall& call);
bool runCos(const CpuKernelCall& call);
}  // namespace cos

namespace gather {   // Gather.cpp
bool prepareGatherNd(const CpuKernelCall& call);
bool runGatherNd(const CpuKernelCall& call);
}  // namespace gather

namespace generate {   // Generate.cpp
bool prepareOneHot(const CpuKernelCall& call);
bool runOneHot(const CpuKernelCall& call);
bool prepareRange(const CpuKernelCall& call);
bool runRange(const CpuKernelCall& call);
}  // namespace generate

namespace indexing {   // Indexing.cpp
bool prepareWhere(const CpuKernelCall& call);
bool runWhere(const CpuKernelCall& call);
bool prepareUnique(const CpuKernelCall& call);
bool runUnique(const CpuKernelCall& call);
}  // namespace indexing

namespace hybrid {   // HybridFullyConnected.cpp, HybridDepthwise.cpp
bool prepareFullyConnected(const CpuKernelCall& call);
bool runFullyConnected(const CpuKernelCall& call);
bool prepareDepthwise(const CpuKernelCall& call);
bool runDepthwise(const CpuKernelCall& call);
}  // namespace hybrid

namespace softmax {   // SoftmaxFloat.cpp
bool prepareSoftmax(const CpuKernelCall& call);
bool runSoftmax(const CpuKernelCall& call);
bool prepareQuantized(const CpuKernelCall& call);   // QuantizedSoftmax.cpp
bool runQuantized(const CpuKernelCall& call);
bool prepareInt16(const CpuKernelCall& call);   // Softmax16.cpp
bool runInt16(const CpuKernelCall& call);
bool prepareXnnpackSoftmax(const CpuKernelCall& call);   // XnnpackFloatSoftmax.cpp: float, beta 1
void runXnnpackSoftmax(const float* in, float* out, size_t rows, size_t depth);
}  // namespace softmax

namespace lookup {   // Lookup.cpp
bool prepareEmbeddingLookup(const CpuKernelCall& call);
bool runEmbeddingLookup(const CpuKernelCall& call);
bool prepareHashtableLookup(const CpuKernelCall& call);
bool runHashtableLookup(const CpuKernelCall& call);
}  // namespace lookup

namespace matrix_diag {   // MatrixDiag.cpp
bool prepareMatrixDiag(const CpuKernelCall& call);
bool runMatrixDiag(const CpuKernelCall& call);
bool prepareMatrixSetDiag(const CpuKernelCall& call);
bool runMatrixSetDiag(const CpuKernelCall& call);
}  // namespace matrix_diag

namespace pooling {   // Pooling16.cpp
bool preparePool16(const CpuKernelCall& call);
bool runAveragePool16(const CpuKernelCall& call);
bool runMaxPool16(const CpuKernelCall& call);
// Pool2DOptions checked on a rank-4 input, the output size and leading padding (SAME puts the odd
// padding row or column at the end), and the output's declared shape checked.
struct PoolWindow {
    int32_t outH = 0, outW = 0, padH = 0, padW = 0;
};
bool poolWindow(const CpuKernelCall& call, PoolWindow* shape);
bool prepareAveragePool(const CpuKernelCall& call);   // int16 (Pooling16.cpp), float: XnnpackFloatPool.cpp
bool runAveragePool(const CpuKernelCall& call);
bool prepareXnnpackAveragePool(const CpuKernelCall& call);   // XnnpackFloatPool.cpp
bool runXnnpackAveragePool(const CpuKernelCall& call);
}  // namespace pooling

namespace quantization {   // Quantization.cpp
bool prepareRequantize(const CpuKernelCall& call);
bool runRequantize(const CpuKernelCall& call);
bool prepareDequantize(const CpuKernelCall& call);
bool runDequantize(const CpuKernelCall& call);
}  // namespace quantization

namespace l2_norm {   // QuantizedL2Norm.cpp
bool prepareQuantized(const CpuKernelCall& call);
bool runQuantized(const CpuKernelCall& call);
}  // namespace l2_norm

namespace log_softmax {   // QuantizedLogSoftmax.cpp
bool prepareQuantized(const CpuKernelCall& call);
bool runQuantized(const CpuKernelCall& call);
}  // namespace log_softmax

namespace quantized_div {   // QuantizedDiv.cpp
bool prepareDiv(const CpuKernelCall& call);
bool runDiv(const CpuKernelCall& call);
}  // namespace quantized_div

namespace transpose_conv {   // TransposeConv16.cpp
bool prepareInt16(const CpuKernelCall& call);
bool runInt16(const CpuKernelCall& call);
}  // namespace transpose_conv

namespace movement {   // Movement.cpp
bool prepareSqueeze(const CpuKernelCall& call);
bool runSqueeze(const CpuKernelCall& call);
bool prepareTranspose(const CpuKernelCall& call);
bool runTranspose(const CpuKernelCall& call);
bool prepareConcatenation(const CpuKernelCall& call);
bool runConcatenation(const CpuKernelCall& call);
bool preparePad(const CpuKernelCall& call);
bool runPad(const CpuKernelCall& call);
}  // namespace movement

namespace non_max_suppression {   // NonMaxSuppression.cpp
bool prepareNms(const CpuKernelCall& call);
bool runNms(const CpuKernelCall& call);
}  // namespace non_max_suppression

namespace reduce {   // Reduce.cpp, ReduceExtrema.cpp, QuantizedMean.cpp
bool prepareQuantizedMean(const CpuKernelCall& call);
bool runQuantizedMean(const CpuKernelCall& call);
bool prepareXnnpackMean(const CpuKernelCall& call);   // float MEAN, XNNPACK's (XnnpackFloatMean.cpp)
bool runXnnpackMean(const CpuKernelCall& call);
bool prepareSum(const CpuKernelCall& call);
bool runSum(const CpuKernelCall& call);
bool prepareReduceMax(const CpuKernelCall& call);
bool runReduceMax(const CpuKernelCall& call);
bool prepareReduceMin(const CpuKernelCall& call);
bool runReduceMin(const CpuKernelCall& call);
bool prepareReduceProd(const CpuKernelCall& call);
bool runReduceProd(const CpuKernelCall& call);
}  // namespace reduce

namespace reduce_all {   // ReduceAll.cpp
bool prepareReduceAll(const CpuKernelCall& call);
bool runReduceAll(const CpuKernelCall& call);
}  // namespace reduce_all

namespace resize {   // Resize.cpp
bool prepareResize(const CpuKernelCall& call);
bool runBilinear(const CpuKernelCall& call);
bool runNearest(const CpuKernelCall& call);
}  // namespace resize

namespace reverse_sequence {   // ReverseSequence.cpp
bool prepareReverseSequence(const CpuKernelCall& call);
bool runReverseSequence(const CpuKernelCall& call);
}  // namespace reverse_sequence

namespace scan {   // Scan.cpp
bool prepareCumsum(const CpuKernelCall& call);
bool runCumsum(const CpuKernelCall& call);
}  // namespace scan

namespace scatter {   // Scatter.cpp
bool prepareScatterNd(const CpuKernelCall& call);
bool runScatterNd(const CpuKernelCall& call);
bool prepareSparseToDense(const CpuKernelCall& call);
bool runSparseToDense(const CpuKernelCall& call);
bool prepareDynamicUpdateSlice(const CpuKernelCall& call);
bool runDynamicUpdateSlice(const CpuKernelCall& call);
}  // namespace scatter

namespace select_pow_abs {   // SelectPowAbs.cpp
bool prepareSelectV2(const CpuKernelCall& call);
bool runSelectV2(const CpuKernelCall& call);
bool preparePow(const CpuKernelCall& call);
bool runPow(const CpuKernelCall& call);
bool prepareAbs(const CpuKernelCall& call);
bool runAbs(const CpuKernelCall& call);
}  // namespace select_pow_abs

namespace segment {   // Segment.cpp
bool prepareSegmentSum(const CpuKernelCall& call);
bool runSegmentSum(const CpuKernelCall& call);
bool prepareUnsorted(const CpuKernelCall& call);
bool runUnsortedSegmentSum(const CpuKernelCall& call);
bool runUnsortedSegmentProd(const CpuKernelCall& call);
bool runUnsortedSegmentMax(const CpuKernelCall& call);
bool runUnsortedSegmentMin(const CpuKernelCall& call);
}  // namespace segment

namespace shape {   // Shape.cpp
bool prepareShape(const CpuKernelCall& call);
bool runShape(const CpuKernelCall& call);
bool prepareUnpack(const CpuKernelCall& call);
bool runUnpack(const CpuKernelCall& call);
bool prepareSplitV(const CpuKernelCall& call);
bool runSplitV(const CpuKernelCall& call);
}  // namespace shape

namespace strided_slice {   // StridedSlice.cpp
bool prepareStridedSlice(const CpuKernelCall& call);
bool runStridedSlice(const CpuKernelCall& call);
}  // namespace strided_slice

namespace unary {   // Unary.cpp
bool prepareFloat(const CpuKernelCall& call);
bool runSquare(const CpuKernelCall& call);
bool runCeil(const CpuKernelCall& call);
bool runRound(const CpuKernelCall& call);
bool prepareSign(const CpuKernelCall& call);
bool runSign(const CpuKernelCall& call);
bool prepareZerosLike(const CpuKernelCall& call);
bool runZerosLike(const CpuKernelCall& call);
bool prepareRank(const CpuKernelCall& call);
bool runRank(const CpuKernelCall& call);
}  // namespace unary

}  // namespace nnemu::tflite::kernels
