// Reference kernels of MEAN and REDUCE_SUM / PROD / MAX / MIN / ANY / ALL. Input elements are
// visited in row-major order and folded into their output element; F16 is computed in float.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "QuantValue.h"
#include "nnemu/cpu/Kernels.h"
#include "nnemu/hal/ShapeUtils.h"
#include "KernelList.h"

namespace nnemu::cpu {
namespace {

// For every input element (row-major), the index of the output element it folds into, plus
// the number of input elements per output element.
bool mapToOutput(const OperationContext& context, std::vector<size_t>* target, uint64_t* perOutput) {
    const OperandView& input = context.input(0);
    const OperandView& axes = context.input(1);
    std::vector<bool> reduced;
    if (!hal::resolveReductionAxes(axes.as<int32_t>(), axes.dims.empty() ? 0 : axes.dim(0),
                                   input.rank(), &reduced)) {
        return false;
    }
    std::vector<uint32_t> kept = input.dims;  // the output shape with reduced axes kept as 1
    *perOutput = 1;
    for (uint32_t i = 0; i < input.rank(); ++i) {
        if (reduced[i]) {
            *perOutput *= kept[i];
            kept[i] = 1;
        }
    }
    const std::vector<size_t> strides = hal::rowMajorStrides(kept);
    const uint64_t total = input.elements();
    target->resize(total);
    std::vector<uint32_t> index(input.rank(), 0);
    for (uint64_t n = 0; n < total; ++n) {
        size_t to = 0;
        for (uint32_t i = 0; i < input.rank(); ++i) {
            if (!reduced[i]) to += index[i] * strides[i];
        }
        (*target)[n] = to;
        for (uint32_t i = input.rank(); i-- > 0;) {
            if (++index[i] < input.dim(i)) break;
            index[i] = 0;
        }
    }
    return true;
}

// Folds input values (read as T through `load`) into `init`-initialised accumulators with
// `fold`, then hands each accumulator to `store`.
template <typename T, typename Load, typename Fold, typename Store>
bool reduce(OperationContext& context, T init, Load load, Fold fold, Store store) {
    std::vector<size_t> target;
    uint64_t perOutput = 0;
    if (!mapToOutput(context, &target, &perOutput)) return false;
    std::vector<T> accumulators(context.output(0).elements(), init);
    for (size_t n = 0; n < target.size(); ++n) {
        accumulators[target[n]] = fold(accumulators[target[n]], load(n));
    }
    for (size_t o = 0; o < accumulators.size(); ++o) store(o, accumulators[o], perOutput);
    return true;
}

// Runs a float reduction over an F32 or F16 tensor; `finish(acc, count)` gives the output.
template <typename Fold, typename Finish>
bool reduceFloat(OperationContext& context, float init, Fold fold, Finish finish) {
    const OperandView& input = context.input(0);
    OperandView& output = context.output(0);
    if (input.type == OperandType::TENSOR_FLOAT32) {
        const float* in = input.as<float>();
        float* out = output.as<float>();
        return reduce<float>(
                context, init, [&](size_t i) { return in[i]; }, fold,
                [&](size_t o, float acc, uint64_t count) { out[o] = finish(acc, count); });
    }
    if (input.type == OperandType::TENSOR_FLOAT16) {
        const uint16_t* in = input.as<uint16_t>();
        uint16_t* out = output.as<uint16_t>();
        return reduce<float>(
                context, init, [&](size_t i) { return base::halfToFloat(in[i]); }, fold,
                [&](size_t o, float acc, uint64_t count) { out[o] = base::floatToHalf(finish(acc, count)); });
    }
    return false;
}

float plus(float a, float b) { return a + b; }
float times(float a, float b) { return a * b; }
float larger(float a, float b) { return std::max(a, b); }
float smaller(float a, float b) { return std::min(a, b); }
float asIs(float acc, uint64_t) { return acc; }

// MEAN of Q8 (T = uint8_t) or Q8S (T = int8_t) values.
template <typename T>
bool meanQuant8(OperationContext& context) {
    const OperandView& input = context.input(0);
    const T* in = input.as<T>();
    OperandView& output = context.output(0);
    T* out = output.as<T>();
    auto load = [&](size_t i) { return static_cast<int32_t>(in[i]); };
    auto add = [](int32_t a, int32_t b) { return a + b; };
    if (input.scale == output.scale && input.zeroPoint == output.zeroPoint) {
        // Same quantization: the mean of the quantized values, truncated toward zero (TFLite's
        // Mean).
        return reduce<int32_t>(context, 0, load, add, [&](size_t o, int32_t sum, uint64_t count) {
            out[o] = static_cast<T>(count == 0 ? 0 : sum / static_cast<int32_t>(count));
        });
    }
    // Different quantization: requantize the mean into the output's parameters.
    const float scale = input.scale / output.scale;
    const float bias = -static_cast<float>(input.zeroPoint) * scale;
    return reduce<int32_t>(context, 0, load, add, [&](size_t o, int32_t sum, uint64_t count) {
        const float meanValue = count == 0 ? 0.0f : static_cast<float>(sum) / static_cast<float>(count);
        const float value = std::round(meanValue * scale + bias) + static_cast<float>(output.zeroPoint);
        out[o] = static_cast<T>(
                std::clamp(value, static_cast<float>(kQuantMin<T>), static_cast<float>(kQuantMax<T>)));
    });
}

// Q8 (T = uint8_t) or Q8S (T = int8_t): input and output share their quantization, so the
// quantized values compare directly.
template <bool kMax, typename T>
bool reduceMaxMinQuant8(OperationContext& context) {
    const T* in = context.input(0).as<T>();
    T* out = context.output(0).as<T>();
    const int32_t init = kMax ? kQuantMin<T> : kQuantMax<T>;
    return reduce<int32_t>(
            context, init, [&](size_t i) { return static_cast<int32_t>(in[i]); },
            [](int32_t a, int32_t b) { return kMax ? std::max(a, b) : std::min(a, b); },
            [&](size_t o, int32_t acc, uint64_t) { out[o] = static_cast<T>(acc); });
}

template <bool kMax>
bool reduceMaxMin(OperationContext& context) {
    const OperandType type = context.inputType(0);
    if (type == OperandType::TENSOR_QUANT8_ASYMM) return reduceMaxMinQuant8<kMax, uint8_t>(context);
    if (type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED) return reduceMaxMinQuant8<kMax, int8_t>(context);
    const float init = kMax ? -std::numeric_limits<float>::infinity()
                            : std::numeric_limits<float>::infinity();
    return reduceFloat(context, init, kMax ? larger : smaller, asIs);
}

template <bool kAny>
bool reduceAnyAll(OperationContext& context) {
    if (context.inputType(0) != OperandType::TENSOR_BOOL8) return false;
    const uint8_t* in = context.input(0).as<uint8_t>();
    uint8_t* out = context.output(0).as<uint8_t>();
    return reduce<bool>(
            context, !kAny, [&](size_t i) { return in[i] != 0; },
            [](bool a, bool b) { return kAny ? (a || b) : (a && b); },
            [&](size_t o, bool acc, uint64_t) { out[o] = acc ? 1 : 0; });
}

}  // namespace

bool kernels::mean(OperationContext& context) {
    switch (context.inputType(0)) {
        case OperandType::TENSOR_QUANT8_ASYMM:
            return meanQuant8<uint8_t>(context);
        case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
            return meanQuant8<int8_t>(context);
        default:
            return reduceFloat(context, 0.0f, plus, [](float sum, uint64_t count) {
                return count == 0 ? 0.0f : sum / static_cast<float>(count);
            });
    }
}

bool kernels::reduceSum(OperationContext& context) { return reduceFloat(context, 0.0f, plus, asIs); }

bool kernels::reduceProd(OperationContext& context) { return reduceFloat(context, 1.0f, times, asIs); }

bool kernels::reduceMax(OperationContext& context) { return reduceMaxMin<true>(context); }

bool kernels::reduceMin(OperationContext& context) { return reduceMaxMin<false>(context); }

bool kernels::reduceAny(OperationContext& context) { return reduceAnyAll<true>(context); }

bool kernels::reduceAll(OperationContext& context) { return reduceAnyAll<false>(context); }

}  // namespace nnemu::cpu
