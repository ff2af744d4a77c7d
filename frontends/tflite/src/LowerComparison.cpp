// Comparisons (EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS, LESS_EQUAL) and the logical
// operators (LOGICAL_AND, LOGICAL_OR, LOGICAL_NOT) -> the NNAPI operations of the same name.
// Comparisons broadcast and compare real values, so quantized inputs may differ in scale (the
// int8 -> uint8 shift keeps real values); the output is always a bool tensor.
#include <android/NeuralNetworks.h>

#include "NodeLowering.h"

namespace nnemu::tflite {
namespace {

bool boolOutput(NodeLowering& l, uint32_t* output) {
    if (!l.outputOperand(0, output)) return false;
    if (l.operand(*output).type != ANEURALNETWORKS_TENSOR_BOOL8) return l.fail("the output must be a bool tensor");
    return true;
}

bool lowerComparison(NodeLowering& l, int32_t nnapiType) {
    if (!l.expectCounts(2, 2, 1)) return false;
    uint32_t a, b, output;
    if (!l.inputOperand(0, &a) || !l.inputOperand(1, &b)) return false;
    if (l.operand(a).type != l.operand(b).type) {
        return l.fail(std::string("input types differ (") + nnapiTypeName(l.operand(a).type) + ", " +
                      nnapiTypeName(l.operand(b).type) + ")");
    }
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

}  // namespace

void addComparisonLowerings(LoweringTable& table) {
    table.add(fb::BuiltinOperator_EQUAL, lowerEqual);
    table.add(fb::BuiltinOperator_NOT_EQUAL, lowerNotEqual);
    table.add(fb::BuiltinOperator_GREATER, lowerGreater);
    table.add(fb::BuiltinOperator_GREATER_EQUAL, lowerGreaterEqual);
    table.add(fb::BuiltinOperator_LESS, lowerLess);
    table.add(fb::BuiltinOperator_LESS_EQUAL, lowerLessEqual);
    table.add(fb::BuiltinOperator_LOGICAL_AND, lowerLogicalAnd);
    table.add(fb::BuiltinOperator_LOGICAL_OR, lowerLogicalOr);
    table.add(fb::BuiltinOperator_LOGICAL_NOT, lowerLogicalNot);
}

}  // namespace nnemu::tflite
