// Reference kernel of LOG_SOFTMAX along one axis:
//   out = x * beta - log(sum over the axis of exp(x * beta)),
// evaluated as (x * beta - m) - log(sum exp(x * beta - m)) with m the largest x * beta, so that
// the exponentials cannot overflow. Accumulates in double.
#include <algorithm>
#include <cmath>
#include <vector>

#include "nnemu/cpu/ElementAccess.h"
#include "nnemu/cpu/Kernels.h"
#include "nnemu/hal/Axis.h"
#include "KernelList.h"

namespace nnemu::cpu {
namespace {

void logSoftmaxFloat(const std::vector<float>& in, std::vector<float>& out, const hal::AxisSplit& s,
                     double beta) {
    for (uint64_t o = 0; o < s.outer; ++o) {
        for (uint64_t i = 0; i < s.inner; ++i) {
            double largest = -INFINITY;
            for (uint32_t a = 0; a < s.size; ++a) largest = std::max(largest, in[s.at(o, a, i)] * beta);
            double sum = 0.0;
            for (uint32_t a = 0; a < s.size; ++a) sum += std::exp(in[s.at(o, a, i)] * beta - largest);
            const double logSum = std::log(sum);
            for (uint32_t a = 0; a < s.size; ++a) {
                out[s.at(o, a, i)] = static_cast<float>(in[s.at(o, a, i)] * beta - largest - logSum);
            }
        }
    }
}

}  // namespace

bool kernels::logSoftmax(OperationContext& context) {
    const OperandView& input = context.input(0);
    OperandView& output = context.output(0);
    NN_RET_CHECK(isFloatTensor(input.type) && output.type == input.type);
    uint32_t axis = 0;
    NN_RET_CHECK(hal::resolveAxis(context.scalar<int32_t>(2), input.rank(), &axis));
    const uint64_t n = input.elements();
    NN_RET_CHECK(output.length >= n * hal::elementSize(output.type));
    const std::vector<float> in = readFloats(input);
    std::vector<float> out(n);
    logSoftmaxFloat(in, out, hal::splitAtAxis(input.dims, axis), context.scalar<float>(1));
    writeFloats(out, output);
    return true;
}

}  // namespace nnemu::cpu
