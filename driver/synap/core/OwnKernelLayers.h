// Layers of XNNPACK kinds that the core runs on its own kernels (kernels/) instead: the kind's
// ownKernel entry decides per layer and packs its weights; run computes it. NNEMU_NPU_KERNELS=
// xnnpack leaves every layer to XNNPACK (the core as it was, for comparisons); =all adds the
// kernels that are slower than XNNPACK's without being more exact (the 3x3 depthwise off AVX2 and
// AVX-512 VNNI or with multipliers above 1, max pools).
#pragma once

#include <memory>
#include <span>

#include "LayerKinds.h"

namespace nnemu::synap {

// On 8-bit values: 1x1 stride-1 unpadded convolutions and fully connected layers (GEMM); other
// convolutions with at most 64 input channels (im2col + GEMM: the first layer of image networks);
// 3x3 depthwise convolutions of stride 1 or 2 where that kernel is fast (OwnDepthwiseLayer.cpp).
// Conv2D and FullyConnected kinds.
std::unique_ptr<LayerState> ownConvolution(const npu::Program& program, const npu::Layer& layer);
// 8-bit ADD and SUB (Add and Subtract kinds), with any broadcast.
std::unique_ptr<LayerState> ownAdd(const npu::Program& program, const npu::Layer& layer);
// 8-bit MUL (Multiply kind), with any broadcast.
std::unique_ptr<LayerState> ownMultiply(const npu::Program& program, const npu::Layer& layer);
// OwnFloatElementwise.cpp: float ADD and SUB of same-shape tensors, float global average pools
// (the kinds' ownKernel entries try them first).
std::unique_ptr<LayerState> ownFloatAdd(const npu::Program& program, const npu::Layer& layer);
std::unique_ptr<LayerState> ownFloatGlobalAverage(const npu::Program& program, const npu::Layer& layer);
// 8-bit max pools, and global average pools (AVERAGE_POOL_2D over the whole image, MEAN).
std::unique_ptr<LayerState> ownMaxPool(const npu::Program& program, const npu::Layer& layer);
std::unique_ptr<LayerState> ownGlobalAverage(const npu::Program& program, const npu::Layer& layer);
bool runOwnLayer(const NativeLayer& layer);
// The FlipSign kind's fuseWithReader: a sign flip whose output only an unfolded convolution reads
// (a network's uint8 input turned int8 for its first layer) becomes that convolution reading the
// flip's input, its unfolding flipping the other way (it flips every byte into the GEMM's uint8
// anyway): the flipped copy never exists.
std::shared_ptr<LayerState> convolutionOfFlipSource(const npu::Program& program, const npu::Layer& flip,
                                                   const std::shared_ptr<LayerState>& flipState,
                                                   const npu::Layer& reader,
                                                   const std::shared_ptr<LayerState>& readerState);
// FlipSign layers: the flip, or the stage a flip heads (its state runs it).
bool runFlipSignStage(const NativeLayer& layer);
// Whether this core runs `layer` on the program's packed weights of it, in place.
bool packedWeightsRunInPlace(const npu::Program& program, const npu::Layer& layer);
// OwnValueLayers.cpp: reshapes (Reshape kind); converts (Convert kind) that only move 8-bit values
// to the other signedness (same scale, zero point moved by 128: runFlipSign, exactly, in vectors)
// or, up to 16384 elements, go between 8-bit and float as DEQUANTIZE and QUANTIZE compute it;
// float softmax (Softmax kind) along the last axis, up to 16384 elements.
std::unique_ptr<LayerState> ownReshape(const npu::Program& program, const npu::Layer& layer);
std::unique_ptr<LayerState> ownConvert(const npu::Program& program, const npu::Layer& layer);
std::unique_ptr<LayerState> ownSoftmax(const npu::Program& program, const npu::Layer& layer);

}  // namespace nnemu::synap
