// HARD_SWISH, LEAKY_RELU, ELU and SQUARED_DIFFERENCE as TensorFlow Lite's NNAPI delegate (2.21)
// maps them at the runtime's feature level:
//   HARD_SWISH         -> HARD_SWISH (float32, uint8, int8; one operation from level 30; below it
//                         the delegate composes MUL/ADD, which is not done here: refused)
//   LEAKY_RELU         -> PRELU with a one-element alpha constant (float32, uint8, int8; a
//                         quantized alpha is the value 1 with scale alpha)
//   ELU                -> ELU with alpha 1 (float32, level 30)
//   SQUARED_DIFFERENCE -> SUB then MUL of the difference by itself (float32; int32 from level 30)
// TFLite's delegate also composes quantized SQUARED_DIFFERENCE through a re-quantized
// difference, which loses precision: that form is refused here so the tools' CPU kernel (TFLite's
// exact arithmetic) runs it.
#include <android/NeuralNetworks.h>

#include "LoweringList.h"
#include "RuntimeLevel.h"

namespace nnemu::tflite {
namespace lowerings::activation {

constexpr int64_t kLevel30 = 30;

bool atLevel30(NodeLowering& l, const char* what) {
    const int64_t level = nnapiRuntimeFeatureLevel();
    if (level >= kLevel30) return true;
    return l.fail(std::string(what) + " needs NNAPI feature level 30; the runtime implements " + std::to_string(level));
}

bool floatOrQuant8(ElementType type) {
    return type == ElementType::FLOAT32 || type == ElementType::UINT8 || type == ElementType::INT8;
}

bool typeRefused(NodeLowering& l, ElementType type, const char* allowed) {
    return l.fail(std::string("input type ") + elementTypeName(type) + " is not mapped to NNAPI (" + allowed + ")");
}

bool lowerHardSwish(NodeLowering& l) {
    if (!l.expectCounts(1, 1, 1)) return false;
    if (!floatOrQuant8(l.input(0).type)) return typeRefused(l, l.input(0).type, "float32, uint8, int8");
    if (!atLevel30(l, "HARD_SWISH as one operation")) return false;
    uint32_t input, output;
    if (!l.inputOperand(0, &input) || !l.outputOperand(0, &output)) return false;
    l.addOperation(ANEURALNETWORKS_HARD_SWISH, {input}, {output});
    return true;
}

bool lowerLeakyRelu(NodeLowering& l) {
    if (!l.expectCounts(1, 1, 1)) return false;
    const auto* options = l.params<TfLiteLeakyReluParams>();
    if (options == nullptr) return l.fail("missing LeakyReluOptions");
    if (!floatOrQuant8(l.input(0).type)) return typeRefused(l, l.input(0).type, "float32, uint8, int8");
    uint32_t input, output;
    if (!l.inputOperand(0, &input) || !l.outputOperand(0, &output)) return false;
    const NnOperand& in = l.operand(input);
    uint32_t alpha = 0;
    if (in.type == ANEURALNETWORKS_TENSOR_FLOAT32) {
        alpha = l.tensorFloat32({options->alpha}, {1});
    } else {
        // The quantized alpha is 1 * scale: NNAPI needs a positive scale.
        if (!(options->alpha > 0)) {
            return l.fail("a quantized LEAKY_RELU needs alpha > 0 for NNAPI (alpha " + std::to_string(options->alpha) + ")");
        }
        alpha = l.quantizedConstant(in.type, 1, options->alpha, 0);
    }
    l.addOperation(ANEURALNETWORKS_PRELU, {input, alpha}, {output});
    return true;
}

bool lowerElu(NodeLowering& l) {
    if (!l.expectCounts(1, 1, 1)) return false;
    if (l.input(0).type != ElementType::FLOAT32) return typeRefused(l, l.input(0).type, "float32");
    if (!atLevel30(l, "ELU")) return false;
    uint32_t input, output;
    if (!l.inputOperand(0, &input) || !l.outputOperand(0, &output)) return false;
    l.addOperation(ANEURALNETWORKS_ELU, {input, l.scalarFloat32(1.0f)}, {output});
    return true;
}

bool lowerSquaredDifference(NodeLowering& l) {
    if (!l.expectCounts(2, 2, 1)) return false;
    const ElementType type = l.input(0).type;
    if (type == ElementType::UINT8 || type == ElementType::INT8) {
        return l.fail("quantized SQUARED_DIFFERENCE is composed by TFLite's delegate through a re-quantized "
                      "difference (inexact); the tools run TFLite's exact kernel instead");
    }
    if (type != ElementType::FLOAT32 && type != ElementType::INT32) return typeRefused(l, type, "float32, int32");
    if (type == ElementType::INT32 && !atLevel30(l, "int32 SUB and MUL")) return false;
    if (l.input(0).shape.size() > 4 || l.input(1).shape.size() > 4) return l.fail("NNAPI SUB takes ranks up to 4");
    uint32_t a, b, output;
    if (!l.inputOperand(0, &a) || !l.inputOperand(1, &b) || !l.outputOperand(0, &output)) return false;
    if (l.operand(a).type != l.operand(b).type) return l.fail("input types differ");
    const std::vector<uint32_t> dims = l.operand(output).dims;
    const uint32_t difference = l.temporaryOfType(l.operand(output).type, dims, 0.0f, 0);
    l.addOperation(ANEURALNETWORKS_SUB, {a, b, l.scalarInt32(ANEURALNETWORKS_FUSED_NONE)}, {difference});
    l.addOperation(ANEURALNETWORKS_MUL, {difference, difference, l.scalarInt32(ANEURALNETWORKS_FUSED_NONE)}, {output});
    return true;
}

}  // namespace lowerings::activation

}  // namespace nnemu::tflite
