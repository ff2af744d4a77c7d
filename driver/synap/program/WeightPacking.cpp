#include "WeightPacking.h"

#include "OwnSpecs.h"

namespace nnemu::synap {
namespace {

using namespace own;

// `packed` tagged as packed by `kernel` in layout `version` for this machine's kernels (their
// baseIsa: avxvnni and avx2 read the same layouts).
void tag(uint32_t layerIndex, npu::PackedKernel kernel, uint32_t version, npu::PackedWeightsT* packed) {
    packed->layer = layerIndex;
    packed->kernel = kernel;
    packed->layout_version = version;
    packed->isa = static_cast<uint32_t>(kernels::baseIsa(kernels::bestIsa()));
}

bool packDepthwiseWeights(const npu::Program& program, uint32_t layerIndex, std::span<const uint8_t> filter,
                         npu::PackedWeightsT* packed) {
    const npu::Layer& layer = *program.layers()->Get(layerIndex);
    Operands o;
    kernels::DepthwiseSpec spec;
    if (!depthwiseSpec(program, layer, &o, &spec) || !weightsOf(filter, size_t{spec.channels} * 9, &spec)) return false;
    const auto state = packDepthwise(spec, kernels::bestIsa());
    if (state == nullptr) return false;
    kernels::storeDepthwise(*state, &packed->data);
    tag(layerIndex, npu::PackedKernel::DEPTHWISE, kernels::kDepthwiseLayoutVersion, packed);
    return true;
}

// A float depthwise or few-channel convolution's filter, packed for the float kernels.
bool packFloatConvWeights(const FloatConvSpec& spec, uint32_t layerIndex, std::span<const uint8_t> filter,
                          npu::PackedWeightsT* packed) {
    const uint8_t* weights = spec.filter != nullptr ? spec.filter : filter.data();
    if (spec.filter == nullptr && filter.size() != spec.filterBytes()) return false;
    if (!packFloatConv(spec, weights, &packed->data)) return false;
    tag(layerIndex, floatConvKernel(spec), kernels::kFloatDepthwiseLayoutVersion, packed);
    return true;
}

}  // namespace

bool packOwnWeights(const npu::Program& program, uint32_t layerIndex, std::span<const uint8_t> filter,
                    npu::PackedWeightsT* packed) {
    if (!ownKernelsEnabled()) return false;
    const npu::Layer& layer = *program.layers()->Get(layerIndex);
    kernels::FloatGemmSpec floatGemm;
    if (floatGemmSpec(program, layer, &floatGemm)) {
        if (floatGemm.weights == nullptr) floatGemm.weights = filter.data();
        if (filter.data() == floatGemm.weights && filter.size() != size_t{floatGemm.channels} * floatGemm.depth * 4) {
            return false;
        }
        if (relaxedFloatGemm(program)) {
            if (!kernels::packFloatGemmBf16(floatGemm, &packed->data)) return false;
            tag(layerIndex, npu::PackedKernel::FLOAT_GEMM_BF16, kernels::kFloatGemmBf16LayoutVersion, packed);
            return true;
        }
        if (!kernels::packFloatGemm(floatGemm, &packed->data)) return false;
        tag(layerIndex, npu::PackedKernel::FLOAT_GEMM, kernels::kFloatGemmLayoutVersion, packed);
        return true;
    }
    FloatConvSpec floatConv;
    if (floatConvSpec(program, layer, &floatConv)) return packFloatConvWeights(floatConv, layerIndex, filter, packed);
    Operands o;
    if (isPointwise(layer)) {
        kernels::QuantGemmSpec spec;
        if (!gemmSpec(program, layer, &o, &spec) || !weightsOf(filter, size_t{spec.channels} * spec.depth, &spec) ||
            !kernels::packQuantGemm(spec, &packed->data)) {
            return false;
        }
        tag(layerIndex, npu::PackedKernel::QUANT_GEMM, kernels::kQuantGemmLayoutVersion, packed);
        return true;
    }
    kernels::QuantConvSpec conv;
    if (unfoldedSpec(program, layer, &o, &conv)) {
        kernels::PackedQuantConv unfolded;
        const size_t size = size_t{conv.channels} * conv.kernelHeight * conv.kernelWidth * conv.inChannels;
        if (!weightsOf(filter, size, &conv) || !kernels::packQuantConv(conv, &unfolded)) return false;
        packed->data = std::move(unfolded.gemm);
        tag(layerIndex, npu::PackedKernel::QUANT_CONV, kernels::kQuantConvLayoutVersion, packed);
        return true;
    }
    return packDepthwiseWeights(program, layerIndex, filter, packed);
}

}  // namespace nnemu::synap
