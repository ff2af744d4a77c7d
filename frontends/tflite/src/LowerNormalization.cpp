// SOFTMAX, L2_NORMALIZATION and LOCAL_RESPONSE_NORMALIZATION -> the NNAPI operations of the
// same name.
#include <android/NeuralNetworks.h>

#include "LoweringList.h"

namespace nnemu::tflite {
namespace lowerings::normalization {

bool lowerSoftmax(NodeLowering& l) {
    const auto* options = l.params<TfLiteSoftmaxParams>();
    if (options == nullptr) return l.fail("missing SoftmaxOptions");
    if (!(options->beta > 0)) return l.fail("beta must be positive");
    if (!l.expectCounts(1, 1, 1)) return false;
    uint32_t input, output;
    if (!l.inputOperand(0, &input) || !l.outputOperand(0, &output)) return false;
    l.addOperation(ANEURALNETWORKS_SOFTMAX, {input, l.scalarFloat32(options->beta)}, {output});
    return true;
}

bool lowerL2Normalization(NodeLowering& l) {
    const auto* options = l.params<TfLiteL2NormParams>();
    if (options != nullptr && options->activation != kTfLiteActNone) {
        return l.fail("a fused activation is not supported by NNAPI L2_NORMALIZATION");
    }
    if (!l.expectCounts(1, 1, 1)) return false;
    uint32_t input, output;
    if (!l.inputOperand(0, &input) || !l.outputOperand(0, &output)) return false;
    l.addOperation(ANEURALNETWORKS_L2_NORMALIZATION, {input}, {output});
    return true;
}

bool lowerLocalResponseNormalization(NodeLowering& l) {
    const auto* options = l.params<TfLiteLocalResponseNormParams>();
    if (options == nullptr) return l.fail("missing LocalResponseNormalizationOptions");
    if (!l.expectCounts(1, 1, 1)) return false;
    uint32_t input, output;
    if (!l.inputOperand(0, &input) || !l.outputOperand(0, &output)) return false;
    l.addOperation(ANEURALNETWORKS_LOCAL_RESPONSE_NORMALIZATION,
                   {input, l.scalarInt32(options->radius), l.scalarFloat32(options->bias),
                    l.scalarFloat32(options->alpha), l.scalarFloat32(options->beta)},
                   {output});
    return true;
}

}  // namespace lowerings::normalization

}  // namespace nnemu::tflite
