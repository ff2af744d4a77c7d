// Region-of-interest operations: ROI_ALIGN, ROI_POOLING and HEATMAP_MAX_KEYPOINT.
//
// Feature maps are [batches, H, W, C] (NCHW when the layout operand is true). Regions are
// [x1, y1, x2, y2] rows in image pixels, with an I32 batch index each for ROI_ALIGN and
// ROI_POOLING. Types: F32 or F16 throughout (float scalars FLOAT16 with F16), or Q8 or Q8S
// feature maps with Q16A boxes of scale 0.125 and zero point 0 (float scalars FLOAT32).
#include <cmath>

#include "nnemu/hal/Detection.h"
#include "nnemu/hal/Operations.h"
#include "nnemu/hal/ShapeUtils.h"
#include "SignatureList.h"

namespace nnemu::hal {
namespace {

using detection::hasBoxQuantization;

// The feature map (input 0) and boxes (input 1) types agree: same float type, or Q8 with boxes.
bool featureAndBoxTypes(const OperationContext& context, const OperandView& boxes) {
    const OperandType type = context.inputType(0);
    if (isQuant8Asymm(type)) {
        return hasBoxQuantization(boxes, OperandType::TENSOR_QUANT16_ASYMM);
    }
    NN_RET_CHECK(type == OperandType::TENSOR_FLOAT32 || type == OperandType::TENSOR_FLOAT16);
    return boxes.type == type;
}

OperandType floatScalarFor(OperandType tensorType) {
    return tensorType == OperandType::TENSOR_FLOAT16 ? OperandType::FLOAT16 : OperandType::FLOAT32;
}

// ROI_ALIGN and ROI_POOLING: in, rois, batchIndex, outH, outW, heightRatio, widthRatio,
// [samplingH, samplingW,] layout.
bool validateRoiOperation(const OperationContext& context, uint32_t layoutIndex) {
    NN_RET_CHECK(checkCounts(context, {layoutIndex + 1}, 1));
    NN_RET_CHECK(featureAndBoxTypes(context, context.input(1)));
    NN_RET_CHECK(context.output(0).type == context.inputType(0));
    NN_RET_CHECK(context.inputType(2) == OperandType::TENSOR_INT32);
    const OperandType floatScalar = floatScalarFor(context.inputType(0));
    for (uint32_t i = 3; i < layoutIndex; ++i) {
        const bool ratio = i == 5 || i == 6;
        NN_RET_CHECK(context.inputType(i) == (ratio ? floatScalar : OperandType::INT32));
    }
    NN_RET_CHECK(context.inputType(layoutIndex) == OperandType::BOOL);
    NN_RET_CHECK(rankIsOrUnknown(context.input(0), 4) && rankIsOrUnknown(context.input(1), 2));
    NN_RET_CHECK(rankIsOrUnknown(context.input(2), 1) && rankIsOrUnknown(context.output(0), 4));
    return true;
}

bool prepareRoiOperation(OperationContext& context, uint32_t layoutIndex) {
    const OperandView& input = context.input(0);
    const OperandView& rois = context.input(1);
    const OperandView& batchIndex = context.input(2);
    NN_RET_CHECK(input.rank() == 4 && rois.rank() == 2 && batchIndex.rank() == 1);
    NN_RET_CHECK(rois.dim(1) == 4 && batchIndex.dim(0) == rois.dim(0));
    const auto outHeight = context.scalar<int32_t>(3);
    const auto outWidth = context.scalar<int32_t>(4);
    NN_RET_CHECK(outHeight > 0 && outWidth > 0);
    for (uint32_t i : {5u, 6u}) NN_RET_CHECK(context.scalar<float>(i) > 0.0f && std::isfinite(context.scalar<float>(i)));
    const bool nchw = layoutIsNchw(context, layoutIndex);
    const Image4 in = makeImage4(input.dims, nchw);
    NN_RET_CHECK(detection::batchIndexesInRange(batchIndex, in.batches));
    NN_RET_CHECK(detection::roisWellFormed(rois));
    context.output(0).dims = makeImage4(rois.dim(0), static_cast<uint32_t>(outHeight),
                                        static_cast<uint32_t>(outWidth), in.channels, nchw)
                                     .dims();
    return true;
}

}  // namespace

bool signatures::validateRoiAlign(const OperationContext& context) { return validateRoiOperation(context, 9); }

bool signatures::prepareRoiAlign(OperationContext& context) {
    NN_RET_CHECK(context.scalar<int32_t>(7) >= 0 && context.scalar<int32_t>(8) >= 0);  // 0 = adaptive
    return prepareRoiOperation(context, 9);
}

bool signatures::validateRoiPooling(const OperationContext& context) { return validateRoiOperation(context, 7); }

bool signatures::prepareRoiPooling(OperationContext& context) { return prepareRoiOperation(context, 7); }

// HEATMAP_MAX_KEYPOINT: heatmaps [boxes, size, size, keypoints], boxes [boxes, 4], layout;
// outputs scores [boxes, keypoints] (heatmap type) and keypoints [boxes, keypoints, 2] as
// (x, y) (box type).
bool signatures::validateHeatmapMaxKeypoint(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {3}, 2));
    NN_RET_CHECK(featureAndBoxTypes(context, context.input(1)));
    NN_RET_CHECK(context.inputType(2) == OperandType::BOOL);
    NN_RET_CHECK(context.output(0).type == context.inputType(0));
    NN_RET_CHECK(context.output(1).type == context.inputType(1));
    if (isQuant8Asymm(context.inputType(0))) {
        NN_RET_CHECK(hasBoxQuantization(context.output(1), OperandType::TENSOR_QUANT16_ASYMM));
    }
    NN_RET_CHECK(rankIsOrUnknown(context.input(0), 4) && rankIsOrUnknown(context.input(1), 2));
    return true;
}

bool signatures::prepareHeatmapMaxKeypoint(OperationContext& context) {
    const OperandView& heatmaps = context.input(0);
    const OperandView& boxes = context.input(1);
    NN_RET_CHECK(heatmaps.rank() == 4 && boxes.rank() == 2);
    const Image4 map = makeImage4(heatmaps.dims, layoutIsNchw(context, 2));
    NN_RET_CHECK(map.height == map.width && map.height >= 2);  // the fit needs a 3x3 neighbourhood
    NN_RET_CHECK(boxes.dim(0) == map.batches && boxes.dim(1) == 4);
    context.output(0).dims = {map.batches, map.channels};
    context.output(1).dims = {map.batches, map.channels, 2};
    return true;
}

}  // namespace nnemu::hal
