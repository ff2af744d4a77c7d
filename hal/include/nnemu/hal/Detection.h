// Detection arithmetic shared by the signatures in hal/operations, which need it to know
// data-dependent output sizes, and the reference kernels in driver/cpu/kernels: tensor values
// as real numbers, box decoding, intersection over union, the NMS variants, and the whole
// selections of BOX_WITH_NMS_LIMIT and GENERATE_PROPOSALS. Everything computes in float;
// quantized operands are dequantized on the way in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "nnemu/hal/Operations.h"

namespace nnemu::hal::detection {

// Every element of a F32, F16, Q8 (asymm, unsigned or signed), Q16 (symm or asymm) or I32
// tensor as a real value. False for another type or when the data is missing or too short.
bool readValues(const OperandView& operand, std::vector<float>* values);
// Stores a real value into element i of a F32, F16, Q8 (either) or Q16 tensor; quantized types
// round half away from zero and saturate.
void writeValue(OperandView& operand, size_t i, float value);

// Quantized box tensors are `type` (Q16A, or Q16S for anchors) with scale 0.125, zero point 0.
bool hasBoxQuantization(const OperandView& operand, OperandType type);

// Every batch index, when its data is known, selects one of `batches` images.
bool batchIndexesInRange(const OperandView& batchIndex, uint32_t batches);

// Every [x1, y1, x2, y2] row of `rois`, when its data is known, is finite with x1 <= x2 and
// y1 <= y2.
bool roisWellFormed(const OperandView& rois);

// An axis-aligned box by its corners.
struct Box {
    float x1 = 0.0f, y1 = 0.0f, x2 = 0.0f, y2 = 0.0f;
    float width() const { return x2 - x1; }
    float height() const { return y2 - y1; }
};

// The box stored at values[4 * index] as x1, y1, x2, y2.
Box boxAt(const std::vector<float>& values, size_t index);

// 0 when the boxes do not overlap or both are empty.
float intersectionOverUnion(const Box& a, const Box& b);

// AXIS_ALIGNED_BBOX_TRANSFORM's decoding: delta = (dx, dy, dw, dh) moves the centre of `roi` by
// (dx, dy) times its size and scales its width and height by exp(dw) and exp(dh); the result is
// clipped to [0, imageWidth] x [0, imageHeight].
Box transformBox(const Box& roi, const float* delta, float imageHeight, float imageWidth);

enum class NmsKernel : int32_t { HARD = 0, LINEAR = 1, GAUSSIAN = 2 };

struct NmsParams {
    NmsKernel kernel = NmsKernel::HARD;
    float iouThreshold = 0.0f;  // hard and linear kernels
    float sigma = 1.0f;         // gaussian kernel
    float scoreThreshold = 0.0f;  // soft kernels drop a box once its decayed score falls below
    int32_t maxKept = -1;         // negative: unlimited
};

struct Candidate {
    Box box;
    float score = 0.0f;
    uint32_t id = 0;  // the caller's reference to where the box came from
};

// Non-maximum suppression over the candidates of one class, greedy in decreasing score. The
// hard kernel removes every box whose IoU with a kept one reaches the threshold; the soft
// kernels instead multiply its score by (1 - IoU, when IoU reaches the threshold) or
// exp(-IoU^2 / sigma). Returns the kept candidates in the order they were chosen (so their
// scores never increase), soft kernels with their decayed scores. Equal scores keep input order.
std::vector<Candidate> nonMaxSuppression(std::vector<Candidate> candidates, const NmsParams& params);

// One box an operation outputs.
struct Detection {
    Box box;
    float score = 0.0f;
    int32_t classId = 0;
    int32_t batch = 0;
};

// BOX_WITH_NMS_LIMIT's selection from the operation's inputs: per run of equal batch indexes
// and per class except class 0 (background), the boxes scoring at least the score threshold
// go through NMS; then each batch keeps its maxDetections best boxes (negative: all), ordered
// by class, then by decreasing score. False when the inputs are inconsistent.
bool selectBoxesWithNmsLimit(const OperationContext& context, std::vector<Detection>* detections);

// GENERATE_PROPOSALS' selection from the operation's inputs: every anchor is moved to every
// feature-map position (strides in image pixels), decoded with its delta and clipped to the
// image; per batch the preNms best (non-positive: all) that are at least minSize wide and high
// go through hard NMS, keeping at most postNms (non-positive: all) in decreasing score order.
// classId is 0. False when the inputs are inconsistent.
bool selectProposals(const OperationContext& context, std::vector<Detection>* proposals);

}  // namespace nnemu::hal::detection
