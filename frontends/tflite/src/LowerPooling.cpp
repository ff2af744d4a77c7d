// AVERAGE_POOL_2D, MAX_POOL_2D and L2_POOL_2D -> the NNAPI pooling operations, implicit padding.
#include <android/NeuralNetworks.h>

#include "LoweringList.h"

namespace nnemu::tflite {
namespace lowerings::pooling {

bool lowerPool(NodeLowering& l, int32_t nnapiType) {
    const auto* options = l.params<TfLitePoolParams>();
    if (options == nullptr) return l.fail("missing Pool2DOptions");
    if (!l.expectCounts(1, 1, 1)) return false;
    if (options->padding != kTfLitePaddingSame && options->padding != kTfLitePaddingValid) return l.fail("unknown padding");
    if (options->stride_width < 1 || options->stride_height < 1) return l.fail("strides must be at least 1");
    if (options->filter_width < 1 || options->filter_height < 1) return l.fail("filter size must be at least 1");
    uint32_t input, output, fuse;
    if (!l.inputOperand(0, &input)) return false;
    if (l.operand(input).dims.size() != 4) return l.fail("input must have rank 4");
    if (!l.fuseCode(options->activation, &fuse)) return false;
    if (!l.outputOperand(0, &output)) return false;
    const int32_t padding =
            options->padding == kTfLitePaddingSame ? ANEURALNETWORKS_PADDING_SAME : ANEURALNETWORKS_PADDING_VALID;
    l.addOperation(nnapiType,
                   {input, l.scalarInt32(padding), l.scalarInt32(options->stride_width),
                    l.scalarInt32(options->stride_height), l.scalarInt32(options->filter_width),
                    l.scalarInt32(options->filter_height), fuse},
                   {output});
    return true;
}

bool lowerAveragePool(NodeLowering& l) { return lowerPool(l, ANEURALNETWORKS_AVERAGE_POOL_2D); }
bool lowerMaxPool(NodeLowering& l) { return lowerPool(l, ANEURALNETWORKS_MAX_POOL_2D); }
bool lowerL2Pool(NodeLowering& l) { return lowerPool(l, ANEURALNETWORKS_L2_POOL_2D); }

}  // namespace lowerings::pooling

}  // namespace nnemu::tflite
