// SUM over constant or computed axes (repeats allowed, negative counted from the end), with
// keep_dims. Quantized: the sum of dequantized values requantized to the output's parameters,
// rounded to nearest. NNAPI's REDUCE_SUM at feature level 29 is float only.
#include <algorithm>
#include <cmath>
#include <limits>

#include "CpuKernelList.h"

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
    // Output position of each input element: its index over the kept dimensions.
    std::vector<double> sums(call.out(0).count(), 0.0);
    std::vector<int32_t> index(shape.size(), 0);
    const bool quantized = in.type() == ElementType::UINT8 || in.type() == ElementType::INT8;
    // Integer sums wrap around as TFLite's integer accumulators do (modulo 2^64 here, then the
    // output's width): a double could not hold large int64 values nor convert back when out of range.
    const bool integral = in.type() == ElementType::INT16 || in.type() == ElementType::INT32 || in.type() == ElementType::INT64;
    std::vector<uint64_t> totals(integral ? sums.size() : 0, 0);
    const double scale = quantized ? in.tensor->scale : 1.0;
    const double zero = quantized ? in.tensor->zeroPoint : 0.0;
    const size_t count = in.count();
    for (size_t i = 0; i < count; ++i) {
        size_t o = 0;
        for (size_t d = 0; d < shape.size(); ++d) {
            if (!reduced[d]) o = o * static_cast<size_t>(shape[d]) + static_cast<size_t>(index[d]);
        }
        if (integral) {
            totals[o] += static_cast<uint64_t>(integerAt(in, i));
        } else {
            sums[o] += (numberAt(in, i) - zero) * scale;
        }
        for (size_t d = shape.size(); d-- > 0;) {
            if (++index[d] < shape[d]) break;
            index[d] = 0;
        }
    }
    const CpuOperand& out = call.out(0);
    for (size_t o = 0; o < sums.size(); ++o) {
        switch (out.type()) {
            case ElementType::FLOAT32: out.set<float>(o, static_cast<float>(sums[o])); break;
            case ElementType::INT32: out.set<int32_t>(o, static_cast<int32_t>(totals[o])); break;
            case ElementType::INT64: out.set<int64_t>(o, static_cast<int64_t>(totals[o])); break;
            case ElementType::INT16: out.set<int16_t>(o, static_cast<int16_t>(totals[o])); break;
            default: {
                if (!(out.tensor->scale > 0)) return call.fail("quantized output without a scale");
                const double q = std::round(sums[o] / out.tensor->scale) + out.tensor->zeroPoint;
                if (out.type() == ElementType::UINT8) {
                    out.set<uint8_t>(o, static_cast<uint8_t>(std::clamp(q, 0.0, 255.0)));
                } else {
                    out.set<int8_t>(o, static_cast<int8_t>(std::clamp(q, -128.0, 127.0)));
                }
            }
        }
    }
    return true;
}

}  // namespace kernels::reduce

}  // namespace nnemu::tflite
