// Comparisons (EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS, LESS_EQUAL) and the logical
// operators (LOGICAL_AND, LOGICAL_OR, LOGICAL_NOT) -> the NNAPI operations of the same name.
// Comparisons broadcast and compare real values, so quantized inputs may differ in scale (the
// int8 -> uint8 shift keeps real values); the output is always a bool tensor.
#include <android/NeuralNetworks.h>

#include "LoweringList.h"

namespace nnemu::tflite {
namespace lowerings::comparison {

bool boolOutput(NodeLowering& l, uint32_t* output) {
    if (!l.outputOperand(0, output)) return false;
    if (l.operand(*output).type != ANEURALNETWORKS_TENSOR_BOOL8) return l.fail("the output must be a bool tensor");
    return true;
}

bool lowerComparison(NodeLowering& l, int32_t nnapiType) {
    if (!l.expectCounts(2, 2, 1)) return false;
    uint32_t a, b, output;
    if (!l.sameTypeInputs(&a, &b)) return false;
    if (!boolOutput(l, &output)) return false;
    l.addOperation(nnapiType, {a, b}, {output});
    return true;
}

bool lowerLogical(NodeLowering& l, int32_t nnapiType, size_t inputs) {
    if (!l.expectCounts(inputs, inputs, 1)) return false;
    std::vector<uint32_t> operands;
    for (size_t i = 0; i < inputs; ++i) {
        uint32_t input;
        if (!l.inputOperand(i, &input)) return false;
        if (l.operand(input).type != ANEURALNETWORKS_TENSOR_BOOL8) return l.fail("inputs must be bool tensors");
        operands.push_back(input);
    }
    uint32_t output;
    if (!boolOutput(l, &output)) return false;
    l.addOperation(nnapiType, operands, {output});
    return true;
}

bool lowerEqual(NodeLowering& l) { return lowerComparison(l, ANEURALNETWORKS_EQUAL); }
bool lowerNotEqual(NodeLowering& l) { return lowerComparison(l, ANEURALNETWORKS_NOT_EQUAL); }
bool lowerGreater(NodeLowering& l) { return lowerComparison(l, ANEURALNETWORKS_GREATER); }
bool lowerGreaterEqual(NodeLowering& l) { return lowerComparison(l, ANEURALNETWORKS_GREATER_EQUAL); }
bool lowerLess(NodeLowering& l) { return lowerComparison(l, ANEURALNETWORKS_LESS); }
bool lowerLessEqual(NodeLowering& l) { return lowerComparison(l, ANEURALNETWORKS_LESS_EQUAL); }
bool lowerLogicalAnd(NodeLowering& l) { return lowerLogical(l, ANEURALNETWORKS_LOGICAL_AND, 2); }
bool lowerLogicalOr(NodeLowering& l) { return lowerLogical(l, ANEURALNETWORKS_LOGICAL_OR, 2); }
bool lowerLogicalNot(NodeLowering& l) { return lowerLogical(l, ANEURALNETWORKS_LOGICAL_NOT, 1); }

}  // namespace lowerings::comparison

}  // namespace nnemu::tflite
