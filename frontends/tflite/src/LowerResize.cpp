// RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR -> the NNAPI operations of the same name, as
// TensorFlow Lite's NNAPI delegate (2.21) maps them: the output size from the output tensor (the
// size input must be constant and agree with it); RESIZE_BILINEAR gets no layout operand unless
// it needs the flags, RESIZE_NEAREST_NEIGHBOR always gets NHWC; align_corners and
// half_pixel_centers, NNAPI inputs from feature level 30, are added only when one is set, and
// refused on a runtime below that level or when both are set.
#include <android/NeuralNetworks.h>

#include "LoweringList.h"
#include "RuntimeLevel.h"

namespace nnemu::tflite {
namespace lowerings::resize {

constexpr int64_t kLevel30 = 30;

bool lowerResize(NodeLowering& l, int32_t nnapiType, bool alignCorners, bool halfPixelCenters) {
    const bool flags = alignCorners || halfPixelCenters;
    // NNAPI's operation fails at execution with both (TFLite's delegate would still hand it over;
    // the tools' CPU kernel runs it instead).
    if (alignCorners && halfPixelCenters) return l.fail("NNAPI refuses align_corners together with half_pixel_centers");
    if (flags && nnapiRuntimeFeatureLevel() < kLevel30) {
        return l.fail(std::string(alignCorners ? "align_corners" : "half_pixel_centers") +
                      "=true needs NNAPI feature level 30; the runtime implements " +
                      std::to_string(nnapiRuntimeFeatureLevel()));
    }
    if (!l.expectCounts(1, 2, 1)) return false;
    uint32_t input, output;
    if (!l.inputOperand(0, &input)) return false;
    if (l.operand(input).dims.size() != 4) return l.fail("input must have rank 4");
    if (!l.outputOperand(0, &output)) return false;
    const std::vector<uint32_t> dims = l.operand(output).dims;
    if (dims.size() != 4) return l.fail("output must have rank 4");
    // The size input must be constant (TFLite's delegate refuses a computed one) and agree with
    // the output tensor.
    if (!l.hasInput(1) || !l.input(1).isConstant) return l.fail("the size input must be constant");
    {
        std::vector<int32_t> size;
        if (!l.constantInts(1, &size)) return false;
        if (size.size() != 2 || size[0] != static_cast<int32_t>(dims[1]) || size[1] != static_cast<int32_t>(dims[2])) {
            return l.fail("the size input does not match the output shape");
        }
    }
    std::vector<uint32_t> inputs{input, l.scalarInt32(static_cast<int32_t>(dims[2])),
                                 l.scalarInt32(static_cast<int32_t>(dims[1]))};
    if (flags || nnapiType == ANEURALNETWORKS_RESIZE_NEAREST_NEIGHBOR) inputs.push_back(l.scalarBool(false));
    if (flags) {
        inputs.push_back(l.scalarBool(alignCorners));
        inputs.push_back(l.scalarBool(halfPixelCenters));
    }
    l.addOperation(nnapiType, inputs, {output});
    return true;
}

bool lowerResizeBilinear(NodeLowering& l) {
    const auto* options = l.params<TfLiteResizeBilinearParams>();
    return lowerResize(l, ANEURALNETWORKS_RESIZE_BILINEAR, options && options->align_corners,
                       options && options->half_pixel_centers);
}

bool lowerResizeNearest(NodeLowering& l) {
    const auto* options = l.params<TfLiteResizeNearestNeighborParams>();
    return lowerResize(l, ANEURALNETWORKS_RESIZE_NEAREST_NEIGHBOR, options && options->align_corners,
                       options && options->half_pixel_centers);
}

}  // namespace lowerings::resize

}  // namespace nnemu::tflite
