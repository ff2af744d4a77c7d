// Reference kernels of MEAN and REDUCE_SUM / PROD / MAX / MIN / ANY / ALL. Input elements are
// visited in row-major order and folded into their output element; F16 is computed in float.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "QuantValue.h"
#include "nnemu/cpu/Kernels.h"
#include "nnemu/hal/ShapeUtils.h"
#include "KernelList.h"

namespace nnemu::cpu {
namespace {

// The walk of a reduction: input elements in row-major order, each with the output element it
// folds into. Rows of the input's last axis are handed out whole, with the output step along
// them (1 when that axis is kept, 0 when it is reduced), so no per-element index arithmetic runs.
struct ReductionWalk {
    std::vector<uint32_t> dims;     // the input's shape
    std::vector<size_t> steps;      // per input axis, the output offset one step along it moves
    uint64_t perOutput = 1;         // input elements folded into each output element

    bool init(const OperationContext& context) {
        const OperandView& input = context.input(0);
        const OperandView& axes = context.input(1);
        std::vector<bool> reduced;
        if (!hal::resolveReductionAxes(axes.as<int32_t>(), axes.dims.empty() ? 0 : axes.dim(0), input.rank(),
                                       &reduced)) {
            return false;
        }
        dims = input.dims;
        std::vector<uint32_t> kept = input.dims;  // the output shape with reduced axes kept as 1
        for (uint32_t i = 0; i < input.rank(); ++i) {
            if (reduced[i]) {
                perOutput *= kept[i];
                kept[i] = 1;
            }
        }
        steps = hal::rowMajorStrides(kept);
        for (uint32_t i = 0; i < input.rank(); ++i) {
            if (reduced[i]) steps[i] = 0;
        }
        return true;
    }

    // visit(first input element, its output element, row length, output step along the row).
    template <typename Visit>
    void forEachRow(uint64_t total, Visit visit) const {
        if (total == 0) return;
        if (dims.empty()) {
            visit(size_t{0}, size_t{0}, uint32_t{1}, size_t{0});
            return;
        }
        const size_t rank = dims.size();
        const uint32_t rowLength = dims[rank - 1];
        std::vector<uint32_t> index(rank, 0);
        size_t to = 0;
        for (uint64_t n = 0; n < total; n += rowLength) {
            visit(static_cast<size_t>(n), to, rowLength, steps[rank - 1]);
            for (size_t i = rank - 1; i-- > 0;) {  // next row
                if (++index[i] < dims[i]) {
                    to += steps[i];
                    break;
                }
                to -= static_cast<size_t>(dims[i] - 1) * steps[i];
                index[i] = 0;
            }
        }
    }
};

// Folds input values (read as T through `load`) into `init`-initialised accumulators with
// `fold`, then hands each accumulator to `store`.
template <typename T, typename Load, typename Fold, typename Store>
bool reduce(OperationContext& context, T init, Load load, Fold fold, Store store) {
    ReductionWalk walk;
    if (!walk.init(context)) return false;
    using Storage = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;  // not vector<bool>'s bits
    std::vector<Storage> accumulators(context.output(0).elements(), init);
    walk.forEachRow(context.input(0).elements(), [&](size_t n, size_t to, uint32_t length, size_t step) {
        Storage* acc = accumulators.data() + to;
        if (step == 0) {
            T value = static_cast<T>(*acc);
            for (uint32_t k = 0; k < length; ++k) value = fold(value, load(n + k));
            *acc = value;
        } else {
            for (uint32_t k = 0; k < length; ++k) acc[k] = fold(acc[k], load(n + k));
        }
    });
    for (size_t o = 0; o < accumulators.size(); ++o) store(o, static_cast<T>(accumulators[o]), walk.perOutput);
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

// Function objects, not functions: a function pointer as `Fold` would be an indirect call per element.
constexpr auto plus = [](float a, float b) { return a + b; };
constexpr auto times = [](float a, float b) { return a * b; };
constexpr auto larger = [](float a, float b) { return std::max(a, b); };
constexpr auto smaller = [](float a, float b) { return std::min(a, b); };
constexpr auto asIs = [](float acc, uint64_t) { return acc; };

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
        // (extreme but valid scales make the value infinite, or NaN where an infinite scale
        // meets a zero: quantizeSaturated clamps the one and gives the zero point for the other)
        out[o] = static_cast<T>(quant::quantizeSaturated(meanValue * scale + bias, output.zeroPoint, kQuantMin<T>,
                                                         kQuantMax<T>));
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
    if constexpr (kMax) return reduceFloat(context, init, larger, asIs);
    return reduceFloat(context, init, smaller, asIs);
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
