// Layers of XNNPACK kinds that only move, convert or normalize values, run by the core itself:
// reshapes, and up to kMaxScalarElements converts between 8-bit and float and float softmax. An 8-bit classifier's tail
// (reshape, 8-bit to float, softmax, float to 8-bit) was the one XNNPACK stage of the 8-bit
// MobileNets, and a process paid XNNPACK's start (xnn_initialize, with cpuinfo's probe of the CPU,
// 0.25-0.35 ms on a VM where each CPUID is an exit) in its first inference for it.
// NNEMU_NPU_KERNELS=xnnpack leaves them to XNNPACK.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <emmintrin.h>

#include "OwnKernelLayers.h"
#include "OwnLayerSupport.h"
#include "nnemu/kernels/QuantMath.h"

namespace nnemu::synap {
namespace {

using namespace own;

bool isEightBit(npu::DataType type) { return type == npu::DataType::QUINT8 || type == npu::DataType::QINT8; }

// Converts between 8-bit and float and softmax run here up to this many elements (a classifier's
// scores), in simple loops (SSE2, x86-64's baseline, where it computes the same values); larger
// tensors (a segmentation map, a float section inside an 8-bit network) stay with XNNPACK's
// vector kernels.
constexpr size_t kMaxScalarElements = 16384;

// The same bytes under other dims (the kind's check: same type and element count).
struct ReshapeLayer : OwnLayer {
    bool run(const NativeLayer& layer) override {
        std::memmove(layer.output, layer.inputs[0], byteSize(layer.outputTensor()));
        return true;
    }
};

// Converts that only move 8-bit values to the other signedness: runFlipSign, in vectors.
struct SignFlipLayer : OwnLayer {
    bool run(const NativeLayer& layer) override { return runFlipSign(layer); }
};

// 8-bit to float: (q - zero point) * scale, as DEQUANTIZE computes it, from a table of the 256
// values computed so at load (was: computed per element, 1 us for a classifier's 1001 scores).
struct DequantizeLayer : OwnLayer {
    float values[256] = {};  // by byte

    bool run(const NativeLayer& layer) override {
        const size_t count = elementCount(layer.outputTensor());
        const uint8_t* in = layer.inputs[0];
        for (size_t i = 0; i < count; ++i) std::memcpy(layer.output + i * sizeof(float), &values[in[i]], sizeof(float));
        return true;
    }
};

// Float to 8-bit: round(x / scale) + zero point (half away from zero), saturated, as QUANTIZE
// computes it (quant::quantizeSaturatedFloat), 16 values at a time on SSE2 (x86-64's baseline;
// was a branchy scalar loop, 5 us for a classifier's 1001 scores). Per lane, the same value:
// clamping x / scale to [low - zero point, high - zero point] (whole numbers) before rounding
// gives what clamping after does (rounding is monotonic and keeps whole numbers), and NaN
// becomes 0 first, i.e. the zero point clamped. Where the scale is a power of two (a softmax's
// 1/256), x * (1 / scale) replaces the division: both round the same real number once.
struct QuantizeLayer : OwnLayer {
    int32_t low = 0, high = 255;
    int32_t zeroPoint = 0;
    float scale = 1.0f;
    float inverse = 0.0f;  // 1 / scale where exact, else 0
    bool signedValues = false;

    template <bool kInverse>
    static __m128i quantize4(__m128 real, __m128 by, __m128 least, __m128 most, __m128i zero) {
        __m128 v = kInverse ? _mm_mul_ps(real, by) : _mm_div_ps(real, by);
        v = _mm_andnot_ps(_mm_cmpunord_ps(v, v), v);
        v = _mm_min_ps(_mm_max_ps(v, least), most);
        const __m128i whole = _mm_cvttps_epi32(v);
        const __m128 fraction = _mm_sub_ps(v, _mm_cvtepi32_ps(whole));
        const __m128i up = _mm_castps_si128(_mm_cmpge_ps(fraction, _mm_set1_ps(0.5f)));     // -1 where rounded up
        const __m128i down = _mm_castps_si128(_mm_cmple_ps(fraction, _mm_set1_ps(-0.5f)));  // -1 where down
        return _mm_add_epi32(_mm_add_epi32(_mm_sub_epi32(whole, up), down), zero);
    }

    // Everything in locals: a byte store may alias the layer's fields, which the loop then reloads.
    template <bool kInverse>
    void convert(const NativeLayer& layer, size_t count) const {
        const uint8_t* in = layer.inputs[0];
        uint8_t* out = layer.output;
        const float by = kInverse ? inverse : scale;
        const int32_t zero = zeroPoint, least = low, most = high;
        const __m128 byV = _mm_set1_ps(by), leastV = _mm_set1_ps(static_cast<float>(least - zero));
        const __m128 mostV = _mm_set1_ps(static_cast<float>(most - zero));
        const __m128i zeroV = _mm_set1_epi32(zero);
        size_t i = 0;
        for (; i + 16 <= count; i += 16) {
            __m128i q[4];
            for (int k = 0; k < 4; ++k) {
                const __m128 real = _mm_loadu_ps(reinterpret_cast<const float*>(in + (i + 4 * k) * sizeof(float)));
                q[k] = quantize4<kInverse>(real, byV, leastV, mostV, zeroV);
            }
            // Within [low, high], which the saturating packs keep.
            const __m128i a = _mm_packs_epi32(q[0], q[1]), b = _mm_packs_epi32(q[2], q[3]);
            _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), signedValues ? _mm_packs_epi16(a, b) : _mm_packus_epi16(a, b));
        }
        for (; i < count; ++i) {
            float real;
            std::memcpy(&real, in + i * sizeof real, sizeof real);
            const float scaled = kInverse ? real * by : real / by;
            out[i] = static_cast<uint8_t>(quant::quantizeSaturatedFloat(scaled, zero, least, most));
        }
    }
    bool run(const NativeLayer& layer) override {
        const size_t count = elementCount(layer.outputTensor());
        inverse != 0.0f ? convert<true>(layer, count) : convert<false>(layer, count);
        return true;
    }
};

// Softmax along the last axis of float values (beta is a layer before it): exp(x - max) / sum,
// as the reference computes it.
struct SoftmaxLayer : OwnLayer {
    size_t rows = 0, size = 0;

    static float load(const uint8_t* at, size_t i) {
        float value;
        std::memcpy(&value, at + i * sizeof value, sizeof value);
        return value;
    }
    static void store(uint8_t* at, size_t i, float value) { std::memcpy(at + i * sizeof value, &value, sizeof value); }

    bool run(const NativeLayer& layer) override {
        for (size_t r = 0; r < rows; ++r) {
            const uint8_t* in = layer.inputs[0] + r * size * sizeof(float);
            uint8_t* out = layer.output + r * size * sizeof(float);
            float max = load(in, 0);
            for (size_t c = 1; c < size; ++c) max = std::max(max, load(in, c));
            float sum = 0.0f;
            for (size_t c = 0; c < size; ++c) {
                const float e = std::exp(load(in, c) - max);
                store(out, c, e);
                sum += e;
            }
            // The divisions 4 at a time (each the same IEEE quotient).
            const __m128 by = _mm_set1_ps(sum);
            size_t c = 0;
            for (; c + 4 <= size; c += 4) {
                float* at = reinterpret_cast<float*>(out + c * sizeof(float));
                _mm_storeu_ps(at, _mm_div_ps(_mm_loadu_ps(at), by));
            }
            for (; c < size; ++c) store(out, c, load(out, c) / sum);
        }
        return true;
    }
};

}  // namespace

std::unique_ptr<LayerState> ownReshape(const npu::Program& /*program*/, const npu::Layer& layer) {
    if (!ownKernelsEnabled() || layer.inputs()->size() != 1) return nullptr;
    return std::make_unique<ReshapeLayer>();
}

std::unique_ptr<LayerState> ownConvert(const npu::Program& program, const npu::Layer& layer) {
    if (!ownKernelsEnabled() || layer.inputs()->size() != 1) return nullptr;
    const npu::Tensor& input = tensorAt(program, layer.inputs()->Get(0));
    const npu::Tensor& output = outputOf(program, layer);
    const bool toSigned = input.type() == npu::DataType::QUINT8 && output.type() == npu::DataType::QINT8;
    const bool toUnsigned = input.type() == npu::DataType::QINT8 && output.type() == npu::DataType::QUINT8;
    if (toSigned || toUnsigned) {
        if (input.scale() != output.scale() || output.zero_point() != input.zero_point() + (toSigned ? -128 : 128)) {
            return nullptr;
        }
        return std::make_unique<SignFlipLayer>();
    }
    if (elementCount(output) > kMaxScalarElements) return nullptr;
    if (isEightBit(input.type()) && output.type() == npu::DataType::FLOAT32) {
        auto state = std::make_unique<DequantizeLayer>();
        const bool signedValues = input.type() == npu::DataType::QINT8;
        for (int byte = 0; byte < 256; ++byte) {
            const int32_t q = signedValues ? static_cast<int8_t>(byte) : byte;
            state->values[byte] = static_cast<float>(q - input.zero_point()) * input.scale();
        }
        return state;
    }
    if (input.type() == npu::DataType::FLOAT32 && isEightBit(output.type())) {
        if (!(output.scale() > 0.0f) || !std::isfinite(output.scale())) return nullptr;
        auto state = std::make_unique<QuantizeLayer>();
        const bool signedValues = output.type() == npu::DataType::QINT8;
        state->low = signedValues ? -128 : 0;
        state->high = state->low + 255;
        state->zeroPoint = output.zero_point();
        state->scale = output.scale();
        state->signedValues = signedValues;
        // The vector path's bounds low - zero point and high - zero point are exact floats.
        if (state->zeroPoint < state->low - 65536 || state->zeroPoint > state->high + 65536) return nullptr;
        int exponent = 0;
        if (std::frexp(output.scale(), &exponent) == 0.5f && std::isnormal(output.scale()) && exponent > -125) {
            state->inverse = std::ldexp(1.0f, 1 - exponent);  // scale = 2^(exponent - 1)
        }
        return state;
    }
    return nullptr;
}

std::unique_ptr<LayerState> ownSoftmax(const npu::Program& program, const npu::Layer& layer) {
    if (!ownKernelsEnabled() || layer.inputs()->size() != 1) return nullptr;
    const npu::Tensor& input = tensorAt(program, layer.inputs()->Get(0));
    const npu::Tensor& output = outputOf(program, layer);
    if (input.type() != npu::DataType::FLOAT32 || output.type() != npu::DataType::FLOAT32 ||
        elementCount(input) > kMaxScalarElements) {
        return nullptr;
    }
    const std::vector<uint32_t> dims = dimsOf(input);
    const size_t size = dims.empty() ? 1 : dims.back();
    if (size == 0) return nullptr;
    auto state = std::make_unique<SoftmaxLayer>();
    state->size = size;
    state->rows = elementCount(input) / size;
    return state;
}

}  // namespace nnemu::synap
