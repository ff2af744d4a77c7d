// Reference kernel for SOFTMAX along one axis:
// out = exp((x - max) * beta) / sum(exp((x - max) * beta)).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "FloatMath.h"
#include "QuantValue.h"
#include "nnemu/cpu/Kernels.h"
#include "nnemu/kernels/QuantMath.h"
#include "KernelList.h"

namespace nnemu::cpu {
namespace {

// Softmax of `in` (float) into `out` along the axis splitting dims into outer x axis x inner.
void softmaxFloat(const float* in, float* out, uint64_t outer, uint32_t axisSize, uint64_t inner,
                  float beta) {
    for (uint64_t o = 0; o < outer; ++o) {
        for (uint64_t i = 0; i < inner; ++i) {
            const uint64_t base = o * axisSize * inner + i;
            float maxValue = in[base];
            for (uint32_t a = 1; a < axisSize; ++a) maxValue = std::max(maxValue, in[base + a * inner]);
            float sum = 0.0f;
            for (uint32_t a = 0; a < axisSize; ++a) {
                const float e = std::exp((in[base + a * inner] - maxValue) * beta);
                out[base + a * inner] = e;
                sum += e;
            }
            for (uint32_t a = 0; a < axisSize; ++a) out[base + a * inner] /= sum;
        }
    }
}

// Float tensors along their last axis (inner 1): the same steps with the exponentials by the
// vectorized floatmath::exp (within 1 ULP of the exact value) over each row at once.
void softmaxFloatRows(const float* in, float* out, uint64_t rows, uint32_t axisSize, float beta) {
    for (uint64_t r = 0; r < rows; ++r) {
        const float* x = in + r * axisSize;
        float* y = out + r * axisSize;
        float maxValue = x[0];
        for (uint32_t a = 1; a < axisSize; ++a) maxValue = std::max(maxValue, x[a]);
        for (uint32_t a = 0; a < axisSize; ++a) y[a] = (x[a] - maxValue) * beta;
        floatmath::exp(y, y, axisSize);
        float sum = 0.0f;
        for (uint32_t a = 0; a < axisSize; ++a) sum += y[a];
        for (uint32_t a = 0; a < axisSize; ++a) y[a] /= sum;
    }
}

// Float tensors: rows along the last axis vectorized, other axes per element.
void softmaxFloatTensor(const float* in, float* out, uint64_t outer, uint32_t axisSize, uint64_t inner, float beta) {
    if (inner == 1) return softmaxFloatRows(in, out, outer, axisSize, beta);
    softmaxFloat(in, out, outer, axisSize, inner, beta);
}

// The exponentials of one quantized softmax: exp((x - max) * beta) with x and max dequantized,
// for every pair of an input value q and a row's largest value m that the tensor has, each
// computed once (tables[m] holds the values from low[m] to m, filled downwards as rows need
// them). Each is the same float expression as element by element, so the same bits.
template <typename T>
class QuantExpTable {
public:
    QuantExpTable(const hal::OperandView& input, float beta) : input_(input), beta_(beta) {}

    // The table for a row with largest value m and smallest value q0: entries q0..m filled.
    const float* row(T m, T q0) {
        const size_t mi = index(m);
        std::vector<float>& table = tables_[mi];
        if (table.empty()) {
            table.resize(256);
            low_[mi] = static_cast<int32_t>(m) + 1;
        }
        const float maxValue = dequantize(m);
        for (int32_t q = low_[mi] - 1; q >= static_cast<int32_t>(q0); --q) {
            table[index(static_cast<T>(q))] = std::exp((dequantize(static_cast<T>(q)) - maxValue) * beta_);
        }
        low_[mi] = std::min(low_[mi], static_cast<int32_t>(q0));
        return table.data();
    }
    static size_t index(T q) { return static_cast<size_t>(static_cast<int32_t>(q) - kQuantMin<T>); }

private:
    float dequantize(T q) const { return (static_cast<int32_t>(q) - input_.zeroPoint) * input_.scale; }
    const hal::OperandView& input_;
    float beta_;
    std::vector<float> tables_[256];
    int32_t low_[256] = {};
};

// Q8 (T = uint8_t) or Q8S (T = int8_t), evaluated in float from the dequantized input; the
// output quantization is fixed: (1/256, 0), or (1/256, -128) signed. With a finite positive
// input scale (the dequantized maximum is that of the largest input value) the exponentials come
// from a QuantExpTable, otherwise one row along the axis at a time goes through float buffers.
template <typename T>
void softmaxQuant8(const hal::OperandView& input, hal::OperandView& output, uint64_t outer,
                   uint32_t axisSize, uint64_t inner, float beta) {
    std::vector<float> in(axisSize), out(axisSize);
    const T* src = input.as<T>();
    T* dst = output.as<T>();
    const bool tabled = std::isfinite(input.scale) && input.scale > 0.0f;
    QuantExpTable<T> exps(input, beta);
    for (uint64_t o = 0; o < outer; ++o) {
        for (uint64_t i = 0; i < inner; ++i) {
            const uint64_t base = o * axisSize * inner + i;
            if (tabled) {
                T m = src[base], q0 = src[base];
                for (uint32_t a = 1; a < axisSize; ++a) {
                    m = std::max(m, src[base + a * inner]);
                    q0 = std::min(q0, src[base + a * inner]);
                }
                const float* table = exps.row(m, q0);
                float sum = 0.0f;
                for (uint32_t a = 0; a < axisSize; ++a) {
                    out[a] = table[QuantExpTable<T>::index(src[base + a * inner])];
                    sum += out[a];
                }
                for (uint32_t a = 0; a < axisSize; ++a) out[a] /= sum;
            } else {
                for (uint32_t a = 0; a < axisSize; ++a) {
                    in[a] = (static_cast<int32_t>(src[base + a * inner]) - input.zeroPoint) * input.scale;
                }
                softmaxFloat(in.data(), out.data(), 1, axisSize, 1, beta);
            }
            for (uint32_t a = 0; a < axisSize; ++a) {
                dst[base + a * inner] = static_cast<T>(quant::quantizeSaturatedFloat(out[a] / output.scale, output.zeroPoint, kQuantMin<T>, kQuantMax<T>));
            }
        }
    }
}

}  // namespace

bool kernels::softmaxKernel(OperationContext& context) {
    const hal::OperandView& input = context.input(0);
    hal::OperandView& output = context.output(0);
    const int32_t rank = static_cast<int32_t>(input.rank());
    if (rank < 1) return false;
    int32_t axis = context.numInputs() == 3 ? context.scalar<int32_t>(2) : -1;
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return false;
    const float beta = context.scalar<float>(1);
    uint64_t outer = 1, inner = 1;
    for (int32_t d = 0; d < axis; ++d) outer *= input.dim(d);
    for (int32_t d = axis + 1; d < rank; ++d) inner *= input.dim(d);
    const uint32_t axisSize = input.dim(axis);
    const uint64_t n = input.elements();
    if (n == 0) return true;

    switch (input.type) {
        case OperandType::TENSOR_FLOAT32:
            softmaxFloatTensor(input.as<float>(), output.as<float>(), outer, axisSize, inner, beta);
            return true;
        case OperandType::TENSOR_FLOAT16: {
            std::vector<float> in(n), out(n);
            const uint16_t* src = input.as<uint16_t>();
            for (uint64_t i = 0; i < n; ++i) in[i] = base::halfToFloat(src[i]);
            softmaxFloatTensor(in.data(), out.data(), outer, axisSize, inner, beta);
            uint16_t* dst = output.as<uint16_t>();
            for (uint64_t i = 0; i < n; ++i) dst[i] = base::floatToHalf(out[i]);
            return true;
        }
        case OperandType::TENSOR_QUANT8_ASYMM:
            softmaxQuant8<uint8_t>(input, output, outer, axisSize, inner, beta);
            return true;
        case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
            softmaxQuant8<int8_t>(input, output, outer, axisSize, inner, beta);
            return true;
        default:
            return false;
    }
}

}  // namespace nnemu::cpu
