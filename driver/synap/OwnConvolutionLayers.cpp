// The own kernels' convolution layers: 1x1 convolutions and fully connected layers on the GEMM
// (weights packed by the compiler, used in place), convolutions with few input channels
// (im2col + GEMM) and 3x3 depthwise convolutions.
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
    explicit DepthwiseLayer(uint32_t channels) : packed(channels) {}
    kernels::PackedDepthwise packed;
    kernels::Isa isa = kernels::Isa::Portable;

    bool run(const NativeLayer& layer) override {
        const size_t rows = size_t{packed.spec.batches} * packed.spec.outHeight;
        // 9 products per output; each costs about 4 of the GEMM's (one lane each, no dot products).
        const double rowCost = 4.0 * 9.0 * packed.spec.outWidth * packed.spec.channels;
        inTiles(layer.pool, rows, 1, rowCost, [&](size_t begin, size_t end, size_t, size_t) {
            kernels::runDepthwise(isa, packed, layer.inputs[0], layer.output, begin, end);
        });
        return true;
    }

    const kernels::DepthwiseSpec* depthwiseSpec() const override { return &packed.spec; }
    void runDepthwiseBand(const uint8_t* band, size_t bandFirstRow, uint8_t* output, size_t begin,
                          size_t end) override {
        kernels::runDepthwiseBand(isa, packed, band, bandFirstRow, output, begin, end);
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

// The program's packed weights for `layer` if they are the running kernel's: same layout, packed
// for this ISA, and sound (the program may come from a file); empty otherwise.
std::span<const uint8_t> storedGemmWeights(const npu::Program& program, const npu::Layer& layer,
                                           const kernels::QuantGemmSpec& spec, kernels::Isa isa) {
    if (program.packed_weights() == nullptr) return {};
    for (const npu::PackedWeights* entry : *program.packed_weights()) {
        if (entry->layer() >= program.layers()->size() || program.layers()->Get(entry->layer()) != &layer) continue;
        if (entry->kernel() != npu::PackedKernel::QUANT_GEMM || entry->data() == nullptr ||
            entry->layout_version() != kernels::kQuantGemmLayoutVersion || entry->isa() != static_cast<uint32_t>(isa)) {
            return {};
        }
        const std::span<const uint8_t> bytes(entry->data()->data(), entry->data()->size());
        if (!kernels::checkPackedQuantGemm(bytes, spec.depth, spec.channels, spec.signedValues)) {
            SYNAP_LOG(WARNING) << "the program's packed weights of layer " << entry->layer()
                            << " are damaged; packing them again";
            return {};
        }
        return bytes;
    }
    return {};
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
// faster than XNNPACK's; elsewhere (portable loop, saturating requantization) it is slower.
std::unique_ptr<LayerState> ownDepthwise(const npu::Program& program, const npu::Layer& layer) {
    const bool everywhere = kernelChoice() == "all";
    const kernels::Isa isa = kernels::bestIsa();
    if (!everywhere && isa != kernels::Isa::Avx512Vnni && isa != kernels::Isa::Avx2) return nullptr;
    const auto* p = layer.params_as_Conv2D();
    if (p == nullptr || !p->depthwise() || p->padding() == nullptr || p->kernel_height() != 3 ||
        p->kernel_width() != 3 || p->stride_height() != p->stride_width() || p->stride_height() > 2 ||
        p->dilation_height() != 1 || p->dilation_width() != 1 || p->depth_multiplier() != 1) {
        return nullptr;
    }
    // The kind's check holds: input [B, H, W, C], filter [1, 3, 3, C], output [B, OH, OW, C].
    const uint32_t channels = p->input_channels();
    Operands o;
    if (!readOperands(program, layer, channels, 3, &o)) return nullptr;
    const auto* in = o.input->dims();
    const auto* out = o.output->dims();
    kernels::DepthwiseSpec spec;
    spec.batches = in->Get(0);
    spec.inHeight = in->Get(1);
    spec.inWidth = in->Get(2);
    spec.channels = channels;
    spec.outHeight = out->Get(1);
    spec.outWidth = out->Get(2);
    spec.stride = p->stride_height();
    spec.padTop = p->padding()->top();
    spec.padLeft = p->padding()->left();
    fillSpec(o, &spec);
    auto state = std::make_unique<DepthwiseLayer>(channels);
    if (!kernels::packDepthwise(spec, &state->packed)) return nullptr;
    const bool folded = isa == kernels::Isa::Avx2 ? !state->packed.avx2.folded.empty() : !state->packed.folded.empty();
    if (!everywhere && !folded) return nullptr;
    state->isa = isa;
    kernels::keepDepthwiseFor(state->isa, &state->packed);
    return state;
}

// A convolution with few input channels (the first layer of image networks, small detectors):
// im2col + GEMM, measured as fast as XNNPACK's or faster from 3 to 64 input channels
// (BENCHMARKS.md). Any kernel size, stride, dilation.
constexpr uint32_t kMaxUnfoldedInputChannels = 64;

std::unique_ptr<LayerState> ownUnfoldedConvolution(const npu::Program& program, const npu::Layer& layer) {
    const auto* p = layer.params_as_Conv2D();
    if (p == nullptr || p->depthwise() || p->padding() == nullptr || p->input_channels() > kMaxUnfoldedInputChannels) {
        return nullptr;
    }
    // The kind's check holds: input [B, H, W, C], filter [N, KH, KW, C], output [B, OH, OW, N].
    const uint32_t channels = p->output_channels();
    Operands o;
    if (!readOperands(program, layer, channels, 0, &o)) return nullptr;
    const auto* in = o.input->dims();
    const auto* out = o.output->dims();
    kernels::QuantConvSpec spec;
    spec.batches = in->Get(0);
    spec.inHeight = in->Get(1);
    spec.inWidth = in->Get(2);
    spec.inChannels = in->Get(3);
    spec.outHeight = out->Get(1);
    spec.outWidth = out->Get(2);
    spec.channels = channels;
    spec.kernelHeight = p->kernel_height();
    spec.kernelWidth = p->kernel_width();
    spec.strideHeight = p->stride_height();
    spec.strideWidth = p->stride_width();
    spec.dilationHeight = p->dilation_height();
    spec.dilationWidth = p->dilation_width();
    spec.padTop = p->padding()->top();
    spec.padLeft = p->padding()->left();
    fillSpec(o, &spec);
    auto state = std::make_unique<ConvLayer>();
    if (!kernels::packQuantConv(spec, &state->packed)) return nullptr;
    state->isa = kernels::bestIsa();
    return state;
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
    const npu::Layer& layer = *program.layers()->Get(layerIndex);
    Operands o;
    kernels::QuantGemmSpec spec;
    if (!ownKernelsEnabled() || !isPointwise(layer) || !gemmSpec(program, layer, &o, &spec)) return false;
    if (spec.weights == nullptr) spec.weights = filter.data();  // the filter held outside the program
    const bool sized = spec.weights != filter.data() || filter.size() == size_t{spec.channels} * spec.depth;
    if (!sized || !kernels::packQuantGemm(spec, &packed->data)) return false;
    packed->layer = layerIndex;
    packed->kernel = npu::PackedKernel::QUANT_GEMM;
    packed->layout_version = kernels::kQuantGemmLayoutVersion;
    packed->isa = static_cast<uint32_t>(kernels::bestIsa());
    return true;
}

bool packedWeightsRunInPlace(const npu::Program& program, const npu::Layer& layer) {
    Operands o;
    kernels::QuantGemmSpec spec;
    return ownKernelsEnabled() && isPointwise(layer) && gemmSpec(program, layer, &o, &spec) &&
           !storedGemmWeights(program, layer, spec, kernels::bestIsa()).empty();
}

}  // namespace nnemu::synap
