// SUM over constant or computed axes (repeats allowed, negative counted from the end), with
// keep_dims. Quantized: TFLite's arithmetic (see runSum). NNAPI's REDUCE_SUM at feature level 29
// is float only.
#include <algorithm>
#include <cmath>
#include <limits>

#include "CpuKernelList.h"
#include "Reduction.h"

namespace nnemu::tflite {
namespace kernels::reduce {

bool sumShape(const CpuKernelCall& call, std::vector<bool>* reduced, bool* known) {
    if (!call.expectCounts(2, 2, 1)) return false;
    if (!call.expectType(call.in(0), {ElementType::FLOAT32, ElementType::INT32, ElementType::INT64, ElementType::UINT8,
                                      ElementType::INT8, ElementType::INT16},
                         "input")) {
        return false;
    }
    if (call.out(0).type() != call.in(0).type()) return call.fail("output type differs from the input's");
    return expectReduction(call, reduced, known);
}

bool prepareSum(const CpuKernelCall& call) {
    std::vector<bool> reduced;
    bool known = false;
    return sumShape(call, &reduced, &known);
}

int64_t integerAt(const CpuOperand& operand, size_t i) {
    switch (operand.type()) {
        case ElementType::UINT8: return operand.at<uint8_t>(i);
        case ElementType::INT8: return operand.at<int8_t>(i);
        case ElementType::INT16: return operand.at<int16_t>(i);
        case ElementType::INT32: return operand.at<int32_t>(i);
        default: return operand.at<int64_t>(i);
    }
}

bool runSum(const CpuKernelCall& call) {
    std::vector<bool> reduced;
    bool known = false;
    if (!sumShape(call, &reduced, &known)) return false;
    const CpuOperand& in = call.in(0);
    const std::vector<int32_t>& shape = in.shape();
    std::vector<double> sums(call.out(0).count(), 0.0);
    // Integer sums (of stored values, for 8-bit ones too) wrap around as TFLite's integer
    // accumulators do (modulo 2^64 here, then the output's width): a double could not hold large
    // int64 values nor convert back when out of range.
    const bool integral = in.type() != ElementType::FLOAT32;
    std::vector<uint64_t> totals(integral ? sums.size() : 0, 0);
    forEachReduced(shape, reduced, in.count(), [&](size_t i, size_t o) {
        if (integral) {
            totals[o] += static_cast<uint64_t>(integerAt(in, i));
        } else {
            sums[o] += in.at<float>(i);
        }
    });
    const CpuOperand& out = call.out(0);
    const size_t count = in.count() / std::max<size_t>(sums.size(), 1);
    // TFLite rescales a quantized sum (8-bit always, int16 when its quantization differs from the
    // input's; int16 otherwise wraps around as the plain integer sum does).
    const bool quantized = out.type() == ElementType::UINT8 || out.type() == ElementType::INT8 ||
                           (out.type() == ElementType::INT16 && out.tensor->scale > 0 &&
                            (in.tensor->scale != out.tensor->scale || in.tensor->zeroPoint != out.tensor->zeroPoint));
    if (quantized && (!(out.tensor->scale > 0) || !(in.tensor->scale > 0))) return call.fail("quantized operands need scales");
    for (size_t o = 0; o < sums.size(); ++o) {
        switch (quantized ? ElementType::UINT8 : out.type()) {
            case ElementType::FLOAT32: out.set<float>(o, static_cast<float>(sums[o])); break;
            case ElementType::INT32: out.set<int32_t>(o, static_cast<int32_t>(totals[o])); break;
            case ElementType::INT64: out.set<int64_t>(o, static_cast<int64_t>(totals[o])); break;
            case ElementType::INT16: out.set<int16_t>(o, static_cast<int16_t>(totals[o])); break;
            default: {
                // TFLite's rescaling sum: in float, the int32 sum times s = scale_in / scale_out
                // minus zero_in * s * count, rounded, plus zero_out, clamped to the type. With the
                // same scale and zero point in and out (8-bit), the stored values' sum, clamped.
                const auto sum = static_cast<int32_t>(totals[o]);
                int32_t value = sum;
                if (in.tensor->scale != out.tensor->scale || in.tensor->zeroPoint != out.tensor->zeroPoint) {
                    const float scale = in.tensor->scale / out.tensor->scale;
                    const float bias = static_cast<float>(-in.tensor->zeroPoint) * scale * static_cast<float>(count);
                    // Past int32 (a scale ratio that overflows float): converted and added as
                    // TFLite's int32 arithmetic does on x86.
                    value = static_cast<int32_t>(
                            int64_t{truncateLikeX86<int32_t>(std::round(static_cast<float>(sum) * scale + bias))} +
                            out.tensor->zeroPoint);
                }
                switch (out.type()) {
                    case ElementType::UINT8: out.set<uint8_t>(o, static_cast<uint8_t>(std::clamp(value, 0, 255))); break;
                    case ElementType::INT8: out.set<int8_t>(o, static_cast<int8_t>(std::clamp(value, -128, 127))); break;
                    default: out.set<int16_t>(o, static_cast<int16_t>(std::clamp(value, -32768, 32767))); break;
                }
            }
        }
    }
    return true;
}

}  // namespace kernels::reduce

}  // namespace nnemu::tflite
