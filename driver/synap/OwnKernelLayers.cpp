#include "OwnKernelLayers.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "NativeLayers.h"
#include "kernels/QuantGemm.h"
#include "nnemu/cpu/QuantMath.h"

namespace nnemu::synap {
namespace {

// Read at every load, so that one process can build both cores (benchmarks).
bool ownKernelsEnabled() {
    const char* choice = std::getenv("NNEMU_NPU_KERNELS");
    return choice == nullptr || std::string_view(choice) != "xnnpack";
}

struct GemmState : LayerState {
    std::vector<uint8_t> packed;
    size_t rows = 0;
    kernels::Isa isa = kernels::Isa::Portable;
    kernels::QuantGemmScratch scratch;
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

bool hasData(const npu::Tensor& tensor) {
    return tensor.data() != nullptr && tensor.data()->size() == byteSize(tensor) && byteSize(tensor) > 0;
}

// The layer's clamp in its output's quantized values, as the reference derives it from the
// fused activation (the program keeps the activation's real bounds).
void quantizedBounds(const npu::Layer& layer, const npu::Tensor& output, int32_t qmin, int32_t* low, int32_t* high) {
    auto quantize = [&](float bound) {
        return cpu::quantizeSaturated(bound / output.scale(), output.zero_point(), qmin, qmin + 255);
    };
    *low = std::isfinite(layer.output_min()) ? std::max(qmin, quantize(layer.output_min())) : qmin;
    *high = std::isfinite(layer.output_max()) ? std::min(qmin + 255, quantize(layer.output_max())) : qmin + 255;
}

}  // namespace

std::unique_ptr<LayerState> ownGemm(const npu::Program& program, const npu::Layer& layer) {
    if (!ownKernelsEnabled() || !isPointwise(layer) || layer.inputs()->size() != 3) return nullptr;
    const npu::Tensor& input = tensorAt(program, layer.inputs()->Get(0));
    const npu::Tensor& filter = tensorAt(program, layer.inputs()->Get(1));
    const npu::Tensor& bias = tensorAt(program, layer.inputs()->Get(2));
    const npu::Tensor& output = outputOf(program, layer);
    const bool isSigned = input.type() == npu::DataType::QINT8;
    const bool perChannel = filter.type() == npu::DataType::QCINT8;
    if (!isSigned && (input.type() != npu::DataType::QUINT8 || filter.type() != npu::DataType::QUINT8)) return nullptr;
    if (isSigned && !perChannel && (filter.type() != npu::DataType::QINT8 || filter.zero_point() != 0)) return nullptr;
    if (bias.type() != (perChannel ? npu::DataType::QCINT32 : npu::DataType::QINT32)) return nullptr;
    if (output.type() != input.type() || !hasData(filter) || !hasData(bias)) return nullptr;
    // The shapes passed the kind's check: filter [N, (1, 1,) K], bias [N], rows of K inputs.
    const auto* filterDims = filter.dims();
    const uint32_t channels = filterDims->Get(0), depth = filterDims->Get(filterDims->size() - 1);
    if (depth == 0 || elementCount(input) % depth != 0 || bias.dims()->size() != 1 ||
        bias.dims()->Get(0) != channels) {
        return nullptr;
    }
    std::vector<float> filterScales{filter.scale()};
    if (perChannel) {
        if (filter.channel_scales() == nullptr || filter.channel_scales()->size() != channels ||
            filter.channel_dim() != 0) {
            return nullptr;
        }
        filterScales.assign(filter.channel_scales()->begin(), filter.channel_scales()->end());
    }
    std::vector<int32_t> biasValues(channels);  // the program's bytes need not be aligned
    std::memcpy(biasValues.data(), bias.data()->data(), channels * sizeof(int32_t));
    kernels::QuantGemmSpec spec;
    spec.depth = depth;
    spec.channels = channels;
    spec.signedValues = isSigned;
    spec.inputZeroPoint = input.zero_point();
    spec.filterZeroPoint = perChannel ? 0 : filter.zero_point();
    spec.outputZeroPoint = output.zero_point();
    spec.inputScale = input.scale();
    spec.outputScale = output.scale();
    spec.filterScales = filterScales;
    quantizedBounds(layer, output, isSigned ? -128 : 0, &spec.low, &spec.high);
    spec.weights = filter.data()->data();
    spec.bias = biasValues.data();
    auto state = std::make_unique<GemmState>();
    if (!kernels::packQuantGemm(spec, &state->packed)) return nullptr;
    state->rows = elementCount(input) / depth;
    state->isa = kernels::bestIsa();
    return state;
}

// Rows per slice on the pool: a multiple of the kernels' 4-row tiles, large enough that handing
// out slices costs little.
constexpr size_t kRowsPerSlice = 64;

bool runOwnGemm(const NativeLayer& layer) {
    auto* state = static_cast<GemmState*>(layer.state);
    kernels::QuantGemmJob job;
    if (state == nullptr || !kernels::prepareQuantGemm(state->isa, state->packed, layer.inputs[0], state->rows,
                                                       layer.output, &state->scratch, &job)) {
        return false;
    }
    if (layer.pool == nullptr || state->rows < 2 * kRowsPerSlice) {
        kernels::runQuantGemmRows(job, 0, state->rows);
        return true;
    }
    const auto slice = [&job](size_t i) { kernels::runQuantGemmRows(job, i * kRowsPerSlice, (i + 1) * kRowsPerSlice); };
    pthreadpool_parallelize_1d(layer.pool, slice, (state->rows + kRowsPerSlice - 1) / kRowsPerSlice);
    return true;
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
