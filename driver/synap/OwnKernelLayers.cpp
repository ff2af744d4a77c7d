#include "OwnKernelLayers.h"

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "NativeLayers.h"
#include "SynapLog.h"
#include "kernels/Depthwise.h"
#include "kernels/QuantConv.h"
#include "kernels/QuantAdd.h"
#include "kernels/QuantPool.h"
#include "kernels/QuantGemm.h"
#include "nnemu/cache/CacheCounters.h"
#include "nnemu/cpu/QuantMath.h"

namespace nnemu::synap {
namespace {

// NNEMU_NPU_KERNELS: "xnnpack" (none of the own kernels), "all" (every own kernel wherever it
// computes exactly, even where it measures slower than XNNPACK), otherwise the default set.
// Read at every load, so that one process can build several cores (benchmarks).
std::string_view kernelChoice() {
    const char* choice = std::getenv("NNEMU_NPU_KERNELS");
    return choice == nullptr ? std::string_view() : std::string_view(choice);
}

bool ownKernelsEnabled() { return kernelChoice() != "xnnpack"; }

// A layer on an own kernel: its packed weights and how it runs.
struct OwnLayer : LayerState {
    virtual bool run(const NativeLayer& layer) = 0;
};

// Output rows per slice on the pool: large enough that handing out slices costs little.
template <typename RunRows>
void inSlices(pthreadpool_t pool, size_t rows, size_t rowsPerSlice, const RunRows& runRows) {
    if (pool == nullptr || rows < 2 * rowsPerSlice) return runRows(0, rows);
    const auto slice = [&](size_t i) { runRows(i * rowsPerSlice, (i + 1) * rowsPerSlice); };
    pthreadpool_parallelize_1d(pool, slice, (rows + rowsPerSlice - 1) / rowsPerSlice);
}

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
        inSlices(layer.pool, rows, 64, [&](size_t begin, size_t end) { kernels::runQuantGemmRows(job, begin, end); });
        return true;
    }
};

struct DepthwiseLayer : OwnLayer {
    explicit DepthwiseLayer(uint32_t channels) : packed(channels) {}
    kernels::PackedDepthwise packed;
    kernels::Isa isa = kernels::Isa::Portable;

    bool run(const NativeLayer& layer) override {
        const size_t rows = size_t{packed.spec.batches} * packed.spec.outHeight;
        inSlices(layer.pool, rows, 4, [&](size_t begin, size_t end) {
            kernels::runDepthwise(isa, packed, layer.inputs[0], layer.output, begin, end);
        });
        return true;
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
};

struct AddLayer : OwnLayer {
    kernels::QuantAddParams params{};
    std::vector<uint32_t> dims[3];  // inputs, output
    kernels::Isa isa = kernels::Isa::Portable;

    bool run(const NativeLayer& layer) override {
        return kernels::runQuantAdd(isa, params, dims[0], layer.inputs[0], dims[1], layer.inputs[1], dims[2],
                                    layer.output);
    }
};

struct MaxPoolLayer : OwnLayer {
    kernels::MaxPoolSpec spec;
    kernels::Isa isa = kernels::Isa::Portable;

    bool run(const NativeLayer& layer) override {
        inSlices(layer.pool, size_t{spec.batches} * spec.outHeight, 4, [&](size_t begin, size_t end) {
            kernels::runMaxPoolRows(isa, spec, layer.inputs[0], layer.output, begin, end);
        });
        return true;
    }
};

struct GlobalAverageLayer : OwnLayer {
    kernels::GlobalAverageSpec spec;
    kernels::Isa isa = kernels::Isa::Portable;
    std::vector<int32_t> sums;

    bool run(const NativeLayer& layer) override {
        kernels::runGlobalAverage(isa, spec, layer.inputs[0], layer.output, &sums);
        return true;
    }
};

// Bytes of the tensor's size, or a filter held packed (used in place, PackedFilters.h).
bool hasData(const npu::Tensor& tensor) {
    if (tensor.packed() && (tensor.data() == nullptr || tensor.data()->size() == 0)) return byteSize(tensor) > 0;
    return tensor.data() != nullptr && tensor.data()->size() == byteSize(tensor) && byteSize(tensor) > 0;
}

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
void quantizedBounds(const npu::Layer& layer, const npu::Tensor& output, int32_t qmin, int32_t* low, int32_t* high) {
    auto quantize = [&](float bound) {
        return cpu::quantizeSaturated(bound / output.scale(), output.zero_point(), qmin, qmin + 255);
    };
    *low = std::isfinite(layer.output_min()) ? std::max(qmin, quantize(layer.output_min())) : qmin;
    *high = std::isfinite(layer.output_max()) ? std::min(qmin + 255, quantize(layer.output_max())) : qmin + 255;
}

// What the kernels' specs share, from the operands (which must outlive the spec).
void fillSpec(const Operands& o, kernels::QuantLayerSpec* spec) {
    spec->signedValues = o.isSigned;
    spec->inputZeroPoint = o.input->zero_point();
    spec->filterZeroPoint = o.filter->type() == npu::DataType::QUINT8 ? o.filter->zero_point() : 0;
    spec->outputZeroPoint = o.output->zero_point();
    spec->inputScale = o.input->scale();
    spec->outputScale = o.output->scale();
    spec->filterScales = o.filterScales;
    spec->low = o.low;
    spec->high = o.high;
    spec->weights = o.filter->data() != nullptr && o.filter->data()->size() > 0 ? o.filter->data()->data() : nullptr;
    spec->bias = o.bias32.data();
}

bool readOperands(const npu::Program& program, const npu::Layer& layer, uint32_t channels, uint32_t channelDim,
                  Operands* o) {
    if (layer.inputs()->size() != 3) return false;
    o->input = &tensorAt(program, layer.inputs()->Get(0));
    o->filter = &tensorAt(program, layer.inputs()->Get(1));
    o->bias = &tensorAt(program, layer.inputs()->Get(2));
    o->output = &outputOf(program, layer);
    o->isSigned = o->input->type() == npu::DataType::QINT8;
    const bool perChannel = o->filter->type() == npu::DataType::QCINT8;
    if (!o->isSigned && (o->input->type() != npu::DataType::QUINT8 || o->filter->type() != npu::DataType::QUINT8)) {
        return false;
    }
    if (o->isSigned && !perChannel && (o->filter->type() != npu::DataType::QINT8 || o->filter->zero_point() != 0)) {
        return false;
    }
    if (o->bias->type() != (perChannel ? npu::DataType::QCINT32 : npu::DataType::QINT32)) return false;
    if (o->output->type() != o->input->type() || !hasData(*o->filter) || !hasData(*o->bias)) return false;
    if (o->bias->dims()->size() != 1 || o->bias->dims()->Get(0) != channels) return false;
    o->filterScales.assign(1, o->filter->scale());
    if (perChannel) {
        const auto* scales = o->filter->channel_scales();
        if (scales == nullptr || scales->size() != channels || o->filter->channel_dim() != channelDim) return false;
        o->filterScales.assign(scales->begin(), scales->end());
    }
    o->bias32.resize(channels);
    std::memcpy(o->bias32.data(), o->bias->data()->data(), channels * sizeof(int32_t));
    quantizedBounds(layer, *o->output, o->isSigned ? -128 : 0, &o->low, &o->high);
    return true;
}

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
    return state;
}

// 3x3, stride 1 or 2 both ways, no dilation, one output channel per input channel. By default
// only on AVX-512 VNNI with the folded requantization (Depthwise.h), where it measures faster
// than XNNPACK's; elsewhere (portable loop, saturating requantization) it is slower.
std::unique_ptr<LayerState> ownDepthwise(const npu::Program& program, const npu::Layer& layer) {
    const bool everywhere = kernelChoice() == "all";
    if (!everywhere && kernels::bestIsa() != kernels::Isa::Avx512Vnni) return nullptr;
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
    if (!kernels::packDepthwise(spec, &state->packed) || (!everywhere && state->packed.folded.empty())) return nullptr;
    state->isa = kernels::bestIsa();
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

// 8-bit ADD and SUB, any broadcast the kind's check let through. Exact, but about 4x slower than
// XNNPACK's (not exact) add on AVX-512 (BENCHMARKS.md): only with NNEMU_NPU_KERNELS=all.
std::unique_ptr<LayerState> ownAdd(const npu::Program& program, const npu::Layer& layer) {
    if (kernelChoice() != "all" || layer.inputs()->size() != 2) return nullptr;
    const npu::Tensor* tensors[] = {&tensorAt(program, layer.inputs()->Get(0)), &tensorAt(program, layer.inputs()->Get(1)),
                                    &outputOf(program, layer)};
    const npu::DataType type = tensors[2]->type();
    if ((type != npu::DataType::QUINT8 && type != npu::DataType::QINT8) || tensors[0]->type() != type ||
        tensors[1]->type() != type) {
        return nullptr;
    }
    kernels::QuantAddSpec spec;
    spec.signedValues = type == npu::DataType::QINT8;
    spec.subtract = layer.params_type() == npu::LayerParams::Subtract;
    for (int i = 0; i < 2; ++i) {
        spec.zeroPoints[i] = tensors[i]->zero_point();
        spec.scales[i] = tensors[i]->scale();
    }
    spec.outputZeroPoint = tensors[2]->zero_point();
    spec.outputScale = tensors[2]->scale();
    quantizedBounds(layer, *tensors[2], spec.signedValues ? -128 : 0, &spec.low, &spec.high);
    auto state = std::make_unique<AddLayer>();
    if (!kernels::prepareQuantAdd(spec, &state->params)) return nullptr;
    for (int i = 0; i < 3; ++i) state->dims[i].assign(tensors[i]->dims()->begin(), tensors[i]->dims()->end());
    state->isa = kernels::bestIsa();
    return state;
}

// 8-bit pools, NHWC; the kind's check holds (input [B, H, W, C], output [B, OH, OW, C] or
// [B, 1, 1, C]). Exact, but slower than XNNPACK's on MobileNets' final pools (BENCHMARKS.md): only
// with NNEMU_NPU_KERNELS=all.
bool poolOperands(const npu::Program& program, const npu::Layer& layer, const npu::Tensor** input,
                  const npu::Tensor** output, bool* isSigned) {
    if (kernelChoice() != "all" || layer.inputs()->size() != 1) return false;
    *input = &tensorAt(program, layer.inputs()->Get(0));
    *output = &outputOf(program, layer);
    const npu::DataType type = (*output)->type();
    *isSigned = type == npu::DataType::QINT8;
    return (type == npu::DataType::QUINT8 || *isSigned) && (*input)->type() == type;
}

template <typename Layer, typename Spec>
std::unique_ptr<LayerState> poolLayer(const Spec& spec) {
    auto state = std::make_unique<Layer>();
    state->spec = spec;
    state->isa = kernels::bestIsa();
    return state;
}

std::unique_ptr<LayerState> ownMaxPool(const npu::Program& program, const npu::Layer& layer) {
    const npu::Tensor *input, *output;
    kernels::MaxPoolSpec spec;
    const auto* p = layer.params_as_MaxPool2D();
    if (p == nullptr || p->padding() == nullptr || !poolOperands(program, layer, &input, &output, &spec.signedValues) ||
        input->scale() != output->scale() || input->zero_point() != output->zero_point()) {
        return nullptr;
    }
    const auto* in = input->dims();
    const auto* out = output->dims();
    spec.batches = in->Get(0);
    spec.inHeight = in->Get(1);
    spec.inWidth = in->Get(2);
    spec.channels = in->Get(3);
    spec.outHeight = out->Get(1);
    spec.outWidth = out->Get(2);
    spec.poolHeight = p->pool_height();
    spec.poolWidth = p->pool_width();
    spec.strideHeight = p->stride_height();
    spec.strideWidth = p->stride_width();
    spec.padTop = p->padding()->top();
    spec.padLeft = p->padding()->left();
    spec.zeroPoint = output->zero_point();
    quantizedBounds(layer, *output, spec.signedValues ? -128 : 0, &spec.low, &spec.high);
    return poolLayer<MaxPoolLayer>(spec);
}

std::unique_ptr<LayerState> ownGlobalAverage(const npu::Program& program, const npu::Layer& layer) {
    const npu::Tensor *input, *output;
    kernels::GlobalAverageSpec spec;
    const auto* p = layer.params_as_GlobalAveragePool2D();
    if (p == nullptr || !poolOperands(program, layer, &input, &output, &spec.signedValues)) return nullptr;
    const bool same = input->scale() == output->scale() && input->zero_point() == output->zero_point();
    if (!p->mean() && !same) return nullptr;
    using kernels::AverageRounding;
    spec.rounding = !p->mean() ? AverageRounding::HalfAway : same ? AverageRounding::MeanTruncate
                                                                  : AverageRounding::MeanRequantize;
    const auto* in = input->dims();
    spec.batches = in->Get(0);
    const uint64_t pixels = uint64_t{in->Get(1)} * in->Get(2);
    if (pixels == 0 || pixels > (1u << 23)) return nullptr;  // sums stay within 32 bits
    spec.pixels = static_cast<uint32_t>(pixels);
    spec.channels = in->Get(3);
    spec.inputScale = input->scale();
    spec.outputScale = output->scale();
    spec.inputZeroPoint = input->zero_point();
    spec.outputZeroPoint = output->zero_point();
    quantizedBounds(layer, *output, spec.signedValues ? -128 : 0, &spec.low, &spec.high);
    return poolLayer<GlobalAverageLayer>(spec);
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

bool runOwnLayer(const NativeLayer& layer) {
    auto* state = static_cast<OwnLayer*>(layer.state);
    return state != nullptr && state->run(layer);
}

std::unique_ptr<LayerState> ownSignFlip(const npu::Program& program, const npu::Layer& layer) {
    if (!ownKernelsEnabled() || layer.inputs()->size() != 1) return nullptr;
    const npu::Tensor& input = tensorAt(program, layer.inputs()->Get(0));
    const npu::Tensor& output = outputOf(program, layer);
    const bool toSigned = input.type() == npu::DataType::QUINT8 && output.type() == npu::DataType::QINT8;
    const bool toUnsigned = input.type() == npu::DataType::QINT8 && output.type() == npu::DataType::QUINT8;
    if (!(toSigned || toUnsigned) || input.scale() != output.scale() ||
        output.zero_point() != input.zero_point() + (toSigned ? -128 : 128)) {
        return nullptr;
    }
    return std::make_unique<LayerState>();
}

}  // namespace nnemu::synap
