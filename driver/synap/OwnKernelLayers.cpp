#include "OwnLayerSupport.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

#include "OwnKernelLayers.h"
#include "SynapLog.h"
#include "nnemu/kernels/QuantMath.h"

namespace nnemu::synap {
namespace own {

// NNEMU_NPU_KERNELS: "xnnpack" (none of the own kernels), "all" (every own kernel wherever it
// computes exactly, even where it measures slower than XNNPACK), otherwise the default set.
// Read at every load, so that one process can build several cores (benchmarks).
std::string_view kernelChoice() {
    const char* choice = std::getenv("NNEMU_NPU_KERNELS");
    return choice == nullptr ? std::string_view() : std::string_view(choice);
}

bool ownKernelsEnabled() { return kernelChoice() != "xnnpack"; }

// Bytes of the tensor's size, or a filter held packed (used in place, PackedFilters.h).
bool hasData(const npu::Tensor& tensor) {
    if (tensor.packed() && (tensor.data() == nullptr || tensor.data()->size() == 0)) return byteSize(tensor) > 0;
    return tensor.data() != nullptr && tensor.data()->size() == byteSize(tensor) && byteSize(tensor) > 0;
}

// The layer's clamp in its output's quantized values, as the reference derives it from the
// fused activation (the program keeps the activation's real bounds).
void quantizedBounds(const npu::Layer& layer, const npu::Tensor& output, int32_t qmin, int32_t* low, int32_t* high) {
    auto quantize = [&](float bound) {
        return quant::quantizeSaturated(bound / output.scale(), output.zero_point(), qmin, qmin + 255);
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

}  // namespace own

bool runOwnLayer(const NativeLayer& layer) {
    auto* state = static_cast<own::OwnLayer*>(layer.state);
    return state != nullptr && state->run(layer);
}

bool runFlipSignStage(const NativeLayer& layer) {
    return layer.state != nullptr ? runOwnLayer(layer) : runFlipSign(layer);
}

}  // namespace nnemu::synap
