// Reference kernels of AXIS_ALIGNED_BBOX_TRANSFORM, BOX_WITH_NMS_LIMIT and GENERATE_PROPOSALS.
// The arithmetic and the selections live in hal/Detection.h, shared with the signatures that
// size the data-dependent outputs; every type computes in float on dequantized values.
#include <any>
#include <cstdint>
#include <vector>

#include "nnemu/cpu/Kernels.h"
#include "nnemu/hal/Detection.h"
#include "KernelList.h"

namespace nnemu::cpu {
namespace {

using hal::detection::Box;
using hal::detection::Detection;

void writeBox(OperandView& output, size_t row, const Box& box) {
    hal::detection::writeValue(output, row * 4, box.x1);
    hal::detection::writeValue(output, row * 4 + 1, box.y1);
    hal::detection::writeValue(output, row * 4 + 2, box.x2);
    hal::detection::writeValue(output, row * 4 + 3, box.y2);
}

// The selection prepare() left behind, or a fresh one when the kernel runs on its own.
template <typename Select>
bool preparedSelection(OperationContext& context, Select select, std::vector<Detection>* detections) {
    if (auto* prepared = std::any_cast<std::vector<Detection>>(&context.prepared)) {
        *detections = std::move(*prepared);
        context.prepared.reset();
        return true;
    }
    return select(context, detections);
}

// Writes scores, boxes, optionally classes, and batch indexes of `detections` to the outputs
// in that order.
bool writeDetections(OperationContext& context, const std::vector<Detection>& detections, bool withClasses) {
    for (const auto& output : context.outputs) NN_RET_CHECK(!output.dims.empty() && output.dims[0] == detections.size());
    OperandView& classes = context.output(2);
    OperandView& batches = context.output(withClasses ? 3 : 2);
    for (size_t i = 0; i < detections.size(); ++i) {
        hal::detection::writeValue(context.output(0), i, detections[i].score);
        writeBox(context.output(1), i, detections[i].box);
        if (withClasses) classes.as<int32_t>()[i] = detections[i].classId;
        batches.as<int32_t>()[i] = detections[i].batch;
    }
    return true;
}

}  // namespace

bool kernels::axisAlignedBboxTransform(OperationContext& context) {
    std::vector<float> rois, deltas, imageInfo;
    NN_RET_CHECK(hal::detection::readValues(context.input(0), &rois));
    NN_RET_CHECK(hal::detection::readValues(context.input(1), &deltas));
    NN_RET_CHECK(hal::detection::readValues(context.input(3), &imageInfo));
    const OperandView& batchIndex = context.input(2);
    const uint64_t numRois = batchIndex.elements();
    const uint64_t numBatches = imageInfo.size() / 2;
    if (numRois == 0) return true;
    NN_RET_CHECK(rois.size() == numRois * 4 && deltas.size() % (numRois * 4) == 0);
    NN_RET_CHECK(batchIndex.data != nullptr && numBatches <= UINT32_MAX);
    NN_RET_CHECK(hal::detection::batchIndexesInRange(batchIndex, static_cast<uint32_t>(numBatches)));
    const uint64_t numClasses = deltas.size() / (numRois * 4);
    OperandView& output = context.output(0);
    NN_RET_CHECK(output.elements() == deltas.size());
    for (uint64_t i = 0; i < numRois; ++i) {
        const auto batch = static_cast<size_t>(batchIndex.as<int32_t>()[i]);
        const Box roi = hal::detection::boxAt(rois, i);
        for (uint64_t c = 0; c < numClasses; ++c) {
            const size_t row = i * numClasses + c;
            writeBox(output, row, hal::detection::transformBox(roi, &deltas[row * 4], imageInfo[batch * 2],
                                                               imageInfo[batch * 2 + 1]));
        }
    }
    return true;
}

bool kernels::boxWithNmsLimit(OperationContext& context) {
    std::vector<Detection> detections;
    NN_RET_CHECK(preparedSelection(context, hal::detection::selectBoxesWithNmsLimit, &detections));
    return writeDetections(context, detections, true);
}

bool kernels::generateProposals(OperationContext& context) {
    std::vector<Detection> proposals;
    NN_RET_CHECK(preparedSelection(context, hal::detection::selectProposals, &proposals));
    return writeDetections(context, proposals, false);
}

}  // namespace nnemu::cpu
