// How a program's 8-bit layers map onto the own kernels (driver/synap/kernels): the NNEMU_NPU_KERNELS
// choice, reading a layer's operands into a kernel's spec, and where a program stores a layer's packed
// weights. Pure functions of the program, shared by the compiler's weight packer (WeightPacking.h)
// and the core's own-kernel layers (core/OwnLayerSupport.h), so both always agree on which layer a
// kernel takes and how.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "../kernels/Depthwise.h"
#include "../kernels/FloatDepthwise.h"
#include "../kernels/FloatGemm.h"
#include "../kernels/FloatGemmBf16.h"
#include "../kernels/QuantConv.h"
#include "../kernels/QuantGemm.h"
#include "ProgramTensors.h"

namespace nnemu::synap::own {

// NNEMU_NPU_KERNELS: "xnnpack" (none of the own kernels), "all" (every own kernel wherever it
// computes exactly, even where it measures slower than XNNPACK), otherwise the default set.
// Read at every load, so that one process can build several cores (benchmarks).
std::string_view kernelChoice();
bool ownKernelsEnabled();

// Bytes of the tensor's size, or a filter held packed (used in place, PackedFilters.h).
bool hasData(const npu::Tensor& tensor);

// The 8-bit operands the own kernels take: uint8 activations and weights, or int8 activations
// with int8 weights of zero point 0 or per-channel weights along `channelDim`; constant weights
// and int32 bias. Fills what the kernels' specs share.
struct Operands {
    const npu::Tensor *input, *filter, *bias, *output;
    bool isSigned;
    std::vector<float> filterScales;
    std::vector<int32_t> bias32;  // the program's bytes need not be aligned
    int32_t low, high;
};

// The layer's clamp in its output's quantized values, as the reference derives it from the
// fused activation (the program keeps the activation's real bounds).
void quantizedBounds(const npu::Layer& layer, const npu::Tensor& output, int32_t qmin, int32_t* low, int32_t* high);

// What the kernels' specs share, from the operands (which must outlive the spec).
void fillSpec(const Operands& o, kernels::QuantLayerSpec* spec);

// The operands of a convolution-like layer (input, filter, bias; `channels` outputs, per-channel
// scales along `channelDim`) that the own kernels take; false otherwise.
bool readOperands(const npu::Program& program, const npu::Layer& layer, uint32_t channels, uint32_t channelDim,
                  Operands* o);

// The spec's weights: the program's, or `filter` (held outside the program) if it has the size.
bool weightsOf(std::span<const uint8_t> filter, size_t size, kernels::QuantLayerSpec* spec);

// A 1x1 stride-1 convolution without padding (or a fully connected layer): a GEMM over the pixels.
bool isPointwise(const npu::Layer& layer);
// The GEMM spec of a pointwise layer the own kernel takes (false otherwise); `o` backs it.
bool gemmSpec(const npu::Program& program, const npu::Layer& layer, Operands* o, kernels::QuantGemmSpec* spec);
// The float GEMM spec of a float32 pointwise layer (false otherwise): weights and bias point
// into the program, or weights are null where the program holds the filter only packed.
bool floatGemmSpec(const npu::Program& program, const npu::Layer& layer, kernels::FloatGemmSpec* spec);
// Whether the program's float GEMMs run in bfloat16: it is relaxed and this CPU runs the kernel.
inline bool relaxedFloatGemm(const npu::Program& program) {
    return program.relaxed_float32() && kernels::hasFloatGemmBf16();
}
// A float32 3x3 depthwise convolution (stride 1 or 2 both ways, no dilation, multiplier 1) or a
// float32 convolution with few input channels (by default the first convolution of image
// networks: up to 4 input channels, kernels up to 7x7, strides 1 and 2, no dilation; with
// NNEMU_NPU_KERNELS=all up to 64 input channels, any geometry), on the own float kernels
// (FloatDepthwise.h, FloatConv.h).
struct FloatConvSpec {
    kernels::FloatImage image;
    bool depthwise = false;
    const uint8_t* filter = nullptr;  // the program's bytes, or null where it holds them only packed
    const uint8_t* bias = nullptr;
    size_t filterBytes() const {
        return size_t{image.channels} * image.kernelHeight * image.kernelWidth * (depthwise ? 1 : image.inChannels) * 4;
    }
};
// The spec of such a layer (false otherwise); pointwise layers are the float GEMM's (floatGemmSpec).
bool floatConvSpec(const npu::Program& program, const npu::Layer& layer, FloatConvSpec* spec);
// Its weights packed from `filter` (filterBytes() of them) and the spec's bias; the kind of them.
bool packFloatConv(const FloatConvSpec& spec, const uint8_t* filter, std::vector<uint8_t>* packed);
inline npu::PackedKernel floatConvKernel(const FloatConvSpec& spec) {
    return spec.depthwise ? npu::PackedKernel::FLOAT_DEPTHWISE : npu::PackedKernel::FLOAT_CONV;
}
// The im2col + GEMM spec of a convolution with few input channels (false otherwise); `o` backs it.
bool unfoldedSpec(const npu::Program& program, const npu::Layer& layer, Operands* o, kernels::QuantConvSpec* spec);
// The 3x3 depthwise spec of a layer the own kernel may take (false otherwise); `o` backs it.
bool depthwiseSpec(const npu::Program& program, const npu::Layer& layer, Operands* o, kernels::DepthwiseSpec* spec);
// The depthwise layer packed for `isa`, or null where the kernel does not take it (by default:
// where the folded layout does not apply).
std::unique_ptr<kernels::PackedDepthwise> packDepthwise(const kernels::DepthwiseSpec& spec, kernels::Isa isa);

// The program's packed weights for `layer` if they are the running kernel's: packed by `kernel`
// in layout `version` for `isa`'s baseIsa (the Isa tag() records); empty otherwise. Unchecked:
// the caller checks them.
std::span<const uint8_t> storedWeights(const npu::Program& program, const npu::Layer& layer, npu::PackedKernel kernel,
                                       uint32_t version, kernels::Isa isa);

}  // namespace nnemu::synap::own
