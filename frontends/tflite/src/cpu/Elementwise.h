// What the elementwise CPU kernels share (Unary.cpp, Activation.cpp, Bitwise.cpp, AddN.cpp).
#pragma once

#include <cmath>
#include <initializer_list>

#include "CpuKernel.h"

namespace nnemu::tflite {

// Whether a quantized type holds the zero point (int16: only 0, as TFLite's 16-bit kernels
// require): the kernels' fixed-point steps stay inside int32 only then.
inline bool zeroPointFits(ElementType type, int32_t zeroPoint) {
    switch (type) {
        case ElementType::INT16: return zeroPoint == 0;
        case ElementType::INT8: return zeroPoint >= -128 && zeroPoint <= 127;
        default: return zeroPoint >= 0 && zeroPoint <= 255;
    }
}

// log2 of a scale as TFLite's CheckedLog2 takes it, in float: rounded, and true (a power of two)
// when the rounding moved it less than 1e-3.
inline bool checkedLog2(float scale, int* log2) {
    const float exact = std::log(scale) * (1.0f / std::log(2.0f));
    const float rounded = std::round(exact);
    *log2 = static_cast<int>(rounded);
    return std::abs(exact - rounded) < 1e-3f;
}

// One input and one output of one of `types`, the output of the input's type and shape.
bool prepareSameShape(const CpuKernelCall& call, std::initializer_list<ElementType> types);

// A row-wise 8-bit kernel over the last dimension (uint8 or int8, at least one dimension, the
// input quantized) whose output TFLite's kernel requires quantized as `scale` (named `scaleText`
// in the message) with the zero point `uint8Zero` or `int8Zero`.
bool prepareFixedOutput8(const CpuKernelCall& call, float scale, const char* scaleText, int32_t uint8Zero,
                         int32_t int8Zero);

// out[i] = f(in[i]) over input 0 and output 0, both of type T. A plain loop the compiler
// vectorizes when f allows it (the memcpy accesses become plain loads and stores).
template <typename T, typename F>
void mapElements(const CpuKernelCall& call, F&& f) {
    const CpuOperand& in = call.in(0);
    const CpuOperand& out = call.out(0);
    const size_t count = in.count();
    const uint8_t* src = in.data;
    uint8_t* dst = out.out;
    for (size_t i = 0; i < count; ++i) {
        T value;
        std::memcpy(&value, src + i * sizeof(T), sizeof(T));
        const T result = f(value);
        std::memcpy(dst + i * sizeof(T), &result, sizeof(T));
    }
}

}  // namespace nnemu::tflite
