// The functions of synap-npu's lowering rules (`supports`, `lower`), each defined in the
// driver/synap/compiler/lowering/<Family>.cpp named above its group; Lowering.cpp lists the rules built
// from them (kRules).
#pragma once

#include "../Lowering.h"

namespace nnemu::synap::lowering {

// Activation.cpp
bool supportsClamp(const hal::OperationContext& context);
bool lowerRelu(const hal::OperationContext&, ProgramBuilder& builder);
bool lowerRelu1(const hal::OperationContext&, ProgramBuilder& builder);
bool lowerRelu6(const hal::OperationContext&, ProgramBuilder& builder);
bool supportsLogistic(const hal::OperationContext& context);
bool lowerLogistic(const hal::OperationContext&, ProgramBuilder& builder);
bool supportsTanh(const hal::OperationContext& context);
bool lowerTanh(const hal::OperationContext&, ProgramBuilder& builder);
bool supportsSoftmax(const hal::OperationContext& context);
bool lowerSoftmax(const hal::OperationContext& context, ProgramBuilder& builder);
bool supportsPrelu(const hal::OperationContext& context);
bool lowerPrelu(const hal::OperationContext& context, ProgramBuilder& builder);
bool supportsHardSwish(const hal::OperationContext& context);
bool lowerHardSwish(const hal::OperationContext&, ProgramBuilder& builder);

// ArgMinMax.cpp
bool supportsArgMinMax(const hal::OperationContext& context);
bool lowerArgMax(const hal::OperationContext& context, ProgramBuilder& builder);
bool lowerArgMin(const hal::OperationContext& context, ProgramBuilder& builder);

// Convolution.cpp
bool supportsConvolution(const hal::OperationContext& context);
bool lowerConvolution(const hal::OperationContext& context, ProgramBuilder& builder);
bool supportsDepthwise(const hal::OperationContext& context);
bool lowerDepthwise(const hal::OperationContext& context, ProgramBuilder& builder);
bool supportsFullyConnected(const hal::OperationContext& context);
bool lowerFullyConnected(const hal::OperationContext& context, ProgramBuilder& builder);

// Elementwise.cpp
bool supportsAddition(const hal::OperationContext& context);
bool lowerAdd(const hal::OperationContext& context, ProgramBuilder& builder);
bool lowerSubtract(const hal::OperationContext& context, ProgramBuilder& builder);
bool supportsMultiplication(const hal::OperationContext& context);
bool lowerMultiply(const hal::OperationContext& context, ProgramBuilder& builder);
bool supportsMaxMin(const hal::OperationContext& context);
bool lowerMaximum(const hal::OperationContext& context, ProgramBuilder& builder);
bool lowerMinimum(const hal::OperationContext& context, ProgramBuilder& builder);

// Pooling.cpp
bool supportsPool(const hal::OperationContext& context);
bool lowerAveragePool(const hal::OperationContext& context, ProgramBuilder& builder);
bool lowerMaxPool(const hal::OperationContext& context, ProgramBuilder& builder);
bool supportsMean(const hal::OperationContext& context);
bool lowerMean(const hal::OperationContext& context, ProgramBuilder& builder);

// Shape.cpp
bool supportsReshape(const hal::OperationContext& context);
bool lowerReshape(const hal::OperationContext&, ProgramBuilder& builder);
bool supportsConcatenation(const hal::OperationContext& context);
bool lowerConcatenation(const hal::OperationContext& context, ProgramBuilder& builder);
bool supportsPad(const hal::OperationContext& context);
bool lowerPad(const hal::OperationContext& context, ProgramBuilder& builder);
bool supportsResizeBilinear(const hal::OperationContext& context);
bool lowerResizeBilinear(const hal::OperationContext& context, ProgramBuilder& builder);
bool supportsQuantize(const hal::OperationContext& context);
bool lowerConvert(const hal::OperationContext& context, ProgramBuilder& builder);
bool supportsDequantize(const hal::OperationContext& context);
bool supportsChannelShuffle(const hal::OperationContext& context);
bool lowerChannelShuffle(const hal::OperationContext& context, ProgramBuilder& builder);

// TransposeConvolution.cpp
bool supportsTransposeConvolution(const hal::OperationContext& context);
bool lowerTransposeConvolution(const hal::OperationContext& context, ProgramBuilder& builder);

}  // namespace nnemu::synap::lowering
