// Quantized MEAN (uint8, int8, int16) as TFLite 2.21's builtin kernel computes it, which NNAPI's
// MEAN does not (NNAPI rounds the dequantized mean to nearest; it has no int16 form). TFLite's
// reduce.cc picks one of these integer paths (int16 never takes its optimized one):
// - uint8 and int8, a 4-D input averaged over height and width (axes {1, 2}) with keep_dims (its
//   optimized Mean): the sum of stored values through one fixed-point multiplier for
//   scale_in / (count * scale_out), plus the bias zero_out - round(zero_in * scale_in /
//   scale_out) (in float, half away from zero), clamped;
// - otherwise (reference QuantizedMeanOrSum): the multiplier for scale_in / scale_out from
//   Prepare, folded with 1 / count as an integer (multiplier * 2^s / count truncated, the shift
//   lowered by s, s = floor(log2 count) capped at 32 and at 31 + shift), applied once to
//   sum - zero_in * count, plus zero_out, clamped. No axes at all: the input's bytes, copied.
// int16 always takes the reference path, over height and width with keep_dims too: measured
// against tflite_run on crafted cases (counts 1 to 1600, sums of either sign, equal and random
// scales), TFLite 2.21 computes that form with the folded multiplier, a double rounding (the
// 32-bit multiply's, then the shift's), not the 8-bit form's single one nor the rounded
// quotient of the scaled sum.
// Under XNNPACK's arithmetic (call.xnnpack(): TFLite's default delegate takes the node), an 8-bit
// MEAN is as TFLite 2.21's XNNPACK computes it, measured against tflite_run --xnnpack=1: the raw
// int32 sum of stored values as a float, times (scale_in / scale_out) x (1 / count), plus
// zero_out - zero_in x (scale_in / scale_out), all in float, clamped, rounded half away from zero.
// Exact halves show it (an output quantized as its input, a count of 2): they go away from zero
// in the raw sum's sign, neither to even nor up after the zero points. A float MEAN under XNNPACK's
// arithmetic goes to XnnpackFloatMean.cpp.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <type_traits>

#include "CpuKernelList.h"
#include "Reduction.h"
#include "nnemu/kernels/QuantMath.h"

namespace nnemu::tflite {
namespace kernels::reduce {
namespace {

bool meanShape(const CpuKernelCall& call, std::vector<bool>* reduced, bool* known) {
    if (!call.expectCounts(2, 2, 1)) return false;
    if (!call.expectType(call.in(0), {ElementType::UINT8, ElementType::INT8, ElementType::INT16}, "input")) return false;
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

// The reference path's multiplier for scale_in / (count * scale_out), from the one for
// scale_in / scale_out as TFLite derives it (the division truncates; the precision a large count
// costs is TFLite's too).
void foldCount(int64_t count, int32_t* multiplier, int* shift) {
    int fold = 63 - std::countl_zero(static_cast<uint64_t>(count));
    fold = std::min({fold, 32, 31 + *shift});
    *multiplier = static_cast<int32_t>((static_cast<int64_t>(*multiplier) << fold) / count);
    *shift -= fold;
}

template <typename T>
void meanAs(const CpuKernelCall& call, const std::vector<bool>& reduced) {
    const CpuOperand &in = call.in(0), &out = call.out(0);
    const int32_t zeroIn = in.tensor->zeroPoint, zeroOut = out.tensor->zeroPoint;
    const float scaleIn = in.tensor->scale, scaleOut = out.tensor->scale;
    if (call.in(1).count() == 0) {   // no axes: TFLite copies, without rescaling
        for (size_t o = 0; o < out.count(); ++o) out.set<T>(o, in.at<T>(o));
        return;
    }
    std::vector<int32_t> sums(out.count(), 0);
    const T* values = reinterpret_cast<const T*>(in.data);
    forEachReducedRow(in.shape(), reduced, in.count(), [&](size_t i, size_t o, size_t n, bool kept) {
        if (kept) {
            for (size_t k = 0; k < n; ++k) sums[o + k] += values[i + k];
        } else {
            int32_t sum = 0;
            for (size_t k = 0; k < n; ++k) sum += values[i + k];
            sums[o] += sum;
        }
    });
    const int64_t count = static_cast<int64_t>(in.count() / std::max<size_t>(sums.size(), 1));
    if (count == 0) {   // an empty input: TFLite writes zeros
        for (size_t o = 0; o < out.count(); ++o) out.set<T>(o, T{0});
        return;
    }
    if (call.xnnpack()) {
        const float ratio = scaleIn / scaleOut;
        const float scale = ratio * (1.0f / static_cast<float>(count));
        const float bias = static_cast<float>(zeroOut) - static_cast<float>(zeroIn) * ratio;
        const auto below = static_cast<float>(std::numeric_limits<T>::min());
        const auto above = static_cast<float>(std::numeric_limits<T>::max());
        for (size_t o = 0; o < sums.size(); ++o) {
            const float value = static_cast<float>(sums[o]) * scale + bias;
            // A ratio of scales that overflowed float makes NaNs here: converted as on x86.
            out.set<T>(o, truncateLikeX86<T>(std::round(std::min(std::max(value, below), above))));
        }
        return;
    }
    int32_t multiplier = 0, bias = zeroOut;
    int shift = 0;
    if (heightWidthMean(call) && !std::is_same_v<T, int16_t>) {
        const float real = scaleIn / (static_cast<float>(count) * scaleOut);
        quant::quantizeMultiplier(static_cast<double>(real), &multiplier, &shift);
        float offset = static_cast<float>(zeroIn) * scaleIn / scaleOut;
        offset = offset > 0 ? offset + 0.5f : offset - 0.5f;
        // TFLite's int32 arithmetic on x86: an offset past int32 converts to INT32_MIN, the
        // difference wraps (scales whose ratio overflows float give outputs at the clamp).
        bias = static_cast<int32_t>(zeroOut - int64_t{truncateLikeX86<int32_t>(offset)});
    } else {
        quant::quantizeMultiplier(static_cast<double>(scaleIn) / static_cast<double>(scaleOut), &multiplier, &shift);
        foldCount(count, &multiplier, &shift);
        for (int32_t& sum : sums) sum = static_cast<int32_t>(sum - int64_t{zeroIn} * count);
    }
    for (size_t o = 0; o < sums.size(); ++o) {
        const auto wrapped = static_cast<int32_t>(quant::multiplyByQuantizedMultiplier(sums[o], multiplier, shift) + int64_t{bias});
        out.set<T>(o, static_cast<T>(clampTo<T>(wrapped)));
    }
}

}  // namespace

bool prepareQuantizedMean(const CpuKernelCall& call) {
    if (!call.inputs.empty() && call.in(0).present() && call.in(0).type() == ElementType::FLOAT32) {
        return prepareXnnpackMean(call);
    }
    std::vector<bool> reduced;
    bool known = false;
    return meanShape(call, &reduced, &known);
}

bool runQuantizedMean(const CpuKernelCall& call) {
    if (!call.inputs.empty() && call.in(0).present() && call.in(0).type() == ElementType::FLOAT32) {
        return runXnnpackMean(call);
    }
    std::vector<bool> reduced;
    bool known = false;
    if (!meanShape(call, &reduced, &known)) return false;
    if (call.in(0).type() == ElementType::UINT8) {
        meanAs<uint8_t>(call, reduced);
    } else if (call.in(0).type() == ElementType::INT8) {
        meanAs<int8_t>(call, reduced);
    } else {
        meanAs<int16_t>(call, reduced);
    }
    return true;
}

}  // namespace kernels::reduce
}  // namespace nnemu::tflite
