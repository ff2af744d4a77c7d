// Reference kernels for L2_NORMALIZATION and LOCAL_RESPONSE_NORMALIZATION along one axis.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "QuantValue.h"
#include "nnemu/cpu/Kernels.h"
#include "nnemu/hal/Axis.h"
#include "nnemu/kernels/QuantMath.h"
#include "KernelList.h"

namespace nnemu::cpu {
namespace {

// The input's dims around `axis` (negative counts from the end): outer x size x inner.
bool splitAt(const hal::OperandView& input, int32_t axis, hal::AxisSplit* split) {
    uint32_t resolved = 0;
    if (!hal::resolveAxis(axis, input.rank(), &resolved)) return false;
    *split = hal::splitAtAxis(input.dims, resolved);
    return true;
}

std::vector<float> toFloat(const hal::OperandView& operand) {
    const uint64_t n = operand.elements();
    std::vector<float> values(n);
    if (operand.type == OperandType::TENSOR_FLOAT32) {
        std::copy(operand.as<float>(), operand.as<float>() + n, values.begin());
    } else {
        for (uint64_t i = 0; i < n; ++i) values[i] = base::halfToFloat(operand.as<uint16_t>()[i]);
    }
    return values;
}

void fromFloat(const std::vector<float>& values, hal::OperandView& operand) {
    if (operand.type == OperandType::TENSOR_FLOAT32) {
        std::copy(values.begin(), values.end(), operand.as<float>());
    } else {
        for (size_t i = 0; i < values.size(); ++i) operand.as<uint16_t>()[i] = base::floatToHalf(values[i]);
    }
}

// out = x / max(sqrt(sum over the axis of x^2), 1e-6)
void l2NormFloat(const float* in, float* out, const hal::AxisSplit& s) {
    constexpr float kEpsilon = 1e-6f;
    for (uint64_t o = 0; o < s.outer; ++o) {
        for (uint64_t i = 0; i < s.inner; ++i) {
            const uint64_t base = o * s.size * s.inner + i;
            float sum = 0.0f;
            for (uint32_t a = 0; a < s.size; ++a) {
                const float v = in[base + a * s.inner];
                sum += v * v;
            }
            const float norm = std::max(std::sqrt(sum), kEpsilon);
            for (uint32_t a = 0; a < s.size; ++a) out[base + a * s.inner] = in[base + a * s.inner] / norm;
        }
    }
}

// Quant8 (T = uint8_t or int8_t): output quantization is (1/128, 128), or (1/128, 0) signed,
// i.e. q = zeroPoint + round(128 * x / |x|).
template <typename T>
void l2NormQuant8(const hal::OperandView& input, hal::OperandView& output, const hal::AxisSplit& s) {
    const T* in = input.as<T>();
    T* out = output.as<T>();
    for (uint64_t o = 0; o < s.outer; ++o) {
        for (uint64_t i = 0; i < s.inner; ++i) {
            const uint64_t base = o * s.size * s.inner + i;
            int64_t sum = 0;
            for (uint32_t a = 0; a < s.size; ++a) {
                const int64_t diff = static_cast<int32_t>(in[base + a * s.inner]) - input.zeroPoint;
                sum += diff * diff;
            }
            const double norm = std::sqrt(static_cast<double>(sum));
            for (uint32_t a = 0; a < s.size; ++a) {
                const int32_t diff = static_cast<int32_t>(in[base + a * s.inner]) - input.zeroPoint;
                const double normalized = norm > 0.0 ? diff / norm : 0.0;
                out[base + a * s.inner] = static_cast<T>(
                        quant::quantizeSaturated(normalized / output.scale, output.zeroPoint, kQuantMin<T>, kQuantMax<T>));
            }
        }
    }
}

// out = x * (bias + alpha * sum of x^2 over [c - radius, c + radius] along the axis)^-beta
void lrnFloat(const float* in, float* out, const hal::AxisSplit& s, int32_t radius, float bias,
              float alpha, float beta) {
    for (uint64_t o = 0; o < s.outer; ++o) {
        for (uint64_t i = 0; i < s.inner; ++i) {
            const uint64_t base = o * s.size * s.inner + i;
            for (int64_t c = 0; c < s.size; ++c) {
                const int64_t first = std::max<int64_t>(0, c - radius);
                const int64_t last = std::min<int64_t>(static_cast<int64_t>(s.size) - 1, c + radius);
                float sum = 0.0f;
                for (int64_t k = first; k <= last; ++k) {
                    const float v = in[base + k * s.inner];
                    sum += v * v;
                }
                const float multiplier = std::pow(bias + alpha * sum, -beta);
                out[base + c * s.inner] = in[base + c * s.inner] * multiplier;
            }
        }
    }
}

}  // namespace

bool kernels::l2NormKernel(OperationContext& context) {
    const hal::OperandView& input = context.input(0);
    hal::OperandView& output = context.output(0);
    hal::AxisSplit split;
    const int32_t axis = context.numInputs() == 2 ? context.scalar<int32_t>(1) : -1;
    if (!splitAt(input, axis, &split)) return false;
    switch (input.type) {
        case OperandType::TENSOR_FLOAT32:
            l2NormFloat(input.as<float>(), output.as<float>(), split);
            return true;
        case OperandType::TENSOR_FLOAT16: {
            const std::vector<float> in = toFloat(input);
            std::vector<float> out(in.size());
            l2NormFloat(in.data(), out.data(), split);
            fromFloat(out, output);
            return true;
        }
        case OperandType::TENSOR_QUANT8_ASYMM:
            l2NormQuant8<uint8_t>(input, output, split);
            return true;
        case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
            l2NormQuant8<int8_t>(input, output, split);
            return true;
        default:
            return false;
    }
}

bool kernels::lrnKernel(OperationContext& context) {
    const hal::OperandView& input = context.input(0);
    hal::OperandView& output = context.output(0);
    const int32_t radius = context.scalar<int32_t>(1);
    const float bias = context.scalar<float>(2);
    const float alpha = context.scalar<float>(3);
    const float beta = context.scalar<float>(4);
    if (radius < 0) return false;
    hal::AxisSplit split;
    const int32_t axis = context.numInputs() == 6 ? context.scalar<int32_t>(5) : -1;
    if (!splitAt(input, axis, &split)) return false;
    switch (input.type) {
        case OperandType::TENSOR_FLOAT32:
            lrnFloat(input.as<float>(), output.as<float>(), split, radius, bias, alpha, beta);
            return true;
        case OperandType::TENSOR_FLOAT16: {
            const std::vector<float> in = toFloat(input);
            std::vector<float> out(in.size());
            lrnFloat(in.data(), out.data(), split, radius, bias, alpha, beta);
            fromFloat(out, output);
            return true;
        }
        default:
            return false;
    }
}

}  // namespace nnemu::cpu
