// XnnpackFloatTile.h built for AVX2 with FMA (chosen at run time when the CPU has both and not
// AVX-512F): 8 lanes per register, tiles of 4 pixels x 8 units (4 sums and 4 odd sums of the 16
// registers).
#include <immintrin.h>

#include "XnnpackFloatTile.h"

namespace nnemu::tflite::kernels::xnnpackfloat {
namespace {

struct Avx2 : ScalarSteps {
    static constexpr size_t kLanes = 8, kPixels = 4, kGroup = 1;
    using Vec = __m256;
    static Vec splat(float x) { return _mm256_set1_ps(x); }
    static Vec load(const float* p) { return _mm256_loadu_ps(p); }
    static void store(float* p, Vec v) { _mm256_storeu_ps(p, v); }
    static Vec fma(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
    static Vec add(Vec a, Vec b) { return _mm256_add_ps(a, b); }
    // As Avx512::clamp (XnnpackFloatAvx512.cpp): the second operand where either is NaN.
    static Vec clamp(Vec x, Vec low, Vec high) { return _mm256_min_ps(high, _mm256_max_ps(low, x)); }
};

}  // namespace

IsaKernels avx2Kernels() { return kernelsFor<Avx2>(); }

}  // namespace nnemu::tflite::kernels::xnnpackfloat
