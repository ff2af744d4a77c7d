// Quantized MEAN (uint8, int8) as TFLite 2.21's builtin kernel computes it, which NNAPI's MEAN
// does not (NNAPI rounds the dequantized mean to nearest). Two cases, as TFLite picks them:
// - a 4-D input averaged over height and width (axes {1, 2}) with keep_dims (TFLite's optimized
//   kernel): the sum of stored values through a fixed-point multiplier for scale_in / (count *
//   scale_out), plus the bias zero_out - round(zero_in * scale_in / scale_out) (in float, half
//   away from zero), clamped;
// - otherwise: the sum of q - zero_in through the fixed-point multiplier for scale_in /
//   scale_out, divided by the count rounding half away from zero, plus zero_out, clamped.
#include <algorithm>
#include <cmath>
#include <limits>

#include "CpuKernelList.h"
#include "Reduction.h"
#include "nnemu/kernels/QuantMath.h"

namespace nnemu::tflite {
namespace kernels::reduce {
namespace {

bool meanShape(const CpuKernelCall& call, std::vector<bool>* reduced, bool* known) {
    if (!call.expectCounts(2, 2, 1)) return false;
    if (!call.expectType(call.in(0), {ElementType::UINT8, ElementType::INT8}, "input")) return false;
    if (call.out(0).type() != call.in(0).type()) return call.fail("output type differs from the input's");
    if (!(call.in(0).tensor->scale > 0) || !(call.out(0).tensor->scale > 0)) {
        return call.fail("quantized input and output need scales");
    }
    return expectReduction(call, reduced, known);
}

// TFLite's special case: 4-D, keep_dims, exactly the axes {1, 2} (in either order, as written).
bool heightWidthMean(const CpuKernelCall& call) {
    const auto* options = call.params<TfLiteReducerParams>();
    if (options == nullptr || !options->keep_dims || call.in(0).rank() != 4 || call.in(1).count() != 2) return false;
    std::vector<int64_t> axes;
    bool known = false;
    if (!call.ints(1, &axes, &known) || !known) return false;
    return (axes[0] == 1 && axes[1] == 2) || (axes[0] == 2 && axes[1] == 1);
}

template <typename T>
int32_t clampTo(int32_t value) {
    return std::clamp<int32_t>(value, std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
}

template <typename T>
void meanAs(const CpuKernelCall& call, const std::vector<bool>& reduced) {
    const CpuOperand &in = call.in(0), &out = call.out(0);
    const int32_t zeroIn = in.tensor->zeroPoint, zeroOut = out.tensor->zeroPoint;
    const float scaleIn = in.tensor->scale, scaleOut = out.tensor->scale;
    const bool offsetSums = !heightWidthMean(call);
    std::vector<int32_t> sums(out.count(), 0);
    forEachReduced(in.shape(), reduced, in.count(), [&](size_t i, size_t o) {
        sums[o] += static_cast<int32_t>(in.at<T>(i)) - (offsetSums ? zeroIn : 0);
    });
    const int32_t count = static_cast<int32_t>(in.count() / std::max<size_t>(sums.size(), 1));
    if (count == 0) return;
    int32_t multiplier = 0;
    int shift = 0;
    if (heightWidthMean(call)) {
        const float real = scaleIn / (static_cast<float>(count) * scaleOut);
        quant::quantizeMultiplier(static_cast<double>(real), &multiplier, &shift);
        float offset = static_cast<float>(zeroIn) * scaleIn / scaleOut;
        offset = offset > 0 ? offset + 0.5f : offset - 0.5f;
        const int32_t bias = zeroOut - static_cast<int32_t>(offset);
        for (size_t o = 0; o < sums.size(); ++o) {
            out.set<T>(o, static_cast<T>(clampTo<T>(quant::multiplyByQuantizedMultiplier(sums[o], multiplier, shift) + bias)));
        }
    } else {
        quant::quantizeMultiplier(static_cast<double>(scaleIn) / static_cast<double>(scaleOut), &multiplier, &shift);
        for (size_t o = 0; o < sums.size(); ++o) {
            const int32_t scaled = quant::multiplyByQuantizedMultiplier(sums[o], multiplier, shift);
            const int32_t mean = scaled > 0 ? (scaled + count / 2) / count : (scaled - count / 2) / count;
            out.set<T>(o, static_cast<T>(clampTo<T>(mean + zeroOut)));
        }
    }
}

}  // namespace

bool prepareQuantizedMean(const CpuKernelCall& call) {
    std::vector<bool> reduced;
    bool known = false;
    return meanShape(call, &reduced, &known);
}

bool runQuantizedMean(const CpuKernelCall& call) {
    std::vector<bool> reduced;
    bool known = false;
    if (!meanShape(call, &reduced, &known)) return false;
    if (call.in(0).type() == ElementType::UINT8) {
        meanAs<uint8_t>(call, reduced);
    } else {
        meanAs<int8_t>(call, reduced);
    }
    return true;
}

}  // namespace kernels::reduce
}  // namespace nnemu::tflite
