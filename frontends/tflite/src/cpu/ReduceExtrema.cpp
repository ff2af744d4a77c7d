// REDUCE_MAX, REDUCE_MIN and REDUCE_PROD over constant or computed axes, with keep_dims, as
// TFLite's reference reductions: each output starts at the reduction's identity (the type's
// lowest value, its highest, 1) and takes the input elements in order. Integer products wrap
// around at the type's width. 8-bit and int16 MAX/MIN need the output's quantization to be the
// input's (values are compared as stored); quantized REDUCE_PROD is not taken. NNAPI has no
// integer REDUCE_* at all, so these run where the runtime refuses a node.
#include <algorithm>
#include <limits>

#include "CpuKernelList.h"
#include "Reduction.h"

namespace nnemu::tflite {
namespace kernels::reduce {
namespace {

enum class Reducer { kMax, kMin, kProd };

bool extremaShape(const CpuKernelCall& call, Reducer reducer, std::vector<bool>* reduced, bool* known) {
    if (!call.expectCounts(2, 2, 1)) return false;
    const CpuOperand& in = call.in(0);
    if (reducer == Reducer::kProd) {
        if (!call.expectType(in, {ElementType::FLOAT32, ElementType::INT32, ElementType::INT64}, "input")) return false;
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

bool run(const CpuKernelCall& call, Reducer reducer) {
    std::vector<bool> reduced;
    bool known = false;
    if (!extremaShape(call, reducer, &reduced, &known)) return false;
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
