// Numpy-style broadcast iteration for the reference kernels of two-input element-wise
// operations (hal/Broadcast.h), and the size checks to make before it.
#pragma once

#include <cstdint>
#include <vector>

#include "nnemu/hal/Broadcast.h"
#include "nnemu/hal/OperandTypes.h"
#include "nnemu/hal/Operations.h"

namespace nnemu::cpu {

// `view` has data for all the elements its dims name.
inline bool holdsElements(const hal::OperandView& view) {
    return view.data != nullptr && view.length >= view.elements() * hal::elementSize(view.type);
}

// The output dims are the broadcast of the input dims and every buffer is large enough, so a
// forEachBroadcast over them stays in bounds.
inline bool broadcastFits(const hal::OperandView& a, const hal::OperandView& b,
                          const hal::OperandView& out) {
    std::vector<uint32_t> dims;
    return hal::broadcastShape(a.dims, b.dims, &dims) && dims == out.dims && holdsElements(a) &&
           holdsElements(b) && holdsElements(out);
}

// The iteration itself is shared with synap-npu's native layers.
using hal::forEachBroadcast;

}  // namespace nnemu::cpu
