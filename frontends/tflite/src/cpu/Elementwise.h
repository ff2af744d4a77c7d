// What the elementwise CPU kernels share (Unary.cpp, Activation.cpp, Bitwise.cpp, AddN.cpp).
#pragma once

#include <initializer_list>

#include "CpuKernel.h"

namespace nnemu::tflite {

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
