// Element-wise kernels over FLOAT32 and FLOAT16 tensors: f evaluated in float, FLOAT16 stored as half.
#pragma once

#include <cstdint>

#include "nnemu/base/Half.h"
#include "nnemu/hal/Operations.h"

namespace nnemu::cpu {

// Applies f to every element of input 0 into output 0; false for another type or a size mismatch.
template <typename F>
bool mapFloat(hal::OperationContext& context, F f) {
    const uint64_t n = context.output(0).elements();
    NN_RET_CHECK(context.input(0).elements() == n);
    if (context.inputType(0) == hal::OperandType::TENSOR_FLOAT32) {
        const float* in = context.input(0).as<float>();
        float* out = context.output(0).as<float>();
        for (uint64_t i = 0; i < n; ++i) out[i] = f(in[i]);
        return true;
    }
    if (context.inputType(0) == hal::OperandType::TENSOR_FLOAT16) {
        const uint16_t* in = context.input(0).as<uint16_t>();
        uint16_t* out = context.output(0).as<uint16_t>();
        for (uint64_t i = 0; i < n; ++i) out[i] = base::floatToHalf(f(base::halfToFloat(in[i])));
        return true;
    }
    return false;
}

}  // namespace nnemu::cpu
