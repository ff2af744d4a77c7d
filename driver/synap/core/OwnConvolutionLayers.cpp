// The own kernels' convolution layers: 1x1 convolutions and fully connected layers on the GEMM,
// convolutions with few input channels (im2col + GEMM); 3x3 depthwise ones in
// OwnDepthwiseLayer.cpp. The compiler packs each one's weights and constants into the program
// (packOwnWeights), and a core whose kernels read that layout runs on them where they lie;
// others pack at load.
#include <algorithm>
#include <atomic>

#include "OwnKernelLayers.h"
#include "OwnLayerSupport.h"
#include "../kernels/FloatGemm.h"
#include "../kernels/FloatGemmBf16.h"
#include "../kernels/QuantConv.h"
#include "../kernels/QuantGemm.h"
#include "nnemu/cache/CacheCounters.h"

namespace nnemu::synap {
namespace {

using namespace own;

struct GemmLayer : OwnLayer {
    std::vector<uint8_t> packed;      // packed at load, or empty:
    std::span<const uint8_t> weights;  // `packed`, or the program's packed weights where they lie
    size_t rows = 0;
    kernels::Isa isa = kernels::Isa::Portable;

    bool run(const NativeLayer& layer) override {
        // One scratch per calling thread, not per layer: layers run one after another.
        thread_local kernels::QuantGemmScratch scratch;
        kernels::QuantGemmJob job;
        if (!kernels::prepareQuantGemm(isa, weights, layer.inputs[0], rows, layer.output, &scratch, &job)) return false;
        // Cut along the rows, or for layers of few rows (7x7 maps, classifiers) along the channels.
        const size_t blocks = (job.args.channels + kernels::kGemmBlock - 1) / kernels::kGemmBlock;
        inTiles(layer.pool, rows, blocks, gemmCutRules(job), [&](size_t begin, size_t end, size_t first, size_t last) {
            kernels::runQuantGemmTile(job, begin, end, first * kernels::kGemmBlock, last * kernels::kGemmBlock);
        });
        return true;
    }

    size_t rowPixels = 0, depth = 0;  // of the layer's image, when it has one (1x1 convolutions)

    bool runImageRows(const uint8_t* input, size_t first, size_t count, uint8_t* band) override {
        if (rowPixels == 0 || count == 0) return rowPixels != 0;
        thread_local kernels::QuantGemmScratch scratch;
        return kernels::runQuantGemm(isa, weights, input + first * rowPixels * depth, count * rowPixels, band, &scratch);
    }
};

// Working memory of the unfolded convolution (its im2col rows), one per thread: a thread runs
// one slice or band at a time.
kernels::QuantConvScratch& convScratch() {
    thread_local kernels::QuantConvScratch scratch;
    return scratch;
}

struct ConvLayer : OwnLayer {
    kernels::PackedQuantConv packed;
    kernels::Isa isa = kernels::Isa::Portable;

    bool run(const NativeLayer& layer) override {
        return runUnfoldedConvolution(layer.pool, isa, packed, layer.inputs[0], layer.output);
    }

    bool runImageRows(const uint8_t* input, size_t first, size_t count, uint8_t* band) override {
        return count == 0 ||
               kernels::runQuantConvRowsInto(isa, packed, input, band, first, first, first + count, &convScratch());
    }

    // The unfolding reads within the image (QuantConv.cpp copyFlipped, unfoldRow).
    bool readsOnlyItsInput() const override { return true; }
};

// The stored GEMM of a pointwise layer (or of an unfolded convolution's), checked; else empty.
std::span<const uint8_t> storedGemmWeights(const npu::Program& program, const npu::Layer& layer, npu::PackedKernel kernel,
                                           uint32_t version, const kernels::QuantGemmSpec& spec, kernels::Isa isa) {
    const std::span<const uint8_t> bytes = storedWeights(program, layer, kernel, version, isa);
    if (bytes.empty()) return {};
    if (!kernels::checkPackedQuantGemm(bytes, spec.depth, spec.channels, spec.signedValues)) {
        damaged(layer);
        return {};
    }
    return bytes;
}

std::span<const uint8_t> storedGemmWeights(const npu::Program& program, const npu::Layer& layer,
                                           const kernels::QuantGemmSpec& spec, kernels::Isa isa) {
    return storedGemmWeights(program, layer, npu::PackedKernel::QUANT_GEMM, kernels::kQuantGemmLayoutVersion, spec, isa);
}

// A float32 pointwise layer on the own float GEMM: its weights where the program stores them
// (in place in the mapped program file), or packed at load; in bfloat16 in a relaxed program
// where the CPU runs that kernel (FloatGemmBf16.h).
struct FloatGemmLayer : OwnLayer {
    std::vector<uint8_t> packed;
    std::span<const uint8_t> weights;
    size_t rows = 0, depth = 0, channels = 0;
    float low = 0, high = 0;
    kernels::Isa isa = kernels::Isa::Portable;
    bool bf16 = false;

    bool run(const NativeLayer& layer) override {
        const auto* input = reinterpret_cast<const float*>(layer.inputs[0]);
        auto* output = reinterpret_cast<float*>(layer.output);
        const size_t blocks = (channels + kernels::kFloatGemmBlock - 1) / kernels::kFloatGemmBlock;
        // A float multiply-add costs about 4 of the 8-bit GEMM's (16 lanes, no 4-wide dot
        // products); a bf16 one about 2 (pairs), on AMX tiles about 0.5 (4-8x faster on MobileNet's
        // deeper layers, 2x on the shallow ones that writing their output bounds).
        const bool amx = bf16 && kernels::bestBf16Kernel() == kernels::Bf16Kernel::Amx;
        CutRules rules{(amx ? 0.5 : bf16 ? 2.0 : 4.0) * kernels::kFloatGemmBlock * static_cast<double>(depth)};
        if (amx) {
            // Its calls of 32 rows x 2 blocks (FloatGemmBf16Amx.cpp), the rows rounded to bf16 per
            // call: whole groups, one channel slice per thread (as gemmCutRules for AMX-INT8).
            rules.rowGrain = rules.minSliceRows = 32;
            rules.unitGrain = 2;
            rules.unitSlicesPerThread = 1;
        } else if (!bf16) {
            // Slices of whole kernel calls: a slice edge inside a call's rows or blocks runs a
            // narrower call there (ThreadCut on v2 float: two threads did 8 % more work than one).
            const kernels::FloatGemmGrains grains = kernels::floatGemmGrains(isa, depth);
            rules.rowGrain = grains.rows;
            rules.unitGrain = grains.blocks;
        }
        inTiles(layer.pool, rows, blocks, rules, [&](size_t begin, size_t end, size_t first, size_t last) {
            if (bf16) {
                thread_local std::vector<uint32_t> scratch;  // the tile's input rows in bf16
                kernels::runFloatGemmBf16Tile(weights, input, output, low, high, begin, end,
                                              first * kernels::kFloatGemmBlock, last * kernels::kFloatGemmBlock,
                                              &scratch);
                return;
            }
            kernels::runFloatGemmTile(isa, weights, input, output, low, high, begin, end,
                                      first * kernels::kFloatGemmBlock, last * kernels::kFloatGemmBlock);
        });
        return true;
    }

    size_t rowPixels = 0;  // of the layer's image, when it may run in row bands (1x1 convolutions)

    bool runImageRows(const uint8_t* input, size_t first, size_t count, uint8_t* band) override {
        if (rowPixels == 0 || count == 0) return rowPixels != 0;
        const auto* in = reinterpret_cast<const float*>(input) + first * rowPixels * depth;
        if (!bf16) {
            kernels::runFloatGemmTile(isa, weights, in, reinterpret_cast<float*>(band), low, high, 0, count * rowPixels,
                                      0, channels);
            return true;
        }
        thread_local std::vector<uint32_t> scratch;
        kernels::runFloatGemmBf16Tile(weights, in, reinterpret_cast<float*>(band), low, high, 0, count * rowPixels, 0,
                                      channels, &scratch);
        return true;
    }
};

// The stored float GEMM of a pointwise layer (the bf16 one in a relaxed program where the CPU
// runs it), checked; else empty.
std::span<const uint8_t> storedFloatGemm(const npu::Program& program, const npu::Layer& layer,
                                         const kernels::FloatGemmSpec& spec, kernels::Isa isa) {
    const bool bf16 = relaxedFloatGemm(program);
    const std::span<const uint8_t> bytes =
        bf16 ? storedWeights(program, layer, npu::PackedKernel::FLOAT_GEMM_BF16, kernels::kFloatGemmBf16LayoutVersion,
                             isa)
             : storedWeights(program, layer, npu::PackedKernel::FLOAT_GEMM, kernels::kFloatGemmLayoutVersion, isa);
    if (bytes.empty() || (bf16 ? kernels::checkPackedFloatGemmBf16(bytes, spec.depth, spec.channels)
                               : kernels::checkPackedFloatGemm(bytes, spec.depth, spec.channels))) {
        return bytes;
    }
    damaged(layer);
    return {};
}

std::unique_ptr<LayerState> ownFloatGemm(const npu::Program& program, const npu::Layer& layer,
                                         const kernels::FloatGemmSpec& spec) {
    auto state = std::make_unique<FloatGemmLayer>();
    state->isa = kernels::bestIsa();
    state->bf16 = relaxedFloatGemm(program);
    state->weights = storedFloatGemm(program, layer, spec, state->isa);
    if (!state->weights.empty()) {
        ++cache::cacheCounters().weightsInPlace;
    } else {
        // (A filter held packed has no bytes to pack from: the core unpacked it unless it runs here.)
        if (spec.weights == nullptr) return nullptr;
        if (!(state->bf16 ? kernels::packFloatGemmBf16(spec, &state->packed)
                          : kernels::packFloatGemm(spec, &state->packed))) {
            return nullptr;
        }
        ++cache::cacheCounters().weightPackings;
        state->weights = state->packed;
    }
    state->depth = spec.depth;
    state->channels = spec.channels;
    state->rows = elementCount(tensorAt(program, layer.inputs()->Get(0))) / spec.depth;
    // 1x1 convolutions run in row bands with a depthwise that reads them (BandedLayers.h; in a
    // strict program where their output is large): their float32 outputs, MobileNets' largest
    // values, then stay in L2. Each output is the same one kernel call's sum either way.
    const auto* outputDims = tensorAt(program, layer.outputs()->Get(0)).dims();
    if (layer.params_type() == npu::LayerParams::Conv2D && outputDims != nullptr &&
        outputDims->size() == 4) {
        state->rowPixels = outputDims->Get(2);
    }
    state->low = layer.output_min();
    state->high = layer.output_max();
    return state;
}

std::unique_ptr<LayerState> ownGemm(const npu::Program& program, const npu::Layer& layer) {
    Operands o;
    kernels::QuantGemmSpec spec;
    if (!gemmSpec(program, layer, &o, &spec)) return nullptr;
    auto state = std::make_unique<GemmLayer>();
    state->isa = kernels::bestIsa();
    state->weights = storedGemmWeights(program, layer, spec, state->isa);
    if (!state->weights.empty()) {
        ++cache::cacheCounters().weightsInPlace;
    } else {
        // (A filter held packed has no bytes to pack from: the core unpacked it unless it runs here.)
        if (spec.weights == nullptr || !kernels::packQuantGemm(spec, &state->packed)) return nullptr;
        ++cache::cacheCounters().weightPackings;
        state->weights = state->packed;
    }
    state->rows = elementCount(*o.input) / spec.depth;
    if (o.output->dims()->size() == 4 && layer.params_type() == npu::LayerParams::Conv2D) {
        state->rowPixels = o.output->dims()->Get(2);
        state->depth = spec.depth;
    }
    return state;
}

// The GEMM an unfolded convolution of `packed`'s geometry runs (its weights aside).
kernels::QuantGemmSpec unfoldedGemm(const kernels::PackedQuantConv& packed) {
    kernels::QuantGemmSpec gemm;
    gemm.depth = packed.depth;
    gemm.channels = packed.geometry.channels;
    return gemm;  // unsigned: the unfolded rows are the GEMM's uint8
}

std::unique_ptr<LayerState> ownUnfoldedConvolution(const npu::Program& program, const npu::Layer& layer) {
    Operands o;
    kernels::QuantConvSpec spec;
    if (!unfoldedSpec(program, layer, &o, &spec)) return nullptr;
    auto state = std::make_unique<ConvLayer>();
    state->isa = kernels::bestIsa();
    if (!kernels::quantConvGeometry(spec, &state->packed)) return nullptr;
    state->packed.stored = storedGemmWeights(program, layer, npu::PackedKernel::QUANT_CONV,
                                             kernels::kQuantConvLayoutVersion, unfoldedGemm(state->packed), state->isa);
    if (!state->packed.stored.empty()) {
        ++cache::cacheCounters().weightsInPlace;
        return state;
    }
    if (!kernels::packQuantConv(spec, &state->packed)) return nullptr;
    ++cache::cacheCounters().weightPackings;
    return state;
}

}  // namespace

std::shared_ptr<LayerState> convolutionOfFlipSource(const npu::Program& program, const npu::Layer& flip,
                                                   const std::shared_ptr<LayerState>& /*flipState*/,
                                                   const npu::Layer& reader,
                                                   const std::shared_ptr<LayerState>& readerState) {
    const auto* conv = dynamic_cast<const ConvLayer*>(readerState.get());
    if (conv == nullptr || flip.inputs()->size() != 1 || reader.inputs()->size() == 0 ||
        reader.inputs()->Get(0) != flip.outputs()->Get(0)) {
        return nullptr;
    }
    const auto* from = tensorAt(program, flip.inputs()->Get(0)).dims();
    const auto* to = tensorAt(program, flip.outputs()->Get(0)).dims();
    if (from == nullptr || to == nullptr || !std::equal(from->begin(), from->end(), to->begin(), to->end())) {
        return nullptr;
    }
    auto unflipped = std::make_shared<ConvLayer>(*conv);
    unflipped->packed.flip ^= 0x80;  // the GEMM's bytes, from the other signedness (fill stays)
    return unflipped;
}

namespace own {

CutRules gemmCutRules(const kernels::QuantGemmJob& job) {
    const kernels::GemmArgs& a = job.args;
    CutRules rules{static_cast<double>(kernels::kGemmBlock * a.depthGroups * 4)};
    if (job.kernel != kernels::gemmAvx512Amx || !kernels::amxInt8Suits(a)) return rules;
    // AMX-INT8 (GemmAmxInt8.cpp) against VNNI, one thread (BENCHMARKS.md "AMX-INT8 in the GEMM"):
    // 0.23-0.26x the time from a depth of 512, 0.38-0.57x at 144, 0.81-0.91x at 24.
    const size_t depth = size_t{a.depthGroups} * 4;
    rules.unitRowCost *= depth >= 256 ? 0.3 : depth >= 96 ? 0.5 : 0.85;
    // Its row groups of 32 rows (two 16-row tiles) and pairs of channel blocks: slices of fewer
    // compute padding. A channel slice reads every row (and copies int8 ones flipped when the
    // rows are fewer than the channels): one per thread.
    constexpr size_t kAmxRowGroup = 32;
    rules.rowGrain = kAmxRowGroup;
    rules.minSliceRows = kAmxRowGroup;
    rules.unitGrain = 2;
    rules.unitSlicesPerThread = 1;
    return rules;
}

bool runUnfoldedConvolution(CorePool* pool, kernels::Isa isa, const kernels::PackedQuantConv& packed,
                            const uint8_t* input, uint8_t* output) {
    const kernels::QuantConvSpec& g = packed.geometry;
    const size_t rows = size_t{g.batches} * g.outHeight;
    const double rowCost = static_cast<double>(g.outWidth) * g.channels * packed.depth;
    std::atomic<bool> ok = true;
    inTiles(pool, rows, 1, rowCost, [&](size_t begin, size_t end, size_t, size_t) {
        if (!kernels::runQuantConvRows(isa, packed, input, output, begin, end, &convScratch())) ok = false;
    });
    return ok;
}

}  // namespace own

std::unique_ptr<LayerState> ownConvolution(const npu::Program& program, const npu::Layer& layer) {
    if (!ownKernelsEnabled()) return nullptr;
    kernels::FloatGemmSpec floatGemm;
    if (floatGemmSpec(program, layer, &floatGemm)) return ownFloatGemm(program, layer, floatGemm);
    if (auto floatConv = ownFloatConvolution(program, layer)) return floatConv;
    if (isPointwise(layer)) return ownGemm(program, layer);
    if (auto unfolded = ownUnfoldedConvolution(program, layer)) return unfolded;
    return ownDepthwise(program, layer);
}

bool packedWeightsRunInPlace(const npu::Program& program, const npu::Layer& layer) {
    kernels::FloatGemmSpec floatGemm;
    if (ownKernelsEnabled() && floatGemmSpec(program, layer, &floatGemm)) {
        return !storedFloatGemm(program, layer, floatGemm, kernels::bestIsa()).empty();
    }
    FloatConvSpec floatConv;
    if (ownKernelsEnabled() && floatConvSpec(program, layer, &floatConv)) {
        return !storedFloatConv(program, layer, floatConv, kernels::bestIsa()).empty();
    }
    Operands o;
    kernels::QuantGemmSpec spec;
    return ownKernelsEnabled() && isPointwise(layer) && gemmSpec(program, layer, &o, &spec) &&
           !storedGemmWeights(program, layer, spec, kernels::bestIsa()).empty();
}

}  // namespace nnemu::synap
