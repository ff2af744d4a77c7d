// Spatial window geometry of the 2-D window operations (CONV_2D, DEPTHWISE_CONV_2D and the
// pools): output sizes and explicit padding for the implicit SAME/VALID schemes, with stride
// and dilation, plus the parsing of those operations' window operands.
//
// One spatial axis:
//   effective filter  = (filter - 1) * dilation + 1
//   output            = (input + padHead + padTail - effective filter) / stride + 1
//   SAME  (code 1):     output = ceil(input / stride); the padding needed to reach it is split
//                       with the smaller half at the head (top/left)
//   VALID (code 2):     no padding
#pragma once

#include <cstdint>

#include "nnemu/hal/Operations.h"

namespace nnemu::hal {

// ANEURALNETWORKS_PADDING_* codes.
enum class PaddingScheme : int32_t { SAME = 1, VALID = 2 };

inline bool isValidPaddingScheme(int32_t code) {
    return code == static_cast<int32_t>(PaddingScheme::SAME) ||
           code == static_cast<int32_t>(PaddingScheme::VALID);
}

// Padding along one spatial axis, in input elements.
struct AxisPadding {
    uint32_t head = 0;  // top or left
    uint32_t tail = 0;  // bottom or right
};

inline uint64_t effectiveFilterSize(uint32_t filter, uint32_t dilation) {
    return filter == 0 ? 0 : static_cast<uint64_t>(filter - 1) * dilation + 1;
}

// Output size along one axis for an explicit padding. False when stride, dilation or filter is
// 0, or when the (padded) input is smaller than the dilated filter while not empty. An empty
// input axis gives an empty output axis.
inline bool windowOutputSize(uint32_t input, uint32_t filter, uint32_t stride, uint32_t dilation,
                             AxisPadding padding, uint32_t* output) {
    if (stride == 0 || dilation == 0 || filter == 0) return false;
    if (input == 0) {
        *output = 0;
        return true;
    }
    const uint64_t padded = static_cast<uint64_t>(input) + padding.head + padding.tail;
    const uint64_t effective = effectiveFilterSize(filter, dilation);
    if (padded < effective) return false;
    const uint64_t size = (padded - effective) / stride + 1;
    if (size > UINT32_MAX) return false;
    *output = static_cast<uint32_t>(size);
    return true;
}

// Explicit padding equivalent to an implicit scheme along one axis.
inline AxisPadding paddingForScheme(PaddingScheme scheme, uint32_t input, uint32_t filter,
                                    uint32_t stride, uint32_t dilation) {
    AxisPadding padding;
    if (scheme != PaddingScheme::SAME || stride == 0) return padding;
    const uint64_t output = (static_cast<uint64_t>(input) + stride - 1) / stride;
    if (output == 0) return padding;
    const uint64_t needed = (output - 1) * stride + effectiveFilterSize(filter, dilation);
    if (needed > input) {
        const uint64_t total = needed - input;
        padding.head = static_cast<uint32_t>(total / 2);
        padding.tail = static_cast<uint32_t>(total - total / 2);
    }
    return padding;
}

// ---------------------------------------------------------------------------------------------
// The window operands of CONV_2D, DEPTHWISE_CONV_2D, GROUPED_CONV_2D, AVERAGE_POOL_2D,
// MAX_POOL_2D, L2_POOL_2D.
//
// Operand layout after the leading tensors (input; for convs also filter and bias):
//   implicit: padScheme, strideW, strideH, [filterW, filterH | depthMultiplier | groups], fuse
//   explicit: padL, padR, padT, padB, strideW, strideH, [the same extra scalars], fuse
// then a BOOL layout (true = NCHW; optional except for GROUPED) and, for CONV and DEPTHWISE
// only, INT32 dilationW, dilationH.

enum class WindowKind { CONV, DEPTHWISE, GROUPED, POOL };

struct WindowParams {
    bool explicitPadding = false;
    int32_t paddingScheme = 0;  // implicit only
    int32_t padLeft = 0, padRight = 0, padTop = 0, padBottom = 0;  // explicit only
    int32_t strideW = 1, strideH = 1;
    int32_t dilationW = 1, dilationH = 1;
    int32_t filterW = 0, filterH = 0;  // pools only; convs take it from the filter's dims
    int32_t depthMultiplier = 1;       // depthwise only
    int32_t groups = 1;                // grouped only
    int32_t activation = 0;
    bool nchw = false;
};

// Position of the first window operand and how many INT32 scalars the kind has between the
// strides and the fuse code.
inline uint32_t windowFirstOperand(WindowKind kind) { return kind == WindowKind::POOL ? 1 : 3; }
inline uint32_t windowExtraScalars(WindowKind kind) {
    if (kind == WindowKind::POOL) return 2;
    return kind == WindowKind::DEPTHWISE || kind == WindowKind::GROUPED ? 1 : 0;
}

// Number of operands of the implicit (explicit) form without layout and dilation.
inline uint32_t windowImplicitCount(WindowKind kind) {
    return windowFirstOperand(kind) + 4 + windowExtraScalars(kind);
}
inline uint32_t windowExplicitCount(WindowKind kind) { return windowImplicitCount(kind) + 3; }

// Whether an operand count with these types is the explicit-padding form. Counts shared by
// both forms (implicit with layout and dilation vs explicit) are told apart by the type of
// the operand after the implicit form's fuse code: INT32 for explicit, BOOL for implicit.
inline bool windowIsExplicit(const OperationContext& context, WindowKind kind) {
    const uint32_t n = context.numInputs();
    const uint32_t implicitCount = windowImplicitCount(kind);
    const uint32_t explicitCount = windowExplicitCount(kind);
    if (n < explicitCount) return false;
    if (n == explicitCount && kind != WindowKind::POOL) {
        return context.inputType(implicitCount) == OperandType::INT32;
    }
    return true;
}

// The operand counts a kind allows.
inline bool windowCountAllowed(WindowKind kind, uint32_t count) {
    const uint32_t implicitCount = windowImplicitCount(kind);
    const uint32_t explicitCount = windowExplicitCount(kind);
    if (kind == WindowKind::GROUPED) return count == implicitCount + 1 || count == explicitCount + 1;
    if (count == implicitCount || count == implicitCount + 1) return true;
    if (count == explicitCount || count == explicitCount + 1) return true;
    if (kind != WindowKind::POOL) return count == implicitCount + 3 || count == explicitCount + 3;
    return false;
}

// Checks the types of the scalar window operands (counts must already be allowed).
inline bool windowScalarTypesValid(const OperationContext& context, WindowKind kind) {
    const bool isExplicit = windowIsExplicit(context, kind);
    const uint32_t first = windowFirstOperand(kind);
    const uint32_t base = isExplicit ? windowExplicitCount(kind) : windowImplicitCount(kind);
    for (uint32_t i = first; i < base; ++i) {
        NN_RET_CHECK(context.inputType(i) == OperandType::INT32);
    }
    if (context.numInputs() > base) NN_RET_CHECK(context.inputType(base) == OperandType::BOOL);
    for (uint32_t i = base + 1; i < context.numInputs(); ++i) {
        NN_RET_CHECK(context.inputType(i) == OperandType::INT32);
    }
    return true;
}

// Reads the window operands' values (they must be known).
inline WindowParams readWindowParams(const OperationContext& context, WindowKind kind) {
    WindowParams p;
    p.explicitPadding = windowIsExplicit(context, kind);
    uint32_t i = windowFirstOperand(kind);
    if (p.explicitPadding) {
        p.padLeft = context.scalar<int32_t>(i++);
        p.padRight = context.scalar<int32_t>(i++);
        p.padTop = context.scalar<int32_t>(i++);
        p.padBottom = context.scalar<int32_t>(i++);
    } else {
        p.paddingScheme = context.scalar<int32_t>(i++);
    }
    p.strideW = context.scalar<int32_t>(i++);
    p.strideH = context.scalar<int32_t>(i++);
    if (kind == WindowKind::POOL) {
        p.filterW = context.scalar<int32_t>(i++);
        p.filterH = context.scalar<int32_t>(i++);
    } else if (kind == WindowKind::DEPTHWISE) {
        p.depthMultiplier = context.scalar<int32_t>(i++);
    } else if (kind == WindowKind::GROUPED) {
        p.groups = context.scalar<int32_t>(i++);
    }
    p.activation = context.scalar<int32_t>(i++);
    if (i < context.numInputs()) p.nchw = context.scalar<bool>(i++);
    if (i + 1 < context.numInputs()) {
        p.dilationW = context.scalar<int32_t>(i++);
        p.dilationH = context.scalar<int32_t>(i++);
    }
    return p;
}

// Values that no input shape can make valid.
inline bool windowParamsValid(const WindowParams& p, WindowKind kind) {
    NN_RET_CHECK(p.strideW > 0 && p.strideH > 0);
    NN_RET_CHECK(p.dilationW > 0 && p.dilationH > 0);
    NN_RET_CHECK(p.activation >= 0 && p.activation <= 3);
    if (p.explicitPadding) {
        NN_RET_CHECK(p.padLeft >= 0 && p.padRight >= 0 && p.padTop >= 0 && p.padBottom >= 0);
    } else {
        NN_RET_CHECK(isValidPaddingScheme(p.paddingScheme));
    }
    if (kind == WindowKind::POOL) NN_RET_CHECK(p.filterW > 0 && p.filterH > 0);
    if (kind == WindowKind::DEPTHWISE) NN_RET_CHECK(p.depthMultiplier > 0);
    if (kind == WindowKind::GROUPED) NN_RET_CHECK(p.groups > 0);
    return true;
}

// checkValues() of the window operations: windowParamsValid once every window operand is known
// (always at execution; while some are not, nothing to say yet).
inline bool windowValuesValid(const OperationContext& context, WindowKind kind) {
    for (uint32_t i = windowFirstOperand(kind); i < context.numInputs(); ++i) {
        if (!context.hasValue(i)) return true;
    }
    return windowParamsValid(readWindowParams(context, kind), kind);
}

// Resolved geometry of one window operation on a concrete input.
struct WindowGeometry {
    uint32_t inHeight = 0, inWidth = 0;
    uint32_t filterHeight = 0, filterWidth = 0;
    uint32_t strideH = 1, strideW = 1;
    uint32_t dilationH = 1, dilationW = 1;
    uint32_t padTop = 0, padLeft = 0;
    uint32_t padBottom = 0, padRight = 0;
    uint32_t outHeight = 0, outWidth = 0;
};

// Resolves padding and output size; false when the values do not fit the input.
inline bool resolveWindow(const WindowParams& p, uint32_t inHeight, uint32_t inWidth,
                          uint32_t filterHeight, uint32_t filterWidth, WindowGeometry* g) {
    g->inHeight = inHeight;
    g->inWidth = inWidth;
    g->filterHeight = filterHeight;
    g->filterWidth = filterWidth;
    g->strideH = static_cast<uint32_t>(p.strideH);
    g->strideW = static_cast<uint32_t>(p.strideW);
    g->dilationH = static_cast<uint32_t>(p.dilationH);
    g->dilationW = static_cast<uint32_t>(p.dilationW);
    AxisPadding vertical, horizontal;
    if (p.explicitPadding) {
        vertical = {static_cast<uint32_t>(p.padTop), static_cast<uint32_t>(p.padBottom)};
        horizontal = {static_cast<uint32_t>(p.padLeft), static_cast<uint32_t>(p.padRight)};
    } else {
        const auto scheme = static_cast<PaddingScheme>(p.paddingScheme);
        vertical = paddingForScheme(scheme, inHeight, filterHeight, g->strideH, g->dilationH);
        horizontal = paddingForScheme(scheme, inWidth, filterWidth, g->strideW, g->dilationW);
    }
    g->padTop = vertical.head;
    g->padLeft = horizontal.head;
    g->padBottom = vertical.tail;
    g->padRight = horizontal.tail;
    return windowOutputSize(inHeight, filterHeight, g->strideH, g->dilationH, vertical,
                            &g->outHeight) &&
           windowOutputSize(inWidth, filterWidth, g->strideW, g->dilationW, horizontal,
                            &g->outWidth);
}

}  // namespace nnemu::hal
