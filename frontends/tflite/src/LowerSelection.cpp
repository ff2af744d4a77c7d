// Operators that pick elements: SELECT (and SELECT_V2 without broadcasting), GATHER, TOPK_V2,
// ARG_MAX and ARG_MIN -> the NNAPI operations of the same name. Axes and k must be constants;
// forms TFLite's delegate does not map at API level 29 but NNAPI can express stay on the CPU.
#include <android/NeuralNetworks.h>

#include "LoweringList.h"

namespace nnemu::tflite {
namespace lowerings::selection {

bool isValueType(int32_t type) {
    return type == ANEURALNETWORKS_TENSOR_FLOAT32 || type == ANEURALNETWORKS_TENSOR_INT32 ||
           isQuant8Asymm(type);
}

bool valueInput(NodeLowering& l, size_t i, uint32_t* operand) {
    if (!l.inputOperand(i, operand)) return false;
    if (!isValueType(l.operand(*operand).type)) {
        return l.fail(std::string("input type ") + nnapiTypeName(l.operand(*operand).type) + " is not supported");
    }
    return true;
}

// A constant single integer input (axis, k), int32 or int64.
bool constantScalar(NodeLowering& l, size_t i, const char* what, int32_t* value) {
    std::vector<int32_t> values;
    if (!l.constantInts(i, &values)) return false;
    if (values.size() != 1) return l.fail(std::string(what) + " must be a single value");
    *value = values[0];
    return true;
}

bool normalizedAxis(NodeLowering& l, int32_t axis, size_t rank, int32_t* normalized) {
    const auto r = static_cast<int32_t>(rank);
    if (axis < -r || axis >= r) return l.fail("axis " + std::to_string(axis) + " out of range for rank " + std::to_string(rank));
    *normalized = axis < 0 ? axis + r : axis;
    return true;
}

bool lowerSelectCommon(NodeLowering& l, bool broadcastingForm) {
    if (!l.expectCounts(3, 3, 1)) return false;
    uint32_t condition, a, b, output;
    if (!l.inputOperand(0, &condition) || !valueInput(l, 1, &a) || !valueInput(l, 2, &b)) return false;
    if (l.operand(condition).type != ANEURALNETWORKS_TENSOR_BOOL8) return l.fail("the condition must be a bool tensor");
    if (l.operand(a).type != l.operand(b).type) return l.fail("the two value inputs differ in type");
    if (!l.outputOperand(0, &output)) return false;
    const std::vector<uint32_t> dims = l.operand(output).dims;
    if (l.operand(condition).dims != dims || l.operand(a).dims != dims || l.operand(b).dims != dims) {
        return l.fail("condition and values of different shapes (broadcasting) have no NNAPI SELECT form at feature "
                      "level 29");
    }
    if (broadcastingForm) l.keepOnCpu();   // the delegate maps SELECT only
    l.addOperation(ANEURALNETWORKS_SELECT, {condition, a, b}, {output});
    return true;
}

bool lowerSelect(NodeLowering& l) { return lowerSelectCommon(l, false); }
bool lowerSelectV2(NodeLowering& l) { return lowerSelectCommon(l, true); }

bool lowerGather(NodeLowering& l) {
    const auto* options = l.params<TfLiteGatherParams>();
    if (options != nullptr && options->batch_dims != 0) return l.fail("batch_dims is not supported by NNAPI GATHER");
    if (!l.expectCounts(2, 2, 1)) return false;
    uint32_t input, indices, output;
    if (!valueInput(l, 0, &input) || !l.inputOperand(1, &indices)) return false;
    if (l.operand(indices).type != ANEURALNETWORKS_TENSOR_INT32) return l.fail("indices must be int32");
    if (l.input(1).shape.empty()) return l.fail("a scalar index (0-dimensional positions) is not supported by NNAPI");
    int32_t axis;
    if (!normalizedAxis(l, options != nullptr ? options->axis : 0, l.operand(input).dims.size(), &axis)) return false;
    if (!l.outputOperand(0, &output)) return false;
    // The delegate maps float, int32 and uint8 values with int32 positions.
    if (l.input(0).type == ElementType::INT8 || l.input(1).type != ElementType::INT32) l.keepOnCpu();
    l.addOperation(ANEURALNETWORKS_GATHER, {input, l.scalarInt32(axis), indices}, {output});
    return true;
}

bool lowerTopK(NodeLowering& l) {
    if (!l.expectCounts(2, 2, 2)) return false;
    uint32_t input, values, indices;
    int32_t k;
    if (!valueInput(l, 0, &input) || !constantScalar(l, 1, "k", &k)) return false;
    const uint32_t depth = l.operand(input).dims.back();
    if (k < 1 || static_cast<uint32_t>(k) > depth) {
        return l.fail("k = " + std::to_string(k) + " is outside [1, " + std::to_string(depth) + "]");
    }
    if (!l.outputOperand(0, &values) || !l.outputOperand(1, &indices)) return false;
    if (l.operand(indices).type != ANEURALNETWORKS_TENSOR_INT32) return l.fail("the indices output must be int32");
    if (l.input(1).type != ElementType::INT32) l.keepOnCpu();   // the delegate wants an int32 k
    l.addOperation(ANEURALNETWORKS_TOPK_V2, {input, l.scalarInt32(k)}, {values, indices});
    return true;
}

bool lowerArgMinMax(NodeLowering& l, int32_t nnapiType, bool optionSaysInt64) {
    if (!l.expectCounts(2, 2, 1)) return false;
    if (optionSaysInt64 || l.output(0).type == ElementType::INT64) {
        return l.fail("int64 output is not expressible in NNAPI at feature level 29 (ARGMAX/ARGMIN write int32)");
    }
    uint32_t input, output;
    int32_t axis;
    if (!valueInput(l, 0, &input) || !constantScalar(l, 1, "the axis", &axis)) return false;
    const size_t rank = l.input(0).shape.size();
    if (rank < 2) return l.fail("a rank-" + std::to_string(rank) + " input gives a scalar, which NNAPI cannot output");
    if (!normalizedAxis(l, axis, rank, &axis)) return false;
    if (!l.outputOperand(0, &output)) return false;
    if (l.operand(output).type != ANEURALNETWORKS_TENSOR_INT32) return l.fail("the output must be int32");
    l.addOperation(nnapiType, {input, l.scalarInt32(axis)}, {output});
    return true;
}

bool lowerArgMax(NodeLowering& l) {
    const auto* options = l.params<TfLiteArgMaxParams>();
    return lowerArgMinMax(l, ANEURALNETWORKS_ARGMAX, options != nullptr && options->output_type == kTfLiteInt64);
}

bool lowerArgMin(NodeLowering& l) {
    const auto* options = l.params<TfLiteArgMinParams>();
    return lowerArgMinMax(l, ANEURALNETWORKS_ARGMIN, options != nullptr && options->output_type == kTfLiteInt64);
}

}  // namespace lowerings::selection

}  // namespace nnemu::tflite
