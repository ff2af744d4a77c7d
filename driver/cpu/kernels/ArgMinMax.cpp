// Reference kernels of ARGMAX and ARGMIN: the index of the largest (smallest) element along the
// axis; on ties the smallest index wins.
#include "nnemu/cpu/ElementAccess.h"
#include "nnemu/cpu/Kernels.h"
#include "nnemu/hal/Axis.h"
#include "KernelList.h"

namespace nnemu::cpu {
namespace {

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
    for (uint64_t o = 0; o < split.outer; ++o) {
        for (uint64_t i = 0; i < split.inner; ++i) {
            uint32_t best = 0;
            double bestValue = orderedValue(input, split.at(o, 0, i));
            for (uint32_t a = 1; a < split.size; ++a) {
                const double value = orderedValue(input, split.at(o, a, i));
                // Strict comparison keeps the first of equal elements.
                if (kMax ? value > bestValue : value < bestValue) {
                    best = a;
                    bestValue = value;
                }
            }
            out[o * split.inner + i] = static_cast<int32_t>(best);
        }
    }
    return true;
}

}  // namespace

bool kernels::argMax(OperationContext& context) { return argMinMax<true>(context); }

bool kernels::argMin(OperationContext& context) { return argMinMax<false>(context); }

}  // namespace nnemu::cpu
