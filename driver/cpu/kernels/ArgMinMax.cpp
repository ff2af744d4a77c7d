// Reference kernels of ARGMAX and ARGMIN: the index of the largest (smallest) element along the
// axis; on ties the smallest index wins.
#include "nnemu/cpu/ElementAccess.h"
#include "nnemu/cpu/Kernels.h"
#include "nnemu/hal/Axis.h"
#include "KernelList.h"

namespace nnemu::cpu {
namespace {

// The search along the axis, with `load(i)` giving element i as a value that orders like it
// (exactly: float, int32 and 8-bit values compare the same in their own type as in double).
template <bool kMax, typename Load>
void search(const hal::AxisSplit& split, Load load, int32_t* out) {
    for (uint64_t o = 0; o < split.outer; ++o) {
        for (uint64_t i = 0; i < split.inner; ++i) {
            uint32_t best = 0;
            auto bestValue = load(split.at(o, 0, i));
            for (uint32_t a = 1; a < split.size; ++a) {
                const auto value = load(split.at(o, a, i));
                // Strict comparison keeps the first of equal elements.
                if (kMax ? value > bestValue : value < bestValue) {
                    best = a;
                    bestValue = value;
                }
            }
            out[o * split.inner + i] = static_cast<int32_t>(best);
        }
    }
}

template <bool kMax>
bool argMinMax(OperationContext& context) {
    const OperandView& input = context.input(0);
    OperandView& output = context.output(0);
    NN_RET_CHECK(isPlainTensorType(input.type));
    uint32_t axis = 0;
    NN_RET_CHECK(hal::resolveAxis(context.scalar<int32_t>(1), input.rank(), &axis));
    const hal::AxisSplit split = hal::splitAtAxis(input.dims, axis);
    NN_RET_CHECK(split.size >= 1);
    NN_RET_CHECK(output.length >= split.outer * split.inner * sizeof(int32_t));
    int32_t* out = output.as<int32_t>();
    // One loop per element type: no type switch per element.
    const auto typed = [&](auto* data) { search<kMax>(split, [data](uint64_t k) { return data[k]; }, out); };
    switch (input.type) {
        case hal::OperandType::TENSOR_FLOAT32: typed(input.as<float>()); break;
        case hal::OperandType::TENSOR_INT32: typed(input.as<int32_t>()); break;
        case hal::OperandType::TENSOR_QUANT8_ASYMM: typed(input.as<uint8_t>()); break;
        case hal::OperandType::TENSOR_QUANT8_ASYMM_SIGNED: typed(input.as<int8_t>()); break;
        default: search<kMax>(split, [&](uint64_t k) { return orderedValue(input, k); }, out); break;
    }
    return true;
}

}  // namespace

bool kernels::argMax(OperationContext& context) { return argMinMax<true>(context); }

bool kernels::argMin(OperationContext& context) { return argMinMax<false>(context); }

}  // namespace nnemu::cpu
