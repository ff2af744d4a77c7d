#include "nnemu/base/Clones.h"
#include "FloatMath.h"

namespace nnemu::cpu::floatmath {

// One build per vector unit, chosen once at load by the dynamic linker. The file is compiled
// without contracting a * b + c into FMA (driver/cpu/CMakeLists.txt), so every build rounds
// the same way.
#define NNEMU_FLOAT_MATH_CLONES NNEMU_CLONES

NNEMU_FLOAT_MATH_CLONES void exp(const float* in, float* out, size_t n) {
    for (size_t i = 0; i < n; ++i) out[i] = exp(in[i]);
}

NNEMU_FLOAT_MATH_CLONES void tanh(const float* in, float* out, size_t n) {
    for (size_t i = 0; i < n; ++i) out[i] = tanh(in[i]);
}

NNEMU_FLOAT_MATH_CLONES void logistic(const float* in, float* out, size_t n) {
    for (size_t i = 0; i < n; ++i) out[i] = logistic(in[i]);
}

NNEMU_FLOAT_MATH_CLONES void hardSwish(const float* in, float* out, size_t n) {
    for (size_t i = 0; i < n; ++i) out[i] = hardSwish(in[i]);
}

}  // namespace nnemu::cpu::floatmath
