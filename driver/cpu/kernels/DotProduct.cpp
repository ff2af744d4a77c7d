#include "nnemu/base/Clones.h"
#include "DotProduct.h"

namespace nnemu::cpu {
namespace {

template <typename X, typename W>
inline int32_t dot(const X* x, const W* w, uint32_t n) {
    int32_t sum = 0;
    for (uint32_t i = 0; i < n; ++i) {
        sum += static_cast<int32_t>(static_cast<int16_t>(x[i])) * static_cast<int32_t>(static_cast<int16_t>(w[i]));
    }
    return sum;
}

template <typename X>
inline int32_t sum(const X* x, uint32_t n) {
    int32_t total = 0;
    for (uint32_t i = 0; i < n; ++i) total += x[i];
    return total;
}

}  // namespace

#define NNEMU_DOT_CLONES NNEMU_CLONES

NNEMU_DOT_CLONES int32_t dotProduct(const uint8_t* x, const uint8_t* w, uint32_t n) { return dot(x, w, n); }
NNEMU_DOT_CLONES int32_t dotProduct(const int8_t* x, const int8_t* w, uint32_t n) { return dot(x, w, n); }
NNEMU_DOT_CLONES int32_t dotProduct(const uint8_t* x, const int8_t* w, uint32_t n) { return dot(x, w, n); }
NNEMU_DOT_CLONES int32_t elementSum(const uint8_t* x, uint32_t n) { return sum(x, n); }
NNEMU_DOT_CLONES int32_t elementSum(const int8_t* x, uint32_t n) { return sum(x, n); }

}  // namespace nnemu::cpu
