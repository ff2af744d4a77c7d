// The own kernels' convolution layers: 1x1 convolutions and fully connected layers on the GEMM,
// convolutions with few input channels (im2col + GEMM) and 3x3 depthwise convolutions. The
// compiler packs each one's weights and constants into the program (packOwnWeights), and a core
// whose kernels read that layout runs on them where they lie; others pack at load.
#include <algorithm>
#include <atomic>

#include "OwnKernelLayers.h"
#include "OwnLayerSupport.h"
#include "SynapLog.h"
#include "kernels/Depthwise.h"
#include "kernels/QuantConv.h"
#include "kernels/QuantGemm.h"
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
        const double blockRowCost = static_cast<double>(kernels::kGemmBlock * job.args.depthGroups * 4);
        inTiles(layer.pool, rows, blocks, blockRowCost, [&](size_t begin, size_t end, size_t first, size_t last) {
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
    void runDepthwiseBand(const uint8_t* band, size_t bandFirstRow, uint8_t* output, size_t begin,
                          size_t end) override {
        kernels::DepthwiseArgs banded = args;
        banded.inRowFirst = bandFirstRow;
        kernels::runDepthwise(isa, banded, band, output, begin, end);
    }
};

struct ConvLayer : OwnLayer {
    kernels::PackedQuantConv packed;
    kernels::Isa isa = kernels::Isa::Portable;
    std::vector<kernels::QuantConvScratch> scratch;  // one per slice

    bool run(const NativeLayer& layer) override {
        const size_t rows = size_t{packed.geometry.batches} * packed.geometry.outHeight;
        // A few slices per thread (each has its working memory), of at least 2 output rows.
        const size_t slices = 4 * (layer.pool == nullptr ? 1 : pthreadpool_get_threads_count(layer.pool));
        const size_t rowsPerSlice = std::max<size_t>(2, (rows + slices - 1) / slices);
        scratch.resize((rows + rowsPerSlice - 1) / rowsPerSlice);
        std::atomic<bool> ok = true;
        inSlices(layer.pool, rows, rowsPerSlice, [&](size_t begin, size_t end) {
            if (!kernels::runQuantConvRows(isa, packed, layer.inputs[0], layer.output, begin, end,
                                           &scratch[begin / rowsPerSlice])) {
                ok = false;
            }
        });
        return ok;
    }

    bool runImageRows(const uint8_t* input, size_t first, size_t count, uint8_t* band) override {
        thread_local kernels::QuantConvScratch bandScratch;
        return count == 0 ||
               kernels::runQuantConvRowsInto(isa, packed, input, band, first, first, first + count, &bandScratch);
    }
};

// A 1x1 stride-1 convolution without padding is a GEMM over the pixels (dilation is moot).
bool isPointwise(const npu::Layer& layer) {
    if (layer.params_type() == npu::LayerParams::FullyConnected) return true;
    const auto* p = layer.params_as_Conv2D();
    if (p == nullptr || p->depthwise() || p->padding() == nullptr) return false;
    const auto* pad = p->padding();
    return p->kernel_height() == 1 && p->kernel_width() == 1 && p->stride_height() == 1 && p->stride_width() == 1 &&
           pad->top() == 0 && pad->bottom() == 0 && pad->left() == 0 && pad->right() == 0;
}

// The GEMM spec of a pointwise layer the own kernel takes (false otherwise); `o` backs it.
bool gemmSpec(const npu::Program& program, const npu::Layer& layer, Operands* o, kernels::QuantGemmSpec* spec) {
    // The shapes passed the kind's check: filter [N, (1, 1,) K], bias [N], rows of K inputs.
    const auto* filterDims = tensorAt(program, layer.inputs()->Get(1)).dims();
    if (filterDims->size() == 0) return false;
    const uint32_t channels = filterDims->Get(0), depth = filterDims->Get(filterDims->size() - 1);
    if (!readOperands(program, layer, channels, 0, o) || depth == 0 || elementCount(*o->input) % depth != 0) {
        return false;
    }
    spec->depth = depth;
    spec->channels = channels;
    fillSpec(*o, spec);
    return true;
}

// The program's packed weights for `layer` if they are the running kernel's: packed by `kernel`
// in layout `version` for `isa`; empty otherwise. Unchecked: the caller checks them.
std::span<const uint8_t> storedWeights(const npu::Program& program, const npu::Layer& layer, npu::PackedKernel kernel,
                                       uint32_t version, kernels::Isa isa) {
    if (program.packed_weights() == nullptr) return {};
    for (const npu::PackedWeights* entry : *program.packed_weights()) {
        if (entry->layer() >= program.layers()->size() || program.layers()->Get(entry->layer()) != &layer) continue;
        if (entry->kernel() != kernel || entry->data() == nullptr || entry->layout_version() != version ||
            entry->isa() != static_cast<uint32_t>(isa)) {
            return {};
        }
        return {entry->data()->data(), entry->data()->size()};
    }
    return {};
}

// Stored weights that failed their check (the program may come from a file): never read.
void damaged(const npu::Layer& layer) {
    SYNAP_LOG(WARNING) << "the program's packed weights of layer " << (layer.name() ? layer.name()->c_str() : "?")
                       << " are damaged; packing them again";
}

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

std::unique_ptr<LayerState> ownDepthwise(const npu::Program& program, const npu::Layer& layer) {
    Operands o;
    kernels::DepthwiseSpec spec;
    if (!depthwiseSpec(program, layer, &o, &spec)) return nullptr;
    auto state = std::make_unique<DepthwiseLayer>();
    state->isa = kernels::bestIsa();
    const auto stored = storedWeights(program, layer, npu::PackedKernel::DEPTHWISE, kernels::kDepthwiseLayoutVersion,
                                      state->isa);
    if (!stored.empty() && kernels::viewStoredDepthwise(stored, spec, state->isa, kernelChoice() != "all", &state->args)) {
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

// A convolution with few input channels (the first layer of image networks, small detectors):
// im2col + GEMM, measured as fast as XNNPACK's or faster from 3 to 64 input channels
// (BENCHMARKS.md). Any kernel size, stride, dilation.
constexpr uint32_t kMaxUnfoldedInputChannels = 64;

bool unfoldedSpec(const npu::Program& program, const npu::Layer& layer, Operands* o, kernels::QuantConvSpec* spec) {
    const auto* p = layer.params_as_Conv2D();
    if (p == nullptr || p->depthwise() || p->padding() == nullptr || p->input_channels() > kMaxUnfoldedInputChannels) {
        return false;
    }
    // The kind's check holds: input [B, H, W, C], filter [N, KH, KW, C], output [B, OH, OW, N].
    const uint32_t channels = p->output_channels();
    if (!readOperands(program, layer, channels, 0, o)) return false;
    const auto* in = o->input->dims();
    const auto* out = o->output->dims();
    spec->batches = in->Get(0);
    spec->inHeight = in->Get(1);
    spec->inWidth = in->Get(2);
    spec->inChannels = in->Get(3);
    spec->outHeight = out->Get(1);
    spec->outWidth = out->Get(2);
    spec->channels = channels;
    spec->kernelHeight = p->kernel_height();
    spec->kernelWidth = p->kernel_width();
    spec->strideHeight = p->stride_height();
    spec->strideWidth = p->stride_width();
    spec->dilationHeight = p->dilation_height();
    spec->dilationWidth = p->dilation_width();
    spec->padTop = p->padding()->top();
    spec->padLeft = p->padding()->left();
    fillSpec(*o, spec);
    return true;
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

// `packed` tagged as packed by `kernel` in layout `version` for this machine's kernels.
void tag(uint32_t layerIndex, npu::PackedKernel kernel, uint32_t version, npu::PackedWeightsT* packed) {
    packed->layer = layerIndex;
    packed->kernel = kernel;
    packed->layout_version = version;
    packed->isa = static_cast<uint32_t>(kernels::bestIsa());
}

// The spec's weights: the program's, or `filter` (held outside the program) if it has the size.
bool weightsOf(std::span<const uint8_t> filter, size_t size, kernels::QuantLayerSpec* spec) {
    if (spec->weights != nullptr) return true;
    spec->weights = filter.data();
    return filter.size() == size;
}

}  // namespace

std::unique_ptr<LayerState> ownConvolution(const npu::Program& program, const npu::Layer& layer) {
    if (!ownKernelsEnabled()) return nullptr;
    if (isPointwise(layer)) return ownGemm(program, layer);
    if (auto unfolded = ownUnfoldedConvolution(program, layer)) return unfolded;
    return ownDepthwise(program, layer);
}

bool packOwnWeights(const npu::Program& program, uint32_t layerIndex, std::span<const uint8_t> filter,
                    npu::PackedWeightsT* packed) {
    if (!ownKernelsEnabled()) return false;
    const npu::Layer& layer = *program.layers()->Get(layerIndex);
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
    kernels::DepthwiseSpec depthwise;
    if (!depthwiseSpec(program, layer, &o, &depthwise) || !weightsOf(filter, size_t{depthwise.channels} * 9, &depthwise)) {
        return false;
    }
    const auto state = packDepthwise(depthwise, kernels::bestIsa());
    if (state == nullptr) return false;
    kernels::storeDepthwise(*state, &packed->data);
    tag(layerIndex, npu::PackedKernel::DEPTHWISE, kernels::kDepthwiseLayoutVersion, packed);
    return true;
}

bool packedWeightsRunInPlace(const npu::Program& program, const npu::Layer& layer) {
    Operands o;
    kernels::QuantGemmSpec spec;
    return ownKernelsEnabled() && isPointwise(layer) && gemmSpec(program, layer, &o, &spec) &&
           !storedGemmWeights(program, layer, spec, kernels::bestIsa()).empty();
}

}  // namespace nnemu::synap
