// NON_MAX_SUPPRESSION_V4 and V5 (float32, as TFLite 2.21): boxes [n, 4] as (y1, x1, y2, x2) corners,
// scores [n], max_output_size (int32 scalar; the selected-index and, for V5, selected-score
// outputs have that many elements, sized at invoke when it is not constant, zero past the
// selection), iou_threshold, score_threshold and, for V5, soft_nms_sigma (Gaussian soft NMS when
// above 0). The candidates go through a max-heap by score exactly as TFLite's kernel pushes and
// pops them, so ties select the same boxes, and each candidate is compared with the boxes
// selected since it was last compared, newest first.
#include <algorithm>
#include <cmath>
#include <deque>
#include <queue>

#include "CpuKernelList.h"

namespace nnemu::tflite {
namespace kernels::non_max_suppression {

bool nmsCheck(const CpuKernelCall& call, bool* soft) {
    *soft = call.inputs.size() == 6;
    if (!call.expectCounts(*soft ? 6 : 5, *soft ? 6 : 5, *soft ? 3 : 2)) return false;
    const CpuOperand& boxes = call.in(0);
    const CpuOperand& scores = call.in(1);
    if (!call.expectType(boxes, {ElementType::FLOAT32}, "boxes") || !call.expectType(scores, {ElementType::FLOAT32}, "scores")) {
        return false;
    }
    if (boxes.rank() != 2 || boxes.shape()[1] != 4) return call.fail("boxes must have shape [num_boxes, 4]");
    if (scores.rank() != 1 || scores.shape()[0] != boxes.shape()[0]) return call.fail("scores must have shape [num_boxes]");
    if (!call.expectType(call.in(2), {ElementType::INT32}, "max_output_size")) return false;
    for (size_t i = 2; i < call.inputs.size(); ++i) {
        if (call.in(i).rank() != 0) return call.fail("max_output_size, the thresholds and sigma must be scalars");
        if (i > 2 && !call.expectType(call.in(i), {ElementType::FLOAT32}, "threshold")) return false;
    }
    const size_t count = call.outputs.size() - 1;   // the last output is the number selected
    for (size_t o = 0; o < call.outputs.size(); ++o) {
        const ElementType want = *soft && o == 1 ? ElementType::FLOAT32 : ElementType::INT32;
        if (call.out(o).type() != want) return call.fail("output " + std::to_string(o) + " has the wrong type");
    }
    if (!call.expectOutputShape(count, {})) return false;
    if (!call.in(2).known()) return true;
    const int32_t size = call.in(2).at<int32_t>(0);
    if (size < 0) return call.fail("max_output_size " + std::to_string(size) + " is negative");
    for (size_t o = 0; o < count; ++o) {
        if (!call.expectOutputShape(o, {size})) return false;
    }
    return true;
}

bool prepareNms(const CpuKernelCall& call) {
    bool soft = false;
    return nmsCheck(call, &soft);
}

// (y1, x1, y2, x2) of box i, in either corner order.
struct Box {
    float yMin, xMin, yMax, xMax;
};

Box boxAt(const CpuOperand& boxes, size_t i) {
    const float y1 = boxes.at<float>(i * 4), x1 = boxes.at<float>(i * 4 + 1);
    const float y2 = boxes.at<float>(i * 4 + 2), x2 = boxes.at<float>(i * 4 + 3);
    return {std::min(y1, y2), std::min(x1, x2), std::max(y1, y2), std::max(x1, x2)};
}

// Intersection over union in float, 0 when either box has no area (TFLite's order of operations).
float overlap(const Box& a, const Box& b) {
    const float areaA = (a.yMax - a.yMin) * (a.xMax - a.xMin);
    const float areaB = (b.yMax - b.yMin) * (b.xMax - b.xMin);
    if (areaA <= 0 || areaB <= 0) return 0.0f;
    const float height = std::max(std::min(a.yMax, b.yMax) - std::max(a.yMin, b.yMin), 0.0f);
    const float width = std::max(std::min(a.xMax, b.xMax) - std::max(a.xMin, b.xMin), 0.0f);
    const float intersection = height * width;
    return intersection / (areaA + areaB - intersection);
}

struct Candidate {
    int32_t index;
    float score;
    int32_t comparedUpTo;   // selections before this one were already compared with it
};

struct LowerScore {
    bool operator()(const Candidate& a, const Candidate& b) const { return a.score < b.score; }
};

bool runNms(const CpuKernelCall& call) {
    bool soft = false;
    if (!nmsCheck(call, &soft)) return false;
    const int32_t limit = call.in(2).at<int32_t>(0);
    if (limit < 0) return call.fail("max_output_size " + std::to_string(limit) + " is negative");
    const float iouThreshold = call.in(3).at<float>(0), scoreThreshold = call.in(4).at<float>(0);
    const float sigma = soft ? call.in(5).at<float>(0) : 0.0f;
    if (sigma < 0) return call.fail("invalid sigma value for soft NMS: " + std::to_string(sigma));
    for (size_t o = 0; o + 1 < call.outputs.size(); ++o) {
        if (!call.resizeOutput(o, {limit})) return false;
    }
    const CpuOperand& boxes = call.in(0);
    const CpuOperand& scores = call.in(1);
    const auto n = static_cast<int32_t>(scores.count());
    std::priority_queue<Candidate, std::deque<Candidate>, LowerScore> queue;
    for (int32_t i = 0; i < n; ++i) {
        const float score = scores.at<float>(static_cast<size_t>(i));
        if (score > scoreThreshold) queue.push({i, score, 0});
    }
    std::vector<int32_t> selected;
    std::vector<float> selectedScores;
    const auto wanted = static_cast<size_t>(std::min(static_cast<int32_t>(queue.size()), limit));
    const float scale = sigma > 0.0f ? static_cast<float>(-0.5 / sigma) : 0.0f;
    while (selected.size() < wanted && !queue.empty()) {
        Candidate candidate = queue.top();
        queue.pop();
        const float original = candidate.score;
        const Box box = boxAt(boxes, static_cast<size_t>(candidate.index));
        bool suppressed = false;
        for (auto j = static_cast<int32_t>(selected.size()) - 1; j >= candidate.comparedUpTo; --j) {
            const float iou = overlap(box, boxAt(boxes, static_cast<size_t>(selected[static_cast<size_t>(j)])));
            if (iou >= iouThreshold) {
                suppressed = true;
                break;
            }
            if (sigma > 0.0f) candidate.score = candidate.score * std::exp(scale * iou * iou);
            if (candidate.score <= scoreThreshold) break;
        }
        candidate.comparedUpTo = static_cast<int32_t>(selected.size());
        if (suppressed) continue;
        if (candidate.score == original) {
            selected.push_back(candidate.index);
            selectedScores.push_back(candidate.score);
        }
        if (candidate.score > scoreThreshold) queue.push(candidate);
    }
    for (size_t k = 0; k < static_cast<size_t>(limit); ++k) {
        const bool chosen = k < selected.size();
        call.out(0).set<int32_t>(k, chosen ? selected[k] : 0);
        if (soft) call.out(1).set<float>(k, chosen ? selectedScores[k] : 0.0f);
    }
    call.out(call.outputs.size() - 1).set<int32_t>(0, static_cast<int32_t>(selected.size()));
    return true;
}

}  // namespace kernels::non_max_suppression

}  // namespace nnemu::tflite
