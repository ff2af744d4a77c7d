// MEAN, SUM, REDUCE_MAX, REDUCE_MIN and REDUCE_PROD -> NNAPI MEAN (keep_dims as INT32) and
// REDUCE_* (keep_dims as BOOL); the axes must be a constant.
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
    const uint32_t keep = keepDimsIsBool ? l.scalarBool(keepDims) : l.scalarInt32(keepDims ? 1 : 0);
    l.addOperation(nnapiType, {input, l.vectorInt32(axes), keep}, {output});
    return true;
}

bool lowerMean(NodeLowering& l) { return lowerReduction(l, ANEURALNETWORKS_MEAN, false); }
bool lowerSum(NodeLowering& l) { return lowerReduction(l, ANEURALNETWORKS_REDUCE_SUM, true); }
bool lowerReduceMax(NodeLowering& l) { return lowerReduction(l, ANEURALNETWORKS_REDUCE_MAX, true); }
bool lowerReduceMin(NodeLowering& l) { return lowerReduction(l, ANEURALNETWORKS_REDUCE_MIN, true); }
bool lowerReduceProd(NodeLowering& l) { return lowerReduction(l, ANEURALNETWORKS_REDUCE_PROD, true); }

}  // namespace lowerings::reduction

}  // namespace nnemu::tflite
