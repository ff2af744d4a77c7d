// XnnpackFloatTile.h without vector instructions assumed: 4 lanes of std::fma each (a library call
// where the CPU has no FMA), tiles of 4 pixels x 4 units.
#include "XnnpackFloatTile.h"

namespace nnemu::tflite::kernels::xnnpackfloat {
namespace {

struct Portable : ScalarSteps {
    static constexpr size_t kLanes = 4, kPixels = 4, kGroup = 1;
    struct Vec {
        float v[kLanes];
    };
    static Vec splat(float x) { return {{x, x, x, x}}; }
    static Vec load(const float* p) {
        Vec r;
        std::memcpy(r.v, p, sizeof(r.v));
        return r;
    }
    static void store(float* p, const Vec& r) { std::memcpy(p, r.v, sizeof(r.v)); }
    static Vec fma(const Vec& a, const Vec& b, const Vec& c) {
        Vec r;
        for (size_t i = 0; i < kLanes; ++i) r.v[i] = std::fma(a.v[i], b.v[i], c.v[i]);
        return r;
    }
    static Vec add(const Vec& a, const Vec& b) {
        Vec r;
        for (size_t i = 0; i < kLanes; ++i) r.v[i] = a.v[i] + b.v[i];
        return r;
    }
    static Vec clamp(const Vec& x, const Vec& low, const Vec& high) {
        Vec r;
        for (size_t i = 0; i < kLanes; ++i) r.v[i] = clampScalar(x.v[i], low.v[i], high.v[i]);
        return r;
    }
};

}  // namespace

IsaKernels portableKernels() { return kernelsFor<Portable>(); }

}  // namespace nnemu::tflite::kernels::xnnpackfloat
