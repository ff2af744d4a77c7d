// Reference kernel of RANDOM_MULTINOMIAL: draws class indexes from the categorical
// distribution softmax(logits) of every batch row, independently.
// The generator is std::mt19937_64 seeded with std::seed_seq over the two seeds: both are
// specified exactly by the C++ standard, so the same seeds give the same samples everywhere.
// Each draw is a 53-bit uniform in [0, 1) scaled by the sum of exp(logit - max) (in double) and
// located in the running sums, so no class's probability is rounded to float.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "nnemu/cpu/ElementAccess.h"
#include "nnemu/cpu/Kernels.h"
#include "KernelList.h"

namespace nnemu::cpu {
namespace {

// Running sums of exp(logit - max logit) of one row; false when they are not a distribution
// (NaN or infinite logits, or every logit -inf).
bool cumulativeWeights(const OperandView& logits, uint64_t row, uint32_t classes,
                       std::vector<double>* cumulative) {
    double largest = -INFINITY;
    for (uint32_t c = 0; c < classes; ++c) largest = std::max(largest, orderedValue(logits, row * classes + c));
    double sum = 0.0;
    for (uint32_t c = 0; c < classes; ++c) {
        sum += std::exp(orderedValue(logits, row * classes + c) - largest);
        (*cumulative)[c] = sum;
    }
    return std::isfinite(sum) && sum > 0.0;
}

// The class whose interval of the running sums holds `target` (in [0, total)).
uint32_t pickClass(const std::vector<double>& cumulative, double target) {
    auto found = std::upper_bound(cumulative.begin(), cumulative.end(), target);
    if (found == cumulative.end()) {
        // target rounded up to the total: take the last class of non-zero weight.
        found = std::lower_bound(cumulative.begin(), cumulative.end(), cumulative.back());
    }
    return static_cast<uint32_t>(found - cumulative.begin());
}

}  // namespace

bool kernels::randomMultinomial(OperationContext& context) {
    const OperandView& logits = context.input(0);
    const OperandView& seeds = context.input(2);
    OperandView& output = context.output(0);
    NN_RET_CHECK(isFloatTensor(logits.type) && logits.rank() == 2);
    NN_RET_CHECK(seeds.rank() == 1 && seeds.dim(0) == 2 && seeds.length >= 2 * sizeof(int32_t));
    const uint32_t batches = logits.dim(0);
    const uint32_t classes = logits.dim(1);
    const int32_t samples = context.scalar<int32_t>(1);
    NN_RET_CHECK(classes >= 1 && samples >= 0);
    NN_RET_CHECK(output.length >= uint64_t{batches} * static_cast<uint64_t>(samples) * sizeof(int32_t));
    std::seed_seq seedSequence{static_cast<uint32_t>(seeds.as<int32_t>()[0]),
                               static_cast<uint32_t>(seeds.as<int32_t>()[1])};
    std::mt19937_64 generator(seedSequence);
    std::vector<double> cumulative(classes);
    int32_t* out = output.as<int32_t>();
    for (uint32_t b = 0; b < batches; ++b) {
        NN_RET_CHECK(cumulativeWeights(logits, b, classes, &cumulative));
        for (int32_t s = 0; s < samples; ++s) {
            const double uniform = static_cast<double>(generator() >> 11) * 0x1p-53;
            *out++ = static_cast<int32_t>(pickClass(cumulative, uniform * cumulative.back()));
        }
    }
    return true;
}

}  // namespace nnemu::cpu
