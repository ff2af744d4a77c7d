// The own float kernels' 3x3 depthwise and few-channel convolution layers (kernels/FloatDepthwise.h,
// FloatConv.h): their packed weights where the program stores them (in place in the mapped program
// file), or packed at load.
#include "BandedLayers.h"
#include "OwnKernelLayers.h"
#include "OwnLayerSupport.h"
#include "../kernels/FloatConv.h"
#include "nnemu/cache/CacheCounters.h"

namespace nnemu::synap::own {
namespace {

struct FloatConvLayer : OwnLayer {
    FloatConvSpec spec;  // its pointers unused once packed
    std::vector<uint8_t> packed;
    std::span<const uint8_t> weights;  // `packed`, or the program's
    kernels::Isa isa = kernels::Isa::Portable;

    bool run(const NativeLayer& layer) override {
        const kernels::FloatImage& g = spec.image;
        const auto* input = reinterpret_cast<const float*>(layer.inputs[0]);
        auto* output = reinterpret_cast<float*>(layer.output);
        const size_t rows = size_t{g.batches} * g.outHeight;
        // Multiply-adds per output row, at about 4 of the 8-bit GEMM's each (FloatGemmLayer).
        const double taps = spec.depthwise ? 9.0 : static_cast<double>(g.kernelHeight) * g.kernelWidth * g.inChannels;
        const double rowCost = 4.0 * taps * g.outWidth * g.channels;
        inTiles(layer.pool, rows, 1, rowCost, [&](size_t begin, size_t end, size_t, size_t) {
            if (spec.depthwise) {
                kernels::runFloatDepthwiseRows(isa, g, weights, input, output, begin, end);
            } else {
                thread_local std::vector<float> scratch;  // a thread runs one slice at a time
                kernels::runFloatConvRows(isa, g, weights, input, output, begin, end, &scratch);
            }
        });
        return true;
    }

    // The few-channel convolution's output rows [first, first + count) into `band` (a band of a
    // depthwise that reads it, BandedLayers.h).
    bool runImageRows(const uint8_t* input, size_t first, size_t count, uint8_t* band) override {
        if (spec.depthwise || count == 0) return !spec.depthwise;
        thread_local std::vector<float> scratch;
        kernels::runFloatConvRows(isa, spec.image, weights, reinterpret_cast<const float*>(input),
                                  reinterpret_cast<float*>(band), first, first + count, &scratch, first);
        return true;
    }

    // The few-channel convolution reads each tap where its window lies in the image, and unfolds
    // only the image's values (FloatConv.cpp): a network input may be read where the caller holds it.
    bool readsOnlyItsInput() const override { return !spec.depthwise; }

    // A depthwise runs in row bands (BandedLayers.h) after a convolution on the own float kernels
    // (FloatGemmLayer::runImageRows, or the few-channel one's above): in a relaxed program whose
    // 1x1 convolutions run on the bf16 GEMM always, in a strict one where the value between them
    // holds two bands at least (smaller, it stays in L2 between the layers apart, and banded, where
    // threads' runs meet rows are computed twice: MobileNet v2's 14x14 and 7x7 blocks ran slower
    // banded, its 28x28 ones level, v1's 28x28 pairs slower).
    bool banded = false;

    bool depthwiseBandGeometry(DepthwiseBandGeometry* geometry) const override {
        if (!spec.depthwise || !banded) return false;
        const kernels::FloatImage& g = spec.image;
        *geometry = {g.inHeight, g.inWidth,   g.outHeight, g.outWidth, g.channels, g.strideHeight,
                     g.padTop,   size_t{g.batches} * g.outHeight,      sizeof(float)};
        return true;
    }
    void runDepthwiseBand(const uint8_t* band, size_t bandFirstRow, uint8_t* output, size_t outputFirstRow,
                          size_t begin, size_t end) override {
        kernels::runFloatDepthwiseRows(isa, spec.image, weights, reinterpret_cast<const float*>(band),
                                       reinterpret_cast<float*>(output), begin, end, bandFirstRow, outputFirstRow);
    }
};

bool checkPacked(const FloatConvSpec& spec, std::span<const uint8_t> bytes) {
    const kernels::FloatImage& g = spec.image;
    return spec.depthwise ? kernels::checkPackedFloatDepthwise(bytes, g.channels)
                          : kernels::checkPackedFloatGemm(bytes, g.kernelHeight * g.kernelWidth * g.inChannels, g.channels);
}

}  // namespace

std::span<const uint8_t> storedFloatConv(const npu::Program& program, const npu::Layer& layer,
                                         const FloatConvSpec& spec, kernels::Isa isa) {
    const std::span<const uint8_t> bytes =
        storedWeights(program, layer, floatConvKernel(spec), kernels::kFloatDepthwiseLayoutVersion, isa);
    if (bytes.empty() || checkPacked(spec, bytes)) return bytes;
    damaged(layer);
    return {};
}

std::unique_ptr<LayerState> ownFloatConvolution(const npu::Program& program, const npu::Layer& layer) {
    auto state = std::make_unique<FloatConvLayer>();
    if (!floatConvSpec(program, layer, &state->spec)) return nullptr;
    state->isa = kernels::bestIsa();
    const kernels::FloatImage& g = state->spec.image;
    const size_t value = size_t{g.batches} * g.inHeight * g.inWidth * g.channels * sizeof(float);
    state->banded = state->spec.depthwise && (relaxedFloatGemm(program) || value >= kStrictFloatBandedBytes);
    state->weights = storedFloatConv(program, layer, state->spec, state->isa);
    if (!state->weights.empty()) {
        ++cache::cacheCounters().weightsInPlace;
        return state;
    }
    // (A filter held packed has no bytes to pack from: the core unpacked it unless it runs here.)
    const FloatConvSpec& s = state->spec;
    if (s.filter == nullptr) return nullptr;
    if (!packFloatConv(s, s.filter, &state->packed)) return nullptr;
    ++cache::cacheCounters().weightPackings;
    state->weights = state->packed;
    return state;
}

}  // namespace nnemu::synap::own
