// Reference kernel of BATCH_MATMUL (float32 through ConvGemm.h's blocked GEMM). Quantized (signed
// int8): integer accumulation of (x - zx)(y - zy), requantized by sx*sy/so with the fixed-point helpers.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "ConvGemm.h"
#include "QuantValue.h"
#include "nnemu/cpu/Kernels.h"
#include "nnemu/kernels/QuantMath.h"
#include "KernelList.h"

namespace nnemu::cpu {
namespace {

// Geometry of one multiplication: out[b] (rows x cols) = X[b] (rows x inner) * Y[b] (inner x cols).
struct MatmulShape {
    uint64_t batches = 1;
    uint32_t rows = 0, inner = 0, cols = 0;
    bool adjX = false, adjY = false;
    uint64_t xSize = 0, ySize = 0;  // elements per batch of x and y
};

MatmulShape shapeOf(const OperationContext& context) {
    MatmulShape s;
    const auto& x = context.input(0).dims;
    const size_t n = x.size();
    for (size_t i = 0; i + 2 < n; ++i) s.batches *= x[i];
    s.adjX = context.numInputs() > 2 && context.hasValue(2) && context.scalar<bool>(2);
    s.adjY = context.numInputs() > 3 && context.hasValue(3) && context.scalar<bool>(3);
    s.rows = context.output(0).dims[n - 2];
    s.cols = context.output(0).dims[n - 1];
    s.inner = s.adjX ? x[n - 2] : x[n - 1];
    s.xSize = uint64_t{s.rows} * s.inner;
    s.ySize = uint64_t{s.inner} * s.cols;
    return s;
}

// Element (r, k) of X and (k, c) of Y in batch b, honouring the adjoint flags.
uint64_t xIndex(const MatmulShape& s, uint64_t b, uint32_t r, uint32_t k) {
    return b * s.xSize + (s.adjX ? uint64_t{k} * s.rows + r : uint64_t{r} * s.inner + k);
}
uint64_t yIndex(const MatmulShape& s, uint64_t b, uint32_t k, uint32_t c) {
    return b * s.ySize + (s.adjY ? uint64_t{c} * s.inner + k : uint64_t{k} * s.cols + c);
}

// Calls store(outIndex, dot) where dot sums load(x)*load(y) in Acc.
template <typename Acc, typename LoadX, typename LoadY, typename Store>
void multiply(const MatmulShape& s, LoadX loadX, LoadY loadY, Store store) {
    uint64_t o = 0;
    for (uint64_t b = 0; b < s.batches; ++b) {
        for (uint32_t r = 0; r < s.rows; ++r) {
            for (uint32_t c = 0; c < s.cols; ++c, ++o) {
                Acc sum = 0;
                for (uint32_t k = 0; k < s.inner; ++k) sum += loadX(xIndex(s, b, r, k)) * loadY(yIndex(s, b, k, c));
                store(o, sum);
            }
        }
    }
}

// Float32 with X not transposed: each batch as a 1x1 convolution of ConvGemm.h (rows as pixels,
// Y's columns as output channels), the same sums from 0 in k order; a bias of -0 and no clamp
// leave each sum as it is (x + -0 is x, signed zeros and NaN included).
void multiplyFloatGemm(const MatmulShape& s, const float* x, const float* y, float* out) {
    convgemm::ConvGeometry g;
    g.batches = 1;
    g.inChannels = s.inner;
    g.outChannels = s.cols;
    g.window.inHeight = g.window.outHeight = 1;
    g.window.inWidth = g.window.outWidth = s.rows;
    g.window.filterHeight = g.window.filterWidth = 1;
    const std::vector<float> bias(s.cols, -0.0f);
    std::vector<float> filter(uint64_t{s.cols} * s.inner);   // [cols][inner]
    const float infinity = std::numeric_limits<float>::infinity();
    for (uint64_t b = 0; b < s.batches; ++b) {
        for (uint32_t c = 0; c < s.cols; ++c) {
            for (uint32_t k = 0; k < s.inner; ++k) filter[uint64_t{c} * s.inner + k] = y[yIndex(s, b, k, c)];
        }
        convgemm::convolve(g, x + b * s.xSize, filter.data(), bias.data(), -infinity, infinity,
                           out + b * uint64_t{s.rows} * s.cols);
    }
}

}  // namespace

bool kernels::batchMatmulKernel(OperationContext& context) {
    const MatmulShape s = shapeOf(context);
    const hal::OperandView& x = context.input(0);
    const hal::OperandView& y = context.input(1);
    hal::OperandView& out = context.output(0);
    NN_RET_CHECK(x.elements() == s.batches * s.xSize && y.elements() == s.batches * s.ySize);
    switch (x.type) {
        case OperandType::TENSOR_FLOAT32:
            if (!s.adjX) {
                multiplyFloatGemm(s, x.as<float>(), y.as<float>(), out.as<float>());
                return true;
            }
            multiply<float>(s, [&](uint64_t i) { return x.as<float>()[i]; },
                            [&](uint64_t i) { return y.as<float>()[i]; },
                            [&](uint64_t i, float v) { out.as<float>()[i] = v; });
            return true;
        case OperandType::TENSOR_FLOAT16:
            multiply<float>(s, [&](uint64_t i) { return base::halfToFloat(x.as<uint16_t>()[i]); },
                            [&](uint64_t i) { return base::halfToFloat(y.as<uint16_t>()[i]); },
                            [&](uint64_t i, float v) { out.as<uint16_t>()[i] = base::floatToHalf(v); });
            return true;
        case OperandType::TENSOR_INT32:
            // Wrapping two's complement arithmetic, like the integer matmul of TFLite.
            multiply<uint32_t>(s, [&](uint64_t i) { return static_cast<uint32_t>(x.as<int32_t>()[i]); },
                               [&](uint64_t i) { return static_cast<uint32_t>(y.as<int32_t>()[i]); },
                               [&](uint64_t i, uint32_t v) { out.as<int32_t>()[i] = static_cast<int32_t>(v); });
            return true;
        case OperandType::TENSOR_QUANT8_ASYMM_SIGNED: {
            int32_t multiplier;
            int shift;
            quant::quantizeMultiplier(static_cast<double>(x.scale) * y.scale / out.scale, &multiplier, &shift);
            multiply<int64_t>(
                    s, [&](uint64_t i) { return int64_t{quant8At(x, i)} - x.zeroPoint; },
                    [&](uint64_t i) { return int64_t{quant8At(y, i)} - y.zeroPoint; },
                    [&](uint64_t i, int64_t v) {
                        const int32_t scaled = quant::multiplyByQuantizedMultiplier(quant::saturateToInt32(v), multiplier, shift);
                        out.as<int8_t>()[i] = static_cast<int8_t>(
                                std::clamp(quant::saturatingAdd(scaled, out.zeroPoint), kQuantMin<int8_t>, kQuantMax<int8_t>));
                    });
            return true;
        }
        default:
            return false;
    }
}

}  // namespace nnemu::cpu
