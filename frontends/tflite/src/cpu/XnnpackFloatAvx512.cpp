// XnnpackFloatTile.h built for AVX-512F (chosen at run time when the CPU has it): 16 lanes per
// register, tiles of 6 pixels x 32 units (12 sums and 12 odd sums of the 32 registers: measured
// 5-20 % faster than 4 x 32 on MobileNet v1's layers of 128 channels or more, slower on depths of 16-32).
#include <immintrin.h>

#include "XnnpackFloatTile.h"

namespace nnemu::tflite::kernels::xnnpackfloat {
namespace {

struct Avx512 : ScalarSteps {
    static constexpr size_t kLanes = 16, kPixels = 6, kGroup = 2;
    using Vec = __m512;
    static Vec splat(float x) { return _mm512_set1_ps(x); }
    static Vec load(const float* p) { return _mm512_loadu_ps(p); }
    static void store(float* p, Vec v) { _mm512_storeu_ps(p, v); }
    static Vec fma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
    static Vec add(Vec a, Vec b) { return _mm512_add_ps(a, b); }
    // MAXPS and MINPS return their second operand where either is NaN or both are zeros:
    // max(low, x) is std::max(x, low) and min(high, m) std::min(m, high), lane by lane.
    static Vec clamp(Vec x, Vec low, Vec high) { return _mm512_min_ps(high, _mm512_max_ps(low, x)); }
};

}  // namespace

IsaKernels avx512Kernels() { return kernelsFor<Avx512>(); }

}  // namespace nnemu::tflite::kernels::xnnpackfloat
