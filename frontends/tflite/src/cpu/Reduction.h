// The walk the reductions share: each input element with the flat index of the output element
// it reduces into (its index over the kept dimensions), in the input's order, as TFLite's
// reference reductions visit them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace nnemu::tflite {

template <typename F>
void forEachReduced(const std::vector<int32_t>& shape, const std::vector<bool>& reduced, size_t count, F&& f) {
    std::vector<int32_t> index(shape.size(), 0);
    for (size_t i = 0; i < count; ++i) {
        size_t o = 0;
        for (size_t d = 0; d < shape.size(); ++d) {
            if (!reduced[d]) o = o * static_cast<size_t>(shape[d]) + static_cast<size_t>(index[d]);
        }
        f(i, o);
        for (size_t d = shape.size(); d-- > 0;) {
            if (++index[d] < shape[d]) break;
            index[d] = 0;
        }
    }
}

}  // namespace nnemu::tflite
