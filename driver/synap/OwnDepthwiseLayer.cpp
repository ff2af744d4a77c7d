// The own kernels' 3x3 depthwise convolution layer: stride 1 or 2, one output channel per input
// channel; its packed weights and requantization state stored in the program or packed at load.
#include "OwnKernelLayers.h"
#include "OwnLayerSupport.h"
#include "kernels/Depthwise.h"
#include "nnemu/cache/CacheCounters.h"

namespace nnemu::synap::own {
namespace {

struct DepthwiseLayer : OwnLayer {
    std::unique_ptr<kernels::PackedDepthwise> packed;  // packed at load, or null:
    kernels::DepthwiseArgs args{};                     // into `packed`, or the program's stored state
    kernels::Isa isa = kernels::Isa::Portable;

    bool run(const NativeLayer& layer) override {
        // 9 products per output; each costs about 4 of the GEMM's (one lane each, no dot products).
        const double rowCost = 4.0 * 9.0 * args.outWidth * args.requant.channels;
        inTiles(layer.pool, args.rowEnd, 1, rowCost, [&](size_t begin, size_t end, size_t, size_t) {
            kernels::runDepthwise(isa, args, layer.inputs[0], layer.output, begin, end);
        });
        return true;
    }

    const kernels::DepthwiseArgs* depthwiseArgs() const override { return &args; }
    void runDepthwiseBand(const uint8_t* band, size_t bandFirstRow, uint8_t* output, size_t outputFirstRow,
                          size_t begin, size_t end) override {
        kernels::DepthwiseArgs banded = args;
        banded.inRowFirst = bandFirstRow;
        banded.outRowFirst = outputFirstRow;
        kernels::runDepthwise(isa, banded, band, output, begin, end);
    }
};

// 3x3, stride 1 or 2 both ways, no dilation, one output channel per input channel. By default
// only on AVX-512 VNNI or AVX2 with the folded requantization (Depthwise.h), where it measures
// faster than XNNPACK's; elsewhere (portable loop, saturating requantization) it is slower. The
// spec of a layer the own kernel may take (false otherwise); `o` backs it.
bool depthwiseSpec(const npu::Program& program, const npu::Layer& layer, Operands* o, kernels::DepthwiseSpec* spec) {
    const kernels::Isa isa = kernels::bestIsa();
    if (kernelChoice() != "all" && isa != kernels::Isa::Avx512Vnni && isa != kernels::Isa::Avx2) return false;
    const auto* p = layer.params_as_Conv2D();
    if (p == nullptr || !p->depthwise() || p->padding() == nullptr || p->kernel_height() != 3 ||
        p->kernel_width() != 3 || p->stride_height() != p->stride_width() || p->stride_height() > 2 ||
        p->dilation_height() != 1 || p->dilation_width() != 1 || p->depth_multiplier() != 1) {
        return false;
    }
    // The kind's check holds: input [B, H, W, C], filter [1, 3, 3, C], output [B, OH, OW, C].
    const uint32_t channels = p->input_channels();
    if (!readOperands(program, layer, channels, 3, o)) return false;
    const auto* in = o->input->dims();
    const auto* out = o->output->dims();
    spec->batches = in->Get(0);
    spec->inHeight = in->Get(1);
    spec->inWidth = in->Get(2);
    spec->channels = channels;
    spec->outHeight = out->Get(1);
    spec->outWidth = out->Get(2);
    spec->stride = p->stride_height();
    spec->padTop = p->padding()->top();
    spec->padLeft = p->padding()->left();
    fillSpec(*o, spec);
    return true;
}

// The layer packed for `isa`, or null where the kernel does not take it (by default: where the
// folded layout does not apply).
std::unique_ptr<kernels::PackedDepthwise> packDepthwise(const kernels::DepthwiseSpec& spec, kernels::Isa isa) {
    auto packed = std::make_unique<kernels::PackedDepthwise>(spec.channels);
    if (!kernels::packDepthwise(spec, packed.get())) return nullptr;
    const bool folded = isa == kernels::Isa::Avx2 ? !packed->avx2.folded.empty() : !packed->folded.empty();
    if (kernelChoice() != "all" && !folded) return nullptr;
    kernels::keepDepthwiseFor(isa, packed.get());
    return packed;
}

}  // namespace

std::unique_ptr<LayerState> ownDepthwise(const npu::Program& program, const npu::Layer& layer) {
    Operands o;
    kernels::DepthwiseSpec spec;
    if (!depthwiseSpec(program, layer, &o, &spec)) return nullptr;
    auto state = std::make_unique<DepthwiseLayer>();
    state->isa = kernels::bestIsa();
    const auto stored = storedWeights(program, layer, npu::PackedKernel::DEPTHWISE, kernels::kDepthwiseLayoutVersion,
                                      state->isa);
    const bool foldedOnly = kernelChoice() != "all";
    if (!stored.empty() && kernels::viewStoredDepthwise(stored, spec, state->isa, foldedOnly, &state->args)) {
        ++cache::cacheCounters().weightsInPlace;
        return state;
    }
    if (!stored.empty()) damaged(layer);
    state->packed = packDepthwise(spec, state->isa);
    if (state->packed == nullptr) return nullptr;
    ++cache::cacheCounters().weightPackings;
    state->args = kernels::depthwiseArgsOf(*state->packed);
    return state;
}

bool packOwnDepthwise(const npu::Program& program, uint32_t layerIndex, std::span<const uint8_t> filter,
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

}  // namespace nnemu::synap::own
