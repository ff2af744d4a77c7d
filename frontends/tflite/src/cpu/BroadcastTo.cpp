// BROADCAST_TO (the input repeated to the shape a 1-D int32/int64 tensor gives, sized at invoke
// when that tensor is not a constant) and BROADCAST_ARGS (the broadcast shape of two shapes), with
// TensorFlow Lite's checks: ranks up to 8, each input dimension 1 or the output's.
#include <algorithm>

#include "Broadcast.h"
#include "CpuKernelList.h"

namespace nnemu::tflite {
namespace kernels::broadcast_to {

constexpr size_t kMaxBroadcastRank = 8;

// The output shape from the shape input's values; false (after fail) when the input does not
// broadcast to it. `known` false: the values come at invoke.
bool broadcastToShape(const CpuKernelCall& call, std::vector<int32_t>* shape, bool* known) {
    if (!call.expectCounts(2, 2, 1)) return false;
    const CpuOperand& in = call.in(0);
    if (elementSize(in.type()) == 0) return call.fail("input type is not supported");
    if (call.out(0).type() != in.type()) return call.fail("output type differs from the input's");
    if (in.rank() > kMaxBroadcastRank) return call.fail("supports inputs of rank 8 or less");
    if (call.in(1).rank() != 1) return call.fail("supports only a 1-D shape tensor");
    std::vector<int64_t> dims;
    if (!call.ints(1, &dims, known)) return false;
    if (!*known) return true;
    if (dims.size() > kMaxBroadcastRank) return call.fail("supports outputs of rank 8 or less");
    if (dims.size() < in.rank()) {
        return call.fail("output shape must be broadcastable from input shape " + shapeText(in.shape()));
    }
    shape->clear();
    for (int64_t d : dims) {
        if (d < 0 || d > INT32_MAX) return call.fail("shape value " + std::to_string(d) + " is not a dimension");
        shape->push_back(static_cast<int32_t>(d));
    }
    const size_t lead = shape->size() - in.rank();
    for (size_t k = 0; k < in.rank(); ++k) {
        if (in.shape()[k] != 1 && in.shape()[k] != (*shape)[lead + k]) {
            return call.fail("output shape " + shapeText(*shape) + " must be broadcastable from input shape " +
                             shapeText(in.shape()));
        }
    }
    return true;
}

bool prepareBroadcastTo(const CpuKernelCall& call) { return expectComputedShape(call, broadcastToShape); }

bool runBroadcastTo(const CpuKernelCall& call) {
    std::vector<int32_t> shape;
    if (!resizeToComputedShape(call, broadcastToShape, "the shape input has no data", &shape)) return false;
    const CpuOperand& in = call.in(0);
    const size_t size = elementSize(in.type());
    const uint8_t* from = in.data;
    uint8_t* to = call.out(0).out;
    forEachBroadcast(in.shape(), shape, shape, [&](size_t o, size_t i, size_t) {
        std::memcpy(to + o * size, from + i * size, size);
    });
    return true;
}

bool broadcastArgsCheck(const CpuKernelCall& call) {
    if (!call.expectCounts(2, 2, 1)) return false;
    for (size_t i = 0; i < 2; ++i) {
        if (!call.expectType(call.in(i), {ElementType::INT32, ElementType::INT64}, "shape input")) return false;
        if (call.in(i).rank() != 1) return call.fail("shape inputs must be 1-D");
    }
    if (call.in(1).type() != call.in(0).type() || call.out(0).type() != call.in(0).type()) {
        return call.fail("shape inputs and output must have one type");
    }
    const auto size = static_cast<int32_t>(std::max(call.in(0).count(), call.in(1).count()));
    return call.expectOutputShape(0, {size});
}

bool runBroadcastArgs(const CpuKernelCall& call) {
    if (!broadcastArgsCheck(call)) return false;
    std::vector<int64_t> a, b;
    bool knownA = false, knownB = false;
    if (!call.ints(0, &a, &knownA) || !call.ints(1, &b, &knownB)) return false;
    if (!knownA || !knownB) return call.fail("a shape input has no data");
    const size_t rank = std::max(a.size(), b.size());
    for (size_t k = 0; k < rank; ++k) {
        // Aligned at the last dimension; missing leading dimensions are 1. TFLite compares and
        // writes the values as int (an int64 keeps its low 32 bits).
        const auto da = static_cast<int32_t>(k + a.size() >= rank ? a[k + a.size() - rank] : 1);
        const auto db = static_cast<int32_t>(k + b.size() >= rank ? b[k + b.size() - rank] : 1);
        if (da != db && da != 1 && db != 1) {
            return call.fail("incompatible shapes: dimension " + std::to_string(da) + " against " + std::to_string(db));
        }
        setIndex(call.out(0), k, da == 1 ? db : da);
    }
    return true;
}

}  // namespace kernels::broadcast_to

}  // namespace nnemu::tflite
