// REDUCE_ALL over bool: true where every element along the reduced axes is (true over no
// elements), axes constant or computed, repeats allowed, negative counted from the end, with
// keep_dims (ReducerOptions), as TFLite's kernel.
#include "CpuKernelList.h"

namespace nnemu::tflite {
namespace kernels::reduce_all {

// The reduced dimensions and the output shape; `known` false while the axes are not.
bool reduceAllShape(const CpuKernelCall& call, std::vector<bool>* reduced, bool* known) {
    if (!call.expectCounts(2, 2, 1)) return false;
    if (!call.expectType(call.in(0), {ElementType::BOOL}, "input")) return false;
    if (!call.expectType(call.out(0), {ElementType::BOOL}, "output")) return false;
    return expectReduction(call, reduced, known);
}

bool prepareReduceAll(const CpuKernelCall& call) {
    std::vector<bool> reduced;
    bool known = false;
    return reduceAllShape(call, &reduced, &known);
}

bool runReduceAll(const CpuKernelCall& call) {
    std::vector<bool> reduced;
    bool known = false;
    if (!reduceAllShape(call, &reduced, &known)) return false;
    if (!known) return call.fail("the axes are unknown");
    const CpuOperand &in = call.in(0), &out = call.out(0);
    const std::vector<int32_t>& shape = in.shape();
    const size_t outCount = out.count();
    for (size_t o = 0; o < outCount; ++o) out.set<uint8_t>(o, 1);
    // Walks the input in order, keeping the output index of its kept coordinates.
    std::vector<size_t> outStride(shape.size(), 0);
    size_t stride = 1;
    for (size_t d = shape.size(); d-- > 0;) {
        if (!reduced[d]) {
            outStride[d] = stride;
            stride *= static_cast<size_t>(shape[d]);
        }
    }
    std::vector<int32_t> index(shape.size(), 0);
    size_t o = 0;
    const size_t count = in.count();
    for (size_t i = 0; i < count; ++i) {
        if (in.at<uint8_t>(i) == 0) out.set<uint8_t>(o, 0);
        for (size_t d = shape.size(); d-- > 0;) {
            o += outStride[d];
            if (++index[d] < shape[d]) break;
            o -= outStride[d] * static_cast<size_t>(shape[d]);
            index[d] = 0;
        }
    }
    return true;
}

}  // namespace kernels::reduce_all

}  // namespace nnemu::tflite
