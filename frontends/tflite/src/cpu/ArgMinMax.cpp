// ARG_MAX and ARG_MIN: the index of the largest (smallest) value along one axis, the first one
// on ties, as int32 or int64 (the output tensor's type). Stored values are compared: the
// quantization scale is positive, so it keeps their order.
#include "CpuKernelList.h"

namespace nnemu::tflite {
namespace kernels::arg_min_max {

// The axis when known, and the output shape it gives.
bool argShape(const CpuKernelCall& call, bool* known, size_t* axis) {
    if (!call.expectCounts(2, 2, 1)) return false;
    const CpuOperand& input = call.in(0);
    if (!call.expectType(input, {ElementType::FLOAT32, ElementType::UINT8, ElementType::INT8, ElementType::INT32,
                                 ElementType::INT16, ElementType::INT64, ElementType::BOOL},
                         "input")) {
        return false;
    }
    if (!call.expectType(call.out(0), {ElementType::INT32, ElementType::INT64}, "output")) return false;
    if (input.rank() == 0) return call.fail("input must have rank 1 or more");
    std::vector<int64_t> axes;
    if (!call.ints(1, &axes, known)) return false;
    if (!*known) return true;
    if (axes.size() != 1) return call.fail("the axis must be a single value");
    if (!normalizeAxis(call, axes[0], input.rank(), axis)) return false;
    std::vector<int32_t> shape = input.shape();
    shape.erase(shape.begin() + static_cast<std::ptrdiff_t>(*axis));
    return call.expectOutputShape(0, shape);
}

bool prepareArg(const CpuKernelCall& call) {
    bool known = false;
    size_t axis = 0;
    return argShape(call, &known, &axis);
}

template <bool kMax>
bool runArg(const CpuKernelCall& call) {
    bool known = false;
    size_t axis = 0;
    if (!argShape(call, &known, &axis)) return false;
    const CpuOperand& input = call.in(0);
    const std::vector<int32_t>& shape = input.shape();
    size_t outer = 1, inner = 1;
    for (size_t d = 0; d < axis; ++d) outer *= static_cast<size_t>(shape[d]);
    for (size_t d = axis + 1; d < shape.size(); ++d) inner *= static_cast<size_t>(shape[d]);
    const auto length = static_cast<size_t>(shape[axis]);
    // One loop per element type, comparing values in their own type (int64 exactly too).
    const auto search = [&](auto load) {
        for (size_t o = 0; o < outer; ++o) {
            for (size_t i = 0; i < inner; ++i) {
                const size_t base = o * length * inner + i;
                size_t best = 0;
                auto bestValue = load(base);
                for (size_t k = 1; k < length; ++k) {
                    const auto value = load(base + k * inner);
                    if (kMax ? value > bestValue : value < bestValue) {
                        best = k;
                        bestValue = value;
                    }
                }
                setIndex(call.out(0), o * inner + i, static_cast<int64_t>(best));
            }
        }
    };
    if (length == 0) {
        for (size_t n = 0; n < outer * inner; ++n) setIndex(call.out(0), n, 0);
        return true;
    }
    switch (input.type()) {
        case ElementType::FLOAT32: search([&](size_t k) { return input.at<float>(k); }); break;
        case ElementType::UINT8: search([&](size_t k) { return input.at<uint8_t>(k); }); break;
        case ElementType::INT8: search([&](size_t k) { return input.at<int8_t>(k); }); break;
        case ElementType::INT32: search([&](size_t k) { return input.at<int32_t>(k); }); break;
        case ElementType::INT64: search([&](size_t k) { return input.at<int64_t>(k); }); break;
        default: search([&](size_t k) { return numberAt(input, k); }); break;
    }
    return true;
}

bool runArgMax(const CpuKernelCall& call) { return runArg<true>(call); }
bool runArgMin(const CpuKernelCall& call) { return runArg<false>(call); }

}  // namespace kernels::arg_min_max

}  // namespace nnemu::tflite
