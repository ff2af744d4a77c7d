// The float 3x3 depthwise on AVX-512: a block of 16 channels per vector (FloatDepthwiseLoops.h).
#include <immintrin.h>

#include "FloatDepthwiseLoops.h"

namespace nnemu::synap::kernels {
namespace {

struct Ops512 {
    using V = __m512;
    size_t count;
    __mmask16 mask;
    explicit Ops512(size_t n) : count(n), mask(static_cast<__mmask16>((1u << n) - 1)) {}
    static V load(const float* p) { return _mm512_loadu_ps(p); }
    V loadPart(const float* p) const { return _mm512_maskz_loadu_ps(mask, p); }
    static V set1(float x) { return _mm512_set1_ps(x); }
    static V fma(V x, V w, V acc) { return _mm512_fmadd_ps(x, w, acc); }
    static V clamp(V v, V low, V high) { return _mm512_min_ps(_mm512_max_ps(v, low), high); }
    static void store(float* p, V v) { _mm512_storeu_ps(p, v); }
    void storePart(float* p, V v) const { _mm512_mask_storeu_ps(p, mask, v); }
};

}  // namespace

void floatDepthwiseRowAvx512(const FloatDepthwiseRow& r) { depthwise_loops::row<Ops512>(r); }

}  // namespace nnemu::synap::kernels
