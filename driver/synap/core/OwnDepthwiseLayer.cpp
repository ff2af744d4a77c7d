// The own kernels' 3x3 depthwise convolution layer: stride 1 or 2, one output channel per input
// channel; its packed weights and requantization state stored in the program or packed at load.
#include "OwnKernelLayers.h"
#include "OwnLayerSupport.h"
#include "../kernels/Depthwise.h"
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

    bool depthwiseBandGeometry(DepthwiseBandGeometry* g) const override {
        *g = {args.inHeight, args.inWidth, args.outHeight, args.outWidth, args.requant.channels,
              args.stride,   args.padTop,  args.rowEnd,    1};
        return true;
    }
    void runDepthwiseBand(const uint8_t* band, size_t bandFirstRow, uint8_t* output, size_t outputFirstRow,
                          size_t begin, size_t end) override {
        kernels::DepthwiseArgs banded = args;
        banded.inRowFirst = bandFirstRow;
        banded.outRowFirst = outputFirstRow;
        kernels::runDepthwise(isa, banded, band, output, begin, end);
    }
};

}  // namespace

std::unique_ptr<LayerState> ownDepthwise(const npu::Program& program, const npu::Layer& layer) {
    Operands o;
    kernels::DepthwiseSpec spec;
    if (!depthwiseSpec(program, layer, &o, &spec)) return nullptr;
    auto state = std::make_unique<DepthwiseLayer>();
    state->isa = kernels::bestIsa();
    const auto stored = storedWeights(program, layer, npu::PackedKernel::DEPTHWISE, kernels::kDepthwiseLayoutVersion,
                                      state->isa);
    // Any layout the ISA's kernel runs, folded or not (depthwiseSpec: the own kernel on every ISA).
    if (!stored.empty() && kernels::viewStoredDepthwise(stored, spec, state->isa, false, &state->args)) {
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

}  // namespace nnemu::synap::own
