// The float 3x3 depthwise on AVX2 with FMA: a block of 16 channels as two vectors
// (FloatDepthwiseLoops.h).
#include <immintrin.h>

#include "FloatDepthwiseLoops.h"

namespace nnemu::synap::kernels {
namespace {

struct Pair {
    __m256 lo, hi;
};

struct Ops256 {
    using V = Pair;
    size_t count;
    __m256i maskLo, maskHi;
    explicit Ops256(size_t n) : count(n) {
        const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        maskLo = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), lanes);
        maskHi = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n) - 8), lanes);
    }
    static V load(const float* p) { return {_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8)}; }
    V loadPart(const float* p) const { return {_mm256_maskload_ps(p, maskLo), _mm256_maskload_ps(p + 8, maskHi)}; }
    static V set1(float x) { return {_mm256_set1_ps(x), _mm256_set1_ps(x)}; }
    static V fma(V x, V w, V acc) { return {_mm256_fmadd_ps(x.lo, w.lo, acc.lo), _mm256_fmadd_ps(x.hi, w.hi, acc.hi)}; }
    static V clamp(V v, V low, V high) {
        return {_mm256_min_ps(_mm256_max_ps(v.lo, low.lo), high.lo), _mm256_min_ps(_mm256_max_ps(v.hi, low.hi), high.hi)};
    }
    static void store(float* p, V v) {
        _mm256_storeu_ps(p, v.lo);
        _mm256_storeu_ps(p + 8, v.hi);
    }
    void storePart(float* p, V v) const {
        _mm256_maskstore_ps(p, maskLo, v.lo);
        _mm256_maskstore_ps(p + 8, maskHi, v.hi);
    }
};

}  // namespace

void floatDepthwiseRowAvx2(const FloatDepthwiseRow& r) { depthwise_loops::row<Ops256>(r); }

}  // namespace nnemu::synap::kernels
