// Outputs generated from scalars, sized at invoke when those are not constants (TFLite's dynamic
// tensors): ONE_HOT (indices int32/int64, depth int32, on/off values of the output's type; axis -1
// is the last) and RANGE (start, limit, delta scalars of int32, int64 or float32; values by
// repeated addition of delta, as TFLite's kernel).
#include <cmath>
#include <cstdlib>
#include <type_traits>

#include "CpuKernelList.h"

namespace nnemu::tflite {
namespace kernels::generate {

// ONE_HOT's axis in [0, indices rank]; false (after fail) otherwise.
bool oneHotAxis(const CpuKernelCall& call, size_t* axis) {
    const auto* options = call.params<TfLiteOneHotParams>();
    if (options == nullptr) return call.fail("has no options");
    const auto rank = static_cast<int64_t>(call.in(0).rank());
    const int64_t value = options->axis == -1 ? rank : options->axis;
    if (value < 0 || value > rank) {
        return call.fail("axis " + std::to_string(options->axis) + " out of range for indices of rank " +
                         std::to_string(rank));
    }
    *axis = static_cast<size_t>(value);
    return true;
}

// The output shape once depth is known (`known` false: it comes at invoke).
bool oneHotShape(const CpuKernelCall& call, std::vector<int32_t>* shape, size_t* axis, bool* known) {
    if (!call.expectCounts(4, 4, 1)) return false;
    const CpuOperand& indices = call.in(0);
    if (!call.expectType(indices, {ElementType::INT32, ElementType::INT64}, "indices")) return false;
    const ElementType type = call.in(2).type();
    // TFLite's Eval has no int16 case (its Prepare accepts it, its Eval fails).
    if (!call.expectType(call.in(2), {ElementType::FLOAT32, ElementType::INT32, ElementType::INT64, ElementType::INT8,
                                      ElementType::UINT8, ElementType::BOOL},
                         "on_value")) {
        return false;
    }
    if (call.in(3).type() != type || call.out(0).type() != type) {
        return call.fail("off_value and output must have on_value's type");
    }
    // TFLite reads depth as an int32 whatever its type (an int64's low half).
    if (!call.expectType(call.in(1), {ElementType::INT32, ElementType::INT64}, "depth")) return false;
    for (size_t i = 1; i < 4; ++i) {
        if (call.in(i).count() != 1) return call.fail("depth, on_value and off_value must hold one value each");
    }
    if (!oneHotAxis(call, axis)) return false;
    *known = call.in(1).known();
    if (!*known) return true;
    const int32_t depth = call.in(1).at<int32_t>(0);
    if (depth < 0) return call.fail("depth " + std::to_string(depth) + " is negative");
    *shape = indices.shape();
    shape->insert(shape->begin() + static_cast<std::ptrdiff_t>(*axis), depth);
    return true;
}

bool prepareOneHot(const CpuKernelCall& call) {
    std::vector<int32_t> shape;
    size_t axis = 0;
    bool known = false;
    if (!oneHotShape(call, &shape, &axis, &known)) return false;
    return !known || call.expectOutputShape(0, shape);
}

bool runOneHot(const CpuKernelCall& call) {
    std::vector<int32_t> shape;
    size_t axis = 0;
    bool known = false;
    if (!oneHotShape(call, &shape, &axis, &known)) return false;
    if (!known) return call.fail("depth has no data");
    if (!call.resizeOutput(0, shape)) return false;
    const CpuOperand& indices = call.in(0);
    size_t prefix = 1;
    for (size_t d = 0; d < axis; ++d) prefix *= static_cast<size_t>(indices.shape()[d]);
    const size_t suffix = prefix == 0 ? 0 : indices.count() / prefix;
    const auto depth = static_cast<size_t>(shape[axis]);
    const size_t size = elementSize(call.out(0).type());
    const uint8_t* on = call.in(2).data;
    const uint8_t* off = call.in(3).data;
    uint8_t* out = call.out(0).out;
    for (size_t i = 0; i < prefix; ++i) {
        for (size_t j = 0; j < depth; ++j) {
            for (size_t k = 0; k < suffix; ++k, out += size) {
                const size_t at = i * suffix + k;
                // TFLite compares the index cast to int (int64 indices keep their low 32 bits).
                const auto index = static_cast<int32_t>(indices.type() == ElementType::INT32 ? indices.at<int32_t>(at)
                                                                                             : indices.at<int64_t>(at));
                std::memcpy(out, index == static_cast<int32_t>(j) ? on : off, size);
            }
        }
    }
    return true;
}

// RANGE's element count, as TFLite computes it per type; false (after fail) for a zero delta or
// one that never reaches the limit.
template <typename T>
bool rangeSize(const CpuKernelCall& call, T start, T limit, T delta, int32_t* size) {
    if (delta == 0) return call.fail("delta is 0");
    if (!((start >= limit && delta < 0) || (start <= limit && delta > 0))) {
        return call.fail("delta " + std::to_string(delta) + " does not lead from start " + std::to_string(start) +
                         " to limit " + std::to_string(limit));
    }
    // TFLite's formulas, in a type wide enough that no input overflows them.
    double count = 0;
    if constexpr (std::is_integral_v<T>) {
        using Wide = std::conditional_t<sizeof(T) == 4, int64_t, __int128>;
        const Wide span = static_cast<Wide>(limit) - static_cast<Wide>(start);
        const Wide step = delta < 0 ? -static_cast<Wide>(delta) : static_cast<Wide>(delta);
        count = static_cast<double>(((span < 0 ? -span : span) + step - 1) / step);
    } else {
        count = std::ceil(std::abs((limit - start) / delta));
    }
    if (!(count <= static_cast<double>(INT32_MAX))) return call.fail("the range has too many elements");
    *size = static_cast<int32_t>(count);
    return true;
}

bool rangeCheck(const CpuKernelCall& call) {
    if (!call.expectCounts(3, 3, 1)) return false;
    const ElementType type = call.in(0).type();
    if (!call.expectType(call.in(0), {ElementType::INT32, ElementType::INT64, ElementType::FLOAT32}, "start")) {
        return false;
    }
    for (size_t i = 0; i < 3; ++i) {
        if (call.in(i).rank() != 0) return call.fail("start, limit and delta must be scalars");
        if (call.in(i).type() != type) return call.fail("start, limit and delta must have one type");
    }
    return call.out(0).type() == type || call.fail("output type differs from start's");
}

template <typename T>
bool range(const CpuKernelCall& call, bool run) {
    const T start = call.in(0).at<T>(0), limit = call.in(1).at<T>(0), delta = call.in(2).at<T>(0);
    int32_t size = 0;
    if (!rangeSize(call, start, limit, delta, &size)) return false;
    if (!run) return call.expectOutputShape(0, {size});
    if (!call.resizeOutput(0, {size})) return false;
    T value = start;
    for (int32_t i = 0; i < size; ++i) {
        call.out(0).set<T>(static_cast<size_t>(i), value);
        value += delta;
    }
    return true;
}

bool rangeDispatch(const CpuKernelCall& call, bool run) {
    if (!rangeCheck(call)) return false;
    if (!call.in(0).known() || !call.in(1).known() || !call.in(2).known()) {
        return !run || call.fail("start, limit or delta has no data");
    }
    switch (call.in(0).type()) {
        case ElementType::INT32: return range<int32_t>(call, run);
        case ElementType::INT64: return range<int64_t>(call, run);
        default: return range<float>(call, run);
    }
}

bool prepareRange(const CpuKernelCall& call) { return rangeDispatch(call, false); }
bool runRange(const CpuKernelCall& call) { return rangeDispatch(call, true); }

}  // namespace kernels::generate

}  // namespace nnemu::tflite
