// The float32 ADD and SUB of same-shape tensors (MobileNet v2's residuals) and float32 global
// average pools (a classifier's 7x7 average) run by the core itself, so that a float MobileNet on
// the own float kernels starts no XNNPACK stage (xnn_initialize and a runtime per stage in every
// process's load). ADD and SUB round each result once, then clamp: the bits of XNNPACK's and of
// the reference's. The average sums each channel over the pixels in order in float, then divides
// by their count (XNNPACK multiplies by the reciprocal: both within the reference's tolerance).
// Broadcasting float operands stay with XNNPACK. NNEMU_NPU_KERNELS=xnnpack leaves them all to it.
#include <algorithm>
#include <cstring>

#include "OwnKernelLayers.h"
#include "OwnLayerSupport.h"

namespace nnemu::synap {
namespace {

using namespace own;

constexpr size_t kSliceFloats = 16384;  // per thread's slice of an element-wise layer

struct FloatAddLayer : OwnLayer {
    size_t count = 0;
    bool subtract = false;
    float low = 0, high = 0;

    template <bool Subtract>
    void runRange(const float* a, const float* b, float* out, size_t begin, size_t end) const {
        for (size_t i = begin; i < end; ++i) {
            const float v = Subtract ? a[i] - b[i] : a[i] + b[i];
            out[i] = std::min(std::max(v, low), high);
        }
    }

    bool run(const NativeLayer& layer) override {
        // The arena and the network's buffers hold floats aligned for them.
        const auto* a = reinterpret_cast<const float*>(layer.inputs[0]);
        const auto* b = reinterpret_cast<const float*>(layer.inputs[1]);
        auto* out = reinterpret_cast<float*>(layer.output);
        inSlices(layer.pool, count, kSliceFloats, [&](size_t begin, size_t end) {
            end = std::min(end, count);
            subtract ? runRange<true>(a, b, out, begin, end) : runRange<false>(a, b, out, begin, end);
        });
        return true;
    }
};

struct FloatGlobalAverageLayer : OwnLayer {
    static constexpr size_t kRun = 32;
    size_t batches = 0, pixels = 0, channels = 0;
    float low = 0, high = 0;

    bool run(const NativeLayer& layer) override {
        const auto* in = reinterpret_cast<const float*>(layer.inputs[0]);
        auto* out = reinterpret_cast<float*>(layer.output);
        const float count = static_cast<float>(pixels);
        for (size_t b = 0; b < batches; ++b, in += pixels * channels, out += channels) {
            // Runs of kRun channels, their sums held in registers over the pixels.
            for (size_t c = 0; c < channels; c += kRun) {
                const size_t n = std::min(kRun, channels - c);
                float sums[kRun] = {};
                for (size_t p = 0; p < pixels; ++p) {
                    const float* pixel = in + p * channels + c;
                    if (n == kRun) {
#pragma GCC unroll 32
                        for (size_t j = 0; j < kRun; ++j) sums[j] += pixel[j];
                    } else {
                        for (size_t j = 0; j < n; ++j) sums[j] += pixel[j];
                    }
                }
                for (size_t j = 0; j < n; ++j) out[c + j] = std::min(std::max(sums[j] / count, low), high);
            }
        }
        return true;
    }
};

bool allFloat(const npu::Program& program, const npu::Layer& layer) {
    for (uint32_t input : *layer.inputs()) {
        if (tensorAt(program, input).type() != npu::DataType::FLOAT32) return false;
    }
    return outputOf(program, layer).type() == npu::DataType::FLOAT32;
}

}  // namespace

std::unique_ptr<LayerState> ownFloatAdd(const npu::Program& program, const npu::Layer& layer) {
    if (!ownKernelsEnabled() || layer.inputs()->size() != 2 || !allFloat(program, layer)) return nullptr;
    const npu::Tensor& output = outputOf(program, layer);
    const std::vector<uint32_t> dims = dimsOf(output);
    if (dimsOf(tensorAt(program, layer.inputs()->Get(0))) != dims ||
        dimsOf(tensorAt(program, layer.inputs()->Get(1))) != dims) {
        return nullptr;
    }
    auto state = std::make_unique<FloatAddLayer>();
    state->count = elementCount(output);
    state->subtract = layer.params_type() == npu::LayerParams::Subtract;
    state->low = layer.output_min();
    state->high = layer.output_max();
    return state;
}

std::unique_ptr<LayerState> ownFloatGlobalAverage(const npu::Program& program, const npu::Layer& layer) {
    if (!ownKernelsEnabled() || layer.inputs()->size() != 1 || !allFloat(program, layer)) return nullptr;
    // The kind's check holds: input [B, H, W, C], output [B, 1, 1, C].
    const auto* in = tensorAt(program, layer.inputs()->Get(0)).dims();
    if (in->size() != 4) return nullptr;
    auto state = std::make_unique<FloatGlobalAverageLayer>();
    state->batches = in->Get(0);
    state->pixels = size_t{in->Get(1)} * in->Get(2);
    state->channels = in->Get(3);
    if (state->pixels == 0) return nullptr;
    state->low = layer.output_min();
    state->high = layer.output_max();
    return state;
}

}  // namespace nnemu::synap
