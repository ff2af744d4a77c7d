// Operators that move data without computing on it: RESHAPE, EXPAND_DIMS, SQUEEZE,
// CONCATENATION, SPLIT, SPLIT_V, UNPACK, TRANSPOSE, SPACE_TO_DEPTH, DEPTH_TO_SPACE, PAD, PADV2, SLICE,
// STRIDED_SLICE and TILE. Shapes and index vectors must be constants (NNAPI at feature level 29
// has no dynamic shapes); the output tensor's own shape is what RESHAPE is given.
#include <android/NeuralNetworks.h>

#include <cstring>

#include "LoweringList.h"
#include "RuntimeLevel.h"

namespace nnemu::tflite {
namespace lowerings::reshaping {

// EXPAND_DIMS and TILE take float, int32 and quantized tensors at feature level 29.
bool valueType(NodeLowering& l, uint32_t input) {
    const int32_t type = l.operand(input).type;
    if (type == ANEURALNETWORKS_TENSOR_FLOAT32 || type == ANEURALNETWORKS_TENSOR_INT32 ||
        isQuant8Asymm(type)) {
        return true;
    }
    return l.fail(std::string("input type ") + nnapiTypeName(type) + " is not supported");
}

bool normalizeAxis(NodeLowering& l, int32_t axis, size_t rank, int32_t* normalized) {
    const auto r = static_cast<int32_t>(rank);
    if (axis < -r || axis >= r) return l.fail("axis " + std::to_string(axis) + " out of range for rank " + std::to_string(rank));
    *normalized = axis < 0 ? axis + r : axis;
    return true;
}

// RESHAPE to the output tensor's shape; also serves EXPAND_DIMS and degenerate SQUEEZEs.
bool reshapeToOutput(NodeLowering& l, uint32_t input) {
    uint32_t output;
    if (!l.outputOperand(0, &output)) return false;
    uint64_t in = 1, out = 1;
    for (uint32_t d : l.operand(input).dims) in *= d;
    for (uint32_t d : l.operand(output).dims) out *= d;
    if (in != out) return l.fail("output holds " + std::to_string(out) + " values, input " + std::to_string(in));
    std::vector<int32_t> shape(l.operand(output).dims.begin(), l.operand(output).dims.end());
    l.addOperation(ANEURALNETWORKS_RESHAPE, {input, l.vectorInt32(shape)}, {output});
    return true;
}

bool lowerReshape(NodeLowering& l) {
    if (!l.expectCounts(1, 2, 1)) return false;
    uint32_t input;
    if (!l.inputOperand(0, &input)) return false;
    return reshapeToOutput(l, input);
}

// EXPAND_DIMS with a constant axis, as the delegate maps it; a computed axis (TFLite knows the
// output shape anyway) becomes a RESHAPE the delegate would not take.
bool lowerExpandDims(NodeLowering& l) {
    if (!l.expectCounts(2, 2, 1)) return false;
    uint32_t input, output;
    if (!l.inputOperand(0, &input)) return false;
    const auto rank = static_cast<int32_t>(l.input(0).shape.size());
    if (!l.input(1).isConstant || rank == 0) {
        l.keepOnCpu();
        return reshapeToOutput(l, input);
    }
    std::vector<int32_t> axis;
    if (!valueType(l, input) || !l.constantInts(1, &axis)) return false;
    if (axis.size() != 1) return l.fail("the axis must be a single value");
    if (axis[0] < -rank - 1 || axis[0] > rank) {
        return l.fail("axis " + std::to_string(axis[0]) + " out of range for rank " + std::to_string(rank));
    }
    if (!l.outputOperand(0, &output)) return false;
    if (l.input(1).type != ElementType::INT32) l.keepOnCpu();   // the delegate wants an int32 axis
    l.addOperation(ANEURALNETWORKS_EXPAND_DIMS, {input, l.scalarInt32(axis[0] < 0 ? axis[0] + rank + 1 : axis[0])},
                   {output});
    return true;
}

// TILE: multiples one per dimension, constant or computed.
bool lowerTile(NodeLowering& l) {
    if (!l.expectCounts(2, 2, 1)) return false;
    uint32_t input, multiples, output;
    if (!l.inputOperand(0, &input) || !valueType(l, input) || !l.inputOperand(1, &multiples)) return false;
    if (l.operand(multiples).type != ANEURALNETWORKS_TENSOR_INT32) return l.fail("multiples must be int32");
    const std::vector<int32_t>& shape = l.input(1).shape;
    if (shape.size() != 1 || static_cast<size_t>(shape[0]) != l.operand(input).dims.size()) {
        return l.fail("multiples must hold one value per input dimension");
    }
    if (!l.outputOperand(0, &output)) return false;
    if (l.input(1).type != ElementType::INT32) l.keepOnCpu();   // the delegate wants int32 multiples
    l.addOperation(ANEURALNETWORKS_TILE, {input, multiples}, {output});
    return true;
}

bool lowerSqueeze(NodeLowering& l) {
    if (!l.expectCounts(1, 1, 1)) return false;
    uint32_t input, output;
    if (!l.inputOperand(0, &input)) return false;
    const std::vector<uint32_t> dims = l.operand(input).dims;
    std::vector<int32_t> squeezed;
    const auto* options = l.params<TfLiteSqueezeParams>();
    if (options != nullptr && options->num_squeeze_dims > 0 && options->num_squeeze_dims <= NNEMU_TFLITE_SQUEEZE_MAX_DIMENSIONS) {
        for (int32_t axis : std::span(options->squeeze_dims, options->num_squeeze_dims)) {
            int32_t normalized;
            if (!normalizeAxis(l, axis, dims.size(), &normalized)) return false;
            if (dims[normalized] != 1) return l.fail("cannot squeeze dimension " + std::to_string(axis) + " of size " + std::to_string(dims[normalized]));
            squeezed.push_back(normalized);
        }
    } else {
        for (size_t i = 0; i < dims.size(); ++i) {
            if (dims[i] == 1) squeezed.push_back(static_cast<int32_t>(i));
        }
    }
    // Nothing or everything squeezed: NNAPI's SQUEEZE cannot say it, a RESHAPE can.
    if (squeezed.empty() || squeezed.size() >= dims.size()) return reshapeToOutput(l, input);
    if (!l.outputOperand(0, &output)) return false;
    l.addOperation(ANEURALNETWORKS_SQUEEZE, {input, l.vectorInt32(squeezed)}, {output});
    return true;
}

bool lowerConcatenation(NodeLowering& l) {
    const auto* options = l.params<TfLiteConcatenationParams>();
    if (options == nullptr) return l.fail("missing ConcatenationOptions");
    if (options->activation != kTfLiteActNone) {
        return l.fail("a fused activation is not supported by NNAPI CONCATENATION");
    }
    if (l.inputCount() < 1) return l.fail("needs at least one input");
    if (!l.expectCounts(l.inputCount(), l.inputCount(), 1)) return false;
    std::vector<uint32_t> inputs;
    for (size_t i = 0; i < l.inputCount(); ++i) {
        uint32_t input;
        if (!l.inputOperand(i, &input)) return false;
        inputs.push_back(input);
    }
    uint32_t output;
    if (!l.outputOperand(0, &output)) return false;
    int32_t axis;
    if (!normalizeAxis(l, options->axis, l.operand(output).dims.size(), &axis)) return false;
    inputs.push_back(l.scalarInt32(axis));
    l.addOperation(ANEURALNETWORKS_CONCATENATION, inputs, {output});
    return true;
}

// SPLIT and SPLIT_V: options present, num_splits outputs, `inputs` inputs.
bool expectSplitCounts(NodeLowering& l, const int* numSplits, const char* optionsName, size_t inputs) {
    if (numSplits == nullptr) return l.fail(std::string("missing ") + optionsName);
    if (l.outputCount() < 1 || *numSplits != static_cast<int32_t>(l.outputCount())) {
        return l.fail("num_splits " + std::to_string(*numSplits) + " does not match " + std::to_string(l.outputCount()) +
                      " outputs");
    }
    return l.expectCounts(inputs, inputs, l.outputCount());
}

bool lowerSplit(NodeLowering& l) {
    const auto* options = l.params<TfLiteSplitParams>();
    if (!expectSplitCounts(l, options ? &options->num_splits : nullptr, "SplitOptions", 2)) return false;
    std::vector<int32_t> axisValue;
    if (!l.constantInts(0, &axisValue)) return false;
    if (axisValue.size() != 1) return l.fail("the split axis must be a single value");
    uint32_t input;
    if (!l.inputOperand(1, &input)) return false;
    int32_t axis;
    if (!normalizeAxis(l, axisValue[0], l.operand(input).dims.size(), &axis)) return false;
    std::vector<uint32_t> outputs;
    for (size_t i = 0; i < l.outputCount(); ++i) {
        uint32_t output;
        if (!l.outputOperand(i, &output)) return false;
        outputs.push_back(output);
    }
    l.addOperation(ANEURALNETWORKS_SPLIT, {input, l.scalarInt32(axis), l.scalarInt32(options->num_splits)}, outputs);
    return true;
}

// SPLIT_V as TensorFlow Lite's NNAPI delegate (2.21) lowers it: one SLICE per output, from
// feature level 30, for float32, uint8, int8 and int32 values with constant int32 sizes (one
// of them may be -1: the rest of the dimension) and a constant int32 axis, no size zero. Any
// other form has no NNAPI mapping and runs on the tools' CPU kernel (src/cpu/Shape.cpp).
bool lowerSplitV(NodeLowering& l) {
    const auto* options = l.params<TfLiteSplitVParams>();
    if (!expectSplitCounts(l, options ? &options->num_splits : nullptr, "SplitVOptions", 3)) return false;
    constexpr int64_t kLevel30 = 30;
    if (nnapiRuntimeFeatureLevel() < kLevel30) {
        return l.fail("SPLIT_V needs NNAPI feature level 30; the runtime implements " +
                      std::to_string(nnapiRuntimeFeatureLevel()));
    }
    const ElementType type = l.input(0).type;
    if (type != ElementType::FLOAT32 && type != ElementType::UINT8 && type != ElementType::INT8 &&
        type != ElementType::INT32) {
        return l.fail(std::string("input type ") + elementTypeName(type) + " is not mapped to NNAPI (float32, uint8, int8, int32)");
    }
    const Tensor& sizesTensor = l.input(1);
    const Tensor& axisTensor = l.input(2);
    if (!sizesTensor.isConstant || sizesTensor.type != ElementType::INT32 || sizesTensor.shape.size() != 1 ||
        !axisTensor.isConstant || axisTensor.type != ElementType::INT32) {
        return l.fail("NNAPI takes constant int32 size_splits and axis only");
    }
    std::vector<int32_t> sizes, axisValue;
    if (!l.constantInts(1, &sizes) || !l.constantInts(2, &axisValue)) return false;
    if (sizes.size() != l.outputCount() || axisValue.size() != 1) {
        return l.fail("size_splits must have one value per output and the axis one value");
    }
    uint32_t input;
    if (!l.inputOperand(0, &input)) return false;
    const std::vector<uint32_t> dims = l.operand(input).dims;
    int32_t axis;
    if (!normalizeAxis(l, axisValue[0], dims.size(), &axis)) return false;
    // The one size of -1 takes what the others leave.
    int64_t known = 0;
    size_t unknown = sizes.size();
    for (size_t i = 0; i < sizes.size(); ++i) {
        if (sizes[i] == -1 && unknown == sizes.size()) {
            unknown = i;
        } else if (sizes[i] <= 0) {
            return l.fail("size_splits value " + std::to_string(sizes[i]) + " has no NNAPI form");
        } else {
            known += sizes[i];
        }
    }
    const int64_t dimension = dims[static_cast<size_t>(axis)];
    if (unknown < sizes.size()) sizes[unknown] = static_cast<int32_t>(dimension - known);
    if ((unknown < sizes.size() && sizes[unknown] <= 0) || (unknown == sizes.size() && known != dimension)) {
        return l.fail("size_splits do not split dimension " + std::to_string(axis) + " (" + std::to_string(dimension) +
                      ") into non-empty parts");
    }
    std::vector<int32_t> begin(dims.size(), 0), size(dims.begin(), dims.end());
    for (size_t i = 0; i < sizes.size(); ++i) {
        uint32_t output;
        if (!l.outputOperand(i, &output)) return false;
        size[static_cast<size_t>(axis)] = sizes[i];
        std::vector<uint32_t> shape = dims;
        shape[static_cast<size_t>(axis)] = static_cast<uint32_t>(sizes[i]);
        if (l.operand(output).dims != shape) {
            return l.fail("output " + std::to_string(i) + " does not have the shape its size_splits give");
        }
        l.addOperation(ANEURALNETWORKS_SLICE, {input, l.vectorInt32(begin), l.vectorInt32(size)}, {output});
        begin[static_cast<size_t>(axis)] += sizes[i];
    }
    return true;
}

// UNPACK as TensorFlow Lite 2.21's delegate takes it (checked with its benchmark_model on nnemu's
// library: float32, uint8 and int8 on every axis but the last, from level 30): a RESHAPE merges
// the axis into the next dimension, then SPLIT cuts that into `num` parts, each of the outputs'
// shape. The last axis (no next dimension) and int32 stay on the tools' CPU kernel
// (src/cpu/Shape.cpp), as TFLite's delegate leaves them to TFLite.
bool lowerUnpack(NodeLowering& l) {
    const auto* options = l.params<TfLiteUnpackParams>();
    if (options == nullptr) return l.fail("missing UnpackOptions");
    if (l.outputCount() < 1 || !l.expectCounts(1, 1, l.outputCount())) return false;
    constexpr int64_t kLevel30 = 30;
    if (nnapiRuntimeFeatureLevel() < kLevel30) {
        return l.fail("UNPACK needs NNAPI feature level 30; the runtime implements " +
                      std::to_string(nnapiRuntimeFeatureLevel()));
    }
    const ElementType type = l.input(0).type;
    if (type != ElementType::FLOAT32 && type != ElementType::UINT8 && type != ElementType::INT8) {
        return l.fail(std::string("input type ") + elementTypeName(type) + " is not mapped to NNAPI (float32, uint8, int8)");
    }
    uint32_t input;
    if (!l.inputOperand(0, &input)) return false;
    const std::vector<uint32_t> dims = l.operand(input).dims;
    int32_t axis;
    if (!normalizeAxis(l, options->axis, dims.size(), &axis)) return false;
    if (static_cast<size_t>(axis) + 1 >= dims.size()) return l.fail("NNAPI has no form of UNPACK along the last axis");
    const uint32_t count = dims[static_cast<size_t>(axis)];
    if (count != l.outputCount() || (options->num != 0 && static_cast<uint32_t>(options->num) != count)) {
        return l.fail("num " + std::to_string(options->num) + " and " + std::to_string(l.outputCount()) +
                      " outputs must equal dimension " + std::to_string(axis) + " (" + std::to_string(count) + ")");
    }
    std::vector<uint32_t> part = dims;
    part.erase(part.begin() + axis);
    std::vector<uint32_t> merged = part;
    merged[static_cast<size_t>(axis)] *= count;
    std::vector<uint32_t> outputs;
    for (size_t i = 0; i < l.outputCount(); ++i) {
        uint32_t output;
        if (!l.outputOperand(i, &output)) return false;
        if (l.operand(output).dims != part) return l.fail("output " + std::to_string(i) + " does not have the unpacked shape");
        outputs.push_back(output);
    }
    const uint32_t joined = l.temporary(l.operand(input), merged);
    l.addOperation(ANEURALNETWORKS_RESHAPE, {input, l.vectorInt32(std::vector<int32_t>(merged.begin(), merged.end()))},
                   {joined});
    l.addOperation(ANEURALNETWORKS_SPLIT, {joined, l.scalarInt32(axis), l.scalarInt32(static_cast<int32_t>(count))},
                   outputs);
    return true;
}

bool lowerTranspose(NodeLowering& l) {
    if (!l.expectCounts(2, 2, 1)) return false;
    uint32_t input, output;
    std::vector<int32_t> permutation;
    if (!l.inputOperand(0, &input) || !l.constantInts(1, &permutation)) return false;
    if (permutation.size() != l.operand(input).dims.size()) return l.fail("permutation length does not match the input rank");
    if (!l.outputOperand(0, &output)) return false;
    l.addOperation(ANEURALNETWORKS_TRANSPOSE, {input, l.vectorInt32(permutation)}, {output});
    return true;
}

bool lowerBlockOperation(NodeLowering& l, int32_t nnapiType, int32_t blockSize) {
    if (!l.expectCounts(1, 1, 1)) return false;
    if (blockSize < 1) return l.fail("block size must be at least 1");
    uint32_t input, output;
    if (!l.inputOperand(0, &input) || !l.outputOperand(0, &output)) return false;
    l.addOperation(nnapiType, {input, l.scalarInt32(blockSize)}, {output});
    return true;
}

bool lowerSpaceToDepth(NodeLowering& l) {
    const auto* options = l.params<TfLiteSpaceToDepthParams>();
    if (options == nullptr) return l.fail("missing SpaceToDepthOptions");
    return lowerBlockOperation(l, ANEURALNETWORKS_SPACE_TO_DEPTH, options->block_size);
}

bool lowerDepthToSpace(NodeLowering& l) {
    const auto* options = l.params<TfLiteDepthToSpaceParams>();
    if (options == nullptr) return l.fail("missing DepthToSpaceOptions");
    return lowerBlockOperation(l, ANEURALNETWORKS_DEPTH_TO_SPACE, options->block_size);
}

// PAD and PADV2: paddings [rank, 2] as a constant; PADV2's value is a scalar constant of the
// input's type (quantized values travel as INT32, shifted like the tensor for int8 below
// feature level 30).
bool lowerPadCommon(NodeLowering& l, bool withValue) {
    if (!l.expectCounts(2, withValue ? 3 : 2, 1)) return false;
    uint32_t input, output;
    std::vector<int32_t> paddings;
    if (!l.inputOperand(0, &input) || !l.constantInts(1, &paddings)) return false;
    const size_t rank = l.operand(input).dims.size();
    if (paddings.size() != rank * 2) return l.fail("paddings must have shape [" + std::to_string(rank) + ", 2]");
    for (int32_t p : paddings) {
        if (p < 0) return l.fail("negative padding");
    }
    const uint32_t paddingOperand = l.tensorInt32(paddings, {static_cast<uint32_t>(rank), 2});
    if (!l.outputOperand(0, &output)) return false;
    if (!withValue || !l.hasInput(2)) {
        l.addOperation(ANEURALNETWORKS_PAD, {input, paddingOperand}, {output});
        return true;
    }
    const Tensor& valueTensor = l.input(2);
    if (!valueTensor.isConstant || valueTensor.dataSize != elementSize(valueTensor.type) ||
        valueTensor.type != l.input(0).type) {
        return l.fail("the pad value must be a scalar constant of the input's type");
    }
    uint32_t value;
    switch (valueTensor.type) {
        case ElementType::FLOAT32: {
            float v;
            std::memcpy(&v, valueTensor.data, 4);
            value = l.scalarFloat32(v);
            break;
        }
        case ElementType::UINT8: value = l.scalarInt32(valueTensor.data[0]); break;
        case ElementType::INT8:
            value = l.scalarInt32(static_cast<int8_t>(valueTensor.data[0]) + (l.signedInt8() ? 0 : 128));
            break;
        default: return l.fail(std::string("pad value of type ") + elementTypeName(valueTensor.type) + " is not supported");
    }
    l.addOperation(ANEURALNETWORKS_PAD_V2, {input, paddingOperand, value}, {output});
    return true;
}

bool lowerPad(NodeLowering& l) { return lowerPadCommon(l, false); }
bool lowerPadV2(NodeLowering& l) { return lowerPadCommon(l, true); }

bool lowerSlice(NodeLowering& l) {
    if (!l.expectCounts(3, 3, 1)) return false;
    uint32_t input, output;
    std::vector<int32_t> begin, size;
    if (!l.inputOperand(0, &input) || !l.constantInts(1, &begin) || !l.constantInts(2, &size)) return false;
    const size_t rank = l.operand(input).dims.size();
    if (begin.size() != rank || size.size() != rank) return l.fail("begin and size must have one value per dimension");
    if (!l.outputOperand(0, &output)) return false;
    l.addOperation(ANEURALNETWORKS_SLICE, {input, l.vectorInt32(begin), l.vectorInt32(size)}, {output});
    return true;
}

bool lowerStridedSlice(NodeLowering& l) {
    const auto* options = l.params<TfLiteStridedSliceParams>();
    if (options == nullptr) return l.fail("missing StridedSliceOptions");
    if (options->ellipsis_mask != 0 || options->new_axis_mask != 0) {
        return l.fail("ellipsis and new-axis masks are not supported by NNAPI");
    }
    if (options->offset) return l.fail("offset slices are not supported by NNAPI");
    if (!l.expectCounts(4, 4, 1)) return false;
    uint32_t input, output;
    std::vector<int32_t> begin, end, strides;
    if (!l.inputOperand(0, &input) || !l.constantInts(1, &begin) || !l.constantInts(2, &end) ||
        !l.constantInts(3, &strides)) {
        return false;
    }
    const size_t rank = l.operand(input).dims.size();
    if (begin.size() != rank || end.size() != rank || strides.size() != rank) {
        return l.fail("begin, end and strides must have one value per dimension");
    }
    if (!l.outputOperand(0, &output)) return false;
    l.addOperation(ANEURALNETWORKS_STRIDED_SLICE,
                   {input, l.vectorInt32(begin), l.vectorInt32(end), l.vectorInt32(strides),
                    l.scalarInt32(options->begin_mask), l.scalarInt32(options->end_mask),
                    l.scalarInt32(options->shrink_axis_mask)},
                   {output});
    return true;
}

}  // namespace lowerings::reshaping

}  // namespace nnemu::tflite
