// MEAN, SUM, REDUCE_MAX, REDUCE_MIN and REDUCE_PROD -> NNAPI MEAN (keep_dims as INT32) and
// REDUCE_* (keep_dims as BOOL); the axes must be a constant, passed as written. An 8-bit MEAN
// whose output is quantized otherwise than its input becomes, as TFLite's NNAPI delegate lowers
// it, a MEAN into a temporary quantized as the input, then ADD of a one-element zero (scale 1,
// zero point 0) into the output, which requantizes.
#include <android/NeuralNetworks.h>

#include "LoweringList.h"

namespace nnemu::tflite {
namespace lowerings::reduction {

bool lowerReduction(NodeLowering& l, int32_t nnapiType, bool keepDimsIsBool) {
    const auto* options = l.params<TfLiteReducerParams>();
    const bool keepDims = options != nullptr && options->keep_dims;
    if (!l.expectCounts(2, 2, 1)) return false;
    uint32_t input, output;
    std::vector<int32_t> axes;
    if (!l.inputOperand(0, &input) || !l.reductionAxes(input, &axes)) return false;
    if (!l.outputOperand(0, &output)) return false;
    const NnOperand in = l.operand(input), out = l.operand(output);
    const bool requantize = nnapiType == ANEURALNETWORKS_MEAN && isQuant8Asymm(in.type) &&
                            (in.scale != out.scale || in.zeroPoint != out.zeroPoint);
    const uint32_t reduced = requantize ? l.temporary(in, out.dims) : output;
    const uint32_t keep = keepDimsIsBool ? l.scalarBool(keepDims) : l.scalarInt32(keepDims ? 1 : 0);
    l.addOperation(nnapiType, {input, l.vectorInt32(axes), keep}, {reduced});
    if (requantize) {
        const uint32_t zero = l.quantizedConstant(in.type, 0, 1.0f, 0);
        l.addOperation(ANEURALNETWORKS_ADD, {reduced, zero, l.scalarInt32(ANEURALNETWORKS_FUSED_NONE)}, {output});
    }
    return true;
}

bool lowerMean(NodeLowering& l) { return lowerReduction(l, ANEURALNETWORKS_MEAN, false); }
bool lowerSum(NodeLowering& l) { return lowerReduction(l, ANEURALNETWORKS_REDUCE_SUM, true); }
bool lowerReduceMax(NodeLowering& l) { return lowerReduction(l, ANEURALNETWORKS_REDUCE_MAX, true); }
bool lowerReduceMin(NodeLowering& l) { return lowerReduction(l, ANEURALNETWORKS_REDUCE_MIN, true); }
bool lowerReduceProd(NodeLowering& l) { return lowerReduction(l, ANEURALNETWORKS_REDUCE_PROD, true); }

}  // namespace lowerings::reduction

}  // namespace nnemu::tflite
