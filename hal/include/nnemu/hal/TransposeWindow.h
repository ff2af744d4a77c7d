// Window operands and geometry of TRANSPOSE_CONV_2D, shared by its signature and its kernel.
//
// Operands after input, filter [Cout,kH,kW,Cin] and bias:
//   explicit (11): padL, padR, padT, padB, strideW, strideH, fuse, BOOL layout
//   implicit (9):  TENSOR_INT32 outputShape [4] (in the layout's order), padScheme, strideW,
//                  strideH, fuse, BOOL layout
// One spatial axis: output = stride * (input - 1) + filter - padHead - padTail. Output element
// o receives input element i through filter tap k when o = i * stride - padHead + k.
//
// The implicit schemes pad the way NNAPI defines them for the transposed convolution: the
// forward convolution's SAME padding computed on the *output* size, except that the tail is
// always (needed - output) and so may be negative, making the result exactly the requested
// size when input = ceil(output / stride). VALID pads nothing.
#pragma once

#include <cstdint>

#include "nnemu/hal/Operations.h"
#include "nnemu/hal/Padding.h"

namespace nnemu::hal {

struct TransposeWindow {
    int32_t padLeft = 0, padRight = 0, padTop = 0, padBottom = 0;  // tails may be negative
    int32_t strideW = 1, strideH = 1;
    int32_t activation = 0;
    bool nchw = false;
};

inline bool transposeIsImplicit(const OperationContext& context) { return context.numInputs() == 9; }

// Operand counts and the scalar operands' types.
inline bool transposeScalarTypesValid(const OperationContext& context) {
    const uint32_t n = context.numInputs();
    NN_RET_CHECK(n == 9 || n == 11);
    uint32_t first = 3;
    if (n == 9) NN_RET_CHECK(context.inputType(first++) == OperandType::TENSOR_INT32);
    for (uint32_t i = first; i + 1 < n; ++i) NN_RET_CHECK(context.inputType(i) == OperandType::INT32);
    NN_RET_CHECK(context.inputType(n - 1) == OperandType::BOOL);
    return true;
}

// Head and tail padding of one axis for an implicit scheme, from the requested output size.
inline void transposePaddingForScheme(int32_t scheme, uint32_t outputSize, uint32_t filter,
                                      uint32_t stride, int32_t* head, int32_t* tail) {
    *head = 0;
    *tail = 0;
    if (scheme != static_cast<int32_t>(PaddingScheme::SAME) || stride == 0) return;
    const int64_t steps = (static_cast<int64_t>(outputSize) + stride - 1) / stride;
    const int64_t total = (steps - 1) * stride + filter - static_cast<int64_t>(outputSize);
    const int64_t headPad = total > 0 ? total / 2 : 0;
    *head = static_cast<int32_t>(headPad);
    *tail = static_cast<int32_t>(total - headPad);
}

// Reads the window operands (all must be known; the implicit form also needs the output shape
// tensor's data). False for values no input can make valid.
inline bool readTransposeWindow(const OperationContext& context, uint32_t filterHeight,
                                uint32_t filterWidth, TransposeWindow* w) {
    NN_RET_CHECK(transposeScalarTypesValid(context));
    const bool implicit = transposeIsImplicit(context);
    uint32_t i = 3;
    int32_t scheme = 0;
    const OperandView* outputShape = nullptr;
    if (implicit) {
        outputShape = &context.input(i++);
        scheme = context.scalar<int32_t>(i++);
    } else {
        w->padLeft = context.scalar<int32_t>(i++);
        w->padRight = context.scalar<int32_t>(i++);
        w->padTop = context.scalar<int32_t>(i++);
        w->padBottom = context.scalar<int32_t>(i++);
    }
    w->strideW = context.scalar<int32_t>(i++);
    w->strideH = context.scalar<int32_t>(i++);
    w->activation = context.scalar<int32_t>(i++);
    w->nchw = context.scalar<bool>(i);
    NN_RET_CHECK(w->strideW > 0 && w->strideH > 0);
    NN_RET_CHECK(w->activation >= 0 && w->activation <= 3);
    NN_RET_CHECK(filterHeight <= INT32_MAX && filterWidth <= INT32_MAX);
    if (implicit) {
        NN_RET_CHECK(isValidPaddingScheme(scheme));
        NN_RET_CHECK(outputShape->data != nullptr && outputShape->rank() == 1 && outputShape->dim(0) == 4);
        NN_RET_CHECK(outputShape->length >= 4 * sizeof(int32_t));
        const int32_t* shape = outputShape->as<int32_t>();
        const int32_t height = shape[w->nchw ? 2 : 1];
        const int32_t width = shape[w->nchw ? 3 : 2];
        NN_RET_CHECK(height > 0 && width > 0);
        transposePaddingForScheme(scheme, static_cast<uint32_t>(height), filterHeight,
                                  static_cast<uint32_t>(w->strideH), &w->padTop, &w->padBottom);
        transposePaddingForScheme(scheme, static_cast<uint32_t>(width), filterWidth,
                                  static_cast<uint32_t>(w->strideW), &w->padLeft, &w->padRight);
    }
    // Negative tails are how NNAPI picks among the sizes a strided transpose could produce.
    NN_RET_CHECK(w->padLeft >= 0 && w->padTop >= 0);
    return true;
}

// Output size along one axis; false when it is not positive or does not fit.
inline bool transposeOutputSize(uint32_t input, uint32_t filter, int32_t stride, int32_t head,
                                int32_t tail, uint32_t* output) {
    if (input == 0 || filter == 0 || stride <= 0) return false;
    const int64_t size = static_cast<int64_t>(stride) * (input - 1) + filter - head - tail;
    if (size <= 0 || size > static_cast<int64_t>(UINT32_MAX)) return false;
    *output = static_cast<uint32_t>(size);
    return true;
}

}  // namespace nnemu::hal
