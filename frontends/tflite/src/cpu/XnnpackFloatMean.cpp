// Float MEAN as TFLite's XNNPACK delegate computes it (XNNPACK 2025's reduce operator, its rdsum
// kernel), for a node the tools run with XNNPACK's arithmetic; with TFLite's builtin arithmetic
// the float form stays with NNAPI (prepare refuses it). XNNPACK drops the size-1 dimensions and
// merges adjacent reduced ones; when the reduced dimensions are then one run that leaves the
// innermost dimension whole, each output is the sum of its rows in memory order, from 0, each
// added in float, times 1 / (reduced count) as a float. Other reductions (over the innermost
// dimension, or in two runs) sum in other orders: prepare refuses them. Checked against
// tflite_run --xnnpack=1 (RealTfliteFloatXnnpackTest.cpp).
#include <algorithm>
#include <vector>

#include "CpuKernelList.h"

namespace nnemu::tflite {
namespace kernels::reduce {
namespace {

// The input as [outer, rows, inner]: rows reduced, outer and inner kept.
struct MeanShape {
    size_t outer = 1, rows = 1, inner = 1;
};

bool floatMeanShape(const CpuKernelCall& call, MeanShape* shape) {
    if (!call.expectCounts(2, 2, 1)) return false;
    if (!call.xnnpack()) return call.fail("float MEAN runs on NNAPI (XNNPACK's form only here)");
    if (call.out(0).type() != ElementType::FLOAT32) return call.fail("output type differs from the input's");
    std::vector<bool> reduced;
    bool known = false;
    if (!expectReduction(call, &reduced, &known)) return false;
    if (!known) return call.fail("the axes must be constant");
    const std::vector<int32_t>& s = call.in(0).shape();
    // 0: before the reduced run, 1: in it, 2: after it.
    int part = 0;
    for (size_t d = 0; d < s.size(); ++d) {
        if (s[d] == 1) continue;
        const auto size = static_cast<size_t>(s[d]);
        if (reduced[d]) {
            if (part == 2) return call.fail("XNNPACK's order for two reduced runs is not reproduced");
            part = 1;
            shape->rows *= size;
        } else {
            if (part == 1) part = 2;
            (part == 0 ? shape->outer : shape->inner) *= size;
        }
    }
    if (part == 1 || shape->rows == 1) return call.fail("XNNPACK's order for a reduction over the innermost dimension is not reproduced");
    return true;
}

}  // namespace

bool prepareXnnpackMean(const CpuKernelCall& call) {
    MeanShape shape;
    return floatMeanShape(call, &shape);
}

bool runXnnpackMean(const CpuKernelCall& call) {
    MeanShape g;
    if (!floatMeanShape(call, &g)) return false;
    const auto* in = reinterpret_cast<const float*>(call.in(0).data);
    auto* out = reinterpret_cast<float*>(call.out(0).out);
    const float scale = 1.0f / static_cast<float>(g.rows);
    std::vector<float> sums(g.inner);
    for (size_t o = 0; o < g.outer; ++o) {
        std::fill(sums.begin(), sums.end(), 0.0f);
        for (size_t r = 0; r < g.rows; ++r) {
            const float* row = in + (o * g.rows + r) * g.inner;
            for (size_t i = 0; i < g.inner; ++i) sums[i] = row[i] + sums[i];
        }
        for (size_t i = 0; i < g.inner; ++i) out[o * g.inner + i] = sums[i] * scale;
    }
    return true;
}

}  // namespace kernels::reduce
}  // namespace nnemu::tflite
