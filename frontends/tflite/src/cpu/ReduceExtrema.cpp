// REDUCE_MAX, REDUCE_MIN and REDUCE_PROD over constant or computed axes, with keep_dims, as
// TFLite's reference reductions: each output starts at the reduction's identity (the type's
// lowest value, its highest, 1) and takes the input elements in order. Integer products wrap
// around at the type's width. 8-bit and int16 MAX/MIN need the output's quantization to be the
// input's (values are compared as stored). Quantized REDUCE_PROD (int8, int16) as TFLite's
// QuantizedReduceProd: each step's product of offset values rescaled by
// scale_in / scale_out^(1 / count) through TFLite's 64-bit multiply (a 16-bit multiplier, round
// half up), the last product once more, plus the output's zero point, clamped. NNAPI has no
// integer REDUCE_* at all, so these run where the runtime refuses a node.
#include <algorithm>
#include <cmath>
#include <limits>

#include "CpuKernelList.h"
#include "Reduction.h"
#include "nnemu/kernels/QuantMath.h"

namespace nnemu::tflite {
namespace kernels::reduce {
namespace {

enum class Reducer { kMax, kMin, kProd };

bool extremaShape(const CpuKernelCall& call, Reducer reducer, std::vector<bool>* reduced, bool* known) {
    if (!call.expectCounts(2, 2, 1)) return false;
    const CpuOperand& in = call.in(0);
    if (reducer == Reducer::kProd) {
        if (!call.expectType(in, {ElementType::FLOAT32, ElementType::INT32, ElementType::INT64, ElementType::INT8,
                                  ElementType::INT16},
                             "input")) {
            return false;
        }
        const bool quantized = in.type() == ElementType::INT8 || in.type() == ElementType::INT16;
        if (quantized && (!(in.tensor->scale > 0) || !(call.out(0).tensor->scale > 0))) {
            return call.fail("quantized input and output need scales");
        }
        // Over single elements TFLite's result depends on its arena (it reads the word before its
        // axis temporary to pick the reduced dimensions; outputs it skips keep old bytes): not taken.
        if (quantized && call.out(0).count() != 0 && in.count() / call.out(0).count() < 2) {
            return call.fail("a quantized product over fewer than two elements is not supported");
        }
        if (call.out(0).type() != in.type()) return call.fail("output type differs from the input's");
        return expectReduction(call, reduced, known);
    } else if (!call.expectType(in, {ElementType::FLOAT32, ElementType::INT32, ElementType::INT64, ElementType::UINT8,
                                     ElementType::INT8, ElementType::INT16},
                                "input")) {
        return false;
    }
    if (call.out(0).type() != in.type()) return call.fail("output type differs from the input's");
    const bool quantized = in.type() == ElementType::UINT8 || in.type() == ElementType::INT8 || in.type() == ElementType::INT16;
    if (quantized && (in.tensor->scale != call.out(0).tensor->scale || in.tensor->zeroPoint != call.out(0).tensor->zeroPoint)) {
        return call.fail("the output's scale and zero point must be the input's");
    }
    return expectReduction(call, reduced, known);
}

template <typename T>
T combine(Reducer reducer, T current, T value) {
    if (reducer == Reducer::kMax) return value > current ? value : current;
    if (reducer == Reducer::kMin) return value < current ? value : current;
    if constexpr (std::is_integral_v<T>) {
        using U = std::make_unsigned_t<T>;
        return static_cast<T>(static_cast<U>(static_cast<U>(current) * static_cast<U>(value)));
    } else {
        return value * current;
    }
}

template <typename T>
void reduceAs(const CpuKernelCall& call, Reducer reducer, const std::vector<bool>& reduced) {
    const T identity = reducer == Reducer::kMax   ? std::numeric_limits<T>::lowest()
                       : reducer == Reducer::kMin ? std::numeric_limits<T>::max()
                                                  : T(1);
    std::vector<T> results(call.out(0).count(), identity);
    const CpuOperand& in = call.in(0);
    forEachReduced(in.shape(), reduced, in.count(),
                   [&](size_t i, size_t o) { results[o] = combine(reducer, results[o], in.at<T>(i)); });
    for (size_t o = 0; o < results.size(); ++o) call.out(0).set<T>(o, results[o]);
}

// TFLite's MultiplyByQuantizedMultiplier for a 64-bit value: the multiplier rounded to 16 bits,
// the product shifted right by 15 - shift rounding half up.
int32_t multiplyWide(int64_t x, int32_t multiplier, int shift) {
    const int64_t reduced = multiplier < 0x7FFF0000 ? (multiplier + (1 << 15)) >> 16 : 0x7FFF;
    const int totalShift = 15 - shift;
    const int64_t round = int64_t{1} << (totalShift - 1);
    return static_cast<int32_t>((x * reduced + round) >> totalShift);
}

template <typename T>
void quantizedProd(const CpuKernelCall& call, const std::vector<bool>& reduced) {
    const CpuOperand &in = call.in(0), &out = call.out(0);
    if (out.count() == 0) return;
    const auto count = static_cast<double>(in.count() / out.count());
    int32_t multiplier = 0;
    int shift = 0;
    quant::quantizeMultiplier(static_cast<double>(in.tensor->scale) / std::pow(static_cast<double>(out.tensor->scale), 1.0 / count),
                              &multiplier, &shift);
    const auto zeroIn = static_cast<int32_t>(in.tensor->zeroPoint), zeroOut = static_cast<int32_t>(out.tensor->zeroPoint);
    std::vector<int32_t> products(out.count(), 0);
    std::vector<uint8_t> started(out.count(), 0);
    const T* values = reinterpret_cast<const T*>(in.data);
    const auto step = [&](size_t o, int32_t value) {
        products[o] = started[o] != 0 ? multiplyWide(int64_t{products[o]} * value, multiplier, shift) : value;
        started[o] = 1;
    };
    // A row at a time, in the input's order (each output's steps keep their order).
    forEachReducedRow(in.shape(), reduced, in.count(), [&](size_t i, size_t o, size_t n, bool kept) {
        for (size_t k = 0; k < n; ++k) step(kept ? o + k : o, values[i + k] - zeroIn);
    });
    for (size_t o = 0; o < products.size(); ++o) {
        const int32_t value = multiplyWide(products[o], multiplier, shift) + zeroOut;
        out.set<T>(o, static_cast<T>(std::clamp<int32_t>(value, std::numeric_limits<T>::min(), std::numeric_limits<T>::max())));
    }
}

bool run(const CpuKernelCall& call, Reducer reducer) {
    std::vector<bool> reduced;
    bool known = false;
    if (!extremaShape(call, reducer, &reduced, &known)) return false;
    if (reducer == Reducer::kProd && call.in(0).type() == ElementType::INT8) {
        quantizedProd<int8_t>(call, reduced);
        return true;
    }
    if (reducer == Reducer::kProd && call.in(0).type() == ElementType::INT16) {
        quantizedProd<int16_t>(call, reduced);
        return true;
    }
    switch (call.in(0).type()) {
        case ElementType::FLOAT32: reduceAs<float>(call, reducer, reduced); break;
        case ElementType::INT32: reduceAs<int32_t>(call, reducer, reduced); break;
        case ElementType::INT64: reduceAs<int64_t>(call, reducer, reduced); break;
        case ElementType::UINT8: reduceAs<uint8_t>(call, reducer, reduced); break;
        case ElementType::INT8: reduceAs<int8_t>(call, reducer, reduced); break;
        default: reduceAs<int16_t>(call, reducer, reduced); break;
    }
    return true;
}

template <Reducer R>
bool prepareAs(const CpuKernelCall& call) {
    std::vector<bool> reduced;
    bool known = false;
    return extremaShape(call, R, &reduced, &known);
}

}  // namespace

bool prepareReduceMax(const CpuKernelCall& call) { return prepareAs<Reducer::kMax>(call); }
bool prepareReduceMin(const CpuKernelCall& call) { return prepareAs<Reducer::kMin>(call); }
bool prepareReduceProd(const CpuKernelCall& call) { return prepareAs<Reducer::kProd>(call); }
bool runReduceMax(const CpuKernelCall& call) { return run(call, Reducer::kMax); }
bool runReduceMin(const CpuKernelCall& call) { return run(call, Reducer::kMin); }
bool runReduceProd(const CpuKernelCall& call) { return run(call, Reducer::kProd); }

}  // namespace kernels::reduce
}  // namespace nnemu::tflite
