// The lowering functions of TFLite builtins, each family in the namespace of the Lower<Family>.cpp
// that defines them; LoweringTable.cpp lists them by builtin code (kLowerings).
#pragma once

#include "NodeLowering.h"

namespace nnemu::tflite::lowerings {

namespace activation {   // LowerActivation.cpp
bool lowerHardSwish(NodeLowering& l);
bool lowerLeakyRelu(NodeLowering& l);
bool lowerElu(NodeLowering& l);
bool lowerSquaredDifference(NodeLowering& l);
}  // namespace activation

namespace comparison {   // LowerComparison.cpp
bool lowerEqual(NodeLowering& l);
bool lowerNotEqual(NodeLowering& l);
bool lowerGreater(NodeLowering& l);
bool lowerGreaterEqual(NodeLowering& l);
bool lowerLess(NodeLowering& l);
bool lowerLessEqual(NodeLowering& l);
bool lowerLogicalAnd(NodeLowering& l);
bool lowerLogicalOr(NodeLowering& l);
bool lowerLogicalNot(NodeLowering& l);
}  // namespace comparison

namespace control_flow {   // LowerControlFlow.cpp
bool lowerWhile(NodeLowering& l);
bool lowerIf(NodeLowering& l);
}  // namespace control_flow

namespace convolution {   // LowerConvolution.cpp
bool lowerConv2D(NodeLowering& l);
bool lowerDepthwiseConv2D(NodeLowering& l);
}  // namespace convolution

namespace data_movement {   // LowerDataMovement.cpp
bool lowerMirrorPad(NodeLowering& l);
bool lowerReverseV2(NodeLowering& l);
bool lowerBatchMatmul(NodeLowering& l);
}  // namespace data_movement

namespace detection {   // LowerDetection.cpp
bool lowerDetectionPostProcess(NodeLowering& l);
}  // namespace detection

namespace elementwise {   // LowerElementwise.cpp
bool lowerAdd(NodeLowering& l);
bool lowerSub(NodeLowering& l);
bool lowerMul(NodeLowering& l);
bool lowerDiv(NodeLowering& l);
bool lowerRelu(NodeLowering& l);
bool lowerRelu1(NodeLowering& l);
bool lowerRelu6(NodeLowering& l);
bool lowerLogistic(NodeLowering& l);
bool lowerTanh(NodeLowering& l);
bool lowerFloor(NodeLowering& l);
bool lowerAbs(NodeLowering& l);
bool lowerExp(NodeLowering& l);
bool lowerLog(NodeLowering& l);
bool lowerNeg(NodeLowering& l);
bool lowerRsqrt(NodeLowering& l);
bool lowerSin(NodeLowering& l);
bool lowerSqrt(NodeLowering& l);
}  // namespace elementwise

namespace fully_connected {   // LowerFullyConnected.cpp
bool lowerFullyConnected(NodeLowering& l);
}  // namespace fully_connected

namespace math {   // LowerMath.cpp
bool lowerMaximum(NodeLowering& l);
bool lowerMinimum(NodeLowering& l);
bool lowerPow(NodeLowering& l);
bool lowerPrelu(NodeLowering& l);
bool lowerLogSoftmax(NodeLowering& l);
bool lowerCast(NodeLowering& l);
}  // namespace math

namespace normalization {   // LowerNormalization.cpp
bool lowerSoftmax(NodeLowering& l);
bool lowerL2Normalization(NodeLowering& l);
bool lowerLocalResponseNormalization(NodeLowering& l);
}  // namespace normalization

namespace pooling {   // LowerPooling.cpp
bool lowerAveragePool(NodeLowering& l);
bool lowerMaxPool(NodeLowering& l);
bool lowerL2Pool(NodeLowering& l);
}  // namespace pooling

namespace quantization {   // LowerQuantization.cpp
bool lowerQuantize(NodeLowering& l);
bool lowerDequantize(NodeLowering& l);
}  // namespace quantization

namespace reduction {   // LowerReduction.cpp
bool lowerMean(NodeLowering& l);
bool lowerSum(NodeLowering& l);
bool lowerReduceMax(NodeLowering& l);
bool lowerReduceMin(NodeLowering& l);
bool lowerReduceProd(NodeLowering& l);
}  // namespace reduction

namespace reshaping {   // LowerReshaping.cpp
bool lowerReshape(NodeLowering& l);
bool lowerExpandDims(NodeLowering& l);
bool lowerTile(NodeLowering& l);
bool lowerSqueeze(NodeLowering& l);
bool lowerConcatenation(NodeLowering& l);
bool lowerSplit(NodeLowering& l);
bool lowerSplitV(NodeLowering& l);
bool lowerUnpack(NodeLowering& l);
bool lowerTranspose(NodeLowering& l);
bool lowerSpaceToDepth(NodeLowering& l);
bool lowerDepthToSpace(NodeLowering& l);
bool lowerPad(NodeLowering& l);
bool lowerPadV2(NodeLowering& l);
bool lowerSlice(NodeLowering& l);
bool lowerStridedSlice(NodeLowering& l);
}  // namespace reshaping

namespace resize {   // LowerResize.cpp
bool lowerResizeBilinear(NodeLowering& l);
bool lowerResizeNearest(NodeLowering& l);
}  // namespace resize

namespace selection {   // LowerSelection.cpp
bool lowerSelect(NodeLowering& l);
bool lowerSelectV2(NodeLowering& l);
bool lowerGather(NodeLowering& l);
bool lowerTopK(NodeLowering& l);
bool lowerArgMax(NodeLowering& l);
bool lowerArgMin(NodeLowering& l);
}  // namespace selection

namespace shape_ops {   // LowerShapeOps.cpp
bool lowerPack(NodeLowering& l);
bool lowerFill(NodeLowering& l);
bool lowerSpaceToBatch(NodeLowering& l);
bool lowerBatchToSpace(NodeLowering& l);
bool lowerReduceAny(NodeLowering& l);
}  // namespace shape_ops

namespace transpose_conv {   // LowerTransposeConv.cpp
bool lowerTransposeConv(NodeLowering& l);
}  // namespace transpose_conv

}  // namespace nnemu::tflite::lowerings
