// RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR -> the NNAPI operations of the same name, with
// the output size taken from the output tensor. align_corners and half_pixel_centers only exist
// in NNAPI from feature level 30, so they cannot be mapped here.
#include <android/NeuralNetworks.h>

#include "LoweringList.h"

namespace nnemu::tflite {
namespace lowerings::resize {

bool lowerResize(NodeLowering& l, int32_t nnapiType, bool alignCorners, bool halfPixelCenters) {
    if (alignCorners) return l.fail("align_corners=true is not supported by NNAPI at feature level 29");
    if (halfPixelCenters) return l.fail("half_pixel_centers=true is not supported by NNAPI at feature level 29");
    if (!l.expectCounts(1, 2, 1)) return false;
    uint32_t input, output;
    if (!l.inputOperand(0, &input)) return false;
    if (l.operand(input).dims.size() != 4) return l.fail("input must have rank 4");
    if (!l.outputOperand(0, &output)) return false;
    const std::vector<uint32_t> dims = l.operand(output).dims;
    if (dims.size() != 4) return l.fail("output must have rank 4");
    // The size input, when constant, must agree with the output tensor.
    if (l.hasInput(1) && l.input(1).isConstant) {
        std::vector<int32_t> size;
        if (!l.constantInts(1, &size)) return false;
        if (size.size() != 2 || size[0] != static_cast<int32_t>(dims[1]) || size[1] != static_cast<int32_t>(dims[2])) {
            return l.fail("the size input does not match the output shape");
        }
    }
    l.addOperation(nnapiType,
                   {input, l.scalarInt32(static_cast<int32_t>(dims[2])), l.scalarInt32(static_cast<int32_t>(dims[1])),
                    l.scalarBool(false)},
                   {output});
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
