// Box decoding and selection: AXIS_ALIGNED_BBOX_TRANSFORM, BOX_WITH_NMS_LIMIT,
// GENERATE_PROPOSALS and DETECTION_POSTPROCESSING.
//
// Types: all-F32 or all-F16 (float scalars FLOAT16 with F16), or a quantized form where boxes
// are Q16A with scale 0.125 and zero point 0 (anchors of GENERATE_PROPOSALS Q16S with scale
// 0.125), scores and deltas Q8 or Q8S (one of the two throughout), and float scalars FLOAT32. DETECTION_POSTPROCESSING is float
// only. Box tensors hold [x1, y1, x2, y2] rows. The output length of BOX_WITH_NMS_LIMIT and
// GENERATE_PROPOSALS depends on the data: prepare runs the selection (hal/Detection.h) and
// leaves it in context.prepared for the kernel.
#include "nnemu/hal/Detection.h"
#include "nnemu/hal/Operations.h"
#include "SignatureList.h"

namespace nnemu::hal {
namespace {

using detection::Detection;

using detection::hasBoxQuantization;

bool isFloatTensor(OperandType type) {
    return type == OperandType::TENSOR_FLOAT32 || type == OperandType::TENSOR_FLOAT16;
}

OperandType floatScalarFor(OperandType tensorType) {
    return tensorType == OperandType::TENSOR_FLOAT16 ? OperandType::FLOAT16 : OperandType::FLOAT32;
}

bool scalarsAre(const OperationContext& context, std::initializer_list<uint32_t> inputs, OperandType type) {
    for (uint32_t i : inputs) NN_RET_CHECK(context.inputType(i) == type);
    return true;
}

// Output dims of a data-dependent selection of `count` boxes: [count] for scores, classes and
// batch indexes, [count, 4] for boxes.
void setSelectionDims(OperationContext& context, size_t count, std::initializer_list<uint32_t> boxOutputs) {
    const auto n = static_cast<uint32_t>(count);
    for (auto& output : context.outputs) output.dims = {n};
    for (uint32_t i : boxOutputs) context.output(i).dims = {n, 4};
}

}  // namespace

bool signatures::validateBboxTransform(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {4}, 1));
    const OperandType type = context.inputType(0);
    if (isFloatTensor(type)) {
        NN_RET_CHECK(context.inputType(1) == type && context.inputType(3) == type);
        NN_RET_CHECK(context.output(0).type == type);
    } else {
        NN_RET_CHECK(hasBoxQuantization(context.input(0), OperandType::TENSOR_QUANT16_ASYMM));
        NN_RET_CHECK(isQuant8Asymm(context.inputType(1)));
        NN_RET_CHECK(hasBoxQuantization(context.input(3), OperandType::TENSOR_QUANT16_ASYMM));
        NN_RET_CHECK(hasBoxQuantization(context.output(0), OperandType::TENSOR_QUANT16_ASYMM));
    }
    NN_RET_CHECK(context.inputType(2) == OperandType::TENSOR_INT32);
    for (uint32_t i : {0u, 1u, 3u}) NN_RET_CHECK(rankIsOrUnknown(context.input(i), 2));
    NN_RET_CHECK(rankIsOrUnknown(context.input(2), 1));
    return true;
}

bool signatures::prepareBboxTransform(OperationContext& context) {
    const OperandView& rois = context.input(0);
    const OperandView& deltas = context.input(1);
    const OperandView& batchIndex = context.input(2);
    const OperandView& imageInfo = context.input(3);
    NN_RET_CHECK(rois.rank() == 2 && deltas.rank() == 2 && batchIndex.rank() == 1 && imageInfo.rank() == 2);
    const uint32_t numRois = rois.dim(0);
    NN_RET_CHECK(rois.dim(1) == 4 && deltas.dim(0) == numRois && batchIndex.dim(0) == numRois);
    NN_RET_CHECK(deltas.dim(1) > 0 && deltas.dim(1) % 4 == 0 && imageInfo.dim(1) == 2);
    NN_RET_CHECK(detection::batchIndexesInRange(batchIndex, imageInfo.dim(0)));
    context.output(0).dims = {numRois, deltas.dim(1)};
    return true;
}

bool signatures::validateBoxWithNmsLimit(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {9}, 4));
    const OperandType type = context.inputType(0);
    if (isFloatTensor(type)) {
        NN_RET_CHECK(context.inputType(1) == type);
        NN_RET_CHECK(context.output(0).type == type && context.output(1).type == type);
    } else {
        NN_RET_CHECK(isQuant8Asymm(type));
        NN_RET_CHECK(hasBoxQuantization(context.input(1), OperandType::TENSOR_QUANT16_ASYMM));
        NN_RET_CHECK(context.output(0).type == type);
        NN_RET_CHECK(hasBoxQuantization(context.output(1), OperandType::TENSOR_QUANT16_ASYMM));
    }
    NN_RET_CHECK(scalarsAre(context, {3, 6, 7, 8}, floatScalarFor(type)));
    NN_RET_CHECK(scalarsAre(context, {4, 5}, OperandType::INT32));
    NN_RET_CHECK(context.inputType(2) == OperandType::TENSOR_INT32);
    NN_RET_CHECK(context.output(2).type == OperandType::TENSOR_INT32);
    NN_RET_CHECK(context.output(3).type == OperandType::TENSOR_INT32);
    NN_RET_CHECK(rankIsOrUnknown(context.input(0), 2) && rankIsOrUnknown(context.input(1), 2));
    NN_RET_CHECK(rankIsOrUnknown(context.input(2), 1));
    return true;
}

bool signatures::prepareBoxWithNmsLimit(OperationContext& context) {
    std::vector<Detection> detections;
    NN_RET_CHECK(detection::selectBoxesWithNmsLimit(context, &detections));
    setSelectionDims(context, detections.size(), {1});
    context.prepared = std::move(detections);
    return true;
}

bool signatures::validateGenerateProposals(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {11}, 3));
    const OperandType type = context.inputType(0);
    if (isFloatTensor(type)) {
        for (uint32_t i : {1u, 2u, 3u}) NN_RET_CHECK(context.inputType(i) == type);
    } else {
        NN_RET_CHECK(isQuant8Asymm(type));
        NN_RET_CHECK(context.inputType(1) == type);
        NN_RET_CHECK(hasBoxQuantization(context.input(2), OperandType::TENSOR_QUANT16_SYMM));
        NN_RET_CHECK(hasBoxQuantization(context.input(3), OperandType::TENSOR_QUANT16_ASYMM));
        NN_RET_CHECK(hasBoxQuantization(context.output(1), OperandType::TENSOR_QUANT16_ASYMM));
    }
    NN_RET_CHECK(context.output(0).type == type && context.output(1).type == context.inputType(3));
    NN_RET_CHECK(context.output(2).type == OperandType::TENSOR_INT32);
    NN_RET_CHECK(scalarsAre(context, {4, 5, 8, 9}, floatScalarFor(type)));
    NN_RET_CHECK(scalarsAre(context, {6, 7}, OperandType::INT32));
    NN_RET_CHECK(context.inputType(10) == OperandType::BOOL);
    NN_RET_CHECK(rankIsOrUnknown(context.input(0), 4) && rankIsOrUnknown(context.input(1), 4));
    NN_RET_CHECK(rankIsOrUnknown(context.input(2), 2) && rankIsOrUnknown(context.input(3), 2));
    return true;
}

bool signatures::prepareGenerateProposals(OperationContext& context) {
    std::vector<Detection> proposals;
    NN_RET_CHECK(detection::selectProposals(context, &proposals));
    setSelectionDims(context, proposals.size(), {1});
    context.prepared = std::move(proposals);
    return true;
}

bool signatures::validateDetectionPostprocessing(const OperationContext& context) {
    NN_RET_CHECK(checkCounts(context, {14}, 4));
    const OperandType type = context.inputType(0);
    NN_RET_CHECK(isFloatTensor(type));
    NN_RET_CHECK(context.inputType(1) == type && context.inputType(2) == type);
    NN_RET_CHECK(scalarsAre(context, {3, 4, 5, 6, 11, 12}, floatScalarFor(type)));
    NN_RET_CHECK(scalarsAre(context, {7, 13}, OperandType::BOOL));
    NN_RET_CHECK(scalarsAre(context, {8, 9, 10}, OperandType::INT32));
    NN_RET_CHECK(context.output(0).type == type && context.output(1).type == type);
    NN_RET_CHECK(context.output(2).type == OperandType::TENSOR_INT32);
    NN_RET_CHECK(context.output(3).type == OperandType::TENSOR_INT32);
    NN_RET_CHECK(rankIsOrUnknown(context.input(0), 3) && rankIsOrUnknown(context.input(1), 3));
    NN_RET_CHECK(rankIsOrUnknown(context.input(2), 2));
    return true;
}

bool signatures::prepareDetectionPostprocessing(OperationContext& context) {
    const OperandView& scores = context.input(0);
    const OperandView& deltas = context.input(1);
    const OperandView& anchors = context.input(2);
    NN_RET_CHECK(scores.rank() == 3 && deltas.rank() == 3 && anchors.rank() == 2);
    const uint32_t batches = scores.dim(0);
    const uint32_t numAnchors = scores.dim(1);
    NN_RET_CHECK(deltas.dim(0) == batches && deltas.dim(1) == numAnchors && deltas.dim(2) >= 4);
    NN_RET_CHECK(anchors.dim(0) == numAnchors && anchors.dim(1) == 4);
    for (uint32_t i : {3u, 4u, 5u, 6u}) NN_RET_CHECK(context.scalar<float>(i) > 0.0f);
    const auto maxDetections = context.scalar<int32_t>(8);
    NN_RET_CHECK(maxDetections > 0);
    if (context.scalar<bool>(7)) {
        NN_RET_CHECK(context.scalar<int32_t>(10) > 0);  // maxNumDetectionsPerClass
    } else {
        NN_RET_CHECK(context.scalar<int32_t>(9) > 0);  // maxClassesPerDetection
    }
    const auto n = static_cast<uint32_t>(maxDetections);
    context.output(0).dims = {batches, n};
    context.output(1).dims = {batches, n, 4};
    context.output(2).dims = {batches, n};
    context.output(3).dims = {batches};
    return true;
}

}  // namespace nnemu::hal
